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
from typing import Any

from warlog.engine.geometry import Cell
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
    d = abs(state.grid.facing_angle(a) - state.grid.facing_angle(b)) % 360
    return min(d, 360 - d)


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
        features = {}
        for start in sorted(kinds):  # flood fill in a fixed order: the numbering is deterministic
            if start in features:
                continue
            number, todo = len(features), [start]
            features[start] = number
            while todo:
                cell = todo.pop()
                for n in state.grid.neighbours(cell):
                    if n not in features and kinds.get(n) == kinds[start]:
                        features[n] = number
                        todo.append(n)
    state.memo["features"] = features
    return features


class Mover:
    """The rules of one unit's move in one position: judges each step it takes."""

    def __init__(self, state: GameState, terrain_table: Mapping[str, Any],
                 period: Mapping[str, Any], unit: Unit, attacking: bool) -> None:
        self.state, self.unit, self.attacking = state, unit, attacking
        self.period = period
        self.p = state.period
        self.move = period["units"][unit.type]["move"]
        self.impassable = terrain_table["impassable"]
        self.road = terrain_table["road"]
        self.features = feature_of(state, terrain_table)
        self.passers = period.get("pass_through", ())
        self.zoc = "melee" in period["phases"]
        self.enemy_cells = [e.cell for e in state.alive() if e.side != unit.side]

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

    def enter(self, prev: Cell, cell: Cell) -> tuple[IllegalOrder | None, bool, bool]:
        """Judge one step from ``prev`` into ``cell``: (the rule refusing it or None, whether the
        move may end there, whether entering it stops the move)."""
        s, u, p = self.state, self.unit, self.p
        if not s.grid.contains(cell):
            return IllegalOrder("grid.cells", f"{u.id} would leave the board at {cell}"), False, False
        terrain = s.terrain.get(cell, "open")
        if terrain in ("marsh", "lake"):
            rule = IllegalOrder("ohw.terrain.marsh", f"{cell} is {terrain}: impassable to all units")
            return rule, False, False
        if terrain in self.impassable:
            rule = IllegalOrder("ohw.terrain.river", f"{cell} is river: cross only at a bridge or a ford")
            return rule, False, False
        allowed = self.period.get("entry", {}).get(terrain)
        if allowed is not None and u.type not in allowed:
            who = f"only {' and '.join(allowed)}" if allowed else "impassable to all units"
            rule = IllegalOrder(f"ohw.{p}.terrain", f"{u.type} may not enter {terrain} at {cell} ({who})")
            return rule, False, False
        occupant = s.unit_at(cell)
        if occupant is not None and occupant.side != u.side:
            return IllegalOrder("grid.cells", f"{cell} is held by enemy {occupant.id}"), False, False
        if occupant is not None and "*" not in self.passers and not (
            u.type in self.passers or occupant.type in self.passers
        ):
            names = " and ".join(self.passers) or "no units"
            rule = IllegalOrder(f"ohw.{p}.interpenetration",
                                f"{u.id} may not pass through {occupant.id} (only {names} pass "
                                "through friends)")
            return rule, False, False
        if self.zoc and not self.attacking:
            near = next((c for c in self.enemy_cells if s.grid.distance(cell, c) == 1), None)
            if near is not None:
                rule = IllegalOrder("ohw.zoc", f"{cell} is next to enemy {s.unit_at(near).id}: "
                                               "only an attacking unit may move there")
                return rule, False, False
        feature = self.features.get(cell)
        stops = feature is not None and self.features.get(prev) != feature
        return None, occupant is None, stops


def walk(state: GameState, terrain_table: Mapping[str, Any], period: Mapping[str, Any],
         unit: Unit, facing: str, steps: int, attacking: bool) -> Reach:
    """Walk ``unit`` straight ahead along ``facing`` for up to ``steps`` cells."""
    return follow(Mover(state, terrain_table, period, unit, attacking),
                  state.grid.straight(unit.cell, facing, steps))


def follow(mover: Mover, path: list[Cell] | tuple[Cell, ...]) -> Reach:
    """Follow ``path`` (cells in order, each next to the one before) as far as the rules allow."""
    s, unit = mover.state, mover.unit
    road = mover.road
    all_road = s.terrain.get(unit.cell, "open") in road
    cells: list[tuple[Cell, bool]] = []
    prev = unit.cell
    for d, cell in enumerate(path, 1):
        if s.grid.distance(prev, cell) != 1:
            return Reach(cells, IllegalOrder("grid.adjacent", f"{cell} is not next to {prev}: a "
                                             "route goes from cell to adjacent cell"), False)
        all_road = all_road and s.terrain.get(cell, "open") in road
        refused = mover.limit(d, all_road)
        if refused is not None:
            return Reach(cells, refused, False)
        refused, can_end, stops = mover.enter(prev, cell)
        if refused is not None:
            return Reach(cells, refused, False)
        cells.append((cell, can_end))
        prev = cell
        if stops and d < len(path):
            terrain = s.terrain.get(cell, "open")
            if mover.attacking:
                return Reach(cells, IllegalOrder("ohw.terrain.stop", f"{unit.id} stops on entering "
                                                 f"the {terrain} at {cell}"), False)
            return Reach(cells, None, len(cells) > mover.move, stopped_by="ohw.terrain.stop")
    return Reach(cells, None, len(cells) > mover.move)


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
                refused, can_end, stops = mover.enter(cell, n)
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
