"""The store holds (issue 9, part 4): on real SQLite files, against plain ``sqlite3`` connections,
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
from typer.testing import CliRunner

from warlog.cli import app
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify as rederive
from warlog.events.replay_file import import_replay, write_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError, GameDamaged, StoreError

Events = list[dict[str, Any]]
FORK = multiprocessing.get_context("fork")
WAIT = 120.0  # seconds: the limit on any wait for a condition; reached only if something hangs


# ---- helpers -------------------------------------------------------------------------------


def renamed(events: Events, game: str) -> Events:
    return [{**e, "game": game} for e in events]


def opening_length(events: Events) -> int:
    """The events before the first order: what ``start`` appends for a new game."""
    return next(i for i, e in enumerate(events) if e["kind"] == "order_given")


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection, with none of the store's pragmas (recursive_triggers is off)."""
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 0
    return conn


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def heads(path: Path, game: str) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT seq FROM heads WHERE game = ? ORDER BY seq", (game,))
        return [seq for (seq,) in rows]
    finally:
        conn.close()


def schema(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master").fetchall())
    finally:
        conn.close()


def make_old_format(path: Path) -> None:
    """Take a database back to before heads and the REPLACE guards (as an older warlog left it)."""
    conn = raw(path)
    conn.executescript(
        "DROP TABLE heads; DROP TRIGGER events_no_replace; DROP TRIGGER games_no_replace;"
    )
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


@pytest.fixture(scope="module")
def real_games() -> list[Events]:
    """Three real engine games (two bots on a bundled scenario), each re-derived by verify, and
    so is each one's opening (the prefix a first append of a new game stores)."""
    scenario = load_scenario("ancients-river-crossing")
    games = [play_out("real", scenario, seed=seed).events for seed in (1, 2, 3)]
    for events in games:
        assert rederive(events).ok and rederive(events).finished
        assert rederive(events[: opening_length(events)]).ok
    return games


# ---- 1. REPLACE cannot get past the append-only rule ---------------------------------------

_FIELDS = "game, seq, turn, side, phase, kind, body, chain"
_REPLACES = {
    "REPLACE INTO events, same row": f"REPLACE INTO events SELECT {_FIELDS} FROM events "
    "WHERE game = 'g1' AND seq = 3",
    "INSERT OR REPLACE INTO events, new body": "INSERT OR REPLACE INTO events (game, seq, turn, "
    "kind, body, chain) VALUES ('g1', 5, 1, 'note', '{}', 'forged')",
    "INSERT OR REPLACE INTO events, every row": f"INSERT OR REPLACE INTO events SELECT {_FIELDS} "
    "FROM events",
    "REPLACE INTO games, same row": "REPLACE INTO games SELECT * FROM games",
    "INSERT OR REPLACE INTO games, taken id": "INSERT OR REPLACE INTO games (id, rule_system, "
    "period, players, first_event_chain) VALUES ('g1', 'x', 'y', '{}', 'z')",
    "REPLACE INTO games, taken rowid": "REPLACE INTO games (rowid, id, rule_system, period, "
    "players, first_event_chain) SELECT rowid, 'g9', 'x', 'y', '{}', 'z' FROM games",
    "REPLACE INTO heads": "REPLACE INTO heads SELECT * FROM heads",
    "upsert on games": "INSERT INTO games (id, rule_system, period, players, first_event_chain) "
    "VALUES ('g1', 'x', 'y', '{}', 'z') ON CONFLICT (id) DO UPDATE SET title = 'rewritten'",
    "UPDATE OR REPLACE events": "UPDATE OR REPLACE events SET seq = 2 WHERE seq = 3",
    "INSERT OR IGNORE a taken seq": "INSERT OR IGNORE INTO events (game, seq, turn, kind, "
    "body, chain) VALUES ('g1', 5, 1, 'note', '{}', 'forged')",
    "a hole in the seqs": "INSERT INTO events (game, seq, turn, kind, body, chain) "
    "VALUES ('g1', 9, 1, 'note', '{}', 'forged')",
    "a head that is not the last event": "INSERT INTO heads VALUES ('g1', 6, 'forged')",
}


@pytest.mark.parametrize("case", sorted(_REPLACES))
def test_plain_sqlite3_cannot_replace_rows(case, store, db_path, build):
    store.append("g1", build.make_game("g1", 5), 0)
    store.append("g2", build.make_game("g2", 3), 0)
    before = build.dump(db_path)
    conn = raw(db_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(_REPLACES[case])
        conn.commit()
    finally:
        conn.close()
    assert build.dump(db_path) == before
    assert store.check("g1") == store.verify("g1") == 5


def test_the_stores_own_connection_cannot_replace_either(store, db_path, build):
    store.append("g1", build.make_game("g1", 5), 0)
    before = build.dump(db_path)
    for case in ("REPLACE INTO events, same row", "REPLACE INTO games, same row"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.db.execute(_REPLACES[case])
        store.db.rollback()
    assert build.dump(db_path) == before


@pytest.mark.parametrize("sizes", [[1, 255, 256, 257, 300], [600]])
def test_appends_of_any_size_are_whole(sizes, store, db_path, build):
    """Rows go in a few hundred to a statement: every size reads back, and a row refused in a
    later statement leaves nothing of its batch behind."""
    events = build.make_game("g1", sum(sizes) + 300)
    done = 0
    for size in sizes:
        assert store.append("g1", events[done : done + size], done) == done + size
        done += size
    assert store.read("g1") == events[:done]
    assert store.check("g1") == store.verify("g1") == done
    before = build.dump(db_path)
    bad = [*events[done : done + 299], {**events[done + 299], "turn": "three"}]
    with pytest.raises(StoreError, match="cannot append"):
        store.append("g1", bad, done)
    assert build.dump(db_path) == before


# ---- 2. a game cut short is reported ---------------------------------------------------------


def _forge(path: Path, *sql: str) -> None:
    """What a forger (or a careless repair) does: drop the guards, then change rows."""
    conn = raw(path)
    for trigger in ("events_no_delete", "events_no_replace"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()


def test_heads_record_every_append_in_its_transaction(store, db_path, build):
    events = build.make_game("g1", 12)
    store.append("g1", events[:5], 0)
    store.append("g1", events[5:6], 5)
    store.append("g1", events[6:], 6)
    assert heads(db_path, "g1") == [5, 6, 12]
    assert store.check("g1") == 12
    with pytest.raises(ConcurrencyError):
        store.append("g1", events[6:], 6)
    assert heads(db_path, "g1") == [5, 6, 12]  # a refused append records nothing


def test_a_tail_deleted_behind_the_stores_back_is_reported(store, db_path, build):
    events = build.make_game("g1", 10)
    store.append("g1", events[:4], 0)
    store.append("g1", events[4:], 4)
    store.append("g2", build.make_game("g2", 3), 0)
    _forge(db_path, "DELETE FROM events WHERE game = 'g1' AND seq > 7")
    message = ("game 'g1' is cut short: 10 events were recorded, but the last one stored is "
               "seq 7 — events were deleted outside warlog, or restored from an older copy")
    for call in (lambda: store.check("g1"), lambda: store.read("g1"),
                 lambda: store.read("g1", upto=9), lambda: store.verify("g1")):
        with pytest.raises(GameDamaged) as info:
            call()
        assert str(info.value) == message
        assert (info.value.recorded, info.value.stored) == (10, 7)
    assert store.read("g1", upto=7) == events[:7]  # what is there is still readable by seq
    before = build.dump(db_path)
    with pytest.raises(GameDamaged, match="cut short"):
        store.append("g1", events[7:], 7)  # the writer saw 7: still nothing is written on top
    assert build.dump(db_path) == before
    assert store.check("g2") == 3  # the other game is fine


def test_events_put_back_from_an_older_copy_are_reported(store, db_path, tmp_path, build):
    events = build.make_game("g1", 9)
    store.append("g1", events[:6], 0)
    backup = tmp_path / "backup.db"
    with sqlite3.connect(backup) as copy:
        store.db.conn.backup(copy)
    store.append("g1", events[6:], 6)
    _forge(db_path, f"ATTACH '{backup}' AS old", "DELETE FROM events WHERE game = 'g1'",
           "INSERT INTO events SELECT * FROM old.events WHERE game = 'g1'")
    with SQLiteEventStore(db_path) as again, pytest.raises(
        GameDamaged, match="'g1' is cut short: 9 events were recorded, but the last one stored "
        "is seq 6"
    ):
        again.check("g1")


def test_events_added_or_rewritten_at_the_end_are_reported(store, db_path, build):
    store.append("g1", build.make_game("g1", 6), 0)
    conn = raw(db_path)  # the next seq passes the triggers: SQL cannot recompute the chain
    conn.execute("INSERT INTO events (game, seq, turn, kind, body, chain) "
                 "VALUES ('g1', 7, 1, 'note', '{}', 'forged')")
    conn.commit()
    conn.close()
    with pytest.raises(GameDamaged, match="'g1' runs past its recorded end: 6 events were "
                       "recorded, but the last one stored is seq 7"):
        store.check("g1")
    with pytest.raises(GameDamaged, match="runs past"):
        store.read("g1")

    store.append("g2", build.make_game("g2", 6), 0)
    last = build.make_game("g2", 6)[-1]
    _forge(db_path, "DELETE FROM events WHERE game = 'g2' AND seq = 6",
           "INSERT INTO events (game, seq, turn, kind, body, chain) VALUES "
           f"('g2', 6, 1, '{last['kind']}', '{{}}', 'forged')")
    with pytest.raises(GameDamaged, match="'g2': 6 events were recorded and 6 are stored, but "
                       "the last one stored is not the one recorded"):
        store.check("g2")


def test_a_hole_is_reported_by_read_and_verify(store, db_path, build):
    store.append("g1", build.make_game("g1", 8), 0)
    _forge(db_path, "DELETE FROM events WHERE game = 'g1' AND seq = 4")
    assert store.check("g1") == 8  # check looks at the end only
    with pytest.raises(GameDamaged, match="'g1' has a hole: 8 events were recorded and the last "
                       "one stored is seq 8, but only 7 are stored"):
        store.read("g1")
    with pytest.raises(StoreError, match="game 'g1', event seq 4 is missing"):
        store.verify("g1")


def test_warlog_verify_names_the_game_and_both_lengths_on_one_line(tmp_path, real_games):
    db = tmp_path / "v.db"
    events = renamed(real_games[0], "battle")
    with SQLiteEventStore(db) as store:
        store.append("battle", events, 0)
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", "battle", "--db", str(db)])
    assert ok.exit_code == 0 and "OK" in ok.output
    n = len(events)
    _forge(db, f"DELETE FROM events WHERE game = 'battle' AND seq > {n - 40}")
    result = runner.invoke(app, ["verify", "battle", "--db", str(db)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"FAIL game 'battle' is cut short: {n} events were recorded, but the last one stored is "
        f"seq {n - 40} — events were deleted outside warlog, or restored from an older copy"
    ]


def test_an_old_database_gets_its_heads_and_guards_on_first_open(tmp_path, build):
    fresh, old = tmp_path / "fresh.db", tmp_path / "old.db"
    for path in (fresh, old):
        with SQLiteEventStore(path) as s:
            s.append("g1", build.make_game("g1", 7), 0)
            s.append("g2", build.make_game("g2", 4), 0)
            s.append("g2", build.make_game("g2", 9)[4:], 4)
    make_old_format(old)
    conn = raw(old)  # before the migration, plain sqlite3 could replace a row
    conn.execute(_REPLACES["REPLACE INTO games, same row"])
    conn.rollback()
    conn.close()
    with SQLiteEventStore(old) as s:
        assert (s.check("g1"), s.check("g2")) == (7, 9)
    assert heads(old, "g1") == [7] and heads(old, "g2") == [9]  # computed once, from the ends
    assert schema(old) == schema(fresh)
    migrated = build.dump(old)
    with SQLiteEventStore(old) as s:  # a second open changes nothing
        assert s.read("g2") == build.make_game("g2", 9)
    assert build.dump(old) == migrated
    conn = raw(old)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(_REPLACES["REPLACE INTO games, same row"])
    conn.close()


def test_an_open_that_stays_busy_says_so_and_changes_nothing(tmp_path, build):
    path = tmp_path / "old.db"
    with SQLiteEventStore(path) as s:
        s.append("g1", build.make_game("g1", 3), 0)
    make_old_format(path)  # so the next open must write (and so wait for the lock)
    before = build.dump(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError, match="another process kept it busy for 0.2 s; try again"):
            SQLiteEventStore(path, timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert build.dump(path) == before
    with SQLiteEventStore(path) as s:
        assert s.check("g1") == 3


# ---- 3. SIGKILL in the middle of appends ----------------------------------------------------


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


# ---- 4. writers racing for one game ---------------------------------------------------------


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


# ---- 5. many processes opening one file at once ---------------------------------------------


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
