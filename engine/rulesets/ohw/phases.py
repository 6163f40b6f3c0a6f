"""One Hour Wargames phases that play themselves: rolled armies, the roll-off and barrage before
the first turn, spotting (WWII), melee, removal, and the end of the game.

Each function writes its consequences through the Context, so every die is a dice event and
every result cites its rules; the referee (ohw.py) only routes phases here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.rulesets import common
from warlog.engine.rulesets.ohw import combat as ohw_combat
from warlog.engine.rulesets.ohw.army import army_types, classes_for, unit_ids
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets.common import events as shared_events
from warlog.engine.rulesets.ohw import events
from warlog.events import model


def roll_armies(ctx: Context) -> None:
    """ohw.army: each side with a rolled army rolls a d6 on the table for its size."""
    s = ctx.state
    for side in ("red", "blue"):
        spec = s.scenario.armies.get(side)
        if spec is None:
            continue
        roll = ctx.roll(f"army ({spec.units} units)", "ohw.army")
        types = army_types(s.period, spec.units, roll, s.options)
        units = tuple(events.ArmyUnit(id=uid, type=t, cell=cell, facing=spec.facing)
                      for uid, t, cell in zip(unit_ids(side, types), types, spec.cells))
        ctx.emit(events.ArmyRolled, side=side, size=spec.units, roll=roll,
                 classes=classes_for(spec.units, roll), units=units, rules=("ohw.army",))


def roll_off(ctx: Context, rule: str) -> None:
    """Both sides roll a d6, again on a tie; the higher chooses (here: the roles)."""
    ctx.emit(events.RollOff, winner=common.roll_higher(ctx, "roll-off", rule), rules=(rule,))


def plan_barrage(ctx: Context) -> None:
    """ohw.machine_age.barrage: the attacker's d6, halved rounding up, is how many enemy units
    the barrage strikes (all of them if there are fewer)."""
    s = ctx.state
    die = ctx.roll("barrage targets", "ohw.machine_age.barrage")
    targets = min(math.ceil(die / 2), len(s.alive(s.defender)))
    ctx.emit(events.BarragePlanned, targets=targets,
             rules=("ohw.machine_age.barrage", "ohw.halving"))


def spot(ctx: Context, period: Mapping[str, Any], terrain_table: Mapping[str, Any]) -> None:
    """ohw.ww2.spotting: every enemy each phasing unit sees (within range, and with a clear line
    of sight when the option is on)."""
    s = ctx.state
    reach = period["spotting"]["range"]
    seen = []
    for unit in s.alive(s.side):
        for enemy in s.alive(other_side(s.side)):
            if s.grid.distance(unit.cell, enemy.cell) > reach:
                continue
            if s.options.get("line_of_sight") and not clear_line(s, terrain_table, unit, enemy):
                continue
            seen.append((unit.id, enemy.id))
    rules = (f"ohw.{s.period}.spotting",) + (("grid.los",) if s.options.get("line_of_sight") else ())
    ctx.emit(events.EnemiesSpotted, seen=tuple(seen), rules=rules)


def clear_line(state: GameState, terrain_table: Mapping[str, Any], a: Unit, b: Unit) -> bool:
    """grid.los between two units: hills, woods and villages block, and so do units of b's side
    other than b itself."""
    blocking = terrain_table["sight_blocking"]
    screens = {u.cell for u in state.alive(b.side) if u.id != b.id}
    return state.grid.line_of_sight(
        a.cell, b.cell, lambda c: state.terrain.get(c, "open") in blocking or c in screens)


def melee_target(state: GameState, unit: Unit, *, attacker_only: bool = False
                 ) -> tuple[Unit | None, bool]:
    """ohw.melee.target: the enemy this unit fights, and whether it had to choose. With
    ``attacker_only`` (Horse & Musket) a unit fights only an enemy it attacked."""
    limit = state.options["hits_to_remove"]
    engaged = [state.units[e] for e in state.engaged(unit.id)]
    if attacker_only:
        engaged = [e for e in engaged if (unit.id, e.id) in state.melees]
    live = [e for e in engaged if e.hits < limit]
    if not live:
        return None, False
    chose = len(engaged) > 1
    for e in live:
        if e.id == unit.attacked:
            return e, chose
    for e in live:
        if state.grid.aspect(unit.cell, unit.facing, e.cell) == "front":
            return e, chose
    return live[0], chose


def emit_hits(ctx: Context, kind: str, source: Unit | None, target: Unit, die: int,
              attack: ohw_combat.Attack, rules: list[str]) -> None:
    base, hits = attack.hits(die, ctx.state.options["halving"])
    rules = rules + list(attack.rules) + [rule for _, rule in attack.halvings]
    if attack.halvings:
        rules.append("ohw.halving")
    ctx.emit(shared_events.HitsInflicted, attack=kind, source=source.id if source else None,
             target=target.id, die=die, modifier=attack.modifier, base=base,
             doubled=attack.doubled, halvings=tuple(name for name, _ in attack.halvings),
             hits=hits, total=target.hits + hits, rules=tuple(dict.fromkeys(rules)))


def resolve_melee(ctx: Context, period: Mapping[str, Any], terrain_table: Mapping[str, Any]) -> None:
    """ohw.melee.own_turn: every phasing unit in melee (Horse & Musket: every attacker) rolls."""
    s = ctx.state
    attacker_only = period.get("melee_rolls") == "attacker"
    for unit in s.alive(s.side):
        target, chose = melee_target(s, unit, attacker_only=attacker_only)
        if target is not None:
            fight(ctx, period, terrain_table, unit, target, chose=chose)


def fight(ctx: Context, period: Mapping[str, Any], terrain_table: Mapping[str, Any], unit: Unit,
          target: Unit, *, chose: bool) -> None:
    """One unit's melee roll against the enemy it fights (``chose``: it picked that enemy among
    several, ohw.melee.target), then the regroup where the period has one. The melee phase runs
    it for every phasing unit in melee; the odds run it for one pair."""
    s = ctx.state
    attack = ohw_combat.melee(s, period, unit, target)
    die = ctx.roll("melee", "ohw.melee.own_turn", unit.id)
    rules = ["ohw.melee.own_turn", *attack.rules[:1]] + (["ohw.melee.target"] if chose else [])
    if period.get("melee_rolls") == "attacker":
        rules.append(f"ohw.{s.period}.attack")
    emit_hits(ctx, "melee", unit, target, die, attack, rules)
    if unit.type in period.get("regroup", ()):
        regroup(ctx, terrain_table, period, s.units[unit.id], s.units[target.id])


def regroup(ctx: Context, terrain_table: Mapping[str, Any], period: Mapping[str, Any],
            unit: Unit, target: Unit) -> None:
    """ohw.horse_and_musket.regroup: an attacker that did not destroy its target falls back one
    cell straight back, keeping its facing, and the melee ends; where it cannot (the board's
    edge, ground it may not enter, another unit) it stays and the melee goes on."""
    s = ctx.state
    if target.hits >= s.options["hits_to_remove"] or (unit.id, target.id) not in s.melees:
        return
    back = s.grid.step(unit.cell, s.grid.opposite(unit.facing))
    terrain = s.terrain.get(back, "open")
    allowed = period.get("entry", {}).get(terrain)
    if (not s.grid.contains(back) or terrain in terrain_table["impassable"]
            or (allowed is not None and unit.type not in allowed) or s.unit_at(back) is not None):
        return
    rule = f"ohw.{s.period}.regroup"
    ctx.emit(events.MeleeEnded, attacker=unit.id, defender=target.id, rules=(rule,))
    ctx.emit(model.UnitMoved, unit=unit.id, path=(back,), from_cell=unit.cell, to_cell=back,
             rules=(rule,))


def resolve_removal(ctx: Context) -> None:
    """ohw.removal, then ohw.victory: a side with nothing left has lost."""
    common.remove_at_limit(ctx, "ohw.removal", "ohw.victory")


def end_of_game(ctx: Context) -> None:
    """ohw.victory after the last turn: objectives held, then enemy units removed."""
    common.last_turn(ctx, "ohw.victory", "objectives are even; {winner} removed more enemy units")
