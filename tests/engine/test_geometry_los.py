"""Straight lines between cells and line of sight (rule grid.los), on all three grid kinds.

Two independent oracles check the exact implementation:
- redblobgames' hex line (cube lerp + cube_round, nudged a hair to the left of the direction of
  travel) must give exactly Grid.line on hexes;
- a brute-force walk along the segment in drawing coordinates (floats) finds, at every corner
  crossing and between crossings, the cell just left and just right of the segment. Sight is
  blocked iff at some point both of them block (grid.los INTERPRETATION); line() must hold one of
  the two at every point and nothing else.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warlog.engine.geometry import GRID_KINDS, make_grid, oddr_to_cube

SIZE = 20
GRIDS = {kind: make_grid(kind, SIZE, SIZE) for kind in GRID_KINDS}
SMALL = {kind: make_grid(kind, 9, 9) for kind in GRID_KINDS}
WIDE = {kind: make_grid(kind, SIZE + 4, SIZE + 4) for kind in GRID_KINDS}
kinds = pytest.mark.parametrize("kind", GRID_KINDS)
cells = st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))
small_cells = st.tuples(st.integers(0, 8), st.integers(0, 8))
fast = settings(max_examples=200, deadline=None)


def adjacent(g, a, b):
    return g.facing_to(a, b) is not None


# -- brute-force oracle ------------------------------------------------------------------------
def side_cells(g, a, b, delta=1e-6):
    """[(t, left, right)] at every point where the segment a-b meets a cell edge, and midway
    between such points: the cells just left and just right of the segment (north up)."""
    (ax, ay), (bx, by) = g.centre(a), g.centre(b)
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length
    nx, ny = uy, -ux  # left of the direction of travel on a screen whose y points down
    lo_c, hi_c = min(a[0], b[0]) - 2, max(a[0], b[0]) + 2
    lo_r, hi_r = min(a[1], b[1]) - 2, max(a[1], b[1]) + 2
    near = []
    for r in range(lo_r, hi_r + 1):
        for c in range(lo_c, hi_c + 1):
            cx, cy = g.centre((c, r))
            t = max(0.0, min(1.0, ((cx - ax) * dx + (cy - ay) * dy) / length**2))
            if math.dist((cx, cy), (ax + t * dx, ay + t * dy)) < 1.0:
                near.append((c, r))
    ts = {0.0, 1.0}
    for cell in near:
        poly = g.corners(cell)
        for (px, py), (qx, qy) in zip(poly, poly[1:] + poly[:1]):
            ex, ey = qx - px, qy - py
            den = dx * ey - dy * ex
            if abs(den) < 1e-12:
                continue
            t = ((px - ax) * ey - (py - ay) * ex) / den
            s = ((px - ax) * dy - (py - ay) * dx) / den
            if 0 < t < 1 and -1e-12 <= s <= 1 + 1e-12:
                ts.add(t)
    ts = sorted(ts)
    points = ts[1:-1] + [(t0 + t1) / 2 for t0, t1 in zip(ts, ts[1:])]

    def locate(x, y):
        found = [c for c in near if inside(g.corners(c), (x, y))]
        assert len(found) == 1, (x, y, found)
        return found[0]

    out = []
    for t in sorted(points):
        px, py = ax + t * dx + delta**2 * ux, ay + t * dy + delta**2 * uy
        out.append((t, locate(px + delta * nx, py + delta * ny),
                    locate(px - delta * nx, py - delta * ny)))
    return out


def inside(poly, p):
    """Strictly inside a convex polygon listed clockwise on screen."""
    return all((x1 - x0) * (p[1] - y0) - (y1 - y0) * (p[0] - x0) > 0
               for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))


def oracle_sight(g, a, b, blocked):
    bad = lambda c: c not in (a, b) and g.contains(c) and c in blocked  # noqa: E731
    return not any(bad(left) and bad(right) for _, left, right in side_cells(g, a, b))


def crossed_cells(sides):
    """Cells the segment passes through the interior of (the same cell on both sides)."""
    return {left for _, left, right in sides if left == right}


# -- line(): fixed cases -----------------------------------------------------------------------
def test_square_lines():
    g = GRIDS["square"]
    assert g.line((3, 3), (3, 3)) == [(3, 3)]
    assert g.line((0, 0), (2, 1)) == [(0, 0), (1, 0), (1, 1), (2, 1)]  # crosses y=1 mid-side
    # through the corners at (1, 1) and (2, 2): the cell left of travel (NE of the corner) is taken
    assert g.line((0, 0), (2, 2)) == [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)]
    assert g.line((2, 2), (0, 0)) == [(2, 2), (1, 2), (1, 1), (0, 1), (0, 0)]
    assert g.line((0, 0), (5, 3)) == [(0, 0), (1, 0), (1, 1), (2, 1), (3, 1), (3, 2), (4, 2),
                                      (4, 3), (5, 3)]


def test_hex_lines():
    g = GRIDS["hex"]
    assert g.line((0, 0), (5, 3)) == [(0, 0), (1, 0), (1, 1), (2, 1), (3, 2), (4, 2), (4, 3),
                                      (5, 3)]
    # straight down a column the line runs along the side between (0, 1) and (1, 1)
    assert g.line((1, 0), (1, 2)) == [(1, 0), (1, 1), (1, 2)]  # going south, left is east
    assert g.line((1, 2), (1, 0)) == [(1, 2), (0, 1), (1, 0)]
    assert g.line((0, 0), (0, 2)) == [(0, 0), (0, 1), (0, 2)]
    assert g.line((0, 2), (0, 0)) == [(0, 2), (0, 1), (0, 0)]  # left of travel is off the board
    # nearly north: (0.5, 7R) -> (1.5, R) crosses (0, 2) and (1, 2) either side of their
    # shared side's midpoint: 6 cells for distance 4 (redblob's sampled line skips (1, 2))
    assert g.distance((0, 4), (1, 0)) == 4
    assert g.line((0, 4), (1, 0)) == [(0, 4), (0, 3), (0, 2), (1, 2), (0, 1), (1, 0)]
    # (0, 2) -> (4, 1) passes exactly through the corner of (1, 1), (1, 2), (2, 2): (1, 1) is
    # only grazed and the path does not need it
    assert g.line((0, 2), (4, 1)) == [(0, 2), (1, 2), (2, 2), (2, 1), (3, 1), (4, 1)]


def test_brick_lines():
    g = GRIDS["brick"]
    # centres (0.5, 0.5) -> (4.0, 1.5): row 0 up to x = 2.25, then row 1, whose bricks start at
    # x = 0.5 + c: 6 cells, one more than distance + 1 (bricks are not hexes)
    assert g.distance((0, 0), (3, 1)) == 4
    assert g.line((0, 0), (3, 1)) == [(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (3, 1)]
    # (0.5, 0.5) -> (2.5, 2.5) passes the T-junctions (1, 1) and (2, 2): (1, 0) and (1, 2) are
    # only grazed
    assert g.line((0, 0), (2, 2)) == [(0, 0), (0, 1), (1, 1), (2, 2)]
    # x = 1.5 runs down the side between (0, 1) and (1, 1)
    assert g.line((1, 0), (1, 2)) == [(1, 0), (1, 1), (1, 2)]
    assert g.line((1, 2), (1, 0)) == [(1, 2), (0, 1), (1, 0)]


# -- line(): properties ------------------------------------------------------------------------
@kinds
@given(a=cells, b=cells)
@fast
def test_line_is_a_path_through_sides_from_a_to_b(kind, a, b):
    g = GRIDS[kind]
    path = g.line(a, b)
    assert path[0] == a and path[-1] == b
    assert len(set(path)) == len(path)
    assert all(adjacent(g, p, q) for p, q in zip(path, path[1:]))
    assert all(map(g.contains, path))
    if kind == "square":
        assert len(path) == g.distance(a, b) + 1
    else:  # a hex or brick line may zig-zag through more cells than the shortest path
        assert len(path) >= g.distance(a, b) + 1


@kinds
@given(a=cells, b=cells)
@fast
def test_reversed_line_differs_only_at_ties(kind, a, b):
    """line(b, a) reversed has the same length and the same cells except at a tie, where the two
    lines take the two cells on either side of the passage, between the same two cells."""
    g = GRIDS[kind]
    forward, backward = g.line(a, b), g.line(b, a)[::-1]
    assert len(forward) == len(backward)
    for i, (x, y) in enumerate(zip(forward, backward)):
        if x != y:
            assert forward[i - 1] == backward[i - 1] and forward[i + 1] == backward[i + 1]
            for cell in (x, y):
                assert adjacent(g, cell, forward[i - 1]) and adjacent(g, cell, forward[i + 1])


def cube_round(q, r, s):
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    else:
        rs = -rq - rr
    return (rq, rr, rs)


def redblob_line(g, a, b, eps=1e-6):
    """redblobgames' hex line drawing; both ends nudged by eps to the left of travel."""
    n = g.distance(a, b)
    (ax, ay), (bx, by) = g.centre(a), g.centre(b)
    length = math.hypot(bx - ax, by - ay)
    nx, ny = eps * (by - ay) / length, -eps * (bx - ax) / length  # left, in drawing units
    dq, dr = nx - ny / math.sqrt(3), 2 * ny / math.sqrt(3)  # pixel -> cube (hexes 1 wide)
    A = [x + d for x, d in zip(oddr_to_cube(a), (dq, dr, -dq - dr))]
    B = [x + d for x, d in zip(oddr_to_cube(b), (dq, dr, -dq - dr))]
    out = []
    for i in range(n + 1):
        q, r, s = cube_round(*(p + (q - p) * i / n for p, q in zip(A, B)))
        out.append((q + (r - (r & 1)) // 2, r))
    return out


@given(a=cells, b=cells)
@fast
def test_hex_line_contains_redblobgames_line_nudged_left(a, b):
    """redblob's line samples distance + 1 points of the segment, so it is a shortest path made
    of cells the segment crosses: where line() is that short too, the two are the same."""
    g = GRIDS["hex"]
    expected = redblob_line(g, a, b) if a != b else [a]
    if all(map(g.contains, expected)):
        path = g.line(a, b)
        assert set(expected) <= set(path)
        if len(path) == g.distance(a, b) + 1:
            assert path == expected


@kinds
@given(a=small_cells, b=small_cells)
@settings(max_examples=100, deadline=None)
def test_line_holds_a_cell_beside_every_point_of_the_segment(kind, a, b):
    g = SMALL[kind]
    if a == b:
        return
    sides = side_cells(g, a, b)
    path = g.line(a, b)
    assert crossed_cells(sides) | {a, b} <= set(path)
    assert set(path) <= {c for _, left, right in sides for c in (left, right)}
    assert all(left in path or right in path for _, left, right in sides)
    if all(left == right or {left, right} <= crossed_cells(sides) for _, left, right in sides):
        assert g.line(b, a) == path[::-1]  # no tie: the line is the same both ways


# -- line of sight: fixed cases ----------------------------------------------------------------
def sees(g, a, b, blocked):
    blocked = set(blocked)
    forward = g.line_of_sight(a, b, lambda c: c in blocked)
    assert g.line_of_sight(b, a, lambda c: c in blocked) == forward
    return forward


def test_square_sight_through_corners():
    g = GRIDS["square"]
    a, b = (0, 0), (2, 2)  # passes the corners (1, 1) and (2, 2) in drawing units
    assert sees(g, a, b, [])
    assert not sees(g, a, b, [(1, 1)])
    assert sees(g, a, b, [(1, 0)]) and sees(g, a, b, [(0, 1)])  # one side of a corner is open
    assert not sees(g, a, b, [(1, 0), (0, 1)])  # both sides of the corner block
    assert not sees(g, a, b, [(2, 1), (1, 2)])
    assert sees(g, a, b, [(1, 0), (1, 2)])  # two different corners, one side each
    assert sees(g, a, b, [(1, 0), (2, 1)])  # both on the same (left) side
    assert sees(g, a, b, [(0, 0), (2, 2)])  # the end cells never block
    assert not sees(g, (0, 0), (2, 1), [(1, 0)])  # crossed mid-side, not a tie


def test_hex_sight_along_a_side_and_through_a_corner():
    g = GRIDS["hex"]
    assert sees(g, (1, 0), (1, 2), [(0, 1)]) and sees(g, (1, 0), (1, 2), [(1, 1)])
    assert not sees(g, (1, 0), (1, 2), [(0, 1), (1, 1)])
    # the 30-degree diagonal (0, 2) -> (1, 1) runs between (0, 1) and (1, 2)
    assert sees(g, (0, 2), (1, 1), [(0, 1)]) and not sees(g, (0, 2), (1, 1), [(0, 1), (1, 2)])
    # a corner only grazed: the other side is the crossed cells' shared side
    assert sees(g, (0, 2), (4, 1), [(1, 1)])
    assert not sees(g, (0, 2), (4, 1), [(2, 2)])
    # along the board's west edge the off-board cell (-1, 1) never blocks
    assert sees(g, (0, 0), (0, 2), [(0, 1)])


def test_brick_sight():
    g = GRIDS["brick"]
    assert not sees(g, (0, 0), (3, 1), [(2, 0)]) and sees(g, (0, 0), (3, 1), [(0, 1)])
    assert sees(g, (0, 0), (2, 2), [(1, 0), (1, 2)])  # two grazed T-junction corners
    assert not sees(g, (0, 0), (2, 2), [(0, 1)])
    assert sees(g, (1, 0), (1, 2), [(0, 1)]) and not sees(g, (1, 0), (1, 2), [(0, 1), (1, 1)])
    # (5, 4) -> (6, 3) is a hex diagonal, running along the side between (6, 4) and (5, 3); the
    # brick centres (5.5, 4.5) -> (7.0, 3.5) cross both
    h = GRIDS["hex"]
    assert h.line((5, 4), (6, 3)) == [(5, 4), (5, 3), (6, 3)]
    assert sees(h, (5, 4), (6, 3), [(6, 4)]) and not sees(h, (5, 4), (6, 3), [(6, 4), (5, 3)])
    assert g.line((5, 4), (6, 3)) == [(5, 4), (6, 4), (5, 3), (6, 3)]
    assert not sees(g, (5, 4), (6, 3), [(6, 4)]) and not sees(g, (5, 4), (6, 3), [(5, 3)])


# -- line of sight: properties -----------------------------------------------------------------
@kinds
@given(data=st.data())
@settings(max_examples=100, deadline=None)
def test_sight_matches_the_brute_force_both_sides_rule(kind, data):
    g = SMALL[kind]
    a, b = data.draw(small_cells), data.draw(small_cells)
    if a == b:
        return
    sides = side_cells(g, a, b)
    touched = sorted({c for _, left, right in sides for c in (left, right)})
    blocked = data.draw(st.sets(st.sampled_from(touched)))
    assert sees(g, a, b, blocked) == oracle_sight(g, a, b, blocked)


@kinds
@given(data=st.data())
@fast
def test_sight_basics(kind, data):
    g = GRIDS[kind]
    a, b = data.draw(cells), data.draw(cells)
    blocked = set(data.draw(st.lists(cells, max_size=60)))
    asked = []

    def blocks(c):
        asked.append(c)
        return c in blocked

    result = g.line_of_sight(a, b, blocks)
    assert result == g.line_of_sight(b, a, lambda c: c in blocked)
    assert all(g.contains(c) and c not in (a, b) for c in asked)  # ends and off-board never asked
    assert g.line_of_sight(a, b, lambda c: False)
    if g.distance(a, b) <= 1:
        assert g.line_of_sight(a, b, lambda c: True)
    between = set(g.line(a, b)[1:-1]) | set(g.line(b, a)[1:-1])
    if not blocked & between:
        assert result  # only cells of the two lines can matter
    # A cell on both lines is crossed through its interior, away from the board's edge (there
    # both directions of a side-hugging line take the one cell on the board): judge on a board
    # with a margin of two cells (an even shift keeps odd-r geometry), where no tie is forced.
    big, m = WIDE[kind], 2
    inner = {(c - m, r - m) for c, r in
             set(big.line((a[0] + m, a[1] + m), (b[0] + m, b[1] + m))[1:-1])
             & set(big.line((b[0] + m, b[1] + m), (a[0] + m, a[1] + m))[1:-1])}
    if blocked & inner:
        assert not result


@kinds
@given(a=st.tuples(st.integers(1, SIZE - 2), st.integers(1, SIZE - 2)),
       b=st.tuples(st.integers(1, SIZE - 2), st.integers(1, SIZE - 2)))
@fast
def test_everything_blocking_hides_every_cell_not_adjacent(kind, a, b):
    g = GRIDS[kind]
    assert g.line_of_sight(a, b, lambda c: True) == (g.distance(a, b) <= 1)
