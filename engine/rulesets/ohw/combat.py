"""One Hour Wargames combat arithmetic: die + modifier, doubling, the period's halvings.

Everything here is a pure function of the position and the period's table, so the referee,
the bots and the odds all read one account of what an attack is worth. A halving is data
(``[[periods.<p>.halvings]]`` in ohw/table.toml): its name, its rule, the attacks it applies to and
the conditions it needs (the target's terrain or type, the attacker's type, whether the target is
defending or in a trench, whether the battle is before the period's ``year_split``, the value of
an option).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from warlog.engine.geometry import Cell
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit


def halve(value: int, times: int, mode: str) -> int:
    """ohw.halving: divide by 2 rounding up, once per reason (``each``) or at most once."""
    if mode == "once":
        times = min(times, 1)
    for _ in range(times):
        value = math.ceil(value / 2)
    return value


def after_split(state: GameState, period: Mapping[str, Any]) -> bool:
    """Whether the battle's year is on or after the period's ``year_split`` (1860 rules)."""
    split = period.get("year_split")
    return split is not None and (state.scenario.year or 0) >= split


def unit_row(state: GameState, period: Mapping[str, Any], unit_type: str) -> dict[str, Any]:
    """A unit type's table row, with its ``after`` values when the year is past the split."""
    row = dict(period["units"][unit_type])
    if "after" in row and after_split(state, period):
        row.update(row["after"])
    return row


def on_open_ground(state: GameState, cell: Cell) -> bool:
    """ohw.machine_age.trenches: open ground is a cell with no terrain, or a road (a way through,
    not a feature); woods, a village, a hill or a river crossing is not."""
    return state.terrain.get(cell, "open") in ("open", *load_table("ohw")["terrain"]["open_ground"])


def in_trench(state: GameState, unit: Unit) -> bool:
    """ohw.machine_age.in_trench: a unit of the defender on open ground, wherever it stands now
    (option trench_cells = open_ground); or, the reading before schema 3 (start), any unit of the
    defender in a cell dug when the roles were chosen."""
    if state.defender is None or unit.side != state.defender:
        return False
    if state.options.get("trench_cells") == "open_ground":
        return on_open_ground(state, unit.cell)
    return unit.cell in state.trenches


def trench_cells(state: GameState) -> list[Cell]:
    """The trenches to draw: under the source's reading a trench follows its unit (the cells the
    defender's units on open ground hold now); under ``start``, the cells dug at the roles."""
    if state.defender is not None and state.options.get("trench_cells") == "open_ground":
        return [u.cell for u in state.alive(state.defender) if on_open_ground(state, u.cell)]
    return list(state.trenches)


@dataclass(frozen=True)
class Attack:
    """What an attack is worth before the die: the modifier, whether hits are doubled, and the
    halvings (name, rule) that apply, plus the rules behind the modifier."""

    modifier: int
    doubled: bool
    halvings: tuple[tuple[str, str], ...]
    rules: tuple[str, ...]

    def hits(self, die: int, mode: str) -> tuple[int, int]:
        """(base, hits) for a die: base = die + modifier (never below 0), then doubling, then
        each halving."""
        base = max(0, die + self.modifier)
        value = base * 2 if self.doubled else base
        return base, halve(value, len(self.halvings), mode)

    def expected(self, mode: str) -> float:
        """The mean hits over the six faces of the die (exact, not sampled)."""
        return sum(self.hits(face, mode)[1] for face in range(1, 7)) / 6


def halvings(state: GameState, period: Mapping[str, Any], attack: str, source: Unit | None,
             target: Unit, *, defending: bool = False) -> tuple[tuple[str, str], ...]:
    """The period's halvings that protect ``target`` from this attack, in table order."""
    terrain = state.terrain.get(target.cell, "open")
    early = not after_split(state, period)
    out = []
    for h in period.get("halvings", ()):
        if attack not in h["attacks"]:
            continue
        if "terrain" in h and terrain not in h["terrain"]:
            continue
        if "targets" in h and target.type not in h["targets"]:
            continue
        if "sources" in h and (source is None or source.type not in h["sources"]):
            continue
        if "sources_except" in h and source is not None and source.type in h["sources_except"]:
            continue
        if h.get("defending") and not defending:
            continue
        if h.get("trench") and not in_trench(state, target):
            continue
        if any(state.options.get(k) != v for k, v in h.get("options", {}).items()):
            continue
        if h.get("before_year") and not early:
            continue
        out.append((h["name"], h["rule"]))
    return tuple(out)


def shooting(state: GameState, period: Mapping[str, Any], shooter: Unit, target: Unit, *,
             p: str | None = None) -> Attack:
    """``p``: the One Hour Wargames period whose rules are cited, when the game's own period is
    not one (the density system borrows a period's arithmetic, option combat)."""
    p = p or state.period
    row = unit_row(state, period, shooter.type)
    modifier = row["shoot_modifier"] + row.get("shoot_vs", {}).get(target.type, 0)
    rules = [f"ohw.{p}.shooting", *_year_rules(state, period, row, "shoot_modifier", p),
             *_option_rules(state, period, p, shooter, target)]
    return Attack(modifier, False, halvings(state, period, "shooting", shooter, target),
                  tuple(rules))


def _year_rules(state: GameState, period: Mapping[str, Any], row: Mapping[str, Any],
                key: str, p: str) -> list[str]:
    """The rules behind a value that depends on the battle's year (rifles after 1860, ...)."""
    if "after" not in row or key not in row["after"]:
        return []
    return [f"ohw.{p}.year"] + ([f"ohw.{p}.rifles"] if key == "shoot_modifier"
                                 and after_split(state, period) else [])


def _option_rules(state: GameState, period: Mapping[str, Any], p: str, *units: Unit) -> list[str]:
    """The optional rule that brought a unit type into play (Machine Age tanks)."""
    return list(dict.fromkeys(f"ohw.{p}.{period['units'][u.type]['option']}"
                              for u in units if "option" in period["units"][u.type]))


def melee(state: GameState, period: Mapping[str, Any], attacker: Unit, target: Unit, *,
          p: str | None = None, defending: bool | None = None) -> Attack:
    """``attacker`` is the unit rolling (the phasing one); the target is defending when it is the
    one that was attacked in this melee (``defending``: say so for a melee not yet joined, as
    the bots weigh one). ``p`` as for :func:`shooting`."""
    p = p or state.period
    row = unit_row(state, period, attacker.type)
    doubled = state.grid.aspect(target.cell, target.facing, attacker.cell) != "front"
    if defending is None:
        defending = (attacker.id, target.id) in state.melees
    rules = [f"ohw.{p}.melee", *_year_rules(state, period, row, "melee_modifier", p)]
    rules += ["ohw.melee.flank"] if doubled else []
    return Attack(row.get("melee_modifier", 0), doubled,
                  halvings(state, period, "melee", attacker, target, defending=defending),
                  tuple(rules))
