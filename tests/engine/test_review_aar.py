"""The after-action report (engine/review_aar.py) on reviewed bot games: the battle in
chapters that begin at decisions and cover every one, whose changes add up to the game's; the
plans as written; the lessons taken from the grades; and the four questions in words.

Games are bot games with a small review budget (as tests/engine/test_review.py): the budget
changes which orders are graded what, never the structure checked here."""

from __future__ import annotations

import functools
import math

import pytest

from warlog.engine import analysis, review, review_aar
from warlog.engine.bots import next_order
from warlog.engine.game import Game
from warlog.engine.scenario import load_scenario
from warlog.events.model import make_note

SMALL = review.Budget(candidates=2, cap=64, samples=8)
SCENARIOS = ["ancients-river-crossing", "napoleonic-hougoumont"]


@functools.cache
def _game(scenario: str) -> tuple[dict, ...]:
    """A bot game in which red wrote a plan before its first order (blue wrote none)."""
    game = Game.new(f"aar-{scenario}", load_scenario(scenario), seed=2,
                    players={"red": "aggressive", "blue": "cautious"})
    game = Game(game.events + [make_note(game.events, 1, "Take the **ford**, <b>then</b> hold",
                                         "Ann", plan_of="red")])
    while not game.state.ended:
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    return tuple(game.events)


@functools.cache
def _reviewed(scenario: str) -> dict:
    events = list(_game(scenario))
    verdicts = review.judge(events, [d.index for d in review.decisions(events)], SMALL)
    return review.assemble(events[0]["game"], events, verdicts, "test").as_dict()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_chapters_cover_every_decision_once_and_add_up_to_the_game(scenario):
    data, events = _reviewed(scenario), list(_game(scenario))
    chapters = review_aar.chapters(data, events)
    stretches, end = chapters[:-1], chapters[-1]
    assert end.kind == "end" and end.first is None and data["winner"] in end.title
    assert stretches[0].first == 0 and stretches[-1].last == len(data["orders"]) - 1
    for a, b in zip(stretches, stretches[1:]):
        assert b.first == a.last + 1 and a.end == b.start  # no gap, no overlap, one position
    orders = data["orders"]
    for c in stretches:
        assert c.start == orders[c.first]["before"] and c.end == orders[c.last]["after"]
        assert c.seq == orders[c.first]["seq"]
        assert all(c.first <= i <= c.last for i in c.moments)
    moved = math.fsum(c.end - c.start for c in stretches)
    assert abs(data["split"]["start"] + moved - data["split"]["result"]) < 1e-9
    told = sorted(i for c in stretches for i in c.moments)
    assert told == sorted(m["index"] for m in data["moments"])  # every moment in one chapter


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_first_contact_and_the_turning_points_begin_chapters(scenario):
    data, events = _reviewed(scenario), list(_game(scenario))
    chapters = review_aar.chapters(data, events)
    contact = analysis.first_contact(events)
    assert contact is not None
    struck = events[contact]["seq"]
    where = max(o["index"] for o in data["orders"] if o["seq"] <= struck)
    begins = {c.first: c.title for c in chapters if c.first is not None}
    assert "First contact" in begins[where]  # at the decision whose resolution struck first
    if where > 0:
        assert begins[0].startswith("Deployment and approach")
    for t in data["turning_points"]:
        assert f"{t['ahead_after'].capitalize()} takes the lead" in begins[t["index"]]


def test_the_four_questions_tell_the_plan_the_chapters_and_the_lessons():
    scenario = SCENARIOS[0]
    data, events = _reviewed(scenario), list(_game(scenario))
    report = review_aar.after_action(data, events)
    assert [p.text for p in report.plans["red"]] == ["Take the **ford**, <b>then</b> hold"]
    assert report.plans["red"][0].author == "Ann" and report.plans["blue"] == []
    parts = review_aar.sections(report, data)
    assert [s.heading for s in parts] == list(review_aar.QUESTIONS)
    planned, happened, why, lessons = parts
    assert any("Take the **ford**" in i.text for i in planned.items)  # plain: faces escape it
    assert any(i.text.startswith("blue: no plan written") for i in planned.items)
    assert len(happened.items) == len(report.chapters)
    moments = [u.decision for i in happened.items for u in i.under]
    assert moments == [m["index"] for m in data["moments"]]
    assert why.items[0].text == data["headline"]["red"]
    orders = data["orders"]
    for side in ("red", "blue"):
        for x in report.keep[side]:
            assert x.side == side and orders[x.index]["grade"] in ("best", "good") and x.gain > 0
        losses = [x.loss for x in report.change[side]]
        assert losses == sorted(losses, reverse=True)
        flawed = [o for o in orders if o["side"] == side
                  and o["grade"] in review_aar.FLAWED]
        assert len(report.change[side]) == min(review_aar.LESSONS, len(flawed))
        if flawed:  # the costliest one named first, with the better order found
            worst = max(flawed, key=lambda o: (o["loss"], -o["index"]))
            assert report.change[side][0].index == worst["index"]
            assert report.change[side][0].best_text == worst["best_text"]
    side_items = {i.text.split(":")[0]: i for i in lessons.items}
    assert set(side_items) == {"red", "blue"}


def test_an_unfinished_game_ends_where_the_log_stops():
    events = list(_game(SCENARIOS[0]))
    cut = review.decisions(events)[30].at  # before the 31st decision
    part = events[:cut]
    verdicts = review.judge(part, [d.index for d in review.decisions(part)], SMALL)
    data = review.assemble(part[0]["game"], part, verdicts, "test").as_dict()
    end = review_aar.chapters(data, part)[-1]
    assert end.kind == "end" and "not over" in end.title and end.seq == part[-1]["seq"]
