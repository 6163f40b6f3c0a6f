"""Frontier's artillery and combat: where a shot falls and what it destroys, and the combat in
which both sides roll at or under their strength.

Artillery of both sides fires before anything moves; a battery destroyed by the other side's
fire has still fired: the destroyed units are marked (``unit_marked``) and removed together in
the artillery-losses phase. Combat is decided by one die a side against a strength that the
number of attackers, hills, rivers and woods adjust (never below 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.geometry import Cell
from warlog.engine.rulesets import common
from warlog.engine.state import GameState, Unit
from warlog.engine.rulesets.frontier import events
from warlog.events import model

FALLS = {1: "left", 2: "over", 3: "right", 4: "short"}
TURN = {"over": 0.0, "left": 90.0, "right": -90.0, "short": 180.0}


def level(state: GameState, cell: Cell) -> int:
    """frontier.hills: a hill cell's level (1 unless the scenario says), 0 elsewhere."""
    levels = state.memo.get("levels")
    if levels is None:
        levels = state.memo["levels"] = {(c, r): lv for c, r, lv in state.scenario.hill_levels}
    if state.terrain.get(cell) != "hill":
        return 0
    return levels.get(cell, 1)


def fall_cell(state: GameState, battery: Cell, aimed: Cell, fall: str) -> Cell | None:
    """frontier.fall_of_shot: the neighbour of the aimed cell over, short, left or right of it
    as the battery sees it (direction closest to the line of fire turned 0, 180, +90, -90
    degrees); None off the board. Ties: the first in facing order; but for left and right (a
    hex or brick fired at along its row has two neighbours equally to each side, one at the
    target's range, one a cell farther) the one at the target's range first (option
    side_fall_ties "same_range"), so that left and right mirror each other, where the facing
    order sent left a cell long and right not (before schema 3)."""
    grid = state.grid
    fire = grid.bearing(battery, aimed)
    want = fire + TURN[fall]
    level = fall in ("left", "right") and state.options["side_fall_ties"] == "same_range"
    reach = grid.distance(battery, aimed)
    best, best_off, best_level = None, None, False
    for facing in grid.facings:
        n = grid.step(aimed, facing)
        off = abs((grid.bearing(aimed, n) - want + 180) % 360 - 180)
        at_range = level and grid.distance(battery, n) == reach
        if best_off is None or off < best_off - 1e-9 or (
                at_range and not best_level and off < best_off + 1e-9):
            best, best_off, best_level = n, off, at_range
    return best if best is not None and grid.contains(best) else None


def sees(state: GameState, table: Mapping[str, Any], battery: Unit, cell: Cell) -> bool:
    """Direct fire: the battery sees the whole target cell (woods, villages, units and hills
    higher than both ends block the line) and the cell holds no woods or village."""
    blocking = table["terrain"]["sight_blocking"]
    if state.terrain.get(cell, "open") in blocking:
        return False
    units = {u.cell for u in state.alive()}
    top = max(level(state, battery.cell), level(state, cell))
    return state.grid.line_of_sight(
        battery.cell, cell, lambda c: state.terrain.get(c, "open") in blocking or c in units
        or level(state, c) > top)


def bombard(ctx: Context, table: Mapping[str, Any], battery: Unit, aimed: Cell) -> None:
    """frontier.artillery: the fall-of-shot die, where it lands, and the effect die on a unit
    there (destroyed units marked, removed after every battery has fired)."""
    s = ctx.state
    period = table["periods"][s.period]
    direct = sees(s, table, battery, aimed)
    die = ctx.roll("fall of shot", "frontier.fall_of_shot", battery.id)
    fall = "on target" if die >= 5 else FALLS[die]
    landed = aimed if fall == "on target" else fall_cell(s, battery.cell, aimed, fall)
    ctx.emit(events.ShellLanded, unit=battery.id, aimed=aimed, fall=fall, landed=landed,
             direct=direct, rules=("frontier.artillery", "frontier.fall_of_shot", "grid.arc",
                                   "grid.distance") + (("grid.los",) if direct else ()))
    victim = s.unit_at(landed) if landed is not None else None
    if victim is None:
        return
    effect = ctx.roll("artillery effect", "frontier.effect", victim.id)
    kind = "direct" if direct else "indirect"
    if period["units"][victim.type]["class"] == "commander":
        kind += "_commander"
    if effect in period["effect"][kind] and victim.id not in s.marked:
        ctx.emit(events.UnitMarked, unit=victim.id, rules=("frontier.effect", "frontier.turn"))


def remove_marked(ctx: Context) -> None:
    """frontier.turn: the artillery's losses go once both sides have fired."""
    for unit_id in list(ctx.state.marked):
        ctx.emit(model.UnitRemoved, unit=unit_id, hits=0, rules=("frontier.turn", "frontier.effect"))


def fight(ctx: Context, table: Mapping[str, Any], target: Unit, attackers: list[Unit],
          advance: bool) -> None:
    """frontier.combat: both roll a d6; at or under the faced attacker's strength destroys the
    target, at or under the target's destroys the faced attacker."""
    s = ctx.state
    period = table["periods"][s.period]
    ahead = s.grid.step(target.cell, target.facing)
    faced = next((a for a in attackers if a.cell == ahead), attackers[0])
    a_mods, d_mods = modifiers(s, table, target, faced, len(attackers))
    a_str = max(1, period["units"][faced.type]["strength"] + sum(v for _, v in a_mods))
    d_str = max(1, period["units"][target.type]["strength"] + sum(v for _, v in d_mods))
    a_die = ctx.roll("combat (attacker)", "frontier.combat", faced.id)
    d_die = ctx.roll("combat (defender)", "frontier.combat", target.id)
    rules = ["frontier.combat", "grid.adjacent"] + [r for r, _ in a_mods + d_mods]
    floored = (period["units"][faced.type]["strength"] + sum(v for _, v in a_mods) < 1 or
               period["units"][target.type]["strength"] + sum(v for _, v in d_mods) < 1)
    if floored:
        rules.append("frontier.strength_floor")
    won, lost = a_die <= a_str, d_die <= d_str
    ctx.emit(events.CombatFought, target=target.id, attackers=tuple(a.id for a in attackers),
             faced=faced.id, attacker_die=a_die, attacker_strength=a_str,
             attacker_modifiers=tuple(a_mods), defender_die=d_die, defender_strength=d_str,
             defender_modifiers=tuple(d_mods), target_destroyed=won, attacker_destroyed=lost,
             rules=tuple(dict.fromkeys(rules)))
    cell = target.cell
    if won:
        ctx.emit(model.UnitRemoved, unit=target.id, hits=0, rules=("frontier.combat",))
    if lost:
        ctx.emit(model.UnitRemoved, unit=faced.id, hits=0, rules=("frontier.combat",))
    elif won and advance and faced.type in period["advancing"]:
        ctx.emit(model.UnitMoved, unit=faced.id, path=(cell,), from_cell=faced.cell, to_cell=cell,
                 rules=("frontier.advance",))


def modifiers(state: GameState, table: Mapping[str, Any], target: Unit, faced: Unit,
              attackers: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(the faced attacker's, the target's) strength modifiers, each with its rule."""
    period = table["periods"][state.period]
    a_mods: list[tuple[str, int]] = []
    d_mods: list[tuple[str, int]] = []
    extra = period["several_attackers"][min(attackers, 4)]
    if extra:
        d_mods.append(("frontier.several_attackers", -extra))
    rise = level(state, target.cell) - level(state, faced.cell)
    if rise >= 1:
        a_mods.append(("frontier.hills", -min(rise, 2)))
        if rise <= 2:
            d_mods.append(("frontier.hills", 1))
    if state.terrain.get(target.cell) == "river":
        d_mods.append(("frontier.rivers", -1))
    cavalry = period["cavalry"]
    if faced.type in cavalry and state.terrain.get(target.cell) == "woods":
        a_mods.append(("frontier.woods", -1))
    if target.type in cavalry and state.terrain.get(target.cell) == "woods":
        d_mods.append(("frontier.woods", -1))
    return a_mods, d_mods


def check_annihilation(ctx: Context) -> None:
    left = {side: len(ctx.state.alive(side)) for side in ("red", "blue")}
    common.end_if_wiped_out(ctx, left, "frontier.victory")
