"""How One Hour Wargames' own kinds are told in words (the replay's commentary, `warlog log`): one
function a kind, moved verbatim from engine/narration.py (issue 40); ``narrate`` there asks the
registry (``event_narrations``) for a kind the core does not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from warlog.engine.state import GameState

Event = dict[str, Any]


def _melee_ended(event: Event, s: GameState | None) -> str:
    return f"{event['attacker']} falls back from {event['defender']}: the melee is over."


def _out_of_ammo(event: Event, s: GameState | None) -> str:
    return f"{event['unit']} is out of ammunition and may not shoot again."


def _enemies_spotted(event: Event, s: GameState | None) -> str:
    seen = sorted({b for _, b in event["seen"]})
    return (f"{event['side']} spots " + (", ".join(seen) if seen else "no enemy") + ".")


def _roll_off(event: Event, s: GameState | None) -> str:
    return f"{event['winner']} wins the roll-off and chooses the roles."


def _roles_chosen(event: Event, s: GameState | None) -> str:
    dug = len(event["trenches"])
    return (f"{event['attacker']} attacks, {event['defender']} defends"
            + (f", with {dug} unit{'s' * (dug != 1)} in trenches." if dug else "."))


def _barrage_planned(event: Event, s: GameState | None) -> str:
    n = event["targets"]
    return f"The barrage may strike {n} unit{'s' * (n != 1)}."


def _army_rolled(event: Event, s: GameState | None) -> str:
    counts = ", ".join(f"{n} {c}" for c, n in event["classes"].items() if n)
    types = ", ".join(u["type"] for u in event["units"])
    return (f"{event['side']} rolls {event['roll']} for an army of {event['size']}: "
            f"{counts} — {types}.")


NARRATE = {
    "melee_ended": _melee_ended,
    "out_of_ammo": _out_of_ammo,
    "enemies_spotted": _enemies_spotted,
    "roll_off": _roll_off,
    "roles_chosen": _roles_chosen,
    "barrage_planned": _barrage_planned,
    "army_rolled": _army_rolled,
}
