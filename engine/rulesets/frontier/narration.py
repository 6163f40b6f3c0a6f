"""How Frontier's own kinds are told in words (the replay's commentary, `warlog log`): one function
a kind, moved verbatim from engine/narration.py (issue 40); ``narrate`` there asks the registry
(``event_narrations``) for a kind the core does not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warlog.engine.narration import cell_text, signed

if TYPE_CHECKING:
    from warlog.engine.state import GameState

Event = dict[str, Any]


def _shell_landed(event: Event, s: GameState | None) -> str:
    where = cell_text(event["landed"]) if event["landed"] is not None else "off the board"
    how = "direct" if event["direct"] else "indirect"
    return (f"{event['unit']} fires ({how}) at {cell_text(event['aimed'])}: the shot falls "
            f"{event['fall']}, on {where}.")


def _unit_marked(event: Event, s: GameState | None) -> str:
    return (f"{event['unit']} is destroyed by the artillery (removed once every battery has "
            "fired).")


def _combat_fought(event: Event, s: GameState | None) -> str:
    def side(die, strength, mods):
        extra = "".join(f" {signed(v)} ({r})" for r, v in mods)
        return f"die {die} against strength {strength}{extra and ' (' + extra.strip() + ')'}"
    result = []
    if event["target_destroyed"]:
        result.append(f"{event['target']} is destroyed")
    if event["attacker_destroyed"]:
        result.append(f"{event['faced']} is destroyed")
    who = ", ".join(event["attackers"])
    attacker = side(event["attacker_die"], event["attacker_strength"],
                    event["attacker_modifiers"])
    defender = side(event["defender_die"], event["defender_strength"],
                    event["defender_modifiers"])
    return (f"{who} fight {event['target']}: attacker {attacker}; defender {defender}: "
            + (" and ".join(result) if result else "both stand") + ".")


NARRATE = {
    "shell_landed": _shell_landed,
    "unit_marked": _unit_marked,
    "combat_fought": _combat_fought,
}
