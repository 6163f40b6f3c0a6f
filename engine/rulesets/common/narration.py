"""How the kinds several rule systems write are told in words (the replay's commentary, `warlog
log`): one function a kind, moved verbatim from engine/narration.py (issue 40); ``narrate``
there asks the registry (``event_narrations``) for a kind the core does not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warlog.engine.narration import cell_text, hits_text, modifiers_text, signed

if TYPE_CHECKING:
    from warlog.engine.state import GameState

Event = dict[str, Any]


ATTACK_VERBS = {"melee": "attacks", "strike_back": "strikes back at", "shooting": "shoots at",
                "missile_machine": "hurls at", "pila": "throws pila at", "artillery": "fires on",
                "musketry": "fires a volley at", "pila_volley": "throws pila at"}


def _notional_commander(s: GameState | None, unit: str) -> bool:
    """A Portable Wargame Commander whose strength points are notional (portable.commander):
    a hit that would cost him a point means he is lost."""
    return (s is not None and s.options.get("commander_sp") == "notional" and unit in s.units
            and s.rule_system == "portable" and s.units[unit].type == "Commander")


def _melee_joined(event: Event, s: GameState | None) -> str:
    return f"{event['attacker']} attacks {event['defender']} in the {event['aspect']}."


def _hits_inflicted(event: Event, s: GameState | None) -> str:
    verb = "shoots" if event["attack"] == "shooting" else "fights"
    who = (f"{event['source']} {verb} {event['target']}" if event["source"] is not None
           else f"The barrage strikes {event['target']}")
    why = ""
    if event["modifier"] and s is not None and event["source"] in s.units:
        kinds = (s.units[event["source"]].type, s.units[event["target"]].type)
        why = (f" ({kinds[0]} shooting at {kinds[1]})" if event["attack"] == "shooting"
               else f" ({kinds[0]} in melee)")
    disorder = (f" {signed(event['disorder'])} (figures out of formation)"
                if event.get("disorder") else "")
    text = (f"{who}: die {event['die']}{disorder} {signed(event['modifier'])}{why} = "
            f"{event['base']}")
    if event.get("doubled"):
        text += f", doubled (flank or rear) = {event['base'] * 2}"
    if event.get("halvings"):
        text += ", halved for " + " and ".join(event["halvings"])
    limit = f" of {s.options['hits_to_remove']}" if s else ""
    return text + f" -> {hits_text(event['hits'])} (total {event['total']}{limit})."


def _initiative_won(event: Event, s: GameState | None) -> str:
    return f"{event['winner']} wins the initiative and activates first this turn."


def _attack_rolled(event: Event, s: GameState | None) -> str:
    verb = ATTACK_VERBS[event["attack"]]
    mods = modifiers_text(event["modifiers"])
    result = "a hit" if event["hit"] else "a miss"
    return (f"{event['source']} {verb} {event['target']}: die {event['die']}{mods} = "
            f"{event['total']}, needs {event['needed']}: {result}.")


def _hit_taken(event: Event, s: GameState | None) -> str:
    lose, lose_to = "loses a strength point", "lose a strength point"
    if _notional_commander(s, event["unit"]):  # portable.commander
        lose, lose_to = ("is lost (a Commander's strength points are notional)",
                         "let him be lost")
    outcome = {"lose": lose,
               "lose_no_retreat": f"cannot retreat, so {lose}",
               "choose": "its owner chooses: retreat to "
                         f"{cell_text(event['retreat_to'] or (0, 0))} or {lose_to}"
               }[event["outcome"]]
    return f"{event['unit']} rolls {event['die']} on the hit table: {outcome}."


def _strength_lost(event: Event, s: GameState | None) -> str:
    return f"{event['unit']} loses {event['amount']} SP ({event['left']} left)."


def _unit_retreated(event: Event, s: GameState | None) -> str:
    return (f"{event['unit']} retreats from {cell_text(event['from_cell'])} to "
            f"{cell_text(event['to_cell'])}.")


def _formation_changed(event: Event, s: GameState | None) -> str:
    return f"{event['unit']} forms {event['to_formation']}."


NARRATE = {
    "melee_joined": _melee_joined,
    "hits_inflicted": _hits_inflicted,
    "initiative_won": _initiative_won,
    "attack_rolled": _attack_rolled,
    "hit_taken": _hit_taken,
    "strength_lost": _strength_lost,
    "unit_retreated": _unit_retreated,
    "formation_changed": _formation_changed,
}
