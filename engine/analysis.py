"""Projections of a game's events into tidy rows (plain lists of dicts) and readable steps.

Everything here reads only the log: the arithmetic of every hit, every die and every move is in
the events themselves, so these projections never re-run the rules. They feed the dashboard and
any analysis at scale (a list of dicts goes straight into a DataFrame, if you want one).

What measures the battle (attrition, exhaustion, luck, the unit timelines, first contact) reads
its live line: each public function takes the whole log and leaves out what a take-back voided
(``fold.live``) itself, so no caller can count a die that was taken back. ``steps`` is the other
way: the whole log, every step kept (a take-back is a step of its own), for a replay that shows
the voided steps struck through.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from warlog.engine.fold import TAKEBACK, evolve, initial_state, live
from warlog.engine.flow import phase_name
from warlog.engine.narration import hits_text, order_text
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.common import luck as shared_luck
from warlog.engine.rulesets.tables import rules_title
from warlog.engine.state import SIDES, GameState
from warlog.engine.takeback import voided

Event = dict[str, Any]


def _units(events: Sequence[Event]) -> dict[str, Any]:
    """The units of the game (id -> Unit): the scenario's, and any army rolled at the start."""
    state = initial_state(events[0])
    for e in events:
        if e["kind"] == "army_rolled":
            evolve(state, e, check=False)
    return state.units


TABLE_TALK = ("note", "seats_changed", "side_conceded")
"""Events that are no fact of the battle (a comment, who sits where, a side giving up): the
charts read the battle's turns without them. A concession's game_ended is the battle's end."""


def _last_turn(events: Sequence[Event]) -> int:
    """The last turn the battle reached: notes left out (they carry the turn they comment on,
    and a log changed behind the store's back may say anything there), and the other table
    talk with them."""
    return max((e["turn"] for e in events if e["kind"] not in TABLE_TALK), default=0)


# -- attrition and per-unit timelines --------------------------------------------------------


def attrition(events: Sequence[Event]) -> list[dict[str, Any]]:
    """One row per (turn, side): cumulative hits taken and units lost at the end of that turn.

    Turn 0 is the set-up (all zeros), so a chart starts from nothing. Hits are the ``hits`` of
    every hits_inflicted event on that side's units (what the dice did, even past the limit).
    """
    events = live(events)
    units = _units(events)
    start = {s: sum(1 for u in units.values() if u.side == s) for s in SIDES}
    per_turn = {t: {s: [0, 0] for s in SIDES} for t in range(_last_turn(events) + 1)}
    for e in events:
        if e["kind"] == "hits_inflicted":
            per_turn[e["turn"]][units[e["target"]].side][0] += e["hits"]
        elif e["kind"] == "strength_lost":
            per_turn[e["turn"]][units[e["unit"]].side][0] += e["amount"]
        elif e["kind"] == "unit_removed":
            per_turn[e["turn"]][units[e["unit"]].side][1] += 1
    rows, hits, lost = [], dict.fromkeys(SIDES, 0), dict.fromkeys(SIDES, 0)
    for turn, sides in per_turn.items():
        for side in SIDES:
            hits[side] += sides[side][0]
            lost[side] += sides[side][1]
            rows.append({"turn": turn, "side": side, "hits_taken": hits[side],
                         "units_lost": lost[side], "units_left": start[side] - lost[side]})
    return rows


def unit_timeline(events: Sequence[Event]) -> list[dict[str, Any]]:
    """One row per (turn, unit): the unit's cumulative hits (or strength points lost) and
    whether it is gone, at turn end."""
    events = live(events)
    units = _units(events)
    hits = dict.fromkeys(units, 0)
    removed = dict.fromkeys(units, False)
    by_turn: dict[int, list[Event]] = {t: [] for t in range(_last_turn(events) + 1)}
    for e in events:
        if e["kind"] in ("hits_inflicted", "strength_lost", "unit_removed"):
            by_turn[e["turn"]].append(e)
    rows = []
    for turn, changes in by_turn.items():
        for e in changes:
            if e["kind"] == "hits_inflicted":
                hits[e["target"]] += e["hits"]
            elif e["kind"] == "strength_lost":
                hits[e["unit"]] += e["amount"]
            else:
                removed[e["unit"]] = True
        for uid, u in units.items():
            rows.append({"turn": turn, "unit": uid, "side": u.side, "type": u.type,
                         "hits": hits[uid], "removed": removed[uid]})
    return rows


# -- exhaustion ----------------------------------------------------------------------------------


def exhaustion(events: Sequence[Event]) -> list[dict[str, Any]]:
    """One row per (turn, side) at the end of that turn: the strength the side started with and
    has lost (in its system's measure: hits a unit can take, strength points), and the threshold
    it is measured against. ``basis`` is "rule" where the rule system has an exhaustion rule (the
    threshold then comes from it, and ``exhausted`` from its army_exhausted events), otherwise
    "reference": one third of the starting strength, a yardstick and not a rule (``exhausted``
    then means the side has lost that much)."""
    events = live(events)
    ruleset = get_ruleset(events[0]["rule_system"])
    declared = {e["side"]: e["turn"] for e in events if e["kind"] == "army_exhausted"}
    rows: list[dict[str, Any]] = []
    state = None
    # A note carries the turn of the moment it is about, wherever it is appended: a note on
    # turn 3 written after turn 8 would close a "turn 3" at the final totals. Notes change
    # nothing in the battle, so the turns are read from the other events.
    battle = [e for e in events if e["kind"] not in TABLE_TALK]
    for i, e in enumerate(battle):
        state = evolve(state, e, check=False)
        if i + 1 < len(battle) and battle[i + 1]["turn"] == e["turn"]:
            continue
        for side in SIDES:
            start = lost = 0
            for u in state.units.values():
                if u.side == side:
                    full, gone = ruleset.strength(state, u)
                    start, lost = start + full, lost + gone
            threshold, rule = ruleset.exhaustion_point(state, side, start)
            if rule is not None:
                exhausted = side in declared and declared[side] <= e["turn"]
            else:
                exhausted = start > 0 and lost >= threshold
            rows.append({"turn": e["turn"], "side": side, "start": start, "lost": lost,
                         "threshold": round(threshold, 2), "basis": "rule" if rule else "reference",
                         "rule": rule, "exhausted": exhausted})
    return rows


def exhausted_turns(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Side -> the first turn at whose end it was exhausted (or past the reference line)."""
    out: dict[str, int] = {}
    for r in rows:
        if r["exhausted"] and r["side"] not in out:
            out[r["side"]] = r["turn"]
    return out


# -- luck --------------------------------------------------------------------------------------


def resolutions(events: Sequence[Event]) -> Iterator[tuple[int, str, float, float]]:
    """Every resolved die as (turn, side, what it gave, what an average die gives), in its
    rule system's reading: its referee's optional ``luck_dice(events, units)`` (Frontier's
    combat, fall of shot and effect dice), else the reading the other four share
    (engine/rulesets/common/luck.py: hits for a hits roll, 1 or 0 for a die that hits or
    misses, 1 or 0 for a melee die that holds). What it gave less the average is that die's
    luck, for its side."""
    events = live(events)
    units = _units(events)
    own = getattr(get_ruleset(events[0]["rule_system"]), "luck_dice", None)
    yield from (own or shared_luck.resolutions)(events, units)


def luck(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Per side: dice rolled, mean face, what its dice gave (hits, or hits and holds) against
    what average dice would have given in the very same rolls. ``luck`` > 0: the dice
    favoured that side."""
    events = live(events)
    units = _units(events)
    rows = {s: {"side": s, "dice": 0, "face_sum": 0, "hits": 0, "expected_hits": 0.0}
            for s in SIDES}
    for e in events:
        if e["kind"] == "dice_rolled" and e.get("unit") in units:
            row = rows[units[e["unit"]].side]
            row["dice"] += len(e["faces"])
            row["face_sum"] += sum(e["faces"])
    for _, side, got, expected in resolutions(events):
        rows[side]["hits"] += got
        rows[side]["expected_hits"] += expected
    return [{"side": r["side"], "dice": r["dice"],
             "mean_face": round(r["face_sum"] / r["dice"], 2) if r["dice"] else None,
             "hits": r["hits"], "expected_hits": round(r["expected_hits"], 2),
             "luck": round(r["hits"] - r["expected_hits"], 2)} for r in rows.values()]


def luck_by_turn(events: Sequence[Event]) -> list[dict[str, Any]]:
    """One row per (turn, side): the side's luck so far (what its dice gave less what average
    dice would have given in the same rolls), so a chart shows who the dice favoured when."""
    events = live(events)
    per_turn = {t: dict.fromkeys(SIDES, 0.0) for t in range(_last_turn(events) + 1)}
    for turn, side, got, expected in resolutions(events):
        per_turn[turn][side] += got - expected
    rows, total = [], dict.fromkeys(SIDES, 0.0)
    for turn, sides in per_turn.items():
        for side in SIDES:
            total[side] += sides[side]
            rows.append({"turn": turn, "side": side, "luck": round(total[side], 2)})
    return rows


# -- steps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """A run of consecutive events a person scrubs through as one move of the game: the opening,
    one order with everything it caused, or an automatic phase that resolved something.
    ``first``/``last`` are 0-based indexes into the event list (inclusive)."""

    index: int
    kind: str  # "opening" | "order" | "phase" | "takeback"
    turn: int
    side: str | None
    phase: str | None
    first: int
    last: int
    title: str


def _outcome(events: Sequence[Event]) -> str:
    """What a step's consequences add to its title: hits, removals, the result."""
    parts = []
    for e in events:
        if e["kind"] == "hits_inflicted" and e["attack"] == "shooting":
            parts.append(hits_text(e["hits"]))
        elif e["kind"] == "hits_inflicted":
            parts.append(f"{e['source'] or e['attack']} → {e['target']} {hits_text(e['hits'])}")
        elif e["kind"] == "melee_rolled" and e["hit"]:
            parts.append(f"{e['unit']} hit")
        elif e["kind"] == "disorder_tested" and e["figures"]:
            parts.append(f"{e['unit']} -{e['figures']} figures out of formation")
        elif e["kind"] == "attack_rolled":
            parts.append(f"{e['source']} → {e['target']} " + ("hit" if e["hit"] else "miss"))
        elif e["kind"] == "strength_lost":
            parts.append(f"{e['unit']} -{e['amount']} SP")
        elif e["kind"] == "unit_retreated":
            parts.append(f"{e['unit']} retreats")
        elif e["kind"] == "army_exhausted":
            parts.append(f"{e['side']} exhausted")
        elif e["kind"] == "shell_landed":
            parts.append(f"shot {e['fall']}")
        elif e["kind"] == "unit_marked":
            parts.append(f"{e['unit']} destroyed")
        elif e["kind"] == "combat_fought":
            parts.append(f"{e['faced']} v {e['target']}")
        elif e["kind"] == "unit_removed":
            parts.append(f"{e['unit']} removed")
        elif e["kind"] == "game_ended":
            parts.append("game over: " + (f"{e['winner']} wins" if e["winner"] else "a draw"))
    return "; ".join(parts)


def _is_head(events: Sequence[Event], i: int) -> bool:
    """Does events[i] start a step? Orders do; so does a phase start whose phase resolved
    something by itself (events caused by it follow). An empty automatic phase, a phase start
    that waits for orders, or a checksum joins the step before it: nothing to look at."""
    e = events[i]
    if e["kind"] in ("game_started", "order_given", "side_conceded", TAKEBACK):  # a concession:
        # the end; a take-back: a step of its own, the voided steps before it
        return True
    if e["kind"] == "phase_started" and i + 1 < len(events):
        return events[i + 1].get("cause") == e["seq"]
    return False


def steps(events: Sequence[Event]) -> list[Step]:
    """Group the events into steps. Steps are consecutive, cover every event exactly once, in
    order; the first is the opening (the board as set up). The whole log: a voided step is kept
    (``takeback.voided`` says which), and a take-back is a step of its own."""
    heads = [i for i in range(len(events)) if i == 0 or _is_head(events, i)]
    out = []
    for n, first in enumerate(heads):
        last = heads[n + 1] - 1 if n + 1 < len(heads) else len(events) - 1
        head, group = events[first], events[first : last + 1]
        if head["kind"] == "game_started":
            kind, turn, side, phase = "opening", 0, None, None
            title = f"turn 0 · opening · {head['scenario'].get('title', head['game'])}"
        elif head["kind"] == TAKEBACK:
            kind, turn, side, phase = "takeback", head["turn"], head["side"], head["phase"]
            count, who = head["orders"], f"{side} {phase_name(phase)}" if phase else side
            title = (f"turn {turn} · {who} · {side} takes back {count} order"
                     f"{'s' * (count != 1)} (from event {head['back_to']})")
        else:
            kind = "order" if head["kind"] in ("order_given", "side_conceded") else "phase"
            turn, side, phase = head["turn"], head["side"], head["phase"]
            what = (f"{side} concedes" if head["kind"] == "side_conceded"
                    else order_text(head["order"], side, phase) if kind == "order"
                    else f"{phase_name(phase)} resolves")
            outcome = _outcome(group)
            who = f"{side} {phase_name(phase)}" if side else phase_name(phase)
            title = f"turn {turn} · {who} · {what}" + (f": {outcome}" if outcome else "")
        out.append(Step(n, kind, turn, side, phase, first, last, title))
    return out


SHOT_MARK, MELEE_MARK = "shooting", "melee"
"""The kinds of attack line ``highlights`` gives besides "contact" and "shell": a shot (drawn
thin and dashed) and a blow struck in close combat; the board draws each by these names."""


def highlights(events: Sequence[Event], state: GameState) -> list[dict[str, Any]]:
    """What the board should mark for these events (a step's): movement paths, attack lines
    (contact, shooting, melee) and removals. ``state`` gives the units' cells and sides."""
    out: list[dict[str, Any]] = []
    for e in events:
        kind = e["kind"]
        if kind == "unit_moved":
            out.append({"kind": "path", "unit": e["unit"], "side": state.units[e["unit"]].side,
                        "cells": [tuple(e["from_cell"]), *map(tuple, e["path"])]})
        elif kind == "unit_retreated":
            out.append({"kind": "path", "unit": e["unit"], "side": state.units[e["unit"]].side,
                        "cells": [tuple(e["from_cell"]), tuple(e["to_cell"])]})
        elif kind == "shell_landed" and e["landed"] is not None:
            src = e["unit"]
            out.append({"kind": "shell", "source": src, "target": str(tuple(e["landed"])),
                        "side": state.units[src].side, "from": state.units[src].cell,
                        "to": tuple(e["landed"]), "label": f"shot {e['fall']}"})
        elif kind == "combat_fought":
            src, dst = e["faced"], e["target"]
            out.append({"kind": MELEE_MARK, "source": src, "target": dst,
                        "side": state.units[src].side, "from": state.units[src].cell,
                        "to": state.units[dst].cell, "label": "combat"})
        elif kind == "attack_rolled":
            src, dst = e["source"], e["target"]
            out.append({"kind": MELEE_MARK if e["attack"] in ("melee", "strike_back") else SHOT_MARK,
                        "source": src, "target": dst, "side": state.units[src].side,
                        "from": state.units[src].cell, "to": state.units[dst].cell,
                        "label": "hit" if e["hit"] else "miss"})
        elif kind == "hits_inflicted" and e["source"] is None:
            out.append({"kind": "barrage", "unit": e["target"],
                        "cell": state.units[e["target"]].cell, "label": hits_text(e["hits"])})
        elif kind in ("melee_joined", "hits_inflicted"):
            src, dst = (e["attacker"], e["defender"]) if kind == "melee_joined" else (
                e["source"], e["target"])
            label = "attacks" if kind == "melee_joined" else hits_text(e["hits"])
            out.append({"kind": "contact" if kind == "melee_joined" else e["attack"],
                        "source": src, "target": dst, "side": state.units[src].side,
                        "from": state.units[src].cell, "to": state.units[dst].cell,
                        "label": label})
        elif kind == "unit_removed":
            out.append({"kind": "removed", "unit": e["unit"], "cell": state.units[e["unit"]].cell})
    return out


STRIKES = ("melee_joined", "hits_inflicted", "attack_rolled", "melee_rolled", "combat_fought",
           "shell_landed")
"""Events in which a unit strikes at the enemy (a die rolled against it, a melee joined): the
kinds ``highlights`` draws as attacks, and the first of them is the battle's first contact."""


def first_contact(events: Sequence[Event]) -> int | None:
    """The index in ``events`` of the battle's first strike at the enemy (``STRIKES``), if
    there was one: a strike a take-back voided never happened."""
    gone = voided(events)
    return next((i for i, e in enumerate(events)
                 if e.get("kind") in STRIKES and e.get("seq") not in gone), None)


def notes_by_step(events: Sequence[Event], steps: Sequence[Step]) -> dict[int, list[Event]]:
    """Step index -> the notes written about it (a note names the event it comments on; it is
    appended wherever the log stood when it was written)."""
    step_of: dict[int, int] = {}
    for step in steps:
        for i in range(step.first, step.last + 1):
            step_of[events[i]["seq"]] = step.index
    out: dict[int, list[Event]] = {}
    for e in events:
        if e["kind"] == "note" and e["about"] in step_of:
            out.setdefault(step_of[e["about"]], []).append(e)
    return out


# -- period state on the board ------------------------------------------------------------------


def system_name(state: GameState) -> str:
    """The rule system and period in words: "One Hour Wargames: Ancients", or "Frontier
    (Joseph Morschauser)" for a system of one period."""
    return rules_title(state.rule_system, state.period)


def unit_status(state: GameState, unit: Any) -> list[str]:
    """What a player should see on a unit beyond its hits and facing, in the words of the
    period's rules (out of ammunition, in square, in a trench, spotted, ...): its rule system's
    record says (``GameState.unit_status``)."""
    return state.unit_status(unit)
