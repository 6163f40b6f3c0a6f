"""The store holds when processes fail and race (issue 9, part 4), on real SQLite files:
processes killed in the middle of an append, writers racing for one game, and many processes
opening one new file at once.

Child processes are forked (the parent has already imported the store, so a child starts in
milliseconds). Every wait is for a condition (a message through a pipe, a barrier, a process'
exit), each with a generous limit that only a hang would reach; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from warlog.engine.verify import verify as rederive
from warlog.events.replay_file import import_replay, write_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError

from store_helpers import Events, heads, make_old_format, opening_length, renamed
from waits import LIMIT

FORK = multiprocessing.get_context("fork")
WAIT = LIMIT  # the limit on any wait for a condition (tests/waits.py); reached only if something hangs


# ---- helpers -------------------------------------------------------------------------------


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def _child(out: Any, work: Any, *args: Any) -> None:
    """Run ``work(out, *args)`` in a child; anything it raises goes back through ``out``."""
    try:
        work(out, *args)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which fails the test
        out.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def start(work: Any, *args: Any) -> tuple[Any, Any]:
    """Fork a child running ``work(out, *args)``; return (process, the parent's end of its pipe)."""
    mine, theirs = FORK.Pipe(duplex=False)
    proc = FORK.Process(target=_child, args=(theirs, work, *args), daemon=True)
    proc.start()
    theirs.close()
    return proc, mine


def receive(conn: Any) -> Any:
    if not conn.poll(WAIT):
        pytest.fail(f"no word from a child process in {WAIT} s")
    message = conn.recv()
    if isinstance(message, tuple) and message and message[0] == "error":
        pytest.fail(f"a child process failed: {message[1]}")
    return message


def finish(procs: list[Any]) -> None:
    for proc in procs:
        proc.join(WAIT)
        assert proc.exitcode == 0, f"child {proc.pid} exited with {proc.exitcode}"

# ---- 1. SIGKILL in the middle of appends -----------------------------------------------------


def _append_games(out: Any, path: Path, games: list[tuple[str, Events, Events]]) -> None:
    """Append each game in two appends (its opening, then the rest), reporting each commit.

    The page cache is made tiny, so an append spills pages into the WAL before it commits: a kill
    in the middle of one leaves uncommitted frames behind for the next open to ignore."""
    done = 0
    with SQLiteEventStore(path, timeout=WAIT) as store:
        store.db.execute("PRAGMA cache_size = 8")
        for game, opening, rest in games:
            store.append(game, opening, 0)
            done += 1
            out.send(done)
            store.append(game, rest, len(opening))
            done += 1
            out.send(done)
    out.send("all done")


KILL_AFTER = sorted(random.Random(94).sample(range(1, 380), 4))  # appends seen before the kill


@pytest.mark.parametrize("kill_after", KILL_AFTER)
def test_sigkill_mid_append_leaves_only_whole_appends(tmp_path, real_games, kill_after):
    path = tmp_path / "killed.db"
    with SQLiteEventStore(path) as store:  # an existing database, closed before the fork
        store.append("before", renamed(real_games[0], "before"), 0)
    plan = {}
    for i in range(200):
        game = f"g{i:03}"
        events = renamed(real_games[i % len(real_games)], game)
        plan[game] = (i % len(real_games), events, opening_length(events))
    proc, pipe = start(_append_games, path, [(g, e[:k], e[k:]) for g, (_, e, k) in plan.items()])
    seen = 0
    while seen < kill_after:
        message = receive(pipe)
        if message == "all done":
            break
        seen = message
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(WAIT)
    assert proc.exitcode in (-signal.SIGKILL, 0)
    pipe.close()

    assert integrity(path) == "ok"
    appends, verified = 0, {}
    with SQLiteEventStore(path) as store:
        for game, (source, events, k) in plan.items():
            if not store.has_game(game):
                assert store.last_seq(game) == 0 and heads(path, game) == []
                continue
            stored = store.read(game)
            whole = [[k], [k, len(events)]]
            assert heads(path, game) in whole, f"{game}: heads {heads(path, game)}"
            assert stored == events[: heads(path, game)[-1]]  # whole appends, nothing more
            assert store.check(game) == store.verify(game) == len(stored)
            key = (source, len(stored))  # renamed copies re-derive alike: verify each once
            if key not in verified:
                verified[key] = rederive(stored).ok
            assert verified[key], f"{game} does not re-derive"
            appends += len(heads(path, game))
        assert appends >= seen  # every append reported as committed survived the kill
        assert store.check("before") == len(real_games[0])
        store.append("after", renamed(real_games[1], "after"), 0)  # the lock died with the child
        assert store.verify("after") == len(real_games[1])


# ---- 2. writers racing for one game ----------------------------------------------------------


def _race(out: Any, path: Path, barrier: Any, me: str, rounds: int, batch: int, dice: Any) -> None:
    """Each round: agree on the last seq, then all append at once with it as expected_seq."""
    results = []
    with SQLiteEventStore(path, timeout=WAIT) as store:
        for _ in range(rounds):
            barrier.wait(WAIT)  # everyone is done with the previous round
            seen = store.last_seq("g1")
            barrier.wait(WAIT)  # everyone has read the same seq
            events = [dice("g1", seen + 1 + i, unit=me) for i in range(batch)]
            try:
                store.append("g1", events, seen)
                results.append((seen, "won"))
            except ConcurrencyError as exc:
                results.append((seen, (exc.stored, exc.expected)))
    out.send(results)


@pytest.mark.parametrize(("writers", "rounds"), [(2, 120), (8, 40)])
def test_racing_writers_exactly_one_wins_each_round(tmp_path, build, writers, rounds):
    path, batch = tmp_path / "race.db", 3
    with SQLiteEventStore(path) as store:
        store.append("g1", build.make_game("g1", 4), 0)
    barrier = FORK.Barrier(writers)
    children = [start(_race, path, barrier, f"w{i}", rounds, batch, build.dice)
                for i in range(writers)]
    results = {f"w{i}": receive(pipe) for i, (_, pipe) in enumerate(children)}
    finish([proc for proc, _ in children])

    winners = []
    for r in range(rounds):
        seen = 4 + r * batch
        outcomes = {me: results[me][r] for me in results}
        assert all(s == seen for s, _ in outcomes.values()), outcomes
        won = [me for me, (_, outcome) in outcomes.items() if outcome == "won"]
        assert len(won) == 1, f"round {r}: {outcomes}"
        assert all(outcome == (seen + batch, seen)
                   for me, (_, outcome) in outcomes.items() if me != won[0])
        winners.append(won[0])
    total = 4 + rounds * batch
    with SQLiteEventStore(path) as store:
        events = store.read("g1")
        assert [e["seq"] for e in events] == list(range(1, total + 1))
        assert [e["unit"] for e in events[4:]] == [w for w in winners for _ in range(batch)]
        assert store.check("g1") == store.verify("g1") == total
    assert heads(path, "g1") == [4 + r * batch for r in range(rounds + 1)]
    assert integrity(path) == "ok"


# ---- 3. many processes opening one file at once ----------------------------------------------


def _import_and_append(out: Any, path: Path, barrier: Any, files: list[Path],
                       games: list[tuple[str, Events]]) -> None:
    """Like several ``warlog import`` commands run at once: each game opens the store anew."""
    barrier.wait(WAIT)
    for file in files:
        with SQLiteEventStore(path, timeout=WAIT) as store:
            import_replay(store, file)
    for game, events in games:
        with SQLiteEventStore(path, timeout=WAIT) as store:
            store.append(game, events, 0)
    out.send("done")


@pytest.mark.parametrize("database", ["new", "existing", "old format"])
def test_eight_processes_open_import_and_append_at_once(tmp_path, real_games, database):
    processes, per_kind = 8, 2
    expected = {}
    rounds = 4 if database == "new" else 1  # a new file is where the opens used to collide
    for r in range(rounds):
        path = tmp_path / f"{r}.db"
        if database != "new":
            with SQLiteEventStore(path) as store:
                store.append("first", renamed(real_games[0], "first"), 0)
            if database == "old format":
                make_old_format(path)
        barrier = FORK.Barrier(processes)
        children = []
        for p in range(processes):
            files, games = [], []
            for j in range(per_kind):
                game = f"p{p}-import{j}"
                events = renamed(real_games[(p + j) % len(real_games)], game)
                files.append(tmp_path / f"{r}-{game}.jsonl")
                write_replay(files[-1], events)
                expected[(path, game)] = events
                game = f"p{p}-append{j}"
                events = renamed(real_games[(p + j + 1) % len(real_games)], game)
                games.append((game, events))
                expected[(path, game)] = events
            children.append(start(_import_and_append, path, barrier, files, games))
        assert [receive(pipe) for _, pipe in children] == ["done"] * processes
        finish([proc for proc, _ in children])
        assert integrity(path) == "ok"

    for (path, game), events in expected.items():
        with SQLiteEventStore(path) as store:
            assert store.read(game) == events
            assert store.check(game) == store.verify(game) == len(events)
    for r in range(rounds):
        with SQLiteEventStore(tmp_path / f"{r}.db") as store:
            want = 2 * per_kind * processes + (database != "new")
            assert len(store.games()) == want
