"""The Replay page on a game holding a take-back (issue 39): the whole log replayed, the voided
steps struck through and saying which take-back voided them, each on the board as it stood
then, and the take-back a step of its own after which the board is where the game went back to.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest
from waits import LIMIT

from warlog.dashboard.step_actions import event_line
from warlog.engine import analysis
from warlog.engine.bots import bot_rng, get_policy
from warlog.engine.game import Game, start
from warlog.engine.scenario import load_scenario
from warlog.engine.takeback import orders_to_take_back, voided
from warlog.events.sqlite_store import SQLiteEventStore

from app_pages import APP, board_groups

PEOPLE = {"red": "ann", "blue": "bob"}
GAME = "tbpage"


def taken_back_log() -> list[dict]:
    """Two people at Crossing at the Ford: at the first order whose dice fall, its side takes
    back every order it may; then ten orders more."""
    game = Game(start(GAME, load_scenario("ancients-river-crossing"), seed=3, players=PEOPLE))

    def order() -> list[dict]:
        side = game.state.to_act
        chosen = get_policy("aggressive").choose(game.state, bot_rng(game.state))
        return game.play(chosen, by=PEOPLE[side])

    for _ in range(200):
        if any(e["kind"] == "dice_rolled" for e in order()):
            break
    side = [e for e in game.events if e["kind"] == "order_given"][-1]["side"]
    game.take_back(side, len(orders_to_take_back(game.events, side)), by=PEOPLE[side])
    for _ in range(10):
        order()
    return game.events


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[str, list[dict]]:
    events = taken_back_log()
    db = tmp_path_factory.mktemp("takeback") / "tb.db"
    with SQLiteEventStore(db) as store:
        store.append(GAME, events, 0)
    return str(db), events


def _page(monkeypatch, db: str) -> AppTest:
    monkeypatch.setenv("WARLOG_DB", db)
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    return at


def _go(at: AppTest, step: analysis.Step) -> AppTest:
    at.slider(key="step").set_value(step.index + 1).run()
    assert not at.exception
    return at


def _title(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def _units(at: AppTest) -> dict[str, list]:
    return {g["side"]: sorted(g["at"]) for g in board_groups(at, "board") if g["role"] == "units"}


def test_a_voided_step_is_struck_through_and_shown_as_it_stood(stored, monkeypatch):
    db, events = stored
    gone = voided(events)
    steps = analysis.steps(events)
    (tb,) = [s for s in steps if s.kind == "takeback"]
    tb_seq = events[tb.first]["seq"]
    struck = [s for s in steps if events[s.first]["seq"] in gone]
    assert struck and struck[-1].index == tb.index - 1
    at = _page(monkeypatch, db)

    _go(at, struck[-1])
    title = _title(at)
    assert re.search(r" — ~~.+~~ :gray\[taken back at event " + str(tb_seq) + r"\]$", title)
    captions = " ".join(c.value for c in at.caption)
    assert f"Taken back at event {tb_seq}" in captions
    lines = [m.value for m in at.markdown if m.value.startswith("~~")]
    shown = [e for e in events[struck[-1].first:struck[-1].last + 1] if e["kind"] != "note"]
    assert len(lines) == len(shown)  # every event of the step, each struck through
    voided_board = _units(at)

    _go(at, tb)  # the take-back: a live step, its board where the game went back to
    assert "~~" not in _title(at) and "takes back" in _title(at)
    assert not any(m.value.startswith("~~") for m in at.markdown)
    assert any("takes back" in m.value and "the game goes back to" in m.value
               for m in at.markdown)
    back_board = _units(at)
    assert back_board != voided_board  # the taken-back moves are undone

    _go(at, steps[struck[0].index - 1])  # the last step before the voided ones
    assert _units(at) == back_board
    assert "~~" not in _title(at)


def test_the_step_after_a_take_back_and_the_last_step_replay_without_an_error(stored,
                                                                              monkeypatch):
    db, events = stored
    steps = analysis.steps(events)
    (tb,) = [s for s in steps if s.kind == "takeback"]
    at = _page(monkeypatch, db)
    for step in (steps[tb.index + 1], steps[-1]):
        _go(at, step)
        assert not at.error and "~~" not in _title(at)


def test_a_struck_line_keeps_the_logs_text_escaped():
    """A tilde from the log cannot end the strike early: the line is escaped, then struck."""
    line = event_line({"seq": 3, "kind": "note"}, "a ~~ b", raw=False, struck=True)
    assert line == r"~~a \~\~ b~~"
