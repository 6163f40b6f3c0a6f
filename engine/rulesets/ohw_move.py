"""One Hour Wargames movement on a grid: the cells a straight move passes, and why it stops.

One walk serves both the referee (check an order, name the rule it breaks) and the bots'
move generator (every cell a unit may reach), so the two can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warlog.engine.geometry import Cell
from warlog.engine.rules import IllegalOrder
from warlog.engine.state import GameState, Unit


@dataclass(frozen=True)
class Reach:
    """The cells entered, in order, each with whether the move may end there; and the rule that
    stopped the walk short of the cells asked for (None if it got that far)."""

    cells: list[tuple[Cell, bool]]
    stop: IllegalOrder | None
    road_bonus: bool


def turn_angle(state: GameState, a: str, b: str) -> float:
    """Degrees between two facings (0..180)."""
    d = abs(state.grid.facing_angle(a) - state.grid.facing_angle(b)) % 360
    return min(d, 360 - d)


def walk(
    state: GameState,
    terrain_table: dict[str, Any],
    period: dict[str, Any],
    unit: Unit,
    facing: str,
    steps: int,
    attacking: bool,
) -> Reach:
    """Walk ``unit`` straight ahead along ``facing`` for up to ``steps`` cells."""
    grid, scenario, p = state.grid, state.scenario, state.period
    row = period["units"][unit.type]
    move = row["move"]
    enemies = [e for e in state.alive() if e.side != unit.side]
    passers = period.get("pass_through", [])
    road = terrain_table["road"]
    all_road = scenario.terrain_at(unit.cell) in road
    cells: list[tuple[Cell, bool]] = []
    cell = unit.cell

    def stopped(rule: str, message: str) -> Reach:
        return Reach(cells, IllegalOrder(rule, message), False)

    for d in range(1, steps + 1):
        cell = grid.step(cell, facing)
        if not grid.contains(cell):
            return stopped("grid.cells", f"{unit.id} would leave the board at {cell}")
        terrain = scenario.terrain_at(cell)
        all_road = all_road and terrain in road
        if d > move + 1 or (d > move and (attacking or not all_road)):
            if attacking:
                extra = " (no road bonus when attacking, ohw.terrain.road)"
            elif d == move + 1:
                extra = " (one more only when moving along a road all the way, ohw.terrain.road)"
            else:
                extra = f" ({move + 1} along a road, ohw.terrain.road)"
            return stopped(f"ohw.{p}.move", f"{unit.type} moves at most {move} cells{extra}")
        if terrain in ("marsh", "lake"):
            return stopped("ohw.terrain.marsh", f"{cell} is {terrain}: impassable to all units")
        if terrain in terrain_table["impassable"]:
            return stopped(
                "ohw.terrain.river", f"{cell} is river: cross only at a bridge or a ford"
            )
        allowed = period.get("entry", {}).get(terrain)
        if allowed is not None and unit.type not in allowed:
            who = " and ".join(allowed)
            return stopped(
                f"ohw.{p}.terrain", f"{unit.type} may not enter {terrain} at {cell} (only {who})"
            )
        occupant = state.unit_at(cell)
        if occupant is not None and occupant.side != unit.side:
            return stopped("grid.cells", f"{cell} is held by enemy {occupant.id}")
        if occupant is not None and unit.type not in passers and occupant.type not in passers:
            return stopped(
                f"ohw.{p}.interpenetration",
                f"{unit.id} may not pass through {occupant.id} "
                f"(only {' and '.join(passers) or 'no units'} pass through friends)",
            )
        if not attacking:
            near = next((e for e in enemies if grid.distance(cell, e.cell) == 1), None)
            if near is not None:
                return stopped(
                    "ohw.zoc",
                    f"{cell} is next to enemy {near.id}: only an attacking unit may move there",
                )
        cells.append((cell, occupant is None))
        stops = terrain != "open" and terrain not in terrain_table["no_stop"]
        if stops and d < steps:
            return stopped("ohw.terrain.stop", f"{unit.id} stops on entering the {terrain} at {cell}")
    return Reach(cells, None, len(cells) > move)
