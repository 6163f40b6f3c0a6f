"""The dice of four rule systems weighed for the luck chart (engine/analysis.py
``resolutions``: a system whose referee has no ``luck_dice`` hook): hits for a hits roll (One
Hour Wargames, density), 1 or 0 for a die that hits or misses (the Portable Wargame,
Napoleonic fire), 1 or 0 for a Napoleonic melee die that holds (a low roll hurts its own unit).
Moved verbatim from engine/analysis.py (issue 40).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from warlog.engine.rulesets.ohw.combat import halve

Event = dict[str, Any]


def resolutions(events: Sequence[Event], units: dict[str, Any]
                ) -> Iterator[tuple[int, str, float, float]]:
    """Every die resolved in ``events`` (a live log) as (turn, side, what it gave, what an
    average die gives)."""
    mode = events[0].get("options", {}).get("halving", "each")
    for e in events:
        if e["kind"] == "hits_inflicted":
            yield e["turn"], _striking_side(e, units), e["hits"], expected_hits(e, mode)
        elif e["kind"] == "attack_rolled":
            bonus = sum(v for _, v in e["modifiers"])
            odds = sum(f + bonus >= e["needed"] for f in range(1, 7)) / 6
            yield e["turn"], units[e["source"]].side, int(e["hit"]), odds
        elif e["kind"] == "melee_rolled":
            bonus = sum(v for _, v in e["modifiers"])
            holds = sum(f + bonus > e["at_most"] for f in range(1, 7)) / 6
            yield e["turn"], units[e["unit"]].side, int(not e["hit"]), holds


def expected_hits(event: Event, mode: str = "each", sides: int = 6) -> float:
    """What the attack of a hits_inflicted event gives on average over every face of the die,
    with the event's own modifier, doubling and halvings (the same rounding as the rules), and
    what figures out of formation take off the die (density)."""
    total = 0
    for face in range(1, sides + 1):
        value = max(0, face + event.get("disorder", 0) + event["modifier"])
        value *= 2 if event["doubled"] else 1
        total += halve(value, len(event["halvings"]), mode)
    return total / sides


def _striking_side(event: Event, units: dict[str, Any]) -> str:
    """The side whose attack a hits_inflicted event records (a barrage has no unit: the side
    it did not strike)."""
    if event["source"] is not None:
        return units[event["source"]].side
    return "blue" if units[event["target"]].side == "red" else "red"
