"""How the Portable Wargame's own kinds are told in words (the replay's commentary, `warlog log`):
one function a kind, moved verbatim from engine/narration.py (issue 40); ``narrate`` there asks
the registry (``event_narrations``) for a kind the core does not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from warlog.engine.state import GameState

Event = dict[str, Any]


def _unit_activated(event: Event, s: GameState | None) -> str:
    return f"{event['unit']} is activated."


def _exhaustion_points(event: Event, s: GameState | None) -> str:
    parts = [f"{side} {event['points'][side]} of {event['strength'][side]} SP"
             for side in event["points"]]
    return "Exhaustion points: " + ", ".join(parts) + "."


def _army_exhausted(event: Event, s: GameState | None) -> str:
    return (f"{event['side']}'s army is exhausted: {event['lost']} SP lost, its point is "
            f"{event['point']}. From the next turn it may not attack or advance.")


NARRATE = {
    "unit_activated": _unit_activated,
    "exhaustion_points": _exhaustion_points,
    "army_exhausted": _army_exhausted,
}
