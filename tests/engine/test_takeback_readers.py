"""Every reader of a log knows take-backs (issue 39): the charts, luck, first contact, the
review and what-if read the live line; the steps, the narration and the feed keep the whole log
and say what was taken back.

The game: two people at Crossing at the Ford; at the first order whose dice fall, the side takes
back every order it may (back over the battle's first strike: its dice, its hits and the first
contact are voided), then the game goes on.
A reader that counted the voided stretch would differ from the same game's live log."""

from __future__ import annotations

import functools
import math

import pytest

from warlog.app.feed import Feed
from warlog.engine import analysis, narration, review, whatif
from warlog.engine.bots import bot_rng, get_policy
from warlog.engine.fold import FoldError, Timeline, evolve, live, replay
from warlog.engine.game import Game, start
from warlog.engine.scenario import load_scenario
from warlog.engine.takeback import orders_to_take_back, voided
from warlog.report import _narration, _turn_ends
from warlog.review_markdown import moment_pictures

PEOPLE = {"red": "ann", "blue": "bob"}
SMALL = review.Budget(candidates=2, cap=64, samples=8)


def _order(game: Game) -> list[dict]:
    side = game.state.to_act
    order = get_policy("aggressive").choose(game.state, bot_rng(game.state))
    return game.play(order, by=PEOPLE[side])


@functools.cache
def taken_back_game() -> tuple[tuple[dict, ...], dict]:
    """(the log, the take-back event): the side's orders up to the first dice taken back, 30
    orders after."""
    game = Game(start("tbr", load_scenario("ancients-river-crossing"), seed=3, players=PEOPLE))
    for _ in range(200):
        if any(e["kind"] == "dice_rolled" for e in _order(game)):
            break
    else:
        pytest.fail("no order rolled a die in 200 orders")
    side = [e for e in game.events if e["kind"] == "order_given"][-1]["side"]
    event = game.take_back(side, len(orders_to_take_back(game.events, side)), by=PEOPLE[side])
    for _ in range(30):
        if game.state.ended:
            break
        _order(game)
    return tuple(game.events), event


@pytest.fixture
def game() -> tuple[list[dict], dict]:
    events, event = taken_back_game()
    return [dict(e) for e in events], event


def test_the_voided_stretch_holds_dice_and_strikes(game):
    """What makes the other tests mean something: a reader counting the voided events would
    count hits, dice and a first contact that never happened."""
    events, event = game
    gone = voided(events)
    stretch = [e for e in events if e["seq"] in gone]
    assert stretch and all(gone[e["seq"]] == event["seq"] for e in stretch)
    assert any(e["kind"] in analysis.STRIKES for e in stretch)
    assert any(e["kind"] == "dice_rolled" for e in stretch)


def test_the_charts_and_luck_are_those_of_the_live_log(game):
    events, _ = game
    line = live(events)
    assert len(line) < len(events)
    for name in ("attrition", "unit_timeline", "exhaustion", "luck", "luck_by_turn"):
        assert getattr(analysis, name)(events) == getattr(analysis, name)(line), name
    assert list(analysis.resolutions(events)) == list(analysis.resolutions(line))
    dice = sum(len(e["faces"]) for e in line if e["kind"] == "dice_rolled" and e.get("unit"))
    assert sum(r["dice"] for r in analysis.luck(events)) == dice


def test_first_contact_is_the_first_strike_not_taken_back(game):
    events, _ = game
    gone = voided(events)
    first_strike = next(i for i, e in enumerate(events) if e["kind"] in analysis.STRIKES)
    assert events[first_strike]["seq"] in gone  # the very first strike was taken back
    contact = analysis.first_contact(events)
    if contact is not None:
        assert contact > first_strike and events[contact]["seq"] not in gone
        assert events[contact]["seq"] == live(events)[analysis.first_contact(live(events))]["seq"]


def test_the_steps_keep_the_whole_log_and_the_take_back_is_a_step_of_its_own(game):
    events, event = game
    steps = analysis.steps(events)
    covered = [i for s in steps for i in range(s.first, s.last + 1)]
    assert covered == list(range(len(events)))
    (tb,) = [s for s in steps if s.kind == "takeback"]
    assert tb.first == tb.last and events[tb.first] is not None
    assert events[tb.first]["seq"] == event["seq"]
    assert event["orders"] > 1
    assert tb.title.endswith(f"{event['side']} takes back {event['orders']} orders (from event "
                             f"{event['back_to']})")
    gone = voided(events)
    struck = [s for s in steps if events[s.first]["seq"] in gone]  # voided whole, or not at all
    assert len(struck) >= event["orders"] and struck[-1].index == tb.index - 1
    assert all(events[i]["seq"] in gone for s in struck for i in range(s.first, s.last + 1))
    assert events[struck[0].first]["seq"] == event["back_to"]


def test_narration_names_the_take_back_and_marks_what_it_voided(game):
    events, event = game
    with pytest.raises(FoldError):  # why the narration must fold as played
        state = None
        for e in events:
            state = evolve(state, e, check=False)
    lines = narration.narrate_all(events)
    gone = voided(events)
    at = {e["seq"]: i for i, e in enumerate(events)}
    side, phase = event["side"], event["phase"].replace("_", " ")
    assert lines[at[event["seq"]]] == (
        f"{side.capitalize()} ({PEOPLE[side]}) takes back {event['orders']} orders (from event "
        f"{event['back_to']}): the game goes back to turn {event['turn']}, {side}'s {phase} "
        "phase.")
    for e, line in zip(events, lines):
        marked = line.endswith(f"[taken back at event {event['seq']}]")
        assert marked == (e["seq"] in gone), (e["seq"], line)
    # a line after the take-back sees the position it went back to: the live fold's
    after = at[event["seq"]] + 1
    assert lines[after] == narration.narrate(events[after], replay(events[:after]))


def test_narrating_a_take_back_without_a_phase_or_a_signature():
    event = {"kind": "orders_taken_back", "seq": 9, "turn": 2, "side": "blue", "phase": None,
             "back_to": 5, "orders": 3, "by": None, "dice_rolled": 0}
    assert narration.narrate(event, None) == (
        "Blue takes back 3 orders (from event 5): the game goes back to turn 2.")


def test_the_review_grades_the_live_orders_and_its_sum_still_telescopes(game):
    events, event = game
    gone = voided(events)
    every = review.decisions(events)
    assert [d.seq for d in every] == [d.seq for d in review.decisions(live(events))]
    assert all(d.seq not in gone for d in every)
    assert all(events[d.at]["seq"] == d.seq for d in every)  # indexes of the whole log
    assert len(every) < sum(e["kind"] == "order_given" for e in events)
    # the first decision after the take-back is made where the game went back to
    after = next(i for i, d in enumerate(every) if d.seq > event["seq"])
    (position,) = review.positions(events, [every[after]])
    assert position.checksum() == replay(events[:every[after].at]).checksum()
    verdicts = review.judge(events, [d.index for d in every], SMALL)
    r = review.assemble(events[0]["game"], events, verdicts, "test")
    assert [o.seq for o in r.orders] == [d.seq for d in every]
    for here, nxt in zip(r.orders, r.orders[1:]):
        assert here.after == nxt.before
    parts = r.split
    assert math.isclose(parts["start"] + parts["decisions"] + parts["dice"], parts["result"],
                        abs_tol=1e-9)
    # the review's pictures stop before the voided stretch: the board as the game stands
    data = {**r.as_dict(), "moments": [{"index": after - 1}]}
    (picture,) = moment_pictures(data, events)
    shown = events[picture.first:picture.last + 1]
    assert shown and all(e["seq"] not in gone and e["kind"] != "orders_taken_back"
                         for e in shown)


def test_what_if_replays_only_live_orders(game):
    events, event = game
    gone = voided(events)
    recorded = whatif.recorded_orders(events, 1)
    assert recorded and all(e["seq"] not in gone for e in recorded)
    assert [e["seq"] for e in recorded] == [
        e["seq"] for e in live(events) if e["kind"] == "order_given"]
    before = event["back_to"] - 1  # the game waited there, and waits after the take-back
    assert before in whatif.waiting_points(events)
    assert event["seq"] in whatif.waiting_points(events)
    later = whatif.recorded_orders(events, before)
    assert later[0]["seq"] > event["seq"]  # the order given anew, not the one taken back
    result = whatif.playout(whatif.prefix(events, before), seed=5, mode="recorded",
                            recorded_orders=later)
    assert result.recorded >= 1


def test_the_feed_names_the_take_back_and_drops_what_it_voided(game):
    events, event = game
    feed = Feed()
    for n in range(1, len(events) + 1):  # a click at a time, across the take-back
        feed.update(events[:n])
    gone = voided(events)
    assert all(entry.first_seq not in gone for entry in feed.entries)
    (entry,) = [x for x in feed.entries if x.first_seq == event["seq"]]
    assert f"takes back {event['orders']} orders" in entry.title
    assert entry.lines == (narration.narrate(event, None),)
    whole = Feed()
    assert [x.first_seq for x in whole.update(events)] == [x.first_seq for x in feed.newest()]


def test_the_report_strikes_the_voided_lines_and_draws_live_boards(game):
    events, event = game
    gone = voided(events)
    page = _narration(events)
    struck = page.count('<li class="voided"><del>')
    assert struck == sum(1 for e in events if e["seq"] in gone
                         and e["kind"] not in ("state_checksum", "note"))
    assert f"[taken back at event {event['seq']}]" in page
    assert f"takes back {event['orders']} orders" in page
    ends = _turn_ends(events)
    assert all(events[i]["seq"] not in gone for i in ends)
    timeline = Timeline(events)
    assert timeline.state_at(ends[-1]).checksum() == replay(events[:ends[-1] + 1]).checksum()
