"""SQLiteEventStore on real SQLite files: appends, concurrency, append-only, reads, game list."""

from __future__ import annotations

import orjson

import sqlite3
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warlog.events.chain import GENESIS, canonical, link
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import (
    ConcurrencyError,
    EventStore,
    GameExists,
    GameInfo,
    GameNotFound,
    StoreError,
)
from waits import LIMIT


def test_store_satisfies_the_protocol(store):
    assert isinstance(store, EventStore)


def test_append_new_game_then_read_back(store, build):
    events = build.make_game("g1", 20)
    assert store.append("g1", events, 0) == 20
    assert store.read("g1") == events
    assert store.last_seq("g1") == 20
    assert store.has_game("g1") and not store.has_game("g2")


def test_append_continues_a_game(store, build):
    events = build.make_game("g1", 30)
    store.append("g1", events[:10], 0)
    assert store.append("g1", events[10:25], 10) == 25
    assert store.append("g1", events[25:], 25) == 30
    assert store.read("g1") == events


def test_rows_hold_columns_canonical_body_and_chain(store, db_path, build):
    events = build.make_game("g1", 5)
    store.append("g1", events, 0)
    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        "SELECT game, seq, turn, side, phase, kind, body, chain FROM events ORDER BY seq"
    ).fetchall()
    prev = GENESIS
    for event, (game, seq, turn, side, phase, kind, body, chain) in zip(events, rows):
        assert (game, seq, turn, side, phase, kind) == (
            "g1", event["seq"], event["turn"], event["side"], event["phase"], event["kind"]
        )
        assert body.encode() == canonical(event)
        prev = link(prev, body.encode())
        assert chain == prev
    first_chain = conn.execute("SELECT first_event_chain FROM games").fetchone()[0]
    assert first_chain == rows[0][7] == store.chains("g1")[0]
    assert store.verify("g1") == 5


def test_schema_is_created_once_and_file_uses_wal(db_path, build):
    with SQLiteEventStore(db_path) as s:
        s.append("g1", build.make_game("g1", 3), 0)
    before = build.dump(db_path)
    with SQLiteEventStore(db_path) as s:
        assert s.read("g1") == build.make_game("g1", 3)
        assert s.db.journal_mode == "wal"
        assert s.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert build.dump(db_path) == before


def test_memory_database_works(build):
    with SQLiteEventStore(":memory:") as s:
        assert s.append("m", build.make_game("m", 4), 0) == 4
        assert s.read("m", upto=2) == build.make_game("m", 2)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database" * 100)
    with pytest.raises(StoreError, match="notes.db: cannot open as a warlog database"):
        SQLiteEventStore(path)
    assert path.read_bytes() == b"these are my notes, not a database" * 100


def test_read_upto(store, build):
    events = build.make_game("g1", 12)
    store.append("g1", events, 0)
    assert store.read("g1", upto=0) == []
    assert store.read("g1", upto=1) == events[:1]
    assert store.read("g1", upto=7) == events[:7]
    assert store.read("g1", upto=99) == events


def test_read_unknown_game_says_so(store):
    with pytest.raises(GameNotFound, match="no game 'nope'"):
        store.read("nope")
    assert store.last_seq("nope") == 0


def test_stale_expected_seq_raises_and_changes_nothing(store, db_path, build):
    events = build.make_game("g1", 12)
    store.append("g1", events[:10], 0)
    before = build.dump(db_path)
    with pytest.raises(ConcurrencyError) as info:
        store.append("g1", events[8:12], 8)  # the writer last saw seq 8; the game is at 10
    assert str(info.value) == (
        "game 'g1' has 10 events; this append expected 8 — reload and try again"
    )
    assert (info.value.stored, info.value.expected) == (10, 8)
    assert build.dump(db_path) == before


def test_expected_seq_ahead_of_the_store_is_also_stale(store, db_path, build):
    events = build.make_game("g1", 12)
    store.append("g1", events[:5], 0)
    before = build.dump(db_path)
    with pytest.raises(ConcurrencyError, match="has 5 events; this append expected 7"):
        store.append("g1", events[7:], 7)
    assert build.dump(db_path) == before


def test_new_game_with_a_taken_id_is_refused(store, db_path, build):
    store.append("g1", build.make_game("g1", 3), 0)
    before = build.dump(db_path)
    with pytest.raises(GameExists, match="'g1' is already in the database"):
        store.append("g1", build.make_game("g1", 3), 0)
    assert build.dump(db_path) == before


def test_two_store_objects_on_one_file_second_stale_append_fails(db_path, build):
    events = build.make_game("g1", 10)
    with SQLiteEventStore(db_path) as first, SQLiteEventStore(db_path) as second:
        first.append("g1", events[:4], 0)
        seen = second.last_seq("g1")  # both writers have seen seq 4
        first.append("g1", events[4:6], seen)
        with pytest.raises(ConcurrencyError, match="has 6 events; this append expected 4"):
            second.append("g1", events[4:6], seen)
        assert second.append("g1", events[6:], second.last_seq("g1")) == 10
        assert first.read("g1") == events


def test_racing_writers_on_separate_connections_exactly_one_wins(db_path, build):
    events = build.make_game("g1", 8)
    with SQLiteEventStore(db_path) as s:
        s.append("g1", events[:5], 0)
    barrier, outcomes = threading.Barrier(4), []

    def writer(name: str) -> None:
        with SQLiteEventStore(db_path) as s:
            batch = [{**e, "phase": name} for e in events[5:]]
            barrier.wait(LIMIT)
            try:
                s.append("g1", batch, 5)
                outcomes.append(("won", name))
            except ConcurrencyError:
                outcomes.append(("stale", name))

    threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(LIMIT)
        assert not t.is_alive()
    winners = [name for result, name in outcomes if result == "won"]
    assert len(winners) == 1 and len(outcomes) == 4
    with SQLiteEventStore(db_path) as s:
        assert [e["phase"] for e in s.read("g1")[5:]] == winners * 3
        assert s.verify("g1") == 8


def test_append_while_another_connection_holds_the_write_lock(db_path, build):
    with SQLiteEventStore(db_path) as s:
        s.append("g1", build.make_game("g1", 3), 0)
    before = build.dump(db_path)
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with SQLiteEventStore(db_path, timeout=0.05) as s:
            with pytest.raises(StoreError, match="the database is busy"):
                s.append("g1", build.make_game("g1", 5)[3:], 3)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert build.dump(db_path) == before


def _bad_batches(build):
    g = build.make_game("g1", 8)
    return {
        "empty": ("g1", [], 5, "the batch is empty"),
        "wrong game": ("g1", [g[5], {**g[6], "game": "g2"}], 5, "belongs to game 'g2'"),
        "seq gap": ("g1", [g[5], g[7]], 5, "event seq 8 is out of order"),
        "seq does not follow": ("g1", [g[6]], 5, "event seq 7 is out of order"),
        "unknown game": ("g9", [build.dice("g9", 6)], 5, "no game 'g9'"),
        "new game without game_started": ("g2", [build.dice("g2", 1)], 0, "must be 'game_started'"),
        "missing field": ("g1", [{k: g[5][k] for k in g[5] if k != "turn"}], 5, "no 'turn' field"),
        "game_started without period": (
            "g2", [{k: v for k, v in build.started("g2").items() if k != "period"}], 0,
            "the game_started event has no 'period'",
        ),
        "unknown kind": ("g1", [{**g[5], "kind": "teleported"}], 5, "unknown kind 'teleported'"),
        "not json": ("g1", [{**g[5], "faces": {1, 2}}], 5, "not a JSON event dict"),
        "not a dict": ("g1", ["dice"], 5, "not a JSON event dict"),
        "turn not a number": ("g1", [{**g[5], "turn": "three"}], 5, "cannot append"),
        "negative expected_seq": ("g1", [g[5]], -1, "expected_seq must be"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "empty", "wrong game", "seq gap", "seq does not follow", "unknown game",
        "new game without game_started", "game_started without period", "missing field",
        "unknown kind", "not json",
        "not a dict", "turn not a number", "negative expected_seq",
    ],
)
def test_bad_batches_raise_store_error_and_write_nothing(case, store, db_path, build):
    store.append("g1", build.make_game("g1", 5), 0)
    before = build.dump(db_path)
    game, batch, expected, message = _bad_batches(build)[case]
    with pytest.raises(StoreError, match=message):
        store.append(game, batch, expected)
    assert build.dump(db_path) == before
    assert store.append("g1", build.make_game("g1", 6)[5:], 5) == 6  # the store still works


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE events SET body = '{}' WHERE seq = 2",
        "UPDATE events SET seq = seq + 100",
        "DELETE FROM events WHERE seq = 3",
        "DELETE FROM events",
        "UPDATE games SET title = 'rewritten'",
        "DELETE FROM games",
    ],
)
def test_database_refuses_update_and_delete(sql, store, db_path, build):
    store.append("g1", build.make_game("g1", 5), 0)
    before = build.dump(db_path)
    conn = sqlite3.connect(db_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
        conn.commit()
    finally:
        conn.close()
    assert build.dump(db_path) == before


def test_verify_catches_an_edit_made_behind_the_stores_back(store, db_path, build):
    store.append("g1", build.make_game("g1", 6), 0)
    conn = sqlite3.connect(db_path)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute(
        "UPDATE events SET body = replace(body, '\"faces\":[5]', '\"faces\":[6]') WHERE seq = 4"
    )
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="event seq 4: hash chain broken"):
        store.verify("g1")


def test_games_lists_every_game_with_its_outcome(store, build):
    store.append("g2", build.make_game("g2", 9, finished=True), 0)
    store.append("g1", build.make_game("g1", 4), 0)
    store.append("g3", [build.started("g3", scenario={"id": "x"}, players={})], 0)
    assert store.games() == [
        GameInfo(id="g1", rule_system="ohw", period="ancients", scenario_id="s1",
                 title="Pitched battle", players={"red": "Ann", "blue": "Bob"}, events=4),
        GameInfo(id="g2", rule_system="ohw", period="ancients", scenario_id="s1",
                 title="Pitched battle", players={"red": "Ann", "blue": "Bob"}, events=9,
                 ended=True, winner="blue", reason="objective held"),
        GameInfo(id="g3", rule_system="ohw", period="ancients", scenario_id="x", title=None,
                 players={}, events=1),
    ]


def test_games_of_an_empty_database(store):
    assert store.games() == []


_chunks = st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=12)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    faces=st.lists(st.lists(st.integers(1, 6), min_size=1, max_size=3), min_size=0, max_size=40),
    chunks=_chunks,
)
def test_any_chunking_reads_back_the_same_events(build, faces, chunks):
    events = [build.started("p")] + [
        build.dice("p", seq, faces=tuple(f)) for seq, f in enumerate(faces, start=2)
    ]
    with SQLiteEventStore(":memory:") as s:
        done, i = 0, 0
        while done < len(events):
            size = chunks[i % len(chunks)]
            assert s.append("p", events[done : done + size], done) == min(done + size, len(events))
            done, i = min(done + size, len(events)), i + 1
        assert s.read("p") == events
        assert s.verify("p") == len(events)
        cut = len(events) // 2
        assert s.read("p", upto=cut) == events[:cut]


def test_a_database_in_a_missing_folder_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="cannot open the database"):
        SQLiteEventStore(tmp_path / "no" / "such" / "folder" / "w.db")


def test_reading_and_appending_do_not_import_sqlite_utils(tmp_path):
    """sqlite-utils imports pandas, numpy and pyarrow (about a second of CPU): a command that
    only reads a game or appends an order must not pay for it (benchmarks/bench_cli.py)."""
    import subprocess
    import sys

    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario

    db = tmp_path / "g.db"
    events = play_out("g", load_scenario("ancients-river-crossing"), seed=1).events
    with SQLiteEventStore(db) as store:
        store.append("g", events[:40], 0)
    more = tmp_path / "more.json"
    more.write_bytes(orjson.dumps(events[40:50]))
    code = ("import sys, orjson; from warlog.events.sqlite_store import SQLiteEventStore as S\n"
            f"s = S({str(db)!r}); s.games(); s.read('g'); s.verify('g')\n"
            f"s.append('g', orjson.loads(open({str(more)!r}, 'rb').read()), 40)\n"
            "assert len(s.read('g')) == 50\n"
            "assert 'sqlite_utils' not in sys.modules, 'sqlite_utils was imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=LIMIT)
    assert done.returncode == 0, done.stderr
