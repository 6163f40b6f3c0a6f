"""Bots played off the page's thread (dashboard/bot_runner.py), their orders decided in worker
processes (dashboard/bot_pool.py), on a real SQLite file: two bots play a whole game at once and
it verifies; a bot against a person stops when the person is to act; a step at a time plays one
order; stop() ends a paced run; a run's failure becomes its line; one run per game however many
pages ask. And out of the test's interpreter: the orders come from another process, the
progress of a paced run arrives while it plays, a worker killed ends the run with a line (and
the next run plays on a new pool), and the game a worker writes is byte for byte the one the
same bots write in this process.

The failures are made in the worker by replacing ``bot_pool.play_one`` with a function of this
module, which the worker imports by name (pickled by reference)."""

from __future__ import annotations

import functools
import os
import signal
from concurrent.futures.process import EXTRA_QUEUED_CALLS

import orjson
import pytest
from waits import LIMIT, wait_until

from warlog.dashboard import bot_pool, bot_runner
from warlog.app.errors import GameMovedOn, PlayError
from warlog.app.seats import Seat
from warlog.app.session import Session
from warlog.app.start import start_game
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

SCENARIO = "ancients-river-crossing"


@pytest.fixture(autouse=True, scope="module")
def workers():
    """The pool's workers end with this module (a server ends them at exit)."""
    yield
    bot_pool.shutdown()


def new_game(path, red: Seat, blue: Seat, game_id: str) -> str:
    with SQLiteEventStore(path) as store:
        return start_game(store, load_scenario(SCENARIO), game_id=game_id,
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
        table = Session(store, game)
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


def raises(failure, path, game):
    """A worker's order that fails (bot_pool.play_one replaced, in the worker)."""
    raise failure


def dies(path, game):
    """A worker killed while it decides."""
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize("failure, line", [
    (GameMovedOn("the game moved on: someone was first"), "the game moved on"),
    (PlayError("the game is over: nothing more to play"), "the game is over"),
    (RuntimeError("boom"), "the bot stopped: RuntimeError: boom"),
])
def test_a_runs_failure_becomes_its_line(tmp_path, monkeypatch, failure, line):
    path = str(tmp_path / "fail.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "fail-1")
    before = stored(path, game)
    monkeypatch.setattr(bot_pool, "play_one", functools.partial(raises, failure))
    run = bot_runner.start(path, game, "at once")
    assert run.wait(LIMIT)
    assert run.error is not None and run.error.startswith(line)
    assert run.orders == 0 and run.thinking_for() == 0.0
    assert stored(path, game) == before


def test_the_bots_think_in_another_process(tmp_path):
    path = str(tmp_path / "pid.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.person("Ann"), "pid-1")
    run = bot_runner.start(path, game, "a step at a time")
    assert run.wait(LIMIT) and run.error is None and run.orders == 1
    assert run.worker_pid is not None and run.worker_pid != os.getpid()


def test_a_paced_runs_progress_arrives_while_it_plays(tmp_path):
    path = str(tmp_path / "progress.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "progress-1")
    run = bot_runner.start(path, game, "one a second")
    wait_until(lambda: run.orders >= 2, "two orders reported while the run goes on")
    assert not run.done and len(run.reasons) >= 2
    assert sum(e["kind"] == "order_given" for e in stored(path, game)) >= 2
    bot_runner.stop(path, game)
    assert run.wait(LIMIT) and run.error is None and run.paused
    orders = run.orders
    assert sum(e["kind"] == "order_given" for e in stored(path, game)) == orders
    assert stored(path, game)[-1]["kind"] != "game_ended"


def test_a_worker_killed_while_deciding_ends_the_run_with_a_line(tmp_path, monkeypatch):
    path = str(tmp_path / "killed.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "killed-1")
    before = stored(path, game)
    with monkeypatch.context() as patch:
        patch.setattr(bot_pool, "play_one", dies)
        run = bot_runner.start(path, game, "at once")
        assert run.wait(LIMIT), "a killed worker hung the run"
    assert run.error is not None and "worker process ended" in run.error
    assert run.orders == 0 and stored(path, game) == before
    again = bot_runner.start(path, game, "a step at a time")  # a new pool
    assert again is not run and again.wait(LIMIT) and again.error is None
    assert again.orders == 1


def test_a_worker_killed_between_orders_ends_the_run_with_a_line(tmp_path):
    path = str(tmp_path / "killed2.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "killed-2")
    run = bot_runner.start(path, game, "one a second")
    wait_until(lambda: run.worker_pid is not None, "the run's first order")
    os.kill(run.worker_pid, signal.SIGKILL)
    assert run.wait(LIMIT), "a killed worker hung the run"
    assert run.error is not None and "worker process ended" in run.error
    assert stored(path, game)[-1]["kind"] != "game_ended"


def test_a_workers_game_is_the_one_played_in_this_process(tmp_path):
    """Two seeded bot games played at once by the workers, and the same two played here by
    Session.bot_step (as the thread of the server played them): the same events, byte for byte."""
    bots = [("tactician", "aggressive"), ("cautious", "tactician")]
    runs = []
    for i, (red, blue) in enumerate(bots):
        path = str(tmp_path / f"pool-{i}.db")
        game = new_game(path, Seat.of_bot(red), Seat.of_bot(blue), f"same-{i}")
        runs.append((path, game, bot_runner.start(path, game, "at once")))
    for i, ((red, blue), (path, game, run)) in enumerate(zip(bots, runs)):
        assert run.wait(LIMIT) and run.error is None
        here = str(tmp_path / f"here-{i}.db")
        new_game(here, Seat.of_bot(red), Seat.of_bot(blue), game)
        with SQLiteEventStore(here) as store:
            table = Session(store, game)
            while table.seat_to_act is not None and table.seat_to_act.bot:
                table.bot_step()
        theirs, ours = stored(path, game), stored(here, game)
        assert ours[-1]["kind"] == "game_ended" and len(theirs) == len(ours)
        assert orjson.dumps(theirs) == orjson.dumps(ours)


def test_an_unknown_pace_is_refused():
    with pytest.raises(PlayError, match="pace is one of"):
        bot_runner.start("x.db", "g", "slowly")


def test_warm_starts_the_workers_before_the_first_order(tmp_path):
    """A page that opens a bot game calls warm(): a worker starts then (a spawned worker takes
    a second or more), before any order, and the first order is decided in that pool."""
    bot_pool.shutdown()
    assert bot_pool._POOL is None
    bot_pool.warm()
    bot_pool.warm()  # every rerun of the page calls it: one pool, one warming task
    pool = bot_pool._POOL
    assert pool is not None

    def started() -> bool:
        return bool(pool._processes) and all(p.is_alive() for p in pool._processes.values())

    wait_until(started, lambda: "warm() started no worker")
    path = str(tmp_path / "warm.db")
    game = new_game(path, Seat.person("Red"), Seat.of_bot("tactician"), "warm-1")
    with SQLiteEventStore(path) as store:
        table = Session(store, game)
        while not table.seat_to_act.bot:  # red ends its phases: the bot is to act
            table.give(table.choices(None).side[0])
    run = bot_runner.start(path, game, "at once")
    assert run.wait(LIMIT) and run.error is None
    assert bot_pool._POOL is pool and run.worker_pid in pool._processes  # the warmed pool


def holds_a_worker(release: str) -> None:
    """A task that keeps its worker until the file ``release`` exists (another game's long
    search decision, as far as the pool can tell)."""
    from pathlib import Path

    wait_until(Path(release).exists, "the test released the worker")


def test_a_pause_takes_while_every_worker_is_busy_with_other_games(tmp_path):
    """Before: a run's order queued behind other games' orders could not be paused until a
    worker had decided it (beside eight search-bot games on 2 cores a pause never took within
    three minutes). Now an order no worker has begun is withdrawn."""
    path = str(tmp_path / "busy.db")
    game = new_game(path, Seat.of_bot("tactician"), Seat.of_bot("cautious"), "busy-1")
    before = stored(path, game)
    release = tmp_path / "release"
    pool = bot_pool._pool()
    # every worker, and every slot of the pool's call queue (which holds as many as the
    # workers and one more: an order there counts as begun), taken by other games' work
    taken = 2 * pool._max_workers + EXTRA_QUEUED_CALLS
    blockers = [pool.submit(holds_a_worker, str(release)) for _ in range(taken)]
    try:
        run = bot_runner.start(path, game, "at once")
        wait_until(lambda: run.thinking_for() > 0, "the run's order submitted")
        bot_runner.stop(path, game)
        assert run.wait(LIMIT), "the pause waited for the other games' orders"
        assert not any(b.done() for b in blockers)  # they are still deciding
        assert run.paused and run.error is None and run.orders == 0
        assert stored(path, game) == before
    finally:
        release.touch()
        for b in blockers:
            b.result(timeout=LIMIT)
    again = bot_runner.start(path, game, "a step at a time")  # let play on: it plays
    assert again.wait(LIMIT) and again.error is None and again.orders == 1
