"""How the density system's own kinds are told in words (the replay's commentary, `warlog log`):
one function a kind, moved verbatim from engine/narration.py (issue 40); ``narrate`` there asks
the registry (``event_narrations``) for a kind the core does not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from warlog.engine.state import GameState

Event = dict[str, Any]


def _disorder_tested(event: Event, s: GameState | None) -> str:
    why = {"terrain": "crossing rough ground", "friends": "passing through friends",
           "turn": "turning in place"}[event["reason"]]
    if event["figures"]:
        n = event["figures"]
        out = f"below it: {n} figure{'s fall' if n != 1 else ' falls'} out of formation"
    else:
        out = "not below it: the ranks hold"
    return (f"{event['unit']} tests its order ({why}): die {event['die']} against density "
            f"{event['density']}, {out}.")


def _unit_reformed(event: Event, s: GameState | None) -> str:
    n = event["figures"]
    return (f"{event['unit']} reforms: {n} figure{'s' * (n != 1)} rejoin the ranks." if n
            else f"{event['unit']} reforms.")


NARRATE = {
    "disorder_tested": _disorder_tested,
    "unit_reformed": _unit_reformed,
}
