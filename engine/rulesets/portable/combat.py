"""The Portable Wargame's combat: attack dice, the hit table and the owner's choice, strength
points, exhaustion and the end of the battle.

The source stops at the missile-machine phase heading, so the procedure here is the catalogued
interpretation (``portable.resolution``, ``portable.hit_table``): an attack hits on 5+ (option
``hit_on``), a melee defender strikes back at the same time, and a hit unit rolls on the hit
table: 1-3 loses a strength point, 4-6 its owner chooses to retreat a cell or lose the point.
A Commander's strength points are notional (``portable.commander``, option ``commander_sp``):
the point he would lose is all of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.geometry import Cell
from warlog.engine.rulesets import common
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets.common import events as shared_events
from warlog.engine.rulesets.portable import events
from warlog.events import model

SIDES = ("red", "blue")


def row(state: GameState, unit: Unit, table: Mapping[str, Any]) -> Mapping[str, Any]:
    return table["periods"][state.period]["units"][unit.type]


def max_sp(state: GameState, unit: Unit, table: Mapping[str, Any]) -> int:
    """portable.sp: the unit table's strength points, adjusted for quality."""
    return row(state, unit, table)["sp"] + table.get("qualities", {}).get(unit.quality or "", 0)


def notional_commander(state: GameState, unit: Unit, table: Mapping[str, Any]) -> bool:
    """portable.commander: a Commander whose strength points are notional, not real."""
    return (row(state, unit, table)["class"] == "commander"
            and state.options["commander_sp"] == "notional")


def counted_loss(state: GameState, unit: Unit, table: Mapping[str, Any]) -> int:
    """Strength lost as the exhaustion point counts it: a Commander's only once it is lost."""
    if row(state, unit, table)["class"] == "commander":
        return max_sp(state, unit, table) if unit.removed else 0
    return min(unit.hits, max_sp(state, unit, table))


def army_strength(state: GameState, side: str, table: Mapping[str, Any]) -> tuple[int, int]:
    """(starting SP, SP lost as counted for exhaustion) of a side."""
    units = [u for u in state.units.values() if u.side == side]
    return (sum(max_sp(state, u, table) for u in units),
            sum(counted_loss(state, u, table) for u in units))


def melee_modifiers(state: GameState, attacker: Unit, defender: Unit, table: Mapping[str, Any],
                    *, striking_back: bool, aspect: str) -> list[tuple[str, int]]:
    """The special units' melee bonuses, each with its rule. ``aspect`` is where the attacker
    stands relative to the defender's facing before the attack."""
    mine = row(state, attacker if not striking_back else defender, table)
    other = row(state, defender if not striking_back else attacker, table)
    mods: list[tuple[str, int]] = []
    if not striking_back:
        charge = mine.get("charge")
        moved = state.active_moved if state.active == attacker.id else 0
        if charge is not None and moved >= charge[0]:
            mods.append((mine["rule"], charge[1]))
        elif "melee" in mine:
            mods.append((mine["rule"], mine["melee"]))
    else:  # the defender's own bonus or penalty for how it was attacked
        braced = mine.get("braced")
        if braced is not None:
            if aspect != "front":
                mods.append((mine["rule"], braced[1]))
            elif other["class"] == "mounted":
                mods.append((mine["rule"], braced[0]))
        if "melee" in mine:
            mods.append((mine["rule"], mine["melee"]))
    return mods


def roll_attack(ctx: Context, kind: str, source: Unit, target: Unit,
                modifiers: list[tuple[str, int]], rules: list[str]) -> bool:
    """One attack's die: hit on the option's number or more, modifiers added."""
    needed = ctx.state.options["hit_on"]
    purpose = "pila" if kind == "pila_volley" else kind.replace("_", " ")
    bonus = sum(v for _, v in modifiers)
    die = ctx.roll(purpose, "portable.resolution", source.id,
                   decides=lambda face: face + bonus >= needed)
    total = die + bonus
    ctx.emit(shared_events.AttackRolled, attack=kind, source=source.id, target=target.id, die=die,
             modifiers=tuple(modifiers), total=total, needed=needed, hit=total >= needed,
             rules=tuple(dict.fromkeys(["portable.resolution", *rules,
                                        *(r for r, _ in modifiers)])))
    return total >= needed


def retreat_cell(state: GameState, unit: Unit, attacker: Unit, table: Mapping[str, Any]) -> Cell | None:
    """The cell a hit unit retreats to: a neighbour farther from the attacker than it stands
    (a retreat never closes in), the farthest, then the one most nearly straight away; on the
    board, ground it may enter, and empty."""
    grid = state.grid
    entry = table["periods"][state.period].get("entry", {})
    away = grid.bearing(attacker.cell, unit.cell)
    now = grid.distance(unit.cell, attacker.cell)
    best, best_key = None, None
    for n in grid.neighbours(unit.cell):
        if grid.distance(n, attacker.cell) <= now:
            continue
        terrain = state.terrain.get(n, "open")
        if terrain in table["terrain"]["impassable"] or state.unit_at(n) is not None:
            continue
        if terrain in entry and unit.type not in entry[terrain]:
            continue
        off = abs((grid.bearing(unit.cell, n) - away + 180) % 360 - 180)
        key = (-grid.distance(n, attacker.cell), round(off, 9))
        if best_key is None or key < best_key:
            best, best_key = n, key
    return best


def take_hit(ctx: Context, unit: Unit, attacker: Unit, table: Mapping[str, Any], *,
             rule: str = "portable.hit_table", lose: Callable[[Unit], None] | None = None) -> None:
    """portable.hit_table: 1-3 lose a strength point; 4-6 the owner chooses (an order), unless
    the unit cannot retreat. Another system using the same table names its own ``rule`` and
    how it takes the loss (``lose``)."""
    lose = lose or (lambda u: lose_strength(ctx, u, table))
    die = ctx.roll("hit table", rule, unit.id, decides=lambda face: face <= 3)
    if die <= 3:
        ctx.emit(shared_events.HitTaken, unit=unit.id, attacker=attacker.id, die=die, outcome="lose",
                 rules=(rule,))
        lose(ctx.state.units[unit.id])
        return
    cell = retreat_cell(ctx.state, unit, attacker, table)
    if cell is None:
        ctx.emit(shared_events.HitTaken, unit=unit.id, attacker=attacker.id, die=die,
                 outcome="lose_no_retreat", rules=(rule,))
        lose(ctx.state.units[unit.id])
        return
    ctx.emit(shared_events.HitTaken, unit=unit.id, attacker=attacker.id, die=die, outcome="choose",
             retreat_to=cell, rules=(rule,))


def lose_strength(ctx: Context, unit: Unit, table: Mapping[str, Any]) -> None:
    """One strength point gone; at 0 the unit is removed; then exhaustion and annihilation.
    A Commander's points are notional (option ``commander_sp``): the point he would lose is
    all of them, so he is lost, and they all count toward the exhaustion point at once."""
    s = ctx.state
    if notional_commander(s, unit, table):
        full = max_sp(s, unit, table)
        ctx.emit(shared_events.StrengthLost, unit=unit.id, amount=full - unit.hits, total=full, left=0,
                 rules=("portable.hit_table", "portable.commander"))
        ctx.emit(model.UnitRemoved, unit=unit.id, hits=full, rules=("portable.commander",))
    else:
        left = max_sp(s, unit, table) - unit.hits - 1
        ctx.emit(shared_events.StrengthLost, unit=unit.id, amount=1, total=unit.hits + 1,
                 left=max(left, 0), rules=("portable.hit_table", "portable.sp"))
        if left <= 0:
            ctx.emit(model.UnitRemoved, unit=unit.id, hits=unit.hits + 1, rules=("portable.sp",))
    check_exhaustion(ctx, unit.side, table)
    check_annihilation(ctx, table)


def check_exhaustion(ctx: Context, side: str, table: Mapping[str, Any]) -> None:
    """portable.exhaustion: the moment an army has lost its exhaustion point, it is exhausted."""
    s = ctx.state
    if side in s.exhausted or side not in s.exhaustion:
        return
    _, lost = army_strength(s, side, table)
    if lost >= s.exhaustion[side]:
        ctx.emit(events.ArmyExhausted, side=side, lost=lost, point=s.exhaustion[side],
                 rules=("portable.exhaustion",))


def check_annihilation(ctx: Context, table: Mapping[str, Any]) -> None:
    """portable.victory: an army with nothing left but its Commander has lost."""
    s = ctx.state
    left = {side: sum(1 for u in s.alive(side) if row(s, u, table)["class"] != "commander")
            for side in SIDES}
    common.end_if_wiped_out(ctx, left, "portable.victory", "fighting units")


def share_lost(state: GameState, side: str, table: Mapping[str, Any]) -> float:
    start, lost = army_strength(state, side, table)
    return lost / start if start else 1.0


def both_exhausted(ctx: Context, table: Mapping[str, Any]) -> None:
    """portable.exhaustion: when both armies are exhausted the battle ends; the one exhausted
    later wins, else the one that lost the smaller share of its strength."""
    s = ctx.state
    if not all(side in s.exhausted for side in SIDES):
        return
    red, blue = s.exhausted["red"], s.exhausted["blue"]
    if red != blue:
        winner = "red" if red > blue else "blue"
        reason = f"both armies are exhausted; {winner} held out longer (turn {max(red, blue)})"
    else:
        shares = {side: share_lost(s, side, table) for side in SIDES}
        if math.isclose(shares["red"], shares["blue"]):
            winner, reason = None, "both armies are exhausted in the same turn: a draw"
        else:
            winner = min(SIDES, key=lambda side: shares[side])
            reason = (f"both armies are exhausted in turn {red}; {winner} lost the smaller "
                      "share of its strength")
    ctx.emit(model.GameEnded, winner=winner, reason=reason,
             rules=("portable.exhaustion", "portable.victory"), phase=None, side=None)


def last_turn(ctx: Context, table: Mapping[str, Any]) -> None:
    """portable.victory after the last turn: objectives held, then an army not exhausted over
    an exhausted one, then the smaller share of strength lost; else a draw."""
    s = ctx.state
    held = common.objectives_held(s)
    turns = s.scenario.victory.turn_limit
    shares = {side: share_lost(s, side, table) for side in SIDES}
    fresh = [side for side in SIDES if side not in s.exhausted]
    if held["red"] != held["blue"]:
        winner = "red" if held["red"] > held["blue"] else "blue"
        reason = f"after {turns} turns {winner} holds more objectives"
    elif len(fresh) == 1:
        winner = fresh[0]
        reason = f"after {turns} turns only {other_side(winner)} is exhausted"
    elif not math.isclose(shares["red"], shares["blue"]):
        winner = min(SIDES, key=lambda side: shares[side])
        reason = f"after {turns} turns {winner} lost the smaller share of its strength"
    else:
        winner, reason = None, f"after {turns} turns: a draw"
    ctx.emit(model.GameEnded, winner=winner, reason=reason, objectives=held,
             rules=("portable.victory",), phase=None, side=None)
