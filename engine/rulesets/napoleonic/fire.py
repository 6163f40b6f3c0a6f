"""Napoleonic combat: artillery fire, musketry and melee, each die with every modifier that
applied (its rule id and value, from the table) in its event, and the hits table.

Which modifiers apply is decided here; their values and rule ids are data (napoleonic/table.toml).
A unit in square has no flank or rear (every "flank or rear" modifier below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.geometry import Cell
from warlog.engine.rulesets import common
from warlog.engine.rulesets.napoleonic import move
from warlog.engine.rulesets.portable import combat as portable_combat
from warlog.engine.state import GameState, Unit
from warlog.engine.rulesets.common import events as shared_events
from warlog.engine.rulesets.napoleonic import events
from warlog.events import model

SIDES = ("red", "blue")


def period(state: GameState, table: Mapping[str, Any]) -> Mapping[str, Any]:
    return table["periods"][state.period]


def exposed(state: GameState, target: Unit, source: Cell, table: Mapping[str, Any]) -> bool:
    """Whether fire or an attack from ``source`` strikes the target's flank or rear (never a
    square's). Adjacent: the side it comes through (grid.aspect). From further off
    (napoleonic.flank_at_range): the line from the target to the source is more than 45 degrees
    off its facing on squares, 90 or more on hexes and bricks (as grid.aspect divides them)."""
    if move.formation(state, target, table) == "square":
        return False
    grid = state.grid
    if grid.distance(target.cell, source) == 1:
        return grid.aspect(target.cell, target.facing, source) != "front"
    off = grid.angle_off(target.cell, target.facing, source)
    return off > 45 + 1e-9 if grid.kind == "square" else off >= 90 - 1e-9


def in_cover(state: GameState, unit: Unit, table: Mapping[str, Any]) -> bool:
    return state.terrain.get(unit.cell, "open") in table["terrain"]["cover"]


def sees(state: GameState, shooter: Unit, cell: Cell, table: Mapping[str, Any]) -> bool:
    """grid.los with napoleonic.fire.enclosed: sight passes at most ``enclosed_depth`` cells
    into woods, villages and fortifications at the target's end (the target's own cell
    counted); hills and enemy units between block it, as grid.los says."""
    grid, terrain = state.grid, state.terrain
    enclosed, blocking = table["terrain"]["enclosed"], table["terrain"]["sight_blocking"]
    depth = period(state, table)["enclosed_depth"]
    line = grid.line(shooter.cell, cell)
    inside = 0
    for c in reversed(line[1:]):  # from the target back toward the shooter
        if terrain.get(c, "open") not in enclosed:
            break
        inside += 1
    if inside > depth:
        return False
    screens = {u.cell for u in state.alive() if u.side != shooter.side}  # grid.los: enemies
    last_enclosed = set(line[len(line) - inside:])

    def blocks(c: Cell) -> bool:
        kind = terrain.get(c, "open")
        return c in screens or (kind in blocking and c not in last_enclosed)

    return grid.line_of_sight(shooter.cell, cell, blocks)


def from_the_edge(state: GameState, shooter: Unit, cell: Cell, table: Mapping[str, Any]) -> bool:
    """napoleonic.fire.enclosed: a unit inside woods, a village or a fortification fires only
    from its edge (the next cell toward the target is not such ground)."""
    enclosed = table["terrain"]["enclosed"]
    if state.terrain.get(shooter.cell, "open") not in enclosed:
        return True
    line = state.grid.line(shooter.cell, cell)
    return len(line) < 2 or state.terrain.get(line[1], "open") not in enclosed


def _mods(table_mods: Mapping[str, Any], names: list[str]) -> list[tuple[str, int]]:
    return [(table_mods[n][0], table_mods[n][1]) for n in names]


def artillery_modifiers(state: GameState, battery: Unit, target: Unit,
                        table: Mapping[str, Any]) -> list[tuple[str, int]]:
    p = period(state, table)
    names = []
    if exposed(state, target, battery.cell, table):
        names.append("flank")
    if state.grid.distance(battery.cell, target.cell) <= p["canister"]:
        names.append("canister")
    if move.formation(state, target, table) in ("column", "square"):
        names.append("column_or_square")
    if sees(state, battery, target.cell, table):
        names.append("direct")
    if battery.aimed == target.cell and battery.aimed_turn == state.turn - 1:
        names.append("same_cell")
    if move.commander_with(state, battery, table) is not None:
        names.append("commander")
    if in_cover(state, target, table):
        names.append("cover")
    return _mods(p["artillery_modifiers"], names)


def musketry_modifiers(state: GameState, shooter: Unit, target: Unit,
                       table: Mapping[str, Any]) -> list[tuple[str, int]]:
    p, stands = period(state, table), move.formation(state, shooter, table)
    names = []
    if stands == "line":
        names.append("line")
    if not shooter.moved:
        names.append("still")
    if exposed(state, target, shooter.cell, table):
        names.append("flank")
    if move.commander_with(state, shooter, table) is not None:
        names.append("commander")
    if stands == "square":
        names.append("square")
    if in_cover(state, target, table):
        names.append("cover")
    return _mods(p["musketry_modifiers"], names)


def melee_modifiers(state: GameState, attacker: Unit, defender: Unit, table: Mapping[str, Any],
                    *, for_attacker: bool) -> list[tuple[str, int]]:
    """The modifiers of one side's melee die (``for_attacker``: the attacking unit's)."""
    p = period(state, table)
    mine, other = (attacker, defender) if for_attacker else (defender, attacker)
    kind = move.row(state, attacker, table)["class"]
    target_kind = move.row(state, defender, table)["class"]
    attacker_stands = move.formation(state, attacker, table)
    defender_stands = move.formation(state, defender, table)
    names = []
    if for_attacker:
        if kind == "cavalry" and attacker_stands == "line":
            names.append("cavalry_line")
        column_kinds = ("infantry", "cavalry") if state.options["melee_column"] == "both" else (
            "infantry",)
        if (kind in column_kinds and attacker_stands == "column"
                and (target_kind == "infantry" and defender_stands == "line"
                     or target_kind == "artillery")):
            names.append("column")
        if kind == "cavalry" and target_kind == "infantry" and defender_stands == "square":
            names.append("against_square")
        if move.commander_with(state, attacker, table) is not None:
            names.append("commander")
        if exposed(state, defender, attacker.cell, table):
            names.append("attacking_flank")
    elif exposed(state, defender, attacker.cell, table):
        names.append("attacked_flank")
    if state.terrain.get(other.cell, "open") in table["terrain"]["high"]:
        names.append("high_ground")
    return _mods(p["melee_modifiers"], names)


def situation_rules(state: GameState, source: Unit, target: Unit, mods: list[tuple[str, int]],
                    table: Mapping[str, Any]) -> list[str]:
    """The readings a shot also rests on: flank or rear judged at range, and fire into or out
    of woods, villages and fortifications."""
    out = []
    flank = any(r.endswith(".flank") for r, _ in mods)
    if flank and state.grid.distance(source.cell, target.cell) > 1:
        out.append("napoleonic.flank_at_range")
    enclosed = table["terrain"]["enclosed"]
    if any(state.terrain.get(u.cell, "open") in enclosed for u in (source, target)):
        out.append("napoleonic.fire.enclosed")
    return out


def roll_fire(ctx: Context, kind: str, source: Unit, target: Unit,
              modifiers: list[tuple[str, int]], rules: list[str], table: Mapping[str, Any]) -> None:
    """An artillery or musketry die: 5+ after modifiers hits, and the target rolls on the hits
    table."""
    needed = period(ctx.state, table)["hit_on"]
    die = ctx.roll(kind, rules[0], source.id)
    total = die + sum(v for _, v in modifiers)
    ctx.emit(shared_events.AttackRolled, attack=kind, source=source.id, target=target.id, die=die,
             modifiers=tuple(modifiers), total=total, needed=needed, hit=total >= needed,
             rules=tuple(dict.fromkeys([*rules, *(r for r, _ in modifiers)])))
    if total >= needed:
        take_hit(ctx, ctx.state.units[target.id], ctx.state.units[source.id], table)


def melee(ctx: Context, attacker: Unit, defender: Unit, table: Mapping[str, Any]) -> None:
    """napoleonic.melee: both roll; a total of 2 or less takes a hit (the defender's first);
    a winner that is Infantry or Cavalry may advance into the cell its enemy left."""
    s, at_most = ctx.state, period(ctx.state, table)["melee_hit_at_most"]
    results = []
    for unit, other, attacking in ((attacker, defender, True), (defender, attacker, False)):
        mods = melee_modifiers(s, attacker, defender, table, for_attacker=attacking)
        die = ctx.roll("melee", "napoleonic.melee", unit.id)
        total = die + sum(v for _, v in mods)
        ctx.emit(events.MeleeRolled, unit=unit.id, opponent=other.id, attacking=attacking,
                 die=die, modifiers=tuple(mods), total=total, at_most=at_most,
                 hit=total <= at_most,
                 rules=tuple(dict.fromkeys(["napoleonic.melee", *(r for r, _ in mods)])))
        results.append(total <= at_most)
    cell = defender.cell
    if results[1]:
        take_hit(ctx, s.units[defender.id], s.units[attacker.id], table)
    if results[0] and not s.ended:
        take_hit(ctx, s.units[attacker.id], s.units[defender.id], table)
    offer_advance(ctx, attacker.id, defender.id, cell, table)


def offer_advance(ctx: Context, attacker: str, defender: str, cell: Cell,
                  table: Mapping[str, Any], rules: tuple[str, ...] = ("napoleonic.advance",)
                  ) -> None:
    """napoleonic.advance: the attacker won if its enemy was destroyed or retreated and it still
    stands where it fought; Infantry and Cavalry may then take the cell (a choice still owed
    for the enemy waits: the offer comes once it retreats; a winner that owes a choice of its
    own does not advance)."""
    s = ctx.state
    a, d = s.units[attacker], s.units[defender]
    if s.ended or a.removed or any(p["unit"] in (attacker, defender) for p in s.pending):
        return
    won = d.removed or d.cell != cell
    if won and move.row(s, a, table)["class"] in ("infantry", "cavalry") \
            and move.occupant(s, cell, table) is None and s.grid.distance(a.cell, cell) == 1:
        ctx.emit(events.AdvanceOffered, unit=a.id, cell=cell, rules=rules)


def take_hit(ctx: Context, unit: Unit, attacker: Unit, table: Mapping[str, Any]) -> None:
    """napoleonic.hits_table: the option ``hits_table`` says whether the owner may choose to
    retreat (the Portable Wargame's table) or every hit costs a strength point."""
    if ctx.state.options["hits_table"] == "lose":
        lose_strength(ctx, unit, table)
        return
    portable_combat.take_hit(ctx, unit, attacker, table, rule="napoleonic.hits_table",
                             lose=lambda u: lose_strength(ctx, u, table))


def lose_strength(ctx: Context, unit: Unit, table: Mapping[str, Any]) -> None:
    """One strength point gone; at 0 the unit is removed (napoleonic.hits_table)."""
    sp = move.row(ctx.state, unit, table)["sp"]
    left = sp - unit.hits - 1
    ctx.emit(shared_events.StrengthLost, unit=unit.id, amount=1, total=unit.hits + 1, left=max(left, 0),
             rules=("napoleonic.hits_table",))
    if left <= 0:
        ctx.emit(model.UnitRemoved, unit=unit.id, hits=unit.hits + 1,
                 rules=("napoleonic.hits_table",))
    s = ctx.state
    left_units = {side: sum(1 for u in s.alive(side) if not move.is_commander(s, u, table))
                  for side in SIDES}
    common.end_if_wiped_out(ctx, left_units, "napoleonic.victory", "fighting units")
