"""Replay files: deterministic writing, tamper evidence, clear errors, and safe imports."""

from __future__ import annotations

import orjson
import pytest

import warlog
from warlog.events.chain import GENESIS, canonical, link
from warlog.events.replay_file import (
    FORMAT_VERSION,
    ChainError,
    Replay,
    ReplayError,
    encode_replay,
    export_game,
    import_replay,
    read_replay,
    write_replay,
)
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import GameExists

from builders import mutated


@pytest.fixture
def game(build):
    return build.make_game("g1", 25, finished=True)


@pytest.fixture
def replay_path(tmp_path, game):
    path = tmp_path / "g1.jsonl"
    write_replay(path, game)
    return path


def _lines(path):
    return path.read_bytes().split(b"\n")[:-1]


def test_header_line_describes_the_game(replay_path, game):
    header = orjson.loads(_lines(replay_path)[0])
    first = game[0]
    body = {k: v for k, v in header.items() if k != "chain"}
    assert body == {
        "format": "warlog-replay",
        "format_version": 1,
        "warlog_version": warlog.__version__,
        "game": "g1",
        "rule_system": first["rule_system"],
        "period": first["period"],
        "options": first["options"],
        "scenario": first["scenario"],
        "seed": 7,
    }
    assert header["chain"] == link(GENESIS, canonical(body))


def test_each_event_line_is_canonical_json_with_its_chain(replay_path, game):
    lines = _lines(replay_path)
    assert replay_path.read_bytes().endswith(b"\n")
    assert len(lines) == 1 + len(game) + 1  # header, events, closing line
    prev = orjson.loads(lines[0])["chain"]
    for event, line in zip(game, lines[1:]):
        prev = link(prev, canonical(event))
        assert line == canonical({**event, "chain": prev})
    closing = {"end": "warlog-replay", "events": len(game)}
    assert lines[-1] == canonical({**closing, "chain": link(prev, canonical(closing))})


def test_a_file_cut_at_a_line_end_is_refused(replay_path):
    lines = _lines(replay_path)
    for keep in (len(lines) - 1, len(lines) - 5, 2):
        replay_path.write_bytes(b"\n".join(lines[:keep]) + b"\n")
        with pytest.raises(ReplayError, match="without its closing line: it was cut short"):
            read_replay(replay_path)


def test_read_returns_header_and_events(replay_path, game):
    replay = read_replay(replay_path)
    assert isinstance(replay, Replay)
    assert replay.events == game
    assert replay.game == "g1" and replay.header["seed"] == 7


def test_writing_twice_gives_identical_bytes(tmp_path, game):
    write_replay(tmp_path / "a.jsonl", game)
    write_replay(tmp_path / "b.jsonl", [dict(reversed(e.items())) for e in game])
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_export_twice_is_byte_identical(store, game, tmp_path):
    store.append("g1", game, 0)
    export_game(store, "g1", tmp_path / "one.jsonl")
    export_game(store, "g1", tmp_path / "two.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert (tmp_path / "one.jsonl").read_bytes() == encode_replay(game)


def test_round_trip_store_export_import_into_a_second_database(store, game, tmp_path, build):
    store.append("g1", game, 0)
    store.append("other", build.make_game("other", 3), 0)
    export_game(store, "g1", tmp_path / "g1.jsonl")
    with SQLiteEventStore(tmp_path / "second.db") as second:
        assert import_replay(second, tmp_path / "g1.jsonl") == "g1"
        assert second.read("g1") == store.read("g1") == game
        assert second.chains("g1") == store.chains("g1")
        assert second.games() == [info for info in store.games() if info.id == "g1"]


def test_importing_a_game_already_in_the_database_is_refused(store, replay_path, db_path, build):
    import_replay(store, replay_path)
    before = build.dump(db_path)
    with pytest.raises(GameExists, match=r"g1\.jsonl: game 'g1' is already in the database"):
        import_replay(store, replay_path)
    assert build.dump(db_path) == before


def test_editing_a_die_face_breaks_the_chain_at_that_line(replay_path):
    lines = _lines(replay_path)
    event = orjson.loads(lines[10])  # line 11 holds seq 10, a dice_rolled
    assert event["kind"] == "dice_rolled"
    event["faces"] = [6 if event["faces"][0] != 6 else 1]
    lines[10] = orjson.dumps(event, option=orjson.OPT_SORT_KEYS)
    replay_path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ChainError) as info:
        read_replay(replay_path)
    assert (info.value.line, info.value.seq) == (11, 10)
    assert str(info.value) == (
        f"{replay_path}: line 11 (event seq 10): hash chain broken — the file was changed "
        "after it was written"
    )
    assert read_replay(replay_path, check_chain=False).events[9]["faces"] == event["faces"]


def test_editing_any_one_value_on_any_line_raises_chain_error_naming_it(replay_path):
    original = _lines(replay_path)
    checked = 0
    for index, line in enumerate(original):
        record = orjson.loads(line)
        for key in record:
            if (index == 0 and key in ("format", "format_version")) or key == "end":
                continue  # those decide how the file is read; they have their own errors
            edited = {**record, key: mutated(record[key])}
            lines = list(original)
            lines[index] = orjson.dumps(edited, option=orjson.OPT_SORT_KEYS)
            replay_path.write_bytes(b"\n".join(lines) + b"\n")
            with pytest.raises(ChainError) as info:
                read_replay(replay_path)
            assert info.value.line == index + 1, (index, key)
            if index:  # the closing line has no seq
                assert info.value.seq == edited.get("seq"), key
            checked += 1
    assert checked > 300


def test_removing_a_line_breaks_the_chain_at_the_next_one(replay_path):
    lines = _lines(replay_path)
    del lines[5]
    replay_path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ChainError, match="line 6 \\(event seq 6\\)"):
        read_replay(replay_path)


def _header(build, game="g1"):
    return orjson.loads(encode_replay([build.started(game)]).split(b"\n")[0])


def _cut_inside_last_event(data: bytes) -> bytes:
    """The file as if writing stopped 40 bytes before the end of its last event line."""
    return data[: data.rindex(b"\n", 0, len(data) - 1) - 40]


def _malformed(build, game):
    header = _header(build)
    return {
        "empty": (b"", "the file is empty"),
        "garbage": (b"\x00\x01 garbage\n", "not a warlog replay: line 1 is not valid JSON"),
        "json but not an object": (b"[1, 2]\n", "not a warlog replay: line 1 is a JSON list"),
        "truncated line": (_cut_inside_last_event(encode_replay(game)), "line 26 is not valid JSON"),
        "wrong format name": (
            build.chained_lines({**header, "format": "chess-pgn"}, game),
            "not a warlog replay",
        ),
        "newer version": (
            build.chained_lines({**header, "format_version": FORMAT_VERSION + 1}, game),
            "format_version 2 is newer than this warlog supports \\(1\\)",
        ),
        "missing header field": (
            build.chained_lines({k: v for k, v in header.items() if k != "seed"}, game),
            "the header has no 'seed' field",
        ),
        "header disagrees with game_started": (
            build.chained_lines({**header, "seed": 8}, game),
            "header 'seed' is 8 but the game_started event says 7",
        ),
        "no events": (build.chained_lines(header, []), "a header but no events"),
        "duplicate seq": (
            build.chained_lines(header, [*game[:5], game[4], *game[5:]]),
            "line 7: event seq 5 where seq 6 was expected \\(a repeated or earlier seq\\)",
        ),
        "seq gap": (
            build.chained_lines(header, [*game[:5], *game[6:]]),
            "line 7: event seq 7 where seq 6 was expected \\(a gap: seq 6 is missing\\)",
        ),
        "wrong game": (
            build.chained_lines(header, [*game[:3], {**game[3], "game": "g2"}, *game[4:]]),
            "line 5 \\(event seq 4\\): belongs to game 'g2', but this replay is of game 'g1'",
        ),
        "schema problem": (
            build.chained_lines(header, [*game[:3], {**game[3], "faces": ["six"]}, *game[4:]]),
            "line 5: event seq 4 \\(dice_rolled\\): field 'faces.0'",
        ),
        "first event not game_started": (
            build.chained_lines(header, [{**game[1], "seq": 1}]),
            "line 2: the first event must be game_started",
        ),
        "newer event schema": (
            build.chained_lines(header, [*game[:2], {**game[2], "v": 99}, *game[3:]]),
            "line 4: event seq 3: schema version 99 is newer",
        ),
        "blank line": (encode_replay(game).replace(b"\n", b"\n\n", 1), "line 2 is empty"),
    }


CASES = [
    "empty", "garbage", "json but not an object", "truncated line", "wrong format name",
    "newer version", "missing header field", "header disagrees with game_started", "no events",
    "duplicate seq", "seq gap", "wrong game", "schema problem", "first event not game_started",
    "newer event schema", "blank line",
]


@pytest.mark.parametrize("case", CASES)
def test_malformed_file_gives_a_helpful_error_and_writes_nothing(
    case, build, game, store, db_path, tmp_path
):
    store.append("keep", build.make_game("keep", 4), 0)
    before = build.dump(db_path)
    data, message = _malformed(build, game)[case]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    with pytest.raises(ReplayError, match=message) as info:
        import_replay(store, path)
    assert not isinstance(info.value, ChainError)
    assert str(info.value).startswith(str(path))
    assert build.dump(db_path) == before
    assert not store.has_game("g1")


def test_missing_file(tmp_path):
    with pytest.raises(ReplayError, match="cannot read the file"):
        read_replay(tmp_path / "nowhere.jsonl")


def test_oversized_file_and_line_are_refused(replay_path):
    size = replay_path.stat().st_size
    with pytest.raises(ReplayError, match=f"file is {size:,} bytes; replays larger than 1,000"):
        read_replay(replay_path, max_file_bytes=1000)
    with pytest.raises(ReplayError, match="line 1 is longer than 100 bytes; refused"):
        read_replay(replay_path, max_line_bytes=100)


def test_import_fills_defaults_of_a_hand_written_replay(build, store, tmp_path):
    header = _header(build, "hand")
    terse = [
        {k: v for k, v in build.started("hand").items() if k not in ("rules", "cause", "v")},
        {"game": "hand", "seq": 2, "turn": 1, "kind": "dice_rolled", "purpose": "shoot",
         "faces": [3]},
    ]
    path = tmp_path / "hand.jsonl"
    path.write_bytes(build.chained_lines(header, terse))
    assert import_replay(store, path) == "hand"
    assert store.read("hand") == [build.started("hand"), build.dice(
        "hand", 2, faces=(3,), side=None, phase=None, unit=None, rules=(), cause=None, turn=1
    )]


def test_the_date_played_travels_in_the_file_and_a_malformed_one_is_refused(
    build, store, db_path, tmp_path
):
    """``played`` is optional: kept through file, import and export when given, absent (not
    null) when unknown, and a malformed one names the field and writes nothing."""
    assert "played" not in build.started("g1")
    dated = [build.started("d", played="2026-11-02"), *build.make_game("d", 4)[1:]]
    path = tmp_path / "d.jsonl"
    write_replay(path, dated)
    assert import_replay(store, path) == "d"
    assert store.read("d") == dated and store.read("d")[0]["played"] == "2026-11-02"
    assert encode_replay(store.read("d")) == path.read_bytes()
    assert [g.played for g in store.games()] == ["2026-11-02"]
    before = build.dump(db_path)
    bad = tmp_path / "bad.jsonl"
    write_replay(bad, [{**dated[0], "game": "e", "played": "2026-13-45"},
                       *[{**e, "game": "e"} for e in dated[1:]]])
    with pytest.raises(ReplayError, match=r"line 2: event seq 1 \(game_started\): field "
                                          r"'played': .*YYYY-MM-DD, not '2026-13-45'"):
        import_replay(store, bad)
    assert build.dump(db_path) == before


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path, game):
    path = tmp_path / "g.jsonl"
    write_replay(path, game)
    before = path.read_bytes()
    with pytest.raises(ReplayError, match="event 3 is seq 4"):
        write_replay(path, [*game[:2], *game[3:]])
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"]


def test_a_written_file_is_as_readable_as_any_saved_file(tmp_path, game):
    """A shared replay follows the umask like open() would (the temp file alone made it 0600),
    and writing over a file keeps that file's own permissions."""
    import os

    old = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.jsonl"
        write_replay(fresh, game)
        assert fresh.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        kept = tmp_path / "kept.jsonl"
        kept.write_bytes(b"")
        kept.chmod(0o640)
        write_replay(kept, game)
        assert kept.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([], "no events"),
        ("not game_started", "starts with the game_started event, not 'dice_rolled'"),
    ],
)
def test_write_refuses_what_is_not_a_whole_game(tmp_path, build, events, message):
    if events == "not game_started":
        events = [build.dice("g1", 1)]
    with pytest.raises(ReplayError, match=message):
        write_replay(tmp_path / "x.jsonl", events)
    assert list(tmp_path.iterdir()) == []
