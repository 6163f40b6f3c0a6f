"""The Review page's stored review and after-action report without Streamlit
(dashboard/review_page.py): a stored review is read only when it is a readable review of this
game at this length, the current evaluator's first; an older evaluator's is said in one line; a
database that refuses the write costs the review nothing; the report's items are laid out as
escaped Markdown lists, each moment a block of its own with its decision (for its button)."""

from __future__ import annotations

import sqlite3

import pytest
from whatif_games import bot_game

from warlog.dashboard import review_page
from warlog.engine import review, review_aar
from warlog.engine.review_aar import Item, Section
from warlog.events.analysis_store import AnalysisStore
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.markup import markdown_text
from warlog.app.reviews import stored_review

SMALL = review.Budget(candidates=2, cap=64, samples=8)
GAME = "stored-game"


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return [{**e, "game": GAME} for e in bot_game(seed=5)]


def _review(events: list[dict], evaluator: str) -> dict:
    verdicts = review.judge(events, [d.index for d in review.decisions(events)], SMALL)
    return review.assemble(GAME, events, verdicts, evaluator).as_dict()


@pytest.fixture(scope="module")
def current(events) -> dict:
    return _review(events, review_page.current_evaluator())


@pytest.fixture
def db(tmp_path, events) -> str:
    path = tmp_path / "games.db"
    with SQLiteEventStore(path) as store:
        store.append(GAME, events, 0)
    return str(path)


def _keep(db: str, events: list[dict], data: dict, evaluator: str) -> None:
    with AnalysisStore(db) as store:
        store.save_review(GAME, {**review_page.review_params(), "evaluator": evaluator},
                          events[-1]["seq"], data)


def test_the_page_stores_under_the_commands_key(db, events, current):
    from warlog.app.reviews import review_params

    assert review_page.review_params() == review_params(review.Budget(), 0,
                                                        review_page.current_evaluator())
    assert review_page.stored(db, events) is None  # nothing stored yet (and nothing created)
    assert review_page.store_review(db, events, current)
    with AnalysisStore(db) as store:
        kept = store.load_review(GAME, review_page.review_params(), events[-1]["seq"])
    shown, report = review_page.stored(db, events)
    assert kept == current and shown == current
    assert report == review_aar.after_action(current, events)  # told once, handed to the page
    assert review_page.older_evaluator_line(current) is None
    assert review_page.stored(db, events[:-1]) is None  # the game at another length: not it


def test_the_current_evaluators_review_comes_before_an_older_one(db, events, current):
    older = {**current, "evaluator": "old-1"}
    _keep(db, events, current, review_page.current_evaluator())
    _keep(db, events, older, "old-1")  # stored later, yet the current one is shown
    assert review_page.stored(db, events)[0]["evaluator"] == review_page.current_evaluator()


def test_an_older_evaluators_review_is_said_to_be_one(db, events, current):
    _keep(db, events, {**current, "evaluator": "old-1"}, "old-1")
    shown, _ = review_page.stored(db, events)
    assert shown["evaluator"] == "old-1"
    assert review_page.older_evaluator_line(shown) == (
        f"Reviewed by evaluator old-1; this warlog's evaluator is "
        f"{review_page.current_evaluator()}.")


@pytest.mark.parametrize("broken", [{"format": 1, "orders": "not a list"}, {"x": 1}])
def test_a_review_that_is_not_readable_is_ignored(db, events, broken):
    _keep(db, events, broken, review_page.current_evaluator())
    assert review_page.stored(db, events) is None


def test_another_games_review_under_this_games_key_is_ignored(db, events, current):
    _keep(db, events, {**current, "game": "another"}, review_page.current_evaluator())
    assert review_page.stored(db, events) is None


def test_a_database_that_refuses_the_write_still_gives_the_review(db, events, current,
                                                                 monkeypatch):
    with sqlite3.connect(db) as conn:  # altered outside warlog: warlog writes nothing to it
        conn.execute("CREATE TABLE zz_extra (x)")
    conn.close()
    monkeypatch.setattr(review_page, "review_now", lambda game, evs, progress=None: current)
    assert review_page.review_and_store(db, GAME, events) == current
    assert not review_page.store_review(db, events, current)
    assert review_page.stored(db, events) is None


def test_items_become_escaped_nested_markdown_lists():
    item = Item("Blue takes **the** lead", (Item("Turn 2, b1: [x](http://h)", decision=3),
                                             Item("<b>plain</b>")))
    text = review_page.item_markdown(item)
    lines = text.split("\n")
    assert lines[0] == r"- Blue takes \*\*the\*\* lead"
    assert lines[1] == "  - " + markdown_text("Turn 2, b1: [x](http://h)")
    assert "\\[x\\]\\(http" in lines[1]
    assert lines[2] == r"  - \<b\>plain\</b\>"


def test_a_sections_moments_are_blocks_of_their_own_with_their_decisions():
    section = Section("What happened", "intro", (
        Item("Deployment"), Item("Approach"),
        Item("First contact", (Item("m1", decision=4), Item("m2", decision=7))),
        Item("The end")))
    blocks = review_page.section_blocks(section)
    assert blocks == [("- Deployment\n- Approach", None, 0), ("- First contact", None, 0),
                      ("- m1", 4, 1), ("- m2", 7, 1), ("- The end", None, 0)]
    keep = Section("Keep", "intro", (Item("red", (Item("Keep x"),)),))
    assert review_page.section_blocks(keep) == [("- red\n  - Keep x", None, 0)]


def test_the_report_of_a_real_review_names_each_moment_once(events, current):
    found = review_page.report_sections(current, events)
    assert [s.heading for s in found] == ["What was planned", "What happened", "Why",
                                          "What to keep and what to change"]
    moments = [d for s in found for _, d, _ in review_page.section_blocks(s) if d is not None]
    assert sorted(moments) == sorted(m["index"] for m in current["moments"])


def test_a_review_whose_report_cannot_be_told_is_ignored(db, events, current):
    """The right shape, a turning point naming a decision the review does not hold: the page
    would fail drawing its chapters, so it is reviewed again instead."""
    point = {"index": len(current["orders"]) + 5, "seq": 1, "side": "red",
             "ahead_before": "red", "ahead_after": "blue", "value": 0.4}
    _keep(db, events, {**current, "turning_points": [point]}, review_page.current_evaluator())
    assert review.readable(stored_review(db, events))  # readable, yet not shown
    assert review_page.stored(db, events) is None
