"""Hostile replay and scenario files (issue 9): every file is input from anyone.

Each test names a failure that was reproduced before the fix (what warlog did then) and checks
what it does now: a forged or edited file that does not re-derive is refused and never stored;
hostile values, files that are not files, and files too big, too long or gzip bombs are each
refused in one line naming the file, the line and the problem, with exit code 1 and nothing
written.
"""

from __future__ import annotations

import gzip
import os
import sqlite3
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from warlog.engine.scenario import (
    MAX_SCENARIO_BYTES,
    MAX_SCENARIO_DEPTH,
    ScenarioError,
    load_scenario,
)
from warlog.events import replay_file
from warlog.events.replay_file import MAX_PATH_CELLS, ReplayError, encode_replay, load_replay
from warlog.events.replay_input import (
    MAX_FILE_BYTES,
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    MAX_LIST_ITEMS,
)

from hostile_helpers import nth, one_error_line, rechain, run
from waits import LIMIT

pytestmark = pytest.mark.usefixtures("no_ambient_db")


def dump(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


# -- 1. trust by default -----------------------------------------------------------------------


def test_a_die_edited_with_its_chain_recomputed_is_refused_naming_the_event(tmp_path, records):
    """Before: imported as a genuine game (the chain held, and the fold does not roll dice)."""
    die = nth(records, "dice_rolled", 3)
    was = die["faces"][0]
    die["faces"] = [was % 6 + 1]
    path = tmp_path / "forged.jsonl"
    path.write_bytes(rechain(records))
    db = tmp_path / "w.db"
    line = one_error_line(run("import", str(path), "--db", str(db), ok=False), str(path),
                          f"line {die['seq'] + 1}: refused",
                          f"event seq {die['seq']} (dice_rolled)",
                          f"faces is [{was % 6 + 1}] in the log, but the rules give [{was}]")
    assert "does not re-derive" in line
    assert not db.exists()  # refused before the database was even opened
    run("simulate", "machine-age-hill-sixty", "--db", str(db))  # a database with a game in it
    before = dump(db)
    run("import", str(path), "--db", str(db), ok=False)
    assert dump(db) == before


def test_an_imported_game_says_what_was_proven(tmp_path, game):
    path = tmp_path / "good.jsonl.gz"
    replay_file.write_replay(path, game)
    out = run("import", str(path), "--db", str(tmp_path / "w.db")).output
    assert "imported hostile into" in out
    assert f"Verified: hash chain intact; {len(game)} events re-derived" in out
    assert "seeded dice re-rolled from the seed; every order re-chosen by its bot" in out


def _header_and_first(records, edit) -> None:
    """Edit the header and the game_started event alike (and their scenario's copy)."""
    for record in (records[0], records[1]):
        edit(record)


HEADER_EDITS = {
    "bogus halving": (lambda r: r["options"].update(halving="bogus"),
                      "options.halving: 'bogus' is not one of: each, once"),
    "hits_to_remove as text": (lambda r: r["options"].update(hits_to_remove="10"),
                               "options.hits_to_remove: expected a whole number, got '10'"),
    "unknown option": (lambda r: r["options"].update(zzz=1),
                       "options.zzz: unknown option"),
    "unknown rule system": (lambda r: r.update(rule_system="chess"),
                            "rule_system is 'chess', but the game's scenario says 'ohw'"),
    "unknown period in both": (lambda r: (r.update(period="stone_age"),
                                          r["scenario"].update(period="stone_age")),
                               "ohw has no period 'stone_age'"),
    "board too wide": (lambda r: r["scenario"]["grid"].update(width=1000),
                       "grid.width: must be at most 40, got 1000"),
    "turn limit": (lambda r: r["scenario"]["victory"].update(turn_limit=10**6),
                   "victory.turn_limit: must be at most 100"),
    "seed edited": (lambda r: r.update(seed=8), "the aggressive bot playing red orders"),
}


@pytest.mark.parametrize("case", sorted(HEADER_EDITS))
def test_options_and_header_fields_are_checked_against_the_rule_system(tmp_path, records, case):
    """Before: the fold caught some of these only as a bare ValueError or KeyError traceback
    (an unknown rule system, an unknown period); now each is one line naming the file, line 2
    (the game_started event the header agrees with) and the field."""
    edit, words = HEADER_EDITS[case]
    _header_and_first(records, edit)
    if case.startswith(("bogus", "hits", "unknown option")):
        records[1]["scenario"]["options"] = records[0]["scenario"]["options"] = \
            records[0]["options"]
    path = tmp_path / "edited.jsonl"
    path.write_bytes(rechain(records))
    where = "refused" if case == "seed edited" else "line 2: refused"  # seed: at the first bot
    one_error_line(run("import", str(path), "--db", str(tmp_path / "w.db"), ok=False),
                   str(path), where, words)
    assert not (tmp_path / "w.db").exists()


def test_the_header_disagreeing_with_the_game_names_the_field_in_one_short_line(tmp_path, records):
    records[0]["options"]["halving"] = "once"  # the header only
    path = tmp_path / "h.jsonl"
    path.write_bytes(rechain(records))
    line = one_error_line(run("import", str(path), "--db", str(tmp_path / "w.db"), ok=False),
                          "line 1: header 'options.halving' is 'once' but the game_started "
                          "event says 'each'")
    assert len(line) < 300


@pytest.mark.parametrize("case,words", [
    ("players of a third side", "a player for 'green', which is not a side"),
    ("a bot's orders claimed by a player",
     "signed by the aggressive bot, but red is played by 'Ann'"),
    ("manual dice with bots", "bots play only with seeded dice"),
])
def test_who_played_and_rolled_is_checked_against_the_log(tmp_path, records, case, words):
    """Inputs the rules cannot re-derive are still checked against each other: a bot game whose
    first event claims a person played red, or manual dice, or a third player, is refused."""
    first = records[1]
    if case == "players of a third side":
        first["players"]["green"] = "Cy"
    elif case == "a bot's orders claimed by a player":
        first["players"]["red"] = "Ann"
    else:
        first["dice"], first["seed"] = "manual", None
        records[0]["seed"] = None
    path = tmp_path / "p.jsonl"
    path.write_bytes(rechain(records))
    one_error_line(run("import", str(path), "--db", str(tmp_path / "w.db"), ok=False), words)


# -- 2. hostile values, one line each ----------------------------------------------------------


def _deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def _hostile(records, case: str) -> str:
    """Apply one hostile value; return the words the refusal must hold."""
    event = records[5]
    if case == "900 lists deep in an event":
        event["deep"] = _deep(900)
        return "line 6: deep[0][0][0]"
    if case == "900 lists deep in the header":
        records[0]["scenario"]["description"] = _deep(900)
        return "line 1: scenario.description"
    if case == "2000 lists deep":  # past orjson's own limit
        event["deep"] = _deep(2000)
        return f"line 6 is nested more than {MAX_JSON_DEPTH} levels deep"
    if case == "turn 2**63":
        event["turn"] = 2**63
        return "line 6: turn: 9223372036854775808 is too large; whole numbers must fit in 64 bits"
    if case == "turn 2**64 + 5":
        event["turn"] = 2**64 + 5
        return "line 6: turn: 1.8446744073709552e+19 is a fraction or too large a number"
    if case == "a fraction":
        event["turn"] = 1.5
        return "line 6: turn: 1.5 is a fraction"
    if case == "a seed of 2**63":
        records[0]["seed"] = records[1]["seed"] = 2**63
        return "line 1: seed: 9223372036854775808 is too large"
    if case == "a long list":
        event["rules"] = ["x"] * (MAX_LIST_ITEMS + 1)
        return f"line 6: rules: a list of {MAX_LIST_ITEMS + 1:,} items; lists hold at most"
    if case == "a long path":
        moved = nth(records, "unit_moved")
        moved["path"] = [[1, 1]] * 5000
        return f"(event seq {moved['seq']}): a path of 5,000 cells; a move enters at most " \
               f"{MAX_PATH_CELLS}"
    if case == "a long line":
        event["x"] = "y" * (MAX_LINE_BYTES + 10)
        return f"line 6 is longer than {MAX_LINE_BYTES:,} bytes"
    if case in ("a game id with a control character", "a game id too long"):
        game = "x\x1b[2Jy" if case.startswith("a game id with") else "g" * 201
        for record in records[:-1]:
            record["game"] = game
        return "line 1: the game id" + (" 'x\\x1b[2Jy' holds a control" if "\x1b" in game
                                        else " is 201 characters long")
    raise AssertionError(case)


HOSTILE = ["900 lists deep in an event", "900 lists deep in the header", "2000 lists deep",
           "turn 2**63", "turn 2**64 + 5", "a fraction", "a seed of 2**63", "a long list",
           "a long path", "a long line", "a game id with a control character",
           "a game id too long"]


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_values_are_one_line_naming_file_line_and_limit(tmp_path, records, case):
    """Before: a value 900 lists deep in the header escaped as CanonicalError (orjson's
    recursion limit, raised in the header's chain check, which nothing caught); a turn of 2**63
    passed every check and crashed SQLite's insert (OverflowError); a fraction or a number past
    64 bits was read as a float and coerced to an int by the schema."""
    words = _hostile(records, case)
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(rechain(records))
    db = tmp_path / "w.db"
    for command in (["import", str(path), "--db", str(db)], ["show", str(path)],
                    ["log", str(path)], ["verify", str(path)]):
        result = run(*command, ok=False)
        assert str(path) in result.output and words in result.output, (command, result.output)
    assert not db.exists()


# -- 3. files that are not files ---------------------------------------------------------------


def _within(seconds: float, call) -> Any:
    """call(), failing (not hanging) if it blocks: the way a named pipe used to."""
    done: dict[str, Any] = {}

    def work() -> None:
        try:
            done["result"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            done["error"] = exc

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "blocked"
    if "error" in done:
        raise done["error"]
    return done["result"]


@pytest.mark.parametrize("kind", ["named pipe", "device", "folder"])
def test_a_pipe_a_device_or_a_folder_is_refused_without_blocking(tmp_path, kind):
    """Before: `warlog import pipe` blocked forever in open() (a named pipe with no writer)."""
    if kind == "named pipe":
        target = tmp_path / "pipe.jsonl"
        os.mkfifo(target)
    else:
        target = Path("/dev/zero") if kind == "device" else tmp_path
    result = _within(LIMIT, lambda: run("import", str(target), "--db", str(tmp_path / "w.db"),
                                     ok=False))
    one_error_line(result, str(target), f"not a replay file: it is a {kind}")
    with pytest.raises(ReplayError, match=f"it is a {kind}"):
        _within(LIMIT, lambda: load_replay(target))


def test_a_scenario_pipe_is_refused_without_blocking(tmp_path):
    pipe = tmp_path / "battle.toml"
    os.mkfifo(pipe)
    with pytest.raises(ScenarioError, match="not a scenario file"):
        _within(LIMIT, lambda: load_scenario(pipe))


# -- 4. limits: size, lines, memory, gzip ------------------------------------------------------


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing on disk, nothing read
    one_error_line(run("import", str(big), "--db", str(tmp_path / "w.db"), ok=False),
                   f"file is {MAX_FILE_BYTES + 1:,} bytes; replays larger than "
                   f"{MAX_FILE_BYTES:,} bytes are refused")


def test_reading_streams_a_line_at_a_time(tmp_path, records):
    """Before: a 237 MB file of long move paths took 7.4 GB (the whole file, its lines and every
    parsed event held at once, and no cap on a path). Now the first bad line stops the read,
    and what is held is the events read so far."""
    moved = nth(records, "unit_moved")
    moved["path"] = [[1, 1]] * 5000
    data = rechain(records)
    path = tmp_path / "long-paths.jsonl"
    with path.open("wb") as handle:
        handle.write(data)
        filler = data.splitlines(keepends=True)[5]
        handle.write(filler * (30 * 1024 * 1024 // len(filler)))  # 30 MB after the bad line
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError, match="a path of 5,000 cells"):
            load_replay(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, \
        f"{peak:,} bytes held to refuse a {path.stat().st_size:,}-byte file"


def test_the_event_count_is_capped(tmp_path, game):
    path = tmp_path / "g.jsonl"
    replay_file.write_replay(path, game)
    with pytest.raises(ReplayError, match="line 102: more than 100 events; games that long"):
        load_replay(path, max_events=100)


def test_export_writes_gzip_when_asked_and_import_reads_it(tmp_path, stored):
    db, game = stored
    plain, packed, again = tmp_path / "g.jsonl", tmp_path / "g.jsonl.gz", tmp_path / "h.jsonl.gz"
    run("export", game, "--out", str(plain), "--db", str(db))
    run("export", game, "--out", str(packed), "--db", str(db))
    run("export", game, "--out", str(again), "--db", str(db))
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert packed.read_bytes() == again.read_bytes()  # no time stamp, no name: deterministic
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert len(packed.read_bytes()) < len(plain.read_bytes()) / 4
    assert game in run("import", str(packed), "--db", str(tmp_path / "other.db")).output
    assert load_replay(packed) == load_replay(plain)
    run("verify", str(packed))
    run("show", str(packed))


def test_a_gzip_bomb_stops_at_the_limits(tmp_path, game):
    """A few hundred KB of gzip that inflate to 200 MB: refused at the first line over the line
    limit, having inflated little more than that line."""
    header = encode_replay(game).split(b"\n")[0]
    bomb = gzip.compress(header + b"\n" + b"0" * (200 * 1024 * 1024), compresslevel=9, mtime=0)
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb)
    assert len(bomb) < 400_000
    tracemalloc.start()
    try:
        one_error_line(run("import", str(path), "--db", str(tmp_path / "w.db"), ok=False),
                       str(path), "line 2 is longer than 1,048,576 bytes")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024
    packed = tmp_path / "small.jsonl.gz"
    replay_file.write_replay(packed, game)
    with pytest.raises(ReplayError, match="decompresses to more than 50,000 bytes"):
        load_replay(packed, max_file_bytes=50_000)


@pytest.mark.parametrize("damage", ["flipped", "cut", "trailing garbage"])
def test_a_damaged_gzip_file_is_one_line(tmp_path, game, damage):
    packed = bytearray(replay_file.compress(encode_replay(game)))
    if damage == "flipped":
        packed[len(packed) // 2] ^= 0xFF
    elif damage == "cut":
        del packed[len(packed) // 2:]
    else:
        packed += b"garbage!"
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(bytes(packed))
    one_error_line(run("import", str(path), "--db", str(tmp_path / "w.db"), ok=False), str(path))


def test_scenario_files_have_limits(tmp_path):
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (MAX_SCENARIO_BYTES + 1))
    with pytest.raises(ScenarioError, match=f"larger than {MAX_SCENARIO_BYTES:,} bytes"):
        load_scenario(big)
    for levels in (MAX_SCENARIO_DEPTH + 2, 5000):  # 5000: past tomllib's own recursion
        deep = tmp_path / f"deep{levels}.toml"
        deep.write_text('title = "x"\nthing = ' + "[" * levels + "1" + "]" * levels + "\n")
        with pytest.raises(ScenarioError, match=f"nested more than {MAX_SCENARIO_DEPTH} levels"):
            load_scenario(deep)
    one_error_line(run("simulate", str(big), ok=False), str(big), "larger than")
