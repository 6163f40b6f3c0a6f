"""`warlog import` against mutated replay files: never a traceback, never a partial import, never
an edited game accepted.

Small real games (bots on bundled scenarios of five rule systems, cut where the game waits for
an order) are written as replay files and mutated in memory by a seeded mutator: over bytes (flip,
drop, insert, cut), over lines (drop, repeat, swap, blank, CRLF, joined), over JSON values (every
kind of change at every depth, hostile values included) and over the game's structure (events
dropped, repeated or swapped and renumbered). Half the value and structure edits are followed by
recomputing the whole hash chain and the closing line, as a forger would, so that only
re-derivation can catch them; some files are gzip-compressed, some gzip streams damaged.

Each mutant goes through the function behind ``warlog import`` (the command's body, with its
``friendly`` error handling and its output) into a real SQLite file, and:

* the command exits 0 or 1 and never raises: a refusal is exactly one line naming the file;
* a refused import leaves the database as it was (games, events, file);
* an accepted import stored exactly the original game: the mutant differed only in what the
  format normalises (spacing, line ends, key order, the header's ``warlog_version``, a value
  written in another form that means the same).

Two kinds of edit are no forgery re-derivation could see, and are counted as what they are:

* a game cut short at an order, with a valid closing line, is a genuine shorter game: accepted,
  it is a prefix of the original;
* the first event is the game's input. Edited alike in the header and the first event and
  rechained, an input no later event depends on (the scenario's title or a unit's name, which
  no rule reads; an option that never came into play in these few turns) gives a genuine game
  of other inputs with the same events: accepted, every event after the first is the original's.

Run alone: ``.venv/bin/python -m pytest -q -p no:cacheprovider tests/events/test_import_fuzz.py``.
"""

from __future__ import annotations

import gzip
import json
import random
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest
import typer

from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.chain import GENESIS, CanonicalError, canonical, link
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.replay_cmd import import_cmd

# (scenario, seed, events kept at least): small games of five rule systems, cut at an order.
GAMES = [
    ("ancients-river-crossing", 11, 150),
    ("machine-age-hill-sixty", 5, 120),
    ("density-granicus", 4, 140),
    ("frontier-ulundi", 3, 120),
    ("portable-the-axona", 2, 110),
    ("napoleonic-hougoumont", 6, 120),
]
MUTANTS_PER_GAME = 260  # 6 x 260 = 1,560 files

Lines = list[bytes]


def small_game(scenario: str, seed: int, keep: int) -> list[dict[str, Any]]:
    """A bot game cut just before the first order at or after event ``keep``: a genuine game
    in progress (it re-derives), short enough to verify in a few milliseconds."""
    events = play_out(f"fz-{scenario}", load_scenario(scenario), seed=seed).events
    cut = next(i for i in range(keep, len(events)) if events[i]["kind"] == "order_given")
    return events[:cut]


# -- the mutator ----------------------------------------------------------------------------------


def dump(value: Any) -> bytes:
    """Canonical JSON, also for what orjson will not write (nested deeper than it goes, whole
    numbers past 64 bits): a forger is not bound to warlog's writer."""
    try:
        return canonical(value)
    except CanonicalError:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(10_000)
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False).encode()
        finally:
            sys.setrecursionlimit(limit)


def rechain(records: list[dict[str, Any]]) -> bytes:
    """A file of ``records`` (header, events, closing) with every link and the closing count
    recomputed, as a forger would."""
    prev, lines = GENESIS, []
    events = len(records) - 2
    for index, record in enumerate(records):
        body = {k: v for k, v in record.items() if k != "chain"}
        if index == len(records) - 1 and "end" in body:
            body["events"] = events
        prev = link(prev, dump(body))
        lines.append(dump({**body, "chain": prev}))
    return b"\n".join(lines) + b"\n"


def records_of(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in data.splitlines()]


HOSTILE: list[Any] = [
    None, True, False, 0, -1, 1, 7, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 2**64 + 5, 10**30,
    1.5, -0.0, 1e300, "", " ", "x", "7", "true", "null", "x[/red]y", "[bold]b[/bold]",
    "\x1b[2Jcls", "a\nb", "\u202egnp.exe", "é" * 3, "x" * 5000, [], [[]], [1, 2], ["x"],
    [[0, 0]] * 300, {}, {"a": 1}, {"kind": "game_started"}, {"end": "warlog-replay"},
]


def deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def paths_in(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``value`` (dict keys and list indexes), the root excluded."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((*prefix, key))
            found.extend(paths_in(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value[:6]):  # the first few items of long lists
            found.append((*prefix, index))
            found.extend(paths_in(item, (*prefix, index)))
    return found


def get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def changed(rng: random.Random, old: Any) -> Any:
    """Another value for ``old``: a near miss of the same type, or anything at all."""
    roll = rng.random()
    if roll < 0.45:
        if isinstance(old, bool):
            return not old
        if isinstance(old, int):
            return old + rng.choice([-1, 1, 2, 6, -old - 1])
        if isinstance(old, str):
            return rng.choice([old + "x", old[:-1], old.upper(), old + " ", "x" + old])
        if isinstance(old, list):
            if old and rng.random() < 0.5:
                return old[:-1]
            return [*old, old[0] if old else 1]
        if isinstance(old, dict) and old:
            key = rng.choice(sorted(old))
            return {k: v for k, v in old.items() if k != key}
    if roll < 0.55:
        return deep(rng.choice([19, 21, 300, 900, 1100]))
    return rng.choice(HOSTILE)


def edit_value(rng: random.Random, record: dict[str, Any]) -> None:
    """Change, remove or add one value somewhere in ``record`` (in place)."""
    paths = [p for p in paths_in(record) if p != ("chain",)]
    path = rng.choice(paths)
    holder = get(record, path[:-1])
    action = rng.random()
    if action < 0.12 and isinstance(holder, dict):
        del holder[path[-1]]
    elif action < 0.2 and isinstance(holder, dict):
        holder[rng.choice(["zz", "played", "by", "v", "cause", "extra"])] = rng.choice(HOSTILE)
    else:
        holder[path[-1]] = changed(rng, holder[path[-1]])


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    kind = rng.choice(["flip", "drop", "insert", "garbage", "cut", "append"])
    at = rng.randrange(len(data))
    if kind == "flip":
        return kind, data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
    if kind == "drop":
        return kind, data[:at] + data[at + 1:]
    if kind == "insert":
        return kind, data[:at] + bytes([rng.randrange(256)]) + data[at:]
    if kind == "garbage":
        return kind, data[:at] + rng.randbytes(rng.randrange(1, 40)) + data[at + 40:]
    if kind == "cut":
        return kind, data[:at]
    return kind, data + rng.choice([b"\n", b"x", b"{}\n", b"\x00", data[-60:]])


def mutate_lines(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    lines: Lines = data.split(b"\n")[:-1]
    kind = rng.choice(["drop", "repeat", "swap", "blank", "crlf", "spaces", "join", "bom",
                       "reorder_keys", "pretty"])
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == "drop":
        del lines[i]
    elif kind == "repeat":
        lines.insert(i, lines[j])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "blank":
        lines.insert(i, rng.choice([b"", b"   ", b"\t"]))
    elif kind == "crlf":
        return kind, b"".join(line + b"\r\n" for line in lines)
    elif kind == "spaces":
        lines[i] = b" " + lines[i] + b"  "
    elif kind == "join" and i + 1 < len(lines):
        lines[i:i + 2] = [lines[i] + lines[i + 1]]
    elif kind == "bom":
        lines[0] = b"\xef\xbb\xbf" + lines[0]
    elif kind == "reorder_keys":  # the same object, keys in another order: the same meaning
        record = orjson.loads(lines[i])
        lines[i] = json.dumps(dict(reversed(list(record.items())))).encode()
    elif kind == "pretty":  # spacing the canonical form does not have
        lines[i] = json.dumps(orjson.loads(lines[i]), indent=None, separators=(", ", ": ")).encode()
    return kind, b"\n".join(lines) + b"\n"


def mutate_value(rng: random.Random, data: bytes, forge: bool) -> tuple[str, bytes]:
    records = records_of(data)
    index = rng.randrange(len(records))
    edit_value(rng, records[index])
    name = f"value line {index + 1}" + (" rechained" if forge else "")
    if forge:
        return name, rechain(records)
    lines = data.split(b"\n")[:-1]
    lines[index] = dump(records[index])  # its own, stale, chain value stays
    return name, b"\n".join(lines) + b"\n"


def mutate_structure(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """Events dropped, repeated, swapped or cut, then renumbered and rechained: a forgery only
    re-derivation can see."""
    records = records_of(data)
    header, events, closing = records[0], records[1:-1], records[-1]
    kind = rng.choice(["drop", "repeat", "swap", "cut", "two values"])
    i, j = rng.randrange(1, len(events)), rng.randrange(1, len(events))
    if kind == "drop":
        del events[i]
    elif kind == "repeat":
        events.insert(i, dict(events[j]))
    elif kind == "swap":
        events[i], events[j] = events[j], events[i]
    elif kind == "cut":
        events = events[:i]
    else:
        for _ in range(2):
            edit_value(rng, rng.choice(events))
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
    return f"structure {kind}", rechain([header, *events, closing])


def mutate_header(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """The header and the game_started event edited alike (options, scenario, seed, rule
    system), rechained: what the rule system's specs must refuse at import."""
    records = records_of(data)
    header, first = records[0], records[1]
    field = rng.choice(["options", "scenario", "seed", "rule_system", "period", "game"])
    if field in ("options", "scenario"):
        probe = {field: header[field]}
        paths = paths_in(probe)
        path = rng.choice(paths)
        holder = get(probe, path[:-1])
        if rng.random() < 0.15 and isinstance(holder, dict):
            holder["zz_unknown"] = 1
        else:
            holder[path[-1]] = changed(rng, holder[path[-1]])
        header[field] = first[field] = probe[field]
        if field == "options" and isinstance(first["scenario"], dict):
            first["scenario"]["options"] = header["scenario"]["options"] = probe[field]
    else:
        value = changed(rng, header[field])
        header[field] = first[field] = value
        if field == "game":  # a game id must agree on every line
            for event in records[1:-1]:
                event["game"] = value
    return f"header {field}", rechain(records)


def gzipped(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    packed = gzip.compress(data, mtime=0)
    kind = rng.choice(["gzip", "gzip flipped", "gzip cut"])
    if kind == "gzip flipped":
        at = rng.randrange(10, len(packed))
        packed = packed[:at] + bytes([packed[at] ^ 0x10]) + packed[at + 1:]
    elif kind == "gzip cut":
        packed = packed[: rng.randrange(len(packed))]
    return kind, packed


def mutants(data: bytes, count: int, seed: int) -> list[tuple[str, bytes]]:
    """``count`` mutated copies of the replay ``data``, the same for the same seed."""
    rng = random.Random(seed)
    makers: list[tuple[float, Callable[[], tuple[str, bytes]]]] = [
        (0.16, lambda: mutate_bytes(rng, data)),
        (0.16, lambda: mutate_lines(rng, data)),
        (0.16, lambda: mutate_value(rng, data, forge=False)),
        (0.26, lambda: mutate_value(rng, data, forge=True)),
        (0.12, lambda: mutate_structure(rng, data)),
        (0.10, lambda: mutate_header(rng, data)),
        (0.04, lambda: gzipped(rng, data)),
    ]
    weights = [w for w, _ in makers]
    out = []
    for _ in range(count):
        name, mutant = rng.choices(makers, weights)[0][1]()
        if rng.random() < 0.08 and not name.startswith("gzip"):
            name, mutant = f"{name}, gzip", gzip.compress(mutant, mtime=0)
        out.append((name, mutant))
    return out


# -- the check ----------------------------------------------------------------------------------

def run_import(file: Path, db: Path, capsys) -> tuple[int, str]:
    """``warlog import FILE --db DB``: its exit code and everything it printed. Anything it
    raises other than typer's exit is a traceback, and fails the test."""
    try:
        import_cmd(file=file, db=db)
        code = 0
    except typer.Exit as stop:
        code = stop.exit_code
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def refused_in_one_line(code: int, output: str, file: Path, unchanged: bool, context: str) -> bool:
    """Whether the import refused the file (exit 1), failing the test unless it did so as a
    refusal must: one line naming the file, the database as it was (``unchanged``); exit 0
    otherwise."""
    assert code in (0, 1), context
    if code == 0:
        return False
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), context
    assert str(file) in lines[0], context
    assert unchanged, context  # nothing written
    return True


def fingerprint(db: Path) -> tuple:
    """Everything an import could have changed: the games and every stored event's chain."""
    conn = sqlite3.connect(db)
    try:
        games = conn.execute("SELECT * FROM games ORDER BY id").fetchall()
        events = conn.execute("SELECT game, seq, chain FROM events ORDER BY game, seq").fetchall()
    finally:
        conn.close()
    return games, events


def fresh_db(folder: Path, n: int, keep: list[dict[str, Any]]) -> Path:
    """A database holding one other game, so that "unchanged" means something."""
    db = folder / f"fuzz-{n}.db"
    with SQLiteEventStore(db) as store:
        store.append(keep[0]["game"], keep, 0)
    return db


@pytest.fixture(scope="module")
def bystander() -> list[dict[str, Any]]:
    return small_game("pike-and-shot-auldearn", 1, 40)


@pytest.mark.slow
@pytest.mark.parametrize("scenario,seed,keep", GAMES, ids=[g[0] for g in GAMES])
def test_mutated_replays_are_refused_in_one_line_or_are_the_original_game(
    tmp_path, scenario, seed, keep, bystander, capsys
):
    original = small_game(scenario, seed, keep)
    data = encode_replay(original)
    db_number = 0
    db = fresh_db(tmp_path, db_number, bystander)
    outcomes: Counter[str] = Counter()
    for n, (name, mutant) in enumerate(mutants(data, MUTANTS_PER_GAME, seed=seed * 7919)):
        file = tmp_path / f"m{n}.jsonl"
        file.write_bytes(mutant)
        before = fingerprint(db)
        code, output = run_import(file, db, capsys)
        context = f"mutant {n} ({name}) of {scenario}: {output!r}"
        if refused_in_one_line(code, output, file, fingerprint(db) == before, context):
            outcomes["refused"] += 1
            continue
        with SQLiteEventStore(db) as store:
            stored = store.read(original[0]["game"]) if store.has_game(original[0]["game"]) \
                else None
            others = [g.id for g in store.games() if g.id not in (original[0]["game"],
                                                                  bystander[0]["game"])]
        if others:  # the game was renamed consistently on every line: the same game otherwise
            with SQLiteEventStore(db) as store:
                stored = [{**e, "game": original[0]["game"]} for e in store.read(others[0])]
        assert stored is not None, context
        if name.startswith("structure cut") and len(stored) < len(original):
            assert stored == original[: len(stored)], context  # a genuine shorter game
            outcomes["accepted as a prefix"] += 1
        elif stored[0] != original[0] and name.startswith("header "):
            assert stored[1:] == original[1:], context  # an input no event depended on
            outcomes["accepted: another input, the same events"] += 1
        else:
            assert stored == original, context
            outcomes["accepted as the original"] += 1
        db_number += 1
        db = fresh_db(tmp_path, db_number, bystander)  # the next mutant may be the same game
        file.unlink()
    assert sum(outcomes.values()) == MUTANTS_PER_GAME
    assert outcomes["refused"] > MUTANTS_PER_GAME * 0.8, outcomes


def test_the_mutator_is_seeded_and_forges_chains_that_still_hold():
    data = encode_replay(small_game("ancients-river-crossing", 11, 60))
    assert mutants(data, 30, seed=1) == mutants(data, 30, seed=1)
    forged = [m for name, m in mutants(data, 200, seed=2) if name.endswith("rechained")]
    assert len(forged) > 20
    from warlog.events.replay_file import ChainError, ReplayError, parse_replay

    for mutant in forged:  # a forger's file is never caught by its chain
        try:
            parse_replay(mutant, "forged.jsonl")
        except ChainError:
            pytest.fail("a rechained mutant broke its chain")
        except ReplayError:
            pass
