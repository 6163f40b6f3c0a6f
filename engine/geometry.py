"""Square, hex and brick grids: neighbours through sides, distance, straight lines, arcs, sight.

Cells are ``(col, row)``, 0-based; row 0 is the top (north) and rows grow southwards. Drawing
coordinates (``centre``, ``corners``) have x to the right and y down; every cell is 1 wide:

- square: unit squares; cell (c, r) spans [c, c+1] x [r, r+1], centre (c + 0.5, r + 0.5).
- hex: pointy-top hexes, 1 wide across the flats, in redblobgames' "odd-r" offset layout (odd rows
  shoved right by half a hex). Circumradius R = 1/sqrt(3); centre (c + 0.5 + 0.5 * (r odd),
  R + 1.5 * R * r); row 0's top points touch y = 0.
- brick: 1 x 1 rectangles, odd rows shoved right by half a cell; centre (c + 0.5 + 0.5 * (r odd),
  r + 0.5). Same neighbours and distance as odd-r hexes, different shapes, so different angles
  (a brick's NE neighbour lies at atan2(1, 0.5) = 63.43 degrees, not 60) and different sight lines.

Angles are degrees in (-180, 180], measured the mathematical way with north up: E = 0, N = 90.

Internally the geometry is done in "lattice units" where every centre and corner has integer
coordinates (x doubled; y doubled, or for hexes scaled by 2/R). Scaling each axis by a positive
factor keeps which cells a segment meets and on which side of it they lie, and lets line() and
line_of_sight() decide exact ties (a line through a corner or along a side) with integer
arithmetic, identically on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

Cell = tuple[int, int]

GRID_KINDS: tuple[str, ...] = ("square", "hex", "brick")

# The catalogue's rules for each kind's conventions (how a cell's sides divide into front, flank
# and rear; the brick's shape), cited by a game's first event: they hold from its first order on.
GRID_RULES: dict[str, tuple[str, ...]] = {
    "square": ("grid.aspect",),
    "hex": ("grid.aspect",),
    "brick": ("grid.aspect", "grid.brick"),
}

# A unit faces one side of its cell. Listed counter-clockwise from east (north is row - 1).
FACINGS: dict[str, tuple[str, ...]] = {
    "square": ("E", "N", "W", "S"),
    "hex": ("E", "NE", "NW", "W", "SW", "SE"),
    "brick": ("E", "NE", "NW", "W", "SW", "SE"),
}

# (dcol, drow) per facing. Odd-r offsets depend on the row's parity (redblobgames' table).
_SQUARE_STEPS = {"E": (1, 0), "N": (0, -1), "W": (-1, 0), "S": (0, 1)}
_ODDR_STEPS = (
    {"E": (1, 0), "NE": (0, -1), "NW": (-1, -1), "W": (-1, 0), "SW": (-1, 1), "SE": (0, 1)},
    {"E": (1, 0), "NE": (1, -1), "NW": (0, -1), "W": (-1, 0), "SW": (0, 1), "SE": (1, 1)},
)
# The first _LINE cells straight ahead through each facing, as offsets from a cell on an even
# and on an odd row: straight() reads them instead of stepping one cell at a time.
_LINE = 8


def _line_offsets(steps_by_parity, facing: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    out = []
    for start in (0, 1):
        c, r, cells = 0, start, []
        for _ in range(_LINE):
            dc, dr = steps_by_parity[r & 1][facing]
            c, r = c + dc, r + dr
            cells.append((c, r - start))
        out.append(tuple(cells))
    return tuple(out)


_SQUARE_LINES = {f: _line_offsets((_SQUARE_STEPS, _SQUARE_STEPS), f) for f in FACINGS["square"]}
_ODDR_LINES = {f: _line_offsets(_ODDR_STEPS, f) for f in FACINGS["hex"]}

# The same steps in facings order, for around().
_SQUARE_AROUND = tuple(_SQUARE_STEPS[f] for f in FACINGS["square"])
_ODDR_AROUND = tuple(tuple(table[f] for f in FACINGS["hex"]) for table in _ODDR_STEPS)

_BRICK_NE = math.degrees(math.atan2(1.0, 0.5))  # brick centres: NE neighbour is (+0.5, -1) away
_FACING_ANGLES: dict[str, dict[str, float]] = {
    "square": {"E": 0.0, "N": 90.0, "W": 180.0, "S": -90.0},
    "hex": {"E": 0.0, "NE": 60.0, "NW": 120.0, "W": 180.0, "SW": -120.0, "SE": -60.0},
    "brick": {"E": 0.0, "NE": _BRICK_NE, "NW": 180.0 - _BRICK_NE, "W": 180.0,
              "SW": _BRICK_NE - 180.0, "SE": -_BRICK_NE},
}
# Real size of one lattice unit along y (x is always 1/2): hex lattice y unit is R/2.
_Y_UNIT = {"square": 0.5, "brick": 0.5, "hex": 1.0 / (2.0 * math.sqrt(3.0))}

_TOLERANCE = 1e-9  # degrees; arc boundaries are included

# Pairs of cells whose distance one grid remembers (a board's on-board pairs: 140 cells make
# 19,600) before the memo starts again: bounded memory even for off-board cells.
_DISTANCE_MEMO_LIMIT = 1 << 15


def oddr_to_cube(cell: Cell) -> tuple[int, int, int]:
    """Odd-r offset (col, row) -> cube (q, r, s) with q + r + s == 0 (redblobgames)."""
    col, row = cell
    q = col - (row - (row & 1)) // 2
    return (q, row, -q - row)


def cube_to_oddr(cube: tuple[int, int, int]) -> Cell:
    """Cube (q, r, s) -> odd-r offset (col, row); the inverse of oddr_to_cube."""
    q, r, s = cube
    if q + r + s != 0:
        raise ValueError(f"not a cube coordinate (q + r + s must be 0): {cube}")
    return (q + (r - (r & 1)) // 2, r)


class _Crossed(NamedTuple):
    """A cell whose interior the segment passes through, over k in [k_in, k_out]."""

    k_in: Fraction
    k_out: Fraction
    cell: Cell


class _Touched(NamedTuple):
    """A cell that only touches the segment (at a corner or along a side), over k in [lo, hi].

    side is -1 when the cell lies to the left of the direction of travel, +1 to the right.
    """

    side: int
    lo: int
    hi: int
    cell: Cell


@dataclass(frozen=True)
class Grid:
    """A width x height board of one kind. Pure: every method depends only on its arguments.

    Methods that take cells accept off-board cells too (step, distance, ... work on the infinite
    grid); only contains(), cells(), neighbours() and line_of_sight() look at the board's edges.
    """

    kind: str
    width: int
    height: int
    facings: tuple[str, ...] = field(init=False)
    # Derived from kind, kept for the hot paths (distance, step run millions of times a game).
    _square: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in GRID_KINDS:
            raise ValueError(
                f"unknown grid kind {self.kind!r}; use one of: {', '.join(GRID_KINDS)}")
        for name, value in (("width", self.width), ("height", self.height)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"grid {name} must be a positive whole number, got {value!r}")
        object.__setattr__(self, "facings", FACINGS[self.kind])
        object.__setattr__(self, "_square", self.kind == "square")
        # A cell's on-board neighbours, found once (no field: not compared, hashed or shown).
        object.__setattr__(self, "_near", {})
        # (a, b) -> distance on hexes and bricks, found once (see distance()).
        object.__setattr__(self, "_dist", {})

    # -- topology ----------------------------------------------------------------------------
    def contains(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def cells(self) -> list[Cell]:
        """All cells, row by row from the top, each row west to east."""
        return [(c, r) for r in range(self.height) for c in range(self.width)]

    def _check_facing(self, facing: str) -> None:
        if facing not in self.facings:
            raise ValueError(f"{facing!r} is not a side of a {self.kind} cell "
                             f"(use {', '.join(self.facings)})")

    def step(self, cell: Cell, facing: str) -> Cell:
        """The neighbour through side `facing` (may be off the board)."""
        table = _SQUARE_STEPS if self._square else _ODDR_STEPS[cell[1] & 1]
        try:
            dc, dr = table[facing]
        except (KeyError, TypeError):  # not a side of this kind of cell
            self._check_facing(facing)
            raise
        return (cell[0] + dc, cell[1] + dr)

    def opposite(self, facing: str) -> str:
        """The side opposite `facing` (E <-> W, NE <-> SW, ...)."""
        self._check_facing(facing)
        n = len(self.facings)
        return self.facings[(self.facings.index(facing) + n // 2) % n]

    def neighbours(self, cell: Cell) -> list[Cell]:
        """On-board cells sharing a side with `cell`, in facings order (a new list each call:
        the board never changes, so each cell's are found once; move generators ask for them
        hundreds of thousands of times a game)."""
        key = (cell[0], cell[1])  # a cell given as a list works too
        near = self._near.get(key)
        if near is None:
            near = tuple(n for n in (self.step(key, f) for f in self.facings)
                         if self.contains(n))
            self._near[key] = near
        return list(near)

    def facing_to(self, cell: Cell, neighbour: Cell) -> str | None:
        """The side of `cell` that touches `neighbour`, or None if they share no side."""
        return next((f for f in self.facings if self.step(cell, f) == neighbour), None)

    def distance(self, a: Cell, b: Cell) -> int:
        """Steps through sides (never corners): Manhattan on squares, cube distance otherwise.

        Bots and move generators ask this millions of times a sweep, mostly about the same few
        thousand pairs: on hexes and bricks (cube arithmetic, several times a dict look-up) each
        pair's answer is remembered on the grid (immutable, so always right); on squares the sum
        is already cheaper than the look-up."""
        if self._square:
            return abs(a[0] - b[0]) + abs(a[1] - b[1])
        memo = self._dist
        try:
            found = memo.get((a, b))
        except TypeError:  # a cell given as a list: not a key, just compute it
            return self._cube_distance(a, b)
        if found is None:
            if len(memo) >= _DISTANCE_MEMO_LIMIT:
                memo.clear()
            found = memo[a, b] = self._cube_distance(a, b)
        return found

    @staticmethod
    def _cube_distance(a: Cell, b: Cell) -> int:
        # oddr_to_cube inlined: dq, dr and ds = -dq - dr
        ar, br = a[1], b[1]
        dq = a[0] - (ar - (ar & 1)) // 2 - b[0] + (br - (br & 1)) // 2
        dr = ar - br
        return max(abs(dq), abs(dr), abs(dq + dr))

    def straight(self, cell: Cell, facing: str, n: int) -> list[Cell]:
        """The n cells entered moving straight ahead through `facing` (start excluded; may leave
        the board: the caller checks)."""
        if n < 0:
            raise ValueError(f"cannot move {n} cells")
        if n == 0:
            return []
        try:
            line = (_SQUARE_LINES if self._square else _ODDR_LINES)[facing]
        except (KeyError, TypeError):  # not a side of this kind of cell
            self._check_facing(facing)
            raise
        if n > _LINE:
            return self._straight(cell, facing, n)
        c, r = cell
        # the cells ahead are a fixed pattern of offsets, by the parity of the starting row
        return [(c + dc, r + dr) for dc, dr in line[r & 1][:n]]

    def _straight(self, cell: Cell, facing: str, n: int) -> list[Cell]:
        out = []
        for _ in range(n):
            cell = self.step(cell, facing)
            out.append(cell)
        return out

    def around(self, cell: Cell) -> tuple[Cell, ...]:
        """Every cell sharing a side with `cell`, on the board or not, in facings order: the
        cells at distance 1 (neighbours() keeps only the on-board ones)."""
        c, r = cell
        steps = _SQUARE_AROUND if self._square else _ODDR_AROUND[r & 1]
        return tuple([(c + dc, r + dr) for dc, dr in steps])

    # -- drawing coordinates -----------------------------------------------------------------
    def _lattice_centre(self, cell: Cell) -> tuple[int, int]:
        c, r = cell
        if self.kind == "square":
            return (2 * c + 1, 2 * r + 1)
        if self.kind == "brick":
            return (2 * c + 1 + (r & 1), 2 * r + 1)
        return (2 * c + 1 + (r & 1), 3 * r + 2)

    def _lattice_corners(self, cell: Cell) -> list[tuple[int, int]]:
        """Clockwise on screen: hexes from the upper-right corner, rectangles from the top left."""
        x, y = self._lattice_centre(cell)
        if self.kind == "hex":
            return [(x + 1, y - 1), (x + 1, y + 1), (x, y + 2), (x - 1, y + 1), (x - 1, y - 1),
                    (x, y - 2)]
        return [(x - 1, y - 1), (x + 1, y - 1), (x + 1, y + 1), (x - 1, y + 1)]

    def _real(self, point: tuple[int, int]) -> tuple[float, float]:
        return (point[0] / 2, point[1] * _Y_UNIT[self.kind])

    def centre(self, cell: Cell) -> tuple[float, float]:
        """Centre of the cell in drawing coordinates (x right, y down; cells are 1 wide)."""
        return self._real(self._lattice_centre(cell))

    def corners(self, cell: Cell) -> list[tuple[float, float]]:
        """The cell's polygon, clockwise on screen: hexes 6 points from the upper-right corner,
        squares and bricks 4 points from the top-left corner."""
        return [self._real(p) for p in self._lattice_corners(cell)]

    # -- angles, arcs, aspect ----------------------------------------------------------------
    def facing_angle(self, facing: str) -> float:
        """Direction of the neighbour through `facing` seen from the cell's centre (E 0, N 90)."""
        self._check_facing(facing)
        return _FACING_ANGLES[self.kind][facing]

    def bearing(self, a: Cell, b: Cell) -> float:
        """Direction of b's centre seen from a's centre, in (-180, 180] (E = 0, N = 90)."""
        if a == b:
            raise ValueError(f"a cell has no bearing from itself: {a}")
        (ax, ay), (bx, by) = self._lattice_centre(a), self._lattice_centre(b)
        return _offset_bearing(self.kind, bx - ax, ay - by)

    def angle_off(self, cell: Cell, facing: str, target: Cell) -> float:
        """How far (0..180 degrees) target's centre lies off the facing direction of `cell`."""
        return _degrees_apart(self.bearing(cell, target), self.facing_angle(facing))

    def in_arc(self, cell: Cell, facing: str, target: Cell, degrees: float = 90) -> bool:
        """True if target is in the fire arc (rule grid.arc, an INTERPRETATION): target's centre
        is at most degrees/2 off the facing direction, boundary included (1e-9 tolerance). On
        squares with 90 degrees this is the region between the 45-degree lines from the front
        corners: |sideways| <= ahead. A cell is never in its own arc.

        The answer depends only on the kind, the offset between the two centres (in lattice
        units), the facing and the arc, so it is found once per such offset (_in_arc_offset):
        bots ask it for every move they weigh, and the bearing's atan2 is the costly part."""
        if not 0 < degrees <= 360:
            raise ValueError(f"arc must be in (0, 360] degrees, got {degrees}")
        if target == cell:
            return False
        self._check_facing(facing)
        (ax, ay), (bx, by) = self._lattice_centre(cell), self._lattice_centre(target)
        return _in_arc_offset(self.kind, bx - ax, ay - by, facing, degrees)

    def aspect(self, cell: Cell, facing: str, other: Cell) -> str:
        """Which part of a unit at `cell` facing `facing` the adjacent cell `other` touches.

        Squares: the faced side is "front", the two sides beside it "flank", the opposite "rear".
        Hexes and bricks: the faced side and the two sides next to it are "front" (centres < 90
        degrees off the facing), the next two "flank" (90..150 degrees: 120 on hexes, 116.6 or
        126.9 on bricks), the opposite side "rear" (180).
        """
        side = self.facing_to(cell, other)
        if side is None:
            raise ValueError(f"{other} does not share a side with {cell}: aspect needs a neighbour")
        self._check_facing(facing)
        n = len(self.facings)
        k = (self.facings.index(side) - self.facings.index(facing)) % n
        k = min(k, n - k)  # 0 = faced side, n // 2 = opposite side
        if k == n // 2:
            return "rear"
        return "front" if k <= (n - 2) // 4 else "flank"

    # -- lines and sight ---------------------------------------------------------------------
    def _candidates(self, a: tuple[int, int], b: tuple[int, int]) -> list[Cell]:
        """Cells whose bounding box may meet the segment a-b (lattice units), with a margin."""
        (ax, ay), (bx, by) = a, b
        top, bottom = min(ay, by), max(ay, by)
        pitch, tall = (3, 4) if self.kind == "hex" else (2, 2)  # row r spans [pitch r, + tall]
        rows = range(-((tall - top) // pitch), bottom // pitch + 1)
        out = []
        for r in rows:
            y0, y1 = max(pitch * r, top), min(pitch * r + tall, bottom)
            if ay == by:
                xs = (ax, bx)
            else:
                xs = tuple(ax + (bx - ax) * (y - ay) / (by - ay) for y in (y0, y1))
            lo = math.floor((min(xs) - (r & 1) - 2) / 2) - 1  # col c spans x in [2c+o, 2c+o+2]
            hi = math.ceil((max(xs) - (r & 1)) / 2) + 1
            out.extend((c, r) for c in range(lo, hi + 1))
        return out

    def _trace(self, a: Cell, b: Cell) -> tuple[list[_Crossed], list[_Touched]]:
        """Every cell the segment between the centres of a and b meets, exactly.

        A point on the segment is A + k / |D|^2 * D (D = B - A), so 0 < k < |D|^2 is its open
        interior. Crossed cells (the segment enters their interior) come sorted along the segment.
        """
        A, B = self._lattice_centre(a), self._lattice_centre(b)
        dx, dy = B[0] - A[0], B[1] - A[1]
        end = dx * dx + dy * dy
        crossed: list[_Crossed] = []
        touched: list[_Touched] = []
        for cell in self._candidates(A, B):
            pts = self._lattice_corners(cell)
            # side < 0: corner left of the direction of travel (on screen, north up); 0: on the line
            sides = [dx * (y - A[1]) - dy * (x - A[0]) for x, y in pts]
            ks = [dx * (x - A[0]) + dy * (y - A[1]) for x, y in pts]
            lo, hi = min(sides), max(sides)
            if lo > 0 or hi < 0:
                continue
            if lo < 0 < hi:  # the line runs through the interior: where does it enter and leave?
                hits = []
                for i in range(len(pts)):
                    j = (i + 1) % len(pts)
                    if sides[i] == 0:
                        hits.append(Fraction(ks[i]))
                    elif sides[j] != 0 and (sides[i] < 0) != (sides[j] < 0):
                        hits.append(Fraction(ks[j] * sides[i] - ks[i] * sides[j],
                                             sides[i] - sides[j]))
                k_in, k_out = min(hits), max(hits)
                if k_in < end and k_out > 0:
                    crossed.append(_Crossed(k_in, k_out, cell))
            else:  # only touches the line, at a corner or along a side
                on = [k for k, s in zip(ks, sides) if s == 0]
                if max(on) > 0 and min(on) < end:
                    touched.append(_Touched(-1 if hi == 0 else 1, min(on), max(on), cell))
        crossed.sort()
        return crossed, touched

    def line(self, a: Cell, b: Cell) -> list[Cell]:
        """The cells a straight line from a's centre to b's centre passes, from a to b, each
        sharing a side with the next.

        Every cell whose interior the line crosses is listed. Where the line slips between two
        cells that share no side (through a corner, or exactly along a side), one of the two cells
        touched there is added: the one on the left of the direction of travel, unless it is off
        the board (then the right one). A corner merely grazed where the path does not need it is
        left out. Hence line(b, a) is line(a, b) reversed except at such ties, where it takes the
        other side. These are the cells that matter for line_of_sight().

        Length: distance + 1 on squares. On hexes and bricks it can be more: a segment between hex
        centres may zig-zag through cells off every shortest path (centres (0, 4) -> (1, 0) cross
        6 hexes at distance 4). redblobgames' hex line (distance + 1 sampled points) is a subset of
        this line, and equal to it whenever this line is that short.
        """
        if a == b:
            return [a]
        crossed, touched = self._trace(a, b)
        out = [crossed[0].cell]
        for prev, nxt in zip(crossed, crossed[1:]):
            if self.facing_to(prev.cell, nxt.cell) is None:
                gap = sorted((t.lo, t.cell, t.side) for t in touched
                             if t.lo <= nxt.k_in and t.hi >= prev.k_out)
                left = [c for _, c, side in gap if side < 0]
                right = [c for _, c, side in gap if side > 0]
                out.extend(left if left and all(map(self.contains, left)) else right)
            out.append(nxt.cell)
        return out

    def line_of_sight(self, a: Cell, b: Cell, blocks: Callable[[Cell], bool]) -> bool:
        """Rule grid.los (an INTERPRETATION): a sees b unless the segment joining their centres
        meets a blocking cell strictly between them.

        - The end cells a and b never block; `blocks` is only asked about on-board cells between.
        - A cell whose interior the segment crosses blocks on its own.
        - Where the segment passes exactly through a corner or runs along a side, it is blocked
          there only if the cells on BOTH sides of it block (a cell touching the line at a single
          corner, with open ground on the other side, does not block).
        - Off-board cells never block (so sight along the board's edge is never closed by them).
        Symmetric: line_of_sight(a, b) == line_of_sight(b, a).
        """
        if a == b:
            return True

        def blocking(cell: Cell) -> bool:
            return cell != a and cell != b and self.contains(cell) and bool(blocks(cell))

        crossed, touched = self._trace(a, b)
        if any(blocking(c.cell) for c in crossed):
            return False
        left = [t for t in touched if t.side < 0 and blocking(t.cell)]
        right = [t for t in touched if t.side > 0 and blocking(t.cell)]
        return not any(l.lo <= r.hi and r.lo <= l.hi for l in left for r in right)


def areas(grid: Grid, kinds: dict[Cell, str]) -> dict[Cell, int]:
    """Cell -> area number: cells of one kind that touch (a side in common) share a number,
    and no two areas do. A flood fill from the cells in sorted order, so the same board always
    gets the same numbers (terrain features: one wood of three cells is one feature)."""
    numbered: dict[Cell, int] = {}
    number = -1
    for start in sorted(kinds):
        if start in numbered:
            continue
        number, todo = number + 1, [start]
        numbered[start] = number
        while todo:
            cell = todo.pop()
            for n in grid.neighbours(cell):
                if n not in numbered and kinds.get(n) == kinds[start]:
                    numbered[n] = number
                    todo.append(n)
    return numbered


def _offset_bearing(kind: str, dx: int, dy: int) -> float:
    """Grid.bearing of a centre dx lattice units east and dy north of another's."""
    return math.degrees(math.atan2(dy * _Y_UNIT[kind], dx / 2))  # no -0.0


def _degrees_apart(bearing: float, towards: float) -> float:
    """How far (0..180 degrees) ``bearing`` lies off the direction ``towards``."""
    d = abs(bearing - towards) % 360.0
    return min(d, 360.0 - d)


@lru_cache(maxsize=1 << 16)
def _in_arc_offset(kind: str, dx: int, dy: int, facing: str, degrees: float) -> bool:
    """Grid.in_arc for a target dx lattice units east and dy north of the cell's centre, by
    the functions bearing() and angle_off() use (a pure function of its arguments, so
    remembered; a board of 14 x 10 has some 3,500 offsets and facings)."""
    off = _degrees_apart(_offset_bearing(kind, dx, dy), _FACING_ANGLES[kind][facing])
    return off <= degrees / 2 + _TOLERANCE


def make_grid(kind: str, width: int, height: int) -> Grid:
    """A grid of `kind` (one of GRID_KINDS); ValueError for an unknown kind or a bad size.

    Grids are immutable, so one per size is shared by every game on it (_shared_grid: a sweep of
    games on one board keeps the grid's memo of distances warm instead of starting afresh). Only
    exact ints are looked up there: True == 1 as a key, but True is no width."""
    if type(kind) is str and type(width) is int and type(height) is int:
        return _shared_grid(kind, width, height)
    return Grid(kind, width, height)


@lru_cache(maxsize=8)
def _shared_grid(kind: str, width: int, height: int) -> Grid:
    return Grid(kind, width, height)
