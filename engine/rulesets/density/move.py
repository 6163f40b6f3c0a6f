"""Movement under formation density on a grid, and the disorder tests a move or a turn takes.

A unit's allowance in cells comes from its density (density.move, density.grid_scale); every
side of its cell it turns through on the way counts a cell (density.wheel). Terrain features
(density.features) and friends passed through (density.pass_through) cost a disorder test each,
never the move itself; a cell next to an enemy ends the move (density.contact).

One judge of each step (:class:`Steps`) serves both the referee (walk a route and name the rule
that refuses it) and the move generator (:func:`routes`), so the two never disagree. The
generator keeps, for each cell and heading, every way of getting there that no other beats on
both the cells spent and the tests taken, and offers for each cell and final facing the route
with the fewest tests, then the cheapest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.geometry import FACINGS, Cell, Grid, areas
from warlog.engine.rules import IllegalOrder
from warlog.engine.state import GameState, Unit
from warlog.engine.rulesets.density import events

Test = tuple[str, Cell, str]  # (reason: "terrain" | "friends", the cell, what is there)
_INDEX = {kind: {f: i for i, f in enumerate(facings)} for kind, facings in FACINGS.items()}


def cells_for(inches: int, scale: int, rounding: str) -> int:
    """density.grid_scale and density.rounding: ``inches`` of movement in whole cells of
    ``scale`` inches, to the nearest (halves up) or rounded "down", at least 1. In integers, so
    no float decides a move."""
    whole = inches // scale if rounding == "down" else (2 * inches + scale) // (2 * scale)
    return max(1, whole)


def allowance(state: GameState, period: Mapping[str, Any], unit: Unit) -> int:
    """density.move and density.grid_scale: (10 - density) inches, in whole cells, at least 1."""
    return cells_for(period["move_inches"] - unit.density, state.options["inches_per_cell"],
                     state.options["allowance_rounding"])


def allowance_words(state: GameState, period: Mapping[str, Any], unit: Unit) -> str:
    """The allowance with its arithmetic, as a player would check it on the table."""
    n, scale = allowance(state, period, unit), state.options["inches_per_cell"]
    inches = period["move_inches"] - unit.density
    if state.options["allowance_rounding"] == "down":
        how = ", and never less than 1" if inches < scale else ""
    else:
        how = f": {inches}/{scale} to the nearest cell, halves up" + (
            ", and never less than 1" if 2 * inches < scale else "")
    return (f"{unit.type} (density {unit.density}) moves at most {n} cell{'s' * (n != 1)} "
            f"({period['move_inches']} - {unit.density} = {inches} inches at {scale} inches a "
            f"cell{how})")


def sides_turned(grid: Grid, a: str, b: str) -> int:
    """How many sides of a cell a unit turns through from facing ``a`` to facing ``b``."""
    n = len(grid.facings)
    index = _INDEX[grid.kind]
    k = abs(index[a] - index[b]) % n
    return min(k, n - k)


def close_order(period: Mapping[str, Any], unit: Unit) -> bool:
    """density.close_order: dense or close order from the table's threshold on."""
    return unit.density >= period["close_order"]


def features(state: GameState, terrain: Mapping[str, Any]) -> dict[Cell, int]:
    """Cell -> feature number for every cell whose edge a disorder test is taken on
    (density.features): connected groups of one kind, numbered by a flood fill in a fixed order.
    Depends on the scenario alone, so it is kept in the state's memo."""
    memo = state.memo.get("density.features")
    if memo is not None:
        return memo
    testing = set(terrain["tested"]) | set(terrain["close_order_barred"])
    kinds = {cell: kind for cell, kind in state.terrain.items() if kind in testing}
    numbered = areas(state.grid, kinds)
    state.memo["density.features"] = numbered
    return numbered


class Steps:
    """Judges the steps of one unit's move in one position: where it may go, where it must stop,
    and which steps cost a disorder test."""

    def __init__(self, state: GameState, table: Mapping[str, Any], unit: Unit) -> None:
        self.state, self.unit = state, unit
        self.terrain = table["terrain"]
        self.period = table["periods"][state.period]
        self.features = features(state, self.terrain)
        self.allowance = allowance(state, self.period, unit)
        self.occupant = {u.cell: u for u in state.alive()}
        self.contact: dict[Cell, list[str]] = {}  # cell -> the enemies next to it
        for e in state.alive():
            if e.side != unit.side:
                for n in state.grid.neighbours(e.cell):
                    self.contact.setdefault(n, []).append(e.id)

    def refusal(self, cell: Cell, *, last: bool) -> IllegalOrder | None:
        """Why the unit may not enter ``cell`` (``last``: and end its move there), or None."""
        s, u = self.state, self.unit
        if not s.grid.contains(cell):
            return IllegalOrder("grid.cells", f"{u.id} would leave the board at {cell}")
        kind = s.terrain.get(cell, "open")
        if kind in self.terrain["impassable"]:
            crossing = " (cross it at a bridge or a ford)" if kind == "river" else ""
            return IllegalOrder("density.terrain", f"{cell} is {kind}: impassable{crossing}")
        if kind in self.terrain["close_order_barred"] and close_order(self.period, u):
            return IllegalOrder("density.close_order", f"{u.type} (density {u.density}) may not "
                                f"enter the {kind} at {cell}: it is barred to dense and close "
                                f"order (density {self.period['close_order']} or more)")
        there = self.occupant.get(cell)
        if there is not None and there.side != u.side:
            return IllegalOrder("density.move", f"{cell} is held by enemy {there.id}: a move never "
                                                "pushes another unit's base")
        if there is not None and last:
            return IllegalOrder("density.pass_through", f"{cell} is occupied by {there.id}: a "
                                "move may pass through a friend but not end on it")
        if not last and cell in self.contact:
            return IllegalOrder("density.contact", f"{u.id} comes into contact with "
                                f"{' and '.join(self.contact[cell])} at {cell} and stops there")
        return None

    def tests(self, prev: Cell, cell: Cell) -> list[Test]:
        """The disorder tests of stepping from ``prev`` into ``cell``: crossing a feature's edge,
        then passing through a friend."""
        out: list[Test] = []
        feature = self.features.get(cell)
        if feature is not None and feature != self.features.get(prev):
            out.append(("terrain", cell, self.state.terrain[cell]))
        there = self.occupant.get(cell)
        if there is not None and there.id != self.unit.id:
            out.append(("friends", cell, there.id))
        return out

    def start_tests(self) -> list[Test]:
        """density.terrain: a unit that stopped inside a feature tests again as it moves on."""
        cell = self.unit.cell
        return [("terrain", cell, self.state.terrain[cell])] if cell in self.features else []


@dataclass(frozen=True)
class Route:
    """A route the rules accept: its cells, what it cost (cells entered plus sides turned), how
    many sides it turned, and its disorder tests in the order they fall."""

    cells: tuple[Cell, ...]
    cost: int
    turned: int
    tests: tuple[Test, ...]


def _too_far(steps: Steps, cells: int, turned: int) -> IllegalOrder:
    words = allowance_words(steps.state, steps.period, steps.unit)
    need = f"this route needs {cells + turned}: {cells} cell{'s' * (cells != 1)}"
    if not turned:
        return IllegalOrder("density.move", f"{words}; {need}")
    return IllegalOrder("density.wheel" if cells <= steps.allowance else "density.move",
                        f"{words}; {need} and {turned} side{'s' * (turned != 1)} turned, each "
                        "counting a cell")


def walk(state: GameState, table: Mapping[str, Any], unit: Unit, path, facing: str) -> Route:
    """Check a route step by step, ending facing ``facing``; IllegalOrder for the first thing
    the rules refuse."""
    grid, steps = state.grid, Steps(state, table, unit)
    heading, cost, turned, prev = unit.facing, 0, 0, unit.cell
    tests: list[Test] = steps.start_tests()
    cells: list[Cell] = []
    for i, cell in enumerate(path):
        cell = tuple(cell)
        if grid.distance(prev, cell) != 1:
            raise IllegalOrder("grid.adjacent", f"{cell} is not next to {prev}: a route goes from "
                                                "cell to adjacent cell")
        if cell == unit.cell or cell in cells:
            raise IllegalOrder("density.move", f"the route enters {cell} twice: a route enters "
                                               "each cell once, and not the one it starts from")
        refused = steps.refusal(cell, last=i == len(path) - 1)
        if refused is not None:
            raise refused
        side = grid.facing_to(prev, cell)
        turn = sides_turned(grid, heading, side)
        cost, turned = cost + turn + 1, turned + turn
        if cost > steps.allowance:
            raise _too_far(steps, i + 1, turned)
        tests += steps.tests(prev, cell)
        cells.append(cell)
        heading, prev = side, cell
    turn = sides_turned(grid, heading, facing)
    if cost + turn > steps.allowance:
        raise _too_far(steps, len(cells), turned + turn)
    return Route(tuple(cells), cost + turn, turned + turn, tuple(tests))


def routes(state: GameState, table: Mapping[str, Any], unit: Unit
           ) -> list[tuple[tuple[Cell, ...], str]]:
    """One route for every (cell, final facing) the unit can reach: the fewest tests, then the
    cheapest, then the first found (neighbours in facing order, so the same every time)."""
    grid, steps = state.grid, Steps(state, table, unit)
    labels: dict[tuple[Cell, str], list[tuple[int, int]]] = {}
    frontier = [(unit.cell, unit.facing, 0, len(steps.start_tests()), ())]
    best: dict[tuple[Cell, str], tuple[int, int, tuple[Cell, ...]]] = {}
    while frontier:
        nxt = []
        for cell, heading, cost, tested, path in frontier:
            for side in grid.facings:
                n = grid.step(cell, side)
                spent = cost + sides_turned(grid, heading, side) + 1
                if n == unit.cell or spent > steps.allowance or not grid.contains(n):
                    continue
                ends = steps.refusal(n, last=True) is None
                passes = steps.refusal(n, last=False) is None
                if not (ends or passes):
                    continue
                count, route = tested + len(steps.tests(cell, n)), (*path, n)
                if ends:
                    for f in grid.facings:
                        total = spent + sides_turned(grid, side, f)
                        if total <= steps.allowance and (
                                (n, f) not in best or (count, total) < best[(n, f)][:2]):
                            best[(n, f)] = (count, total, route)
                kept = labels.setdefault((n, side), [])
                if passes and not any(c <= spent and t <= count for c, t in kept):
                    kept[:] = [(c, t) for c, t in kept if not (spent <= c and count <= t)]
                    kept.append((spent, count))
                    nxt.append((n, side, spent, count, route))
        frontier = nxt
    return [(route, f) for (_, f), (_, _, route) in best.items()]


def disorder_test(ctx: Context, unit: Unit, reason: str, rules: tuple[str, ...]) -> None:
    """density.disorder_test: a d6 below the density puts that many figures out of formation."""
    die = ctx.roll("disorder test", "density.disorder_test", unit.id)
    figures = die if die < unit.density else 0
    ctx.emit(events.DisorderTested, unit=unit.id, reason=reason, die=die, density=unit.density,
             figures=figures, rules=("density.disorder_test", *rules, "density.units"))


def rules_of_test(table: Mapping[str, Any], test: Test) -> tuple[str, ...]:
    """The rules behind one test of a move, besides density.disorder_test itself."""
    reason, _, what = test
    if reason == "friends":
        return ("density.pass_through",)
    barred = what in table["terrain"]["close_order_barred"]
    return ("density.terrain", "density.features") + (("density.close_order",) if barred else ())
