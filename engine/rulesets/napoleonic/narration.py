"""How the Napoleonic system's own kinds are told in words (the replay's commentary, `warlog log`):
one function a kind, moved verbatim from engine/narration.py (issue 40); ``narrate`` there asks
the registry (``event_narrations``) for a kind the core does not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warlog.engine.narration import cell_text, modifiers_text

if TYPE_CHECKING:
    from warlog.engine.state import GameState

Event = dict[str, Any]


def _melee_rolled(event: Event, s: GameState | None) -> str:
    mods = modifiers_text(event["modifiers"])
    role = "attacking" if event["attacking"] else "defending"
    result = "takes a hit" if event["hit"] else "holds"
    return (f"{event['unit']} ({role} against {event['opponent']}): die {event['die']}{mods}"
            f" = {event['total']}; {event['at_most']} or less takes a hit: it {result}.")


def _advance_offered(event: Event, s: GameState | None) -> str:
    return (f"{event['unit']} may advance into {cell_text(event['cell'])}, the cell its enemy "
            "left.")


NARRATE = {
    "melee_rolled": _melee_rolled,
    "advance_offered": _advance_offered,
}
