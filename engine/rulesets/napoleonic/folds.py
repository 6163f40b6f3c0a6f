"""The folds of the event kinds only the Napoleonic system writes (issue 40, plan section 4.2).

Moved verbatim from engine/fold.py: a melee's roll (the attacker has fought, and whom) and an
advance won after a melee, taken in its phase or not at all. Light on purpose (the registry
imports it when the first event is folded): no referee is imported here.
"""

from __future__ import annotations

from warlog.engine.fold import Event, unit_of as _unit
from warlog.engine.state import GameState


def _melee_rolled(state: GameState, e: Event) -> None:
    u = _unit(state, e)
    _unit(state, e, "opponent")
    if e["attacking"]:
        u.fought, u.charged = True, e["opponent"]


def _advance_offered(state: GameState, e: Event) -> None:
    _unit(state, e)
    state.offers.append((e["unit"], tuple(e["cell"])))


FOLDS = {
    "melee_rolled": _melee_rolled,
    "advance_offered": _advance_offered,
}
"""Event kind -> its fold, for the Napoleonic system's own kinds."""
