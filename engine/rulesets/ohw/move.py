"""One Hour Wargames movement on a grid: the cells a move passes, and why it stops.

Two ways to move: straight ahead (``ohw.move.straight``: Ancients to Horse & Musket) and by a
route that may turn at every cell (``ohw.move.free_turns``: Machine Age, WWII). Each step is
judged by one function, :func:`enter`, so both kinds of move apply the same terrain, interpenetration
and zone-of-control rules, and one walk serves both the referee (check an order, name the rule it
breaks) and the move generator (every result a unit can reach), so the two never disagree.

A terrain feature stops a unit that *enters* it (``ohw.terrain.stop``). Under the default option
``terrain_feature = "area"`` a feature is a connected group of cells of one kind
(``ohw.terrain.feature``): moving on inside it is not entering it again. A move ordered further
than a feature lets the unit go ends where the feature stops it; the move event says so
(``stopped_by``). An attack cut short that way is refused instead: it would not reach its enemy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from warlog.engine.geometry import FACINGS, GRID_KINDS, Cell, Grid, areas, make_grid
from warlog.engine.rules import IllegalOrder
from warlog.engine.state import GameState, Unit


@dataclass(frozen=True)
class Reach:
    """The cells entered, in order, each with whether the move may end there; the rule that
    refused the next cell asked for (None if the walk got as far as asked); the rule that ended
    the move early where a feature stops it (``stopped_by``); and whether the road bonus was used."""

    cells: list[tuple[Cell, bool]]
    stop: IllegalOrder | None
    road_bonus: bool
    stopped_by: str | None = None


def turn_angle(state: GameState, a: str, b: str) -> float:
    """Degrees between two facings (0..180)."""
    angle = _TURN_ANGLES[state.grid.kind].get((a, b))
    if angle is None:  # not two sides of this kind of cell: facing_angle says which is wrong
        angle = _turn_angle(state.grid, a, b)
    return angle


def _turn_angle(grid: Grid, a: str, b: str) -> float:
    d = abs(grid.facing_angle(a) - grid.facing_angle(b)) % 360
    return min(d, 360 - d)


# Asked thousands of times a game, for a handful of pairs: a table per kind of grid.
_TURN_ANGLES = {kind: {(a, b): _turn_angle(make_grid(kind, 1, 1), a, b)
                       for a in FACINGS[kind] for b in FACINGS[kind]} for kind in GRID_KINDS}


def feature_of(state: GameState, terrain_table: Mapping[str, Any]) -> dict[Cell, int]:
    """Cell -> feature number for every cell that stops a unit entering it (ohw.terrain.feature).
    Built once per game (scenario and options never change) and kept in the state's memo."""
    memo = state.memo.get("features")
    if memo is not None:
        return memo
    option = state.options.get("crossing_stops", "ford")
    crossings = terrain_table["crossings"]
    passing = set(terrain_table["never_stops"]) | {
        c for c in crossings if option == "neither" or (option == "ford" and c != "ford")
    }
    kinds = {cell: kind for cell, kind in state.terrain.items() if kind not in passing}
    if state.options.get("terrain_feature", "area") == "cell":
        features = {cell: i for i, cell in enumerate(sorted(kinds))}
    else:
        features = areas(state.grid, kinds)
    state.memo["features"] = features
    return features


class Board:
    """Who stands where in one position, looked up by cell: what ``state.unit_at`` and a scan of
    every unit for its distance answer, built once for all the moves tried in that position.
    Every answer is the one a scan in the state's order would give first."""

    def __init__(self, state: GameState) -> None:
        self.grid = state.grid
        self.live = live = [u for u in state.units.values() if not u.removed]
        # cell -> the first live unit on it, in the state's order (what state.unit_at finds)
        self.at: dict[Cell, Unit] = {u.cell: u for u in reversed(live)}
        self._enemy_cells: dict[str, frozenset[Cell]] = {}
        self._zones: dict[str, frozenset[Cell]] = {}

    def unit_at(self, cell: Cell) -> Unit | None:
        return self.at.get(cell)

    def enemy_cells(self, side: str) -> frozenset[Cell]:
        """The cells holding a live unit not of ``side``."""
        cells = self._enemy_cells.get(side)
        if cells is None:
            cells = self._enemy_cells[side] = frozenset([u.cell for u in self.live
                                                         if u.side != side])
        return cells

    def zone(self, side: str) -> frozenset[Cell]:
        """The cells one step from a live unit not of ``side`` (its zone of control)."""
        zone = self._zones.get(side)
        if zone is None:
            zone = self._zones[side] = _zone(self.grid.kind, self.enemy_cells(side))
        return zone

    def enemies_next_to(self, cell: Cell, side: str) -> list[Unit]:
        """The live units not of ``side`` one step from ``cell``, in the state's order."""
        if cell not in self.zone(side):
            return []
        near = set(self.grid.around(cell))
        return [u for u in self.live if u.side != side and u.cell in near]


@lru_cache(maxsize=1024)
def _zone(kind: str, cells: frozenset[Cell]) -> frozenset[Cell]:
    """Every cell one step from one of ``cells`` on a grid of this kind. A pure function of its
    arguments, kept: the enemy stands still for the whole of a side's movement phase."""
    grid = _GRIDS[kind]
    return frozenset(n for c in cells for n in grid.around(c))


_GRIDS = {kind: make_grid(kind, 1, 1) for kind in GRID_KINDS}  # around() ignores the board's size


class Mover:
    """The rules of one unit's move in one position: judges each step it takes.

    ``judge`` is the one judge of a step; it answers with a short reason, and ``refusal`` turns
    the reason into the rule and message only when a referee needs them (the move generator
    tries thousands of steps and wants only yes or no). The move generator builds one Mover for
    a unit and tries every direction with it; the position's ``Board`` may be shared by every
    unit's movers."""

    def __init__(self, state: GameState, terrain_table: Mapping[str, Any],
                 period: Mapping[str, Any], unit: Unit, attacking: bool,
                 board: Board | None = None) -> None:
        self.state, self.unit, self.attacking = state, unit, attacking
        self.period, self.p = period, state.period
        self.grid, self.terrain = state.grid, state.terrain
        self.impassable = terrain_table["impassable"]
        self.entry = period.get("entry", {})
        # What the period's table and the scenario say about this type of unit: the same for
        # the whole game, so kept in the state's memo (plain values: a state may be pickled).
        key = ("ohw_move type rules", unit.type)
        rules = state.memo.get(key)
        if rules is None:
            rules = state.memo[key] = self._type_rules(terrain_table)
        (self.move, self.road, self.features, self.passers, self.zoc, self.passes_friends,
         self.passable) = rules
        self.board = board = board or Board(state)
        self.at = board.at
        self.zoc_cells = board.zone(unit.side) if self.zoc and not attacking else None

    def _type_rules(self, terrain_table: Mapping[str, Any]) -> tuple:
        """move, road, features, passers, zoc, passes_friends, passable."""
        period, unit = self.period, self.unit
        passers = tuple(period.get("pass_through", ()))
        # The cells whose ground this type may enter (a kind's verdict is the same everywhere).
        closed = {kind for kind in {"open", *self.terrain.values()}
                  if self._ground(kind, (0, 0)) is not None}
        passable = frozenset(c for c in self.grid.cells()
                             if self.terrain.get(c, "open") not in closed)
        return (period["units"][unit.type]["move"], tuple(terrain_table["road"]),
                feature_of(self.state, terrain_table), passers, "melee" in period["phases"],
                "*" in passers or unit.type in passers, passable)

    def limit(self, steps: int, all_road: bool) -> IllegalOrder | None:
        """ohw.<period>.move and ohw.terrain.road: may the unit go ``steps`` cells?"""
        move = self.move
        if steps <= move or (steps == move + 1 and all_road and not self.attacking):
            return None
        if self.attacking and steps == move + 1:
            extra = " (no road bonus when attacking, ohw.terrain.road)"
        elif steps == move + 1:
            extra = " (one more only when moving along a road all the way, ohw.terrain.road)"
        else:
            extra = f" ({move + 1} along a road, ohw.terrain.road)"
        return IllegalOrder(f"ohw.{self.p}.move", f"{self.unit.type} moves at most {move} cells{extra}")

    def _ground(self, terrain: str, cell: Cell) -> IllegalOrder | None:
        """Why the unit may not enter ground of this kind (marsh, river, a period's rule on who
        enters what), or None."""
        u, p = self.unit, self.p
        if terrain in ("marsh", "lake"):
            return IllegalOrder("ohw.terrain.marsh", f"{cell} is {terrain}: impassable to all units")
        if terrain in self.impassable:
            return IllegalOrder("ohw.terrain.river", f"{cell} is river: cross only at a bridge or a ford")
        allowed = self.entry.get(terrain)
        if allowed is not None and u.type not in allowed:
            who = f"only {' and '.join(allowed)}" if allowed else "impassable to all units"
            return IllegalOrder(f"ohw.{p}.terrain", f"{u.type} may not enter {terrain} at {cell} ({who})")
        return None

    def judge(self, prev: Cell, cell: Cell) -> tuple[str | None, bool, bool]:
        """One step from ``prev`` into ``cell``: (why it is refused, a word for ``refusal``, or
        None; whether the move may end there; whether entering it stops the move). In order:
        the board's edge, the ground, an enemy or a friend in the way, an enemy's zone."""
        if cell not in self.passable:
            return ("ground" if self.grid.contains(cell) else "edge"), False, False
        occupant = self.at.get(cell)
        if occupant is not None:
            if occupant.side != self.unit.side:
                return "enemy", False, False
            if not self.passes_friends and occupant.type not in self.passers:
                return "friend", False, False
        zoc = self.zoc_cells
        if zoc and cell in zoc:
            return "zoc", False, False
        features = self.features
        feature = features.get(cell)
        return None, occupant is None, feature is not None and features.get(prev) != feature

    def refusal(self, why: str, cell: Cell) -> IllegalOrder:
        """The rule and message behind ``judge``'s reason for refusing a step into ``cell``."""
        u, p, board = self.unit, self.p, self.board
        if why == "edge":
            return IllegalOrder("grid.cells", f"{u.id} would leave the board at {cell}")
        if why == "ground":
            refused = self._ground(self.terrain.get(cell, "open"), cell)
            assert refused is not None
            return refused
        occupant = board.unit_at(cell)
        if why == "enemy":
            return IllegalOrder("grid.cells", f"{cell} is held by enemy {occupant.id}")
        if why == "friend":
            names = " and ".join(self.passers) or "no units"
            return IllegalOrder(f"ohw.{p}.interpenetration",
                                f"{u.id} may not pass through {occupant.id} (only {names} pass "
                                "through friends)")
        near = board.enemies_next_to(cell, u.side)[0].cell  # the first enemy, as a scan finds
        return IllegalOrder("ohw.zoc", f"{cell} is next to enemy {board.unit_at(near).id}: "
                                       "only an attacking unit may move there")

    def enter(self, prev: Cell, cell: Cell) -> tuple[IllegalOrder | None, bool, bool]:
        """Judge one step from ``prev`` into ``cell``: (the rule refusing it or None, whether the
        move may end there, whether entering it stops the move)."""
        why, can_end, stops = self.judge(prev, cell)
        if why is not None:
            return self.refusal(why, cell), False, False
        return None, can_end, stops

    def trace(self, path: list[Cell] | tuple[Cell, ...], adjacent: bool) -> tuple:
        """Follow ``path`` as far as the rules allow: (the cells entered, each with whether the
        move may end there; why it stopped short: None, or a reason and where, for
        ``follow`` to word; whether a feature ended it early)."""
        terrain, road, move, attacking = self.terrain, self.road, self.move, self.attacking
        judge = self.judge
        all_road = terrain.get(self.unit.cell, "open") in road
        cells: list[tuple[Cell, bool]] = []
        prev = self.unit.cell
        last = len(path)
        for d, cell in enumerate(path, 1):
            if not adjacent and self.grid.distance(prev, cell) != 1:
                return cells, ("adjacent", prev, cell), False
            all_road = all_road and terrain.get(cell, "open") in road
            if d > move and (d != move + 1 or not all_road or attacking):  # limit() refuses
                return cells, ("limit", d, all_road), False
            why, can_end, stops = judge(prev, cell)
            if why is not None:
                return cells, (why, prev, cell), False
            cells.append((cell, can_end))
            prev = cell
            if stops and d < last:
                if attacking:
                    return cells, ("stop", prev, cell), False
                return cells, None, True
        return cells, None, False

    def reach(self, facing: str, steps: int) -> list[tuple[Cell, bool]]:
        """The cells a straight move along ``facing`` of up to ``steps`` cells enters, each with
        whether it may end there (the move generator's question: walk(...).cells)."""
        return self.trace(self.grid.straight(self.unit.cell, facing, steps), True)[0]

    def walk(self, facing: str, steps: int) -> Reach:
        """Straight ahead along ``facing`` for up to ``steps`` cells."""
        return follow(self, self.grid.straight(self.unit.cell, facing, steps), adjacent=True)


def walk(state: GameState, terrain_table: Mapping[str, Any], period: Mapping[str, Any],
         unit: Unit, facing: str, steps: int, attacking: bool) -> Reach:
    """Walk ``unit`` straight ahead along ``facing`` for up to ``steps`` cells."""
    return Mover(state, terrain_table, period, unit, attacking).walk(facing, steps)


def follow(mover: Mover, path: list[Cell] | tuple[Cell, ...], *, adjacent: bool = False) -> Reach:
    """Follow ``path`` (cells in order, each next to the one before) as far as the rules allow.
    ``adjacent``: the caller built the path step by step, so adjacency needs no check."""
    cells, short, stopped = mover.trace(path, adjacent)
    if stopped:
        return Reach(cells, None, len(cells) > mover.move, stopped_by="ohw.terrain.stop")
    if short is None:
        return Reach(cells, None, len(cells) > mover.move)
    why, a, b = short
    if why == "adjacent":
        refused = IllegalOrder("grid.adjacent", f"{b} is not next to {a}: a route goes from "
                                                "cell to adjacent cell")
    elif why == "limit":
        refused = mover.limit(a, b)
    elif why == "stop":
        refused = IllegalOrder("ohw.terrain.stop", f"{mover.unit.id} stops on entering the "
                                                   f"{mover.terrain.get(b, 'open')} at {b}")
    else:
        refused = mover.refusal(why, b)
    return Reach(cells, refused, False)


def routes(mover: Mover) -> Iterator[tuple[Cell, tuple[Cell, ...]]]:
    """Every cell a free-turning unit can end its move on, each once, with the shortest route to
    it (breadth first, neighbours in facing order: the same route every time)."""
    s, unit = mover.state, mover.unit
    start_road = s.terrain.get(unit.cell, "open") in mover.road
    frontier = [(unit.cell, (), start_road)]
    seen = {(unit.cell, start_road)}
    ended = {unit.cell}
    while frontier:
        nxt = []
        for cell, path, all_road in frontier:
            for n in s.grid.neighbours(cell):
                road = all_road and s.terrain.get(n, "open") in mover.road
                if mover.limit(len(path) + 1, road) is not None:
                    continue
                refused, can_end, stops = mover.judge(cell, n)
                if refused is not None:
                    continue
                route = (*path, n)
                if can_end and n not in ended:
                    ended.add(n)
                    yield n, route
                if not stops and (n, road) not in seen:
                    seen.add((n, road))
                    nxt.append((n, route, road))
        frontier = nxt
