"""The folds of the event kinds only the density system writes (issue 40, plan section 4.2).

Moved verbatim from engine/fold.py: figures put out of formation by a disorder test, and a unit
that reforms. Light on purpose (the registry imports it when the first event is folded): no
referee is imported here.
"""

from __future__ import annotations

from warlog.engine.fold import Event, unit_of as _unit
from warlog.engine.state import GameState


def _disorder_tested(state: GameState, e: Event) -> None:
    _unit(state, e).disordered += e["figures"]


def _unit_reformed(state: GameState, e: Event) -> None:
    u = _unit(state, e)
    u.disordered = 0
    u.reformed = True


FOLDS = {
    "disorder_tested": _disorder_tested,
    "unit_reformed": _unit_reformed,
}
"""Event kind -> its fold, for the density system's own kinds."""
