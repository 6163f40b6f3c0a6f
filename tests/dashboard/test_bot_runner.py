"""Bots played off the page's thread (dashboard/bot_runner.py) on a real SQLite file: two bots
play a whole game at once and it verifies; a bot against a person stops when the person is to
act; a step at a time plays one order; stop() ends a paced run; a run's failure becomes its
line; one run per game however many pages ask."""

from __future__ import annotations

import pytest
from waits import LIMIT

from warlog.dashboard import bot_runner
from warlog.dashboard.play_session import GameMovedOn, PlayError, Seat, Table, start
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

SCENARIO = "ancients-river-crossing"


def new_game(path, red: Seat, blue: Seat, game_id: str) -> str:
    with SQLiteEventStore(path) as store:
        return start(store, load_scenario(SCENARIO), game_id=game_id,
                     seats={"red": red, "blue": blue}, seed=3, played="2026-12-03")


def stored(path, game):
    with SQLiteEventStore(path) as store:
        return store.read(game)


def test_two_bots_play_a_whole_game_at_once_and_it_verifies(tmp_path):
    path = str(tmp_path / "bots.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("aggressive"), "bots-1")
    run = bot_runner.start(path, game, "at once")
    assert run.wait(LIMIT), "the run did not finish"
    assert run.error is None
    events = stored(path, game)
    assert events[-1]["kind"] == "game_ended"
    assert run.orders == sum(e["kind"] == "order_given" for e in events)
    assert verify(events).ok
    assert len(run.reasons) == min(run.orders, bot_runner.KEEP_REASONS)
    assert all(r.startswith(("tactician (red)", "aggressive (blue)")) for r in run.reasons)


def test_a_bot_stops_when_the_person_is_to_act(tmp_path):
    path = str(tmp_path / "vs.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.person("Ann"), "vs-1")
    run = bot_runner.start(path, game, "at once")
    assert run.wait(LIMIT) and run.error is None
    assert run.orders >= 1
    with SQLiteEventStore(path) as store:
        table = Table(store, game)
        assert table.state.to_act == "blue" and not table.seat_to_act.bot
    assert bot_runner.start(path, game, "at once").wait(LIMIT)  # nothing for a bot to do
    assert len(stored(path, game)) == len(table.events)


def test_a_step_at_a_time_plays_one_order(tmp_path):
    path = str(tmp_path / "step.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "step-1")
    before = len(stored(path, game))
    run = bot_runner.start(path, game, "a step at a time")
    assert run.wait(LIMIT) and run.error is None
    assert run.orders == 1
    added = stored(path, game)[before:]
    assert sum(e["kind"] == "order_given" for e in added) == 1


def test_stop_ends_a_paced_run_and_one_run_per_game(tmp_path):
    path = str(tmp_path / "paced.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "paced-1")
    run = bot_runner.start(path, game, "one a second")
    assert bot_runner.start(path, game, "at once") is run  # a second page joins the first
    assert bot_runner.current(path, game) is run
    bot_runner.stop(path, game)
    assert run.wait(LIMIT)
    assert run.error is None and run.orders <= 1  # stopped during its first wait at the latest
    assert stored(path, game)[-1]["kind"] != "game_ended"


@pytest.mark.parametrize("failure, line", [
    (GameMovedOn("the game moved on: someone was first"), "the game moved on"),
    (PlayError("the game is over: nothing more to play"), "the game is over"),
    (RuntimeError("boom"), "the bot stopped: RuntimeError: boom"),
])
def test_a_runs_failure_becomes_its_line(tmp_path, monkeypatch, failure, line):
    path = str(tmp_path / "fail.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "fail-1")

    def fails(self):
        raise failure

    monkeypatch.setattr(Table, "bot_step", fails)
    run = bot_runner.start(path, game, "at once")
    assert run.wait(LIMIT)
    assert run.error is not None and run.error.startswith(line)
    assert run.orders == 0 and run.thinking_for() == 0.0


def test_an_unknown_pace_is_refused():
    with pytest.raises(PlayError, match="pace is one of"):
        bot_runner.start("x.db", "g", "slowly")
