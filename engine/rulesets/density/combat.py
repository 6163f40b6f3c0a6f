"""Shooting, melee, removal and the end of a battle under formation density.

The arithmetic is One Hour Wargames' (ohw_combat: die + modifier, doubling against flank and
rear, the period's halvings) in the period option ``combat`` names (density.combat); the
density rules add only the figures out of formation, each taking 1 off the die, at most the
table's ``disorder_cap`` (density.disorder_penalty). Every die is a dice event and every hits
event carries what the disorder took off (``disorder``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.rulesets import common
from warlog.engine.rulesets.ohw import combat as ohw_combat
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets.common import events as shared_events


def combat_period(state: GameState) -> Mapping[str, Any]:
    """The One Hour Wargames period table whose unit types and combat the battle uses."""
    return load_table("ohw")["periods"][state.options["combat"]]


def ohw_row(state: GameState, unit: Unit) -> dict[str, Any]:
    """The unit type's row in that period (range, shooting and melee modifiers)."""
    return ohw_combat.unit_row(state, combat_period(state), unit.type)


def disorder(state: GameState, unit: Unit) -> int:
    """What the unit's figures out of formation take off its die (0 or negative)."""
    cap = load_table("density")["periods"][state.period]["disorder_cap"]
    return -min(unit.disordered, cap)


def shooting(state: GameState, shooter: Unit, target: Unit) -> ohw_combat.Attack:
    return ohw_combat.shooting(state, combat_period(state), shooter, target,
                               p=state.options["combat"])


def expected_shot(state: GameState, shooter: Unit, target: Unit) -> float:
    """The mean hits of a shot over the six faces, the shooter's disorder included."""
    attack, off = shooting(state, shooter, target), disorder(state, shooter)
    return sum(attack.hits(face + off, state.options["halving"])[1] for face in range(1, 7)) / 6


def contacts(state: GameState, unit: Unit) -> list[Unit]:
    """density.contact: the enemies in cells adjacent to ``unit``, in the scenario's order."""
    return [e for e in state.alive(other_side(unit.side))
            if state.grid.distance(unit.cell, e.cell) == 1]


def emit_hits(ctx: Context, kind: str, source: Unit, target: Unit, die: int,
              attack: ohw_combat.Attack, rules: list[str]) -> None:
    """The hits of one die: figures out of formation come off the die before the modifier."""
    s = ctx.state
    off = disorder(s, source)
    base, hits = attack.hits(die + off, s.options["halving"])
    rules = rules + list(attack.rules) + [rule for _, rule in attack.halvings]
    if attack.halvings:
        rules.append("ohw.halving")
    if off:
        rules.append("density.disorder_penalty")
    ctx.emit(shared_events.HitsInflicted, attack=kind, source=source.id, target=target.id, die=die,
             modifier=attack.modifier, base=base, doubled=attack.doubled,
             halvings=tuple(name for name, _ in attack.halvings), hits=hits,
             total=target.hits + hits, disorder=off, rules=tuple(dict.fromkeys(rules)))


def shoot(ctx: Context, shooter: Unit, target: Unit) -> None:
    s = ctx.state
    attack = shooting(s, shooter, target)
    die = ctx.roll("shooting", "ohw.shoot.roll", shooter.id)
    emit_hits(ctx, "shooting", shooter, target, die, attack,
              ["density.actions", "ohw.shoot.roll", "density.combat", "grid.distance",
               "grid.shooting", "ohw.shoot.arc", "grid.arc"])


def resolve_melee(ctx: Context) -> None:
    """density.melee: each phasing unit in contact, in scenario order, rolls once against each
    enemy it touches (not one already due for removal)."""
    s = ctx.state
    limit = s.options["hits_to_remove"]
    for unit in s.alive(s.side):
        for enemy in contacts(s, unit):
            enemy = s.units[enemy.id]
            if enemy.hits >= limit:
                continue
            melee_one(ctx, unit, enemy)


def melee_one(ctx: Context, unit: Unit, enemy: Unit) -> None:
    """One unit's melee die against one enemy it is in contact with (the odds use it too)."""
    s = ctx.state
    attack = ohw_combat.melee(s, combat_period(s), unit, enemy, p=s.options["combat"])
    die = ctx.roll("melee", "density.melee", unit.id)
    emit_hits(ctx, "melee", s.units[unit.id], enemy, die, attack,
              ["density.melee", "density.contact", "density.combat", "grid.adjacent"])


def resolve_removal(ctx: Context) -> None:
    """density.removal, then density.victory: a side with nothing left has lost."""
    common.remove_at_limit(ctx, "density.removal", "density.victory")


def end_of_game(ctx: Context) -> None:
    """density.victory after the last turn: objectives held, then enemy units removed."""
    common.last_turn(ctx, "density.victory", "objectives are even; {winner} removed more enemy "
                                             "units")
