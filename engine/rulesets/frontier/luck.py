"""Frontier's dice, weighed for the luck chart (engine/analysis.py ``resolutions`` asks the
referee's ``luck_dice`` hook): each combat die at or under its strength (1: it destroyed the
enemy), the fall of shot (1: on target) and the artillery effect die (1: it went the firer's
way: destroying an enemy, sparing a friend). Moved verbatim from engine/analysis.py (issue 40):
the effect die is read with the shot before it, which only this system's log holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from warlog.engine.rulesets.frontier.fire import FALLS
from warlog.engine.rulesets.tables import load_table

Event = dict[str, Any]


def resolutions(events: Sequence[Event], units: dict[str, Any]
                ) -> Iterator[tuple[int, str, float, float]]:
    """Every Frontier die resolved in ``events`` (a live log) as (turn, side, what it gave,
    what an average die gives)."""
    shell: Event | None = None  # the shot whose effect die comes next
    for e in events:
        if e["kind"] in ("combat_fought", "shell_landed") or (
                e["kind"] == "dice_rolled" and e["purpose"] == "artillery effect"):
            if e["kind"] == "shell_landed":
                shell = e
            yield from _die(events[0], units, e, shell)


def _die(first: Event, units: dict[str, Any], e: Event, shell: Event | None
         ) -> Iterator[tuple[int, str, float, float]]:
    """Frontier's resolved dice in one event (see resolutions)."""
    if e["kind"] == "combat_fought":  # frontier.combat: each side's die at or under its strength
        yield (e["turn"], units[e["faced"]].side, int(e["target_destroyed"]),
               min(e["attacker_strength"], 6) / 6)
        yield (e["turn"], units[e["target"]].side, int(e["attacker_destroyed"]),
               min(e["defender_strength"], 6) / 6)
    elif e["kind"] == "shell_landed":  # frontier.fall_of_shot: the faces no fall names hit
        yield e["turn"], units[e["unit"]].side, int(e["fall"] == "on target"), \
            (6 - len(FALLS)) / 6
    elif shell is not None:  # frontier.effect: the faces that destroy, direct or indirect
        period = load_table("frontier")["periods"][first["period"]]
        victim, side = units[e["unit"]], units[shell["unit"]].side
        kind = ("direct" if shell["direct"] else "indirect") + (
            "_commander" if period["units"][victim.type]["class"] == "commander" else "")
        destroys = e["faces"][0] in period["effect"][kind]
        p = len(period["effect"][kind]) / 6
        if victim.side == side:
            yield e["turn"], side, int(not destroys), 1 - p
        else:
            yield e["turn"], side, int(destroys), p
