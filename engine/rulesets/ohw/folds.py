"""The folds of the event kinds only One Hour Wargames writes (issue 40, plan section 4.2).

Moved verbatim from engine/fold.py: melees ending, ammunition, spotting, the roll-off, the
Machine Age's roles, trenches and barrage, and the rolled armies of turn 0. Light on purpose
(the registry imports it when the first event is folded): no referee is imported here; a rolled
unit is built through the game's own record (``Ruleset.Unit``), as the game's first units were.
"""

from __future__ import annotations

from warlog.engine.fold import Event, FoldError, unit_of as _unit
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import GameState


def _melee_ended(state: GameState, e: Event) -> None:
    pair = (e["attacker"], e["defender"])
    if pair not in state.melees:
        raise FoldError(f"event seq {e['seq']}: {pair[0]} and {pair[1]} are not in melee")
    state.melees.remove(pair)


def _out_of_ammo(state: GameState, e: Event) -> None:
    _unit(state, e).out_of_ammo = True


def _enemies_spotted(state: GameState, e: Event) -> None:
    state.spotted = [tuple(pair) for pair in e["seen"]]


def _roll_off(state: GameState, e: Event) -> None:
    state.side = e["winner"]


def _roles_chosen(state: GameState, e: Event) -> None:
    state.defender = e["defender"]
    state.trenches = [tuple(c) for c in e["trenches"]]


def _barrage_planned(state: GameState, e: Event) -> None:
    state.barrage_targets = e["targets"]


def _army_rolled(state: GameState, e: Event) -> None:
    for spec in e["units"]:
        if spec["id"] in state.units:
            raise FoldError(f"event seq {e['seq']}: unit {spec['id']!r} is already in the game")
        state.units[spec["id"]] = get_ruleset(state.rule_system).Unit(
            id=spec["id"], side=e["side"], type=spec["type"], cell=tuple(spec["cell"]),
            facing=spec["facing"])


FOLDS = {
    "melee_ended": _melee_ended,
    "out_of_ammo": _out_of_ammo,
    "enemies_spotted": _enemies_spotted,
    "roll_off": _roll_off,
    "roles_chosen": _roles_chosen,
    "barrage_planned": _barrage_planned,
    "army_rolled": _army_rolled,
}
"""Event kind -> its fold, for One Hour Wargames' own kinds."""
