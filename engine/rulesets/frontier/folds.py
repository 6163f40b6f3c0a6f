"""The folds of the event kinds only Frontier writes (issue 40, plan section 4.2).

Moved verbatim from engine/fold.py: a battery's shell, a unit marked as destroyed by artillery
(removed later), and a combat with the units that fought it. Light on purpose (the registry
imports it when the first event is folded): no referee is imported here.
"""

from __future__ import annotations

from warlog.engine.fold import Event, unit_of as _unit
from warlog.engine.state import GameState


def _unit_marked(state: GameState, e: Event) -> None:
    _unit(state, e)
    if e["unit"] not in state.marked:
        state.marked.append(e["unit"])


def _shell_landed(state: GameState, e: Event) -> None:
    _unit(state, e).fired = True


def _combat_fought(state: GameState, e: Event) -> None:
    _unit(state, e, "target")
    for attacker in e["attackers"]:
        _unit(state, {"seq": e["seq"], "unit": attacker}).fought = True


FOLDS = {
    "shell_landed": _shell_landed,
    "unit_marked": _unit_marked,
    "combat_fought": _combat_fought,
}
"""Event kind -> its fold, for Frontier's own kinds."""
