"""Teaching mode: a question at each step that resolves something, asked before the answer is
shown — how many hits does this shot do, does this attack hit, who falls in this combat, is this
order legal — then the answer with its arithmetic and its rules.

The answers are never worked out here a second time: a resolution's answer is the event the
engine wrote, and a legality question asks the rule system's own ``check``. So teaching cannot
drift from the rules it teaches. Which order a legality question shows (the one played, or the
same order pushed one step too far) is chosen from the game's seq, so the same game asks the
same questions everywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from warlog.engine import analysis, narration
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.common.narration import ATTACK_VERBS
from warlog.engine.state import GameState, other_side
from warlog.events.orders import Order, parse_order

Event = dict[str, Any]
RESOLUTIONS = ("hits_inflicted", "attack_rolled", "melee_rolled", "combat_fought")
COMBAT_CHOICES = ("the defender is destroyed", "the attacker is destroyed", "both are destroyed",
                  "both stand")


@dataclass(frozen=True)
class Question:
    """``hide_from``: the index of the first event hidden until the learner answers (the board
    shows the state just before it). ``choices`` empty: the answer is a number."""

    step: int
    hide_from: int
    kind: str  # "hits" | "hit" | "combat" | "legal"
    prompt: str
    choices: tuple[str, ...]
    answer: str
    rules: tuple[str, ...]
    explanation: str


def _resolution_question(step: analysis.Step, i: int, e: Event, before: GameState) -> Question:
    rules = tuple(e.get("rules", ()))
    said = narration.narrate(e, before)
    if e["kind"] == "hits_inflicted":
        who = (f"{e['source']} {'shoots' if e['attack'] == 'shooting' else 'fights'} {e['target']}"
               if e["source"] is not None else f"The barrage strikes {e['target']}")
        return Question(step.index, i, "hits", f"{who}, and the die shows {e['die']}. How many "
                        "hits does it score?", (), str(e["hits"]), rules, said)
    if e["kind"] == "attack_rolled":
        verb = ATTACK_VERBS[e["attack"]]
        return Question(step.index, i, "hit", f"{e['source']} {verb} {e['target']}, and the die "
                        f"shows {e['die']}. Does it hit?", ("hit", "miss"),
                        "hit" if e["hit"] else "miss", rules, said)
    if e["kind"] == "melee_rolled":
        role = "attacking" if e["attacking"] else "defending"
        return Question(step.index, i, "hit", f"{e['unit']} ({role} against {e['opponent']}) "
                        f"rolls {e['die']} in the melee. Does it take a hit?",
                        ("takes a hit", "holds"), "takes a hit" if e["hit"] else "holds",
                        rules, said)
    both = (e["target_destroyed"], e["attacker_destroyed"])
    answer = {(True, False): COMBAT_CHOICES[0], (False, True): COMBAT_CHOICES[1],
              (True, True): COMBAT_CHOICES[2], (False, False): COMBAT_CHOICES[3]}[both]
    verb = "attacks" if len(e["attackers"]) == 1 else "attack"
    return Question(step.index, i, "combat", f"{', '.join(e['attackers'])} {verb} "
                    f"{e['target']} ({e['faced']} faces it): the attacker rolls "
                    f"{e['attacker_die']}, the defender {e['defender_die']}. What happens?",
                    COMBAT_CHOICES, answer, rules, said)


def _too_far(state: GameState, order: Order) -> Order | None:
    """The same order pushed past what was played: a longer move, or a shot at another enemy."""
    data = order.model_dump()
    if data["type"] == "move" and data["distance"] > 0 and not data.get("attack"):
        return parse_order({**data, "distance": data["distance"] + 2})
    if data["type"] == "route" and data["path"]:
        last = tuple(data["path"][-1])
        nxt = state.grid.step(last, data["facing"])
        if state.grid.contains(nxt) and nxt not in map(tuple, data["path"]):
            return parse_order({**data, "path": [*data["path"], nxt]})
    if data["type"] == "shoot":
        unit = state.units[data["unit"]]
        others = [u for u in state.alive(other_side(unit.side)) if u.id != data["target"]]
        if others:
            far = max(others, key=lambda u: (state.grid.distance(unit.cell, u.cell), u.id))
            return parse_order({**data, "target": far.id})
    return None


def _legal_question(step: analysis.Step, head: Event, before: GameState,
                    cited: tuple[str, ...]) -> Question | None:
    played = parse_order(head["order"])
    variant = _too_far(before, played)
    if variant is None:
        return None
    coin = hashlib.sha256(f"{head['game']}:{head['seq']}".encode()).digest()[0] % 2
    shown = variant if coin else played
    text = narration.order_text(shown.model_dump(), head["side"], head["phase"])
    try:
        get_ruleset(before.rule_system).check(before, shown)
    except IllegalOrder as exc:
        answer, rules, why = "illegal", (exc.rule,), f"Illegal: {exc.message}."
    else:
        answer, rules = "legal", cited if shown is played else ()
        why = "Legal: the rules allow it."
    if shown is not played:
        why += (" What was played: "
                + narration.order_text(played.model_dump(), head["side"], head["phase"]) + ".")
    return Question(step.index, step.first, "legal", f"{head['side']} orders: {text}. Is that "
                    "order legal?", ("legal", "illegal"), answer, rules, why)


def question(events: Sequence[Event], step: analysis.Step,
             state_at: Callable[[int], GameState]) -> Question | None:
    """The question for ``step`` (None when it resolves nothing to ask about). ``state_at(i)``
    is the state after events[i] (a Timeline's ``state_at``)."""
    for i in range(step.first, step.last + 1):
        if events[i]["kind"] in RESOLUTIONS:
            return _resolution_question(step, i, events[i], state_at(i - 1))
    head = events[step.first]
    if step.kind == "order" and head["order"]["type"] in ("move", "route", "shoot"):
        cited = tuple(dict.fromkeys(r for e in events[step.first : step.last + 1]
                                    for r in e.get("rules", ())))
        return _legal_question(step, head, state_at(step.first - 1), cited)
    return None


def is_right(q: Question, given: Any) -> bool:
    """Whether ``given`` (a choice, or a number for a hits question) is the answer."""
    if q.kind == "hits":
        try:
            return int(given) == int(q.answer)
        except (TypeError, ValueError):
            return False
    return given == q.answer
