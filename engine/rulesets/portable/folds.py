"""The folds of the event kinds only the Portable Wargame writes (issue 40, plan section 4.2).

Moved verbatim from engine/fold.py: a unit's activation (which closes the previous one) and the
armies' exhaustion. Light on purpose (the registry imports it when the first event is folded):
no referee is imported here.
"""

from __future__ import annotations

from warlog.engine.fold import Event, unit_of as _unit
from warlog.engine.state import GameState


def _unit_activated(state: GameState, e: Event) -> None:
    if state.active is not None:
        _unit(state, {"seq": e["seq"], "unit": state.active}).done = True
    _unit(state, e)
    state.active, state.active_moved = e["unit"], 0


def _exhaustion_points(state: GameState, e: Event) -> None:
    state.exhaustion = dict(e["points"])


def _army_exhausted(state: GameState, e: Event) -> None:
    state.exhausted[e["side"]] = e["turn"]


FOLDS = {
    "unit_activated": _unit_activated,
    "exhaustion_points": _exhaustion_points,
    "army_exhausted": _army_exhausted,
}
"""Event kind -> its fold, for the Portable Wargame's own kinds."""
