"""Teaching questions (engine/teaching.py) on real games of each rule system: every answer is
the engine's own result, checked here against the events and the rule system's check."""

from __future__ import annotations

import pytest

from warlog.engine import analysis, teaching
from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import load_scenario
from warlog.events.orders import parse_order

SCENARIOS = {"ancients-river-crossing": "hits", "ww2-villers-bocage": "hits",
             "portable-zama": "hit", "frontier-ulundi": "combat"}


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def asked(request):
    events = play_out("teach", load_scenario(request.param), seed=4).events
    tl = Timeline(events)
    steps = analysis.steps(events)
    found = [teaching.question(events, s, tl.state_at) for s in steps]
    return request.param, events, tl, steps, [q for q in found if q is not None]


def test_each_system_asks_about_its_own_resolution_and_about_legality(asked):
    sid, events, tl, steps, questions = asked
    kinds = {q.kind for q in questions}
    assert {SCENARIOS[sid], "legal"} <= kinds
    answers = {q.answer for q in questions if q.kind == "legal"}
    assert answers == {"legal", "illegal"}  # both sides of the coin turn up in a game


def test_a_resolution_question_hides_the_event_that_answers_it(asked):
    _, events, _, steps, questions = asked
    for q in questions:
        if q.kind == "legal":
            continue
        e = events[q.hide_from]
        step = steps[q.step]
        assert step.first < q.hide_from <= step.last
        assert e["kind"] in teaching.RESOLUTIONS
        assert not any(events[i]["kind"] in teaching.RESOLUTIONS
                       for i in range(step.first, q.hide_from))  # the first of its step
        expected = {"hits_inflicted": lambda: str(e["hits"]),
                    "attack_rolled": lambda: "hit" if e["hit"] else "miss",
                    "melee_rolled": lambda: "takes a hit" if e["hit"] else "holds",
                    "combat_fought": lambda: teaching.COMBAT_CHOICES[
                        [(True, False), (False, True), (True, True), (False, False)].index(
                            (e["target_destroyed"], e["attacker_destroyed"]))]}[e["kind"]]()
        assert q.answer == expected
        assert str(e.get("die", e.get("attacker_die"))) in q.prompt
        assert set(q.rules) == set(e["rules"])


def test_a_legality_answer_is_what_the_rule_system_says(asked):
    _, events, tl, steps, questions = asked
    legal = [q for q in questions if q.kind == "legal"]
    assert legal
    for q in legal:
        step = steps[q.step]
        assert q.hide_from == step.first and events[step.first]["kind"] == "order_given"
        before = tl.state_at(step.first - 1)
        played = parse_order(events[step.first]["order"])
        shown_played = "What was played" not in q.explanation
        if shown_played:
            assert q.answer == "legal"  # what was played was legal: it is in the log
            continue
        variant = teaching._too_far(before, played)
        try:
            get_ruleset(before.rule_system).check(before, variant)
        except IllegalOrder as exc:
            assert q.answer == "illegal" and q.rules == (exc.rule,)
            assert exc.message in q.explanation
        else:
            assert q.answer == "legal"


def test_questions_are_the_same_every_time(asked):
    _, events, tl, steps, questions = asked
    again = [teaching.question(events, s, tl.state_at) for s in steps]
    assert [q for q in again if q is not None] == questions


@pytest.mark.parametrize("kind,answer,given,right", [
    ("hits", "3", 3, True), ("hits", "3", "3", True), ("hits", "3", 2, False),
    ("hits", "3", None, False), ("hit", "hit", "hit", True), ("hit", "hit", "miss", False),
])
def test_marking_an_answer(kind, answer, given, right):
    q = teaching.Question(0, 0, kind, "?", (), answer, (), "")
    assert teaching.is_right(q, given) is right
