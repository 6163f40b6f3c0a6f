"""Planted schema objects, fuzzed (issue 30: "Extend the project's own fuzzing with ... planted
schema objects"). A seeded generator makes each plant out of parts (a trigger of any timing and
event on any of warlog's tables with a hostile or no-op body, an extra index, view or table, one
of warlog's own triggers or indexes recreated under its name with another text, a warlog table
renamed with a view in its place), under random names (odd Unicode, quotes, look-alikes of
warlog's own such as ``events_no_delete`` with a trailing space). Each plant is applied with a
plain sqlite3 connection to a copy of a small database holding two real games and a curve, and
then: opening never raises anything but one line, ``altered`` names the plant, every write (an
append to a game, a new game, a curve) is refused and the database's rows stay exactly as
planted, ``verify`` fails, and ``warlog games`` warns in one line or fails in one line, never a
traceback, and nothing runs forever (a runaway view ends at the step limit).

See the counts per kind: ``pytest tests/events/test_store_plant_fuzz.py -s -n0``.
"""

from __future__ import annotations

import faulthandler
import random
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events import takeback_requests
from warlog.events.analysis_store import AnalysisStore
from warlog.events.sqlite_guard import _shown
from warlog.events.sqlite_schema import reference
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

from hostile_helpers import SCENARIO, run
from store_helpers import opening_length

pytestmark = pytest.mark.usefixtures("no_ambient_db")

SEED = 30  # issue 30
PLANTS = 150
# The longest one plant may take before the test is declared hung (a runaway query stops at
# the step limit in about 3 s; a plant asks it at most a few times).
HANG = 120

TABLES = {  # warlog's tables and their columns
    "events": ("game", "seq", "turn", "side", "phase", "kind", "body", "chain"),
    "heads": ("game", "seq", "chain"),
    "games": ("id", "rule_system", "period", "scenario_id", "title", "players", "dice", "seed",
              "first_event_chain"),
    "winprob_curves": ("game", "params", "last_seq", "curve"),
    "seat_links": ("game", "side", "issue", "token_sha256"),
    "game_reviews": ("game", "params", "last_seq", "review"),
    "takeback_requests": ("game", "n", "side", "orders", "at_seq", "what"),
}
KINDS = ("trigger", "index", "view", "recursive view", "table", "own trigger replaced",
         "own index replaced", "table renamed to a view")
# Triggers run inside warlog's own writes, and come in the most shapes: drawn most often.
WEIGHTS = (4, 1, 1, 1, 1, 2, 1, 2)
_OWN = {row[1]: row for row in reference()[0] if not row[1].startswith("sqlite_")}
OWN_TRIGGERS = sorted(name for name, row in _OWN.items() if row[0] == "trigger")
OWN_INDEXES = sorted(name for name, row in _OWN.items() if row[0] == "index")
_FOREVER = ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
            "SELECT count(*) AS n FROM r")


def q(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _name(rng: random.Random, taken: set[str]) -> str:
    """A random name for a planted object: plain, odd Unicode, quoted, or a look-alike of one of
    warlog's own (never one SQLite would take for an existing name: names are case-blind in
    ASCII only)."""
    while True:
        own = rng.choice([*OWN_TRIGGERS, *OWN_INDEXES, *TABLES])
        word = "".join(rng.choice("abcxyz_019") for _ in range(rng.randint(1, 8)))
        name = rng.choice([
            f"zz_{word}",
            own + " ",                       # a trailing space
            " " + own,                       # a leading one
            own + "\u200b",                  # a zero-width space
            own.replace("e", "\u0435", 1),   # a Cyrillic e
            own.replace("_", "\uff3f"),      # a fullwidth low line
            f'{own}"{word}',                 # a quote inside
            f"{word}'; DROP TABLE events; --",
            f"\u0645\u0631\u062d\u0628\u0627_{word}",  # Arabic (right to left)
            f"\U0001F5E1\ufe0f {word}",      # an emoji with a variation selector
            f"\x1b[31m{word}",               # a terminal escape
            f"{word}\u0301\u0301",           # combining accents
            "x" * rng.randint(60, 200),      # long
            word,
        ])
        if name.casefold() not in {t.casefold() for t in taken} and name not in _OWN \
                and name not in TABLES and not name.lower().startswith("sqlite_"):
            taken.add(name)
            return name


@dataclass(frozen=True)
class Plant:
    kind: str
    statements: tuple[str, ...]
    names: tuple[str, ...]  # the objects a finding must name (one of them at least)


def _trigger_body(rng: random.Random, table: str, verb: str) -> str:
    row = "OLD" if verb == "DELETE" else "NEW"
    other = rng.choice([t for t in ("events", "heads", "games") if t != table] or ["events"])
    key = "id" if other == "games" else "game"
    mine = "id" if table == "games" else "game"
    return rng.choice([
        "SELECT RAISE(IGNORE);",
        "SELECT RAISE(ABORT, 'x');",
        "SELECT RAISE(FAIL, 'planted');",
        "SELECT RAISE(ROLLBACK, 'planted');",
        f"DELETE FROM {other};",
        f"DELETE FROM {other} WHERE {key} <> {row}.{mine};",
        "INSERT INTO heads SELECT game, seq, chain FROM events WHERE seq = 1;",
        "INSERT OR IGNORE INTO heads (game, seq, chain) VALUES ('g1', 99, 'x');",
        "UPDATE games SET title = 'planted';",
        f"UPDATE games SET title = {row}.{mine};",
        "SELECT 1;",
        "SELECT 1; SELECT 2;",
    ])


def make_plant(rng: random.Random) -> Plant:
    """One planted schema change, all of it drawn from ``rng``."""
    kind = rng.choices(KINDS, weights=WEIGHTS)[0]
    taken: set[str] = set()
    name = _name(rng, taken)
    table = rng.choice(sorted(TABLES))
    columns = TABLES[table]
    if kind == "trigger":
        timing = rng.choice(["BEFORE", "AFTER"])
        verb = rng.choice(["INSERT", "UPDATE", "DELETE"])
        event = (f"UPDATE OF {rng.choice(columns)}" if verb == "UPDATE" and rng.random() < 0.3
                 else verb)
        when = rng.choice(["", "", "WHEN 1 ", "WHEN 0 ",
                           f"WHEN {'OLD' if verb == 'DELETE' else 'NEW'}.{columns[1]} > 1 "])
        sql = (f"CREATE TRIGGER {q(name)} {timing} {event} ON {table} {when}"
               f"BEGIN {_trigger_body(rng, table, verb)} END")
        return Plant(kind, (sql,), (name,))
    if kind == "index":
        what = rng.choice([
            q(rng.choice(columns)),
            ", ".join(q(c) for c in rng.sample(columns, 2)),
            f"lower({columns[0]})", f"length({columns[-1]})", f"{columns[1]} || 'x'",
            f"substr({columns[-1]}, 1, 3)",
        ])
        where = rng.choice(["", f" WHERE {columns[0]} IS NOT NULL", f" WHERE {columns[1]} = 1",
                            " WHERE 0"])
        return Plant(kind, (f"CREATE INDEX {q(name)} ON {table} ({what}){where}",), (name,))
    if kind == "view":
        body = rng.choice([f"SELECT * FROM {table}", "SELECT 1 AS one",
                           f"SELECT count(*) AS n FROM {table}",
                           "SELECT e.game FROM events AS e JOIN games AS g ON g.id = e.game"])
        return Plant(kind, (f"CREATE VIEW {q(name)} AS {body}",), (name,))
    if kind == "recursive view":
        return Plant(kind, (f"CREATE VIEW {q(name)} AS {_FOREVER}",), (name,))
    if kind == "table":
        options = rng.choice(["", " STRICT", " WITHOUT ROWID"])
        if options == " WITHOUT ROWID":
            sql = f"CREATE TABLE {q(name)} (a TEXT PRIMARY KEY, b INTEGER){options}"
        else:
            sql = f"CREATE TABLE {q(name)} (a TEXT, b INTEGER){options}"
        rows = [f"INSERT INTO {q(name)} VALUES ('r{i}', {i})" for i in range(rng.randint(0, 3))]
        return Plant(kind, (sql, *rows), (name,))
    if kind == "own trigger replaced":
        own = rng.choice(OWN_TRIGGERS)
        sql = _OWN[own][3]
        head, _, body = sql.partition(" BEGIN ")
        new = rng.choice([
            f"{head} BEGIN SELECT 1; END",
            f"{head} BEGIN SELECT RAISE(IGNORE); END",
            (f"{head.replace(' WHEN ', ' WHEN 0 AND (', 1)}) BEGIN {body}" if " WHEN " in head
             else f"{head} WHEN 0 BEGIN {body}"),
            f"{head}  BEGIN {body}",          # one more space, nothing else
            f"{head} BEGIN {body}".replace("RAISE(ABORT", "RAISE(FAIL", 1),
            f"CREATE TRIGGER {q(own)} AFTER INSERT ON {_OWN[own][2]} BEGIN "
            f"{_trigger_body(rng, _OWN[own][2], 'INSERT')} END",
        ])
        if new == sql:  # e.g. RAISE(FAIL) where there is no RAISE(ABORT)
            new = f"{head} BEGIN SELECT 2; END"
        return Plant(kind, (f"DROP TRIGGER {q(own)}", new), (own,))
    if kind == "own index replaced":
        own = rng.choice(OWN_INDEXES)
        new = rng.choice([
            f"CREATE INDEX {own} ON events (game) WHERE seq = 2",
            f"CREATE INDEX {own} ON events (game, seq) WHERE seq = 1",
            f"CREATE INDEX {own} ON events (seq)",
            f"CREATE INDEX {own} ON events (game) WHERE seq = 1 AND 1",
            f"CREATE INDEX {own} ON heads (game)",
            f"CREATE UNIQUE INDEX {own} ON events (game) WHERE seq = 1",
        ])
        return Plant(kind, (f"DROP INDEX {own}", new), (own,))
    # a warlog table renamed, and a view under its name (now and then one that never ends)
    old = rng.choice(("events", "heads", "games"))
    body = (f"SELECT * FROM {q(name)}" if rng.random() < 0.85 else
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT "
            + ", ".join(f"CAST(i AS TEXT) AS {c}" for c in TABLES[old]) + " FROM r")
    return Plant(kind, (f"ALTER TABLE {old} RENAME TO {q(name)}",
                        f"CREATE VIEW {old} AS {body}"), (old, name))


def plants(seed: int = SEED, n: int = PLANTS) -> list[Plant]:
    """The family: plant ``i`` of seed ``seed`` is drawn from its own Random, so each case can
    be run (and reproduced) alone."""
    return [make_plant(random.Random(f"{seed}-{i}")) for i in range(n)]


FAMILY = plants()


# ---- the database every plant is applied to ---------------------------------------------------


@dataclass
class Base:
    path: Path
    more: list[dict]     # g1's next events (an append to an existing game)
    stored: int          # g1's last stored seq
    opening: list[dict]  # a new game's opening


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Base:
    """Two small real games (cut short) and a curve, written by warlog, once a module."""
    scenario = load_scenario(SCENARIO)
    g1 = play_out("g1", scenario, seed=1).events
    g2 = play_out("g2", scenario, seed=2).events
    g3 = play_out("g3", scenario, seed=3).events
    cut = opening_length(g1) + 6
    path = tmp_path_factory.mktemp("plant-base") / "base.db"
    with SQLiteEventStore(path) as store:
        store.append("g1", g1[:cut], 0)
        store.append("g2", g2[:opening_length(g2) + 3], 0)
        assert store.altered == []
    with AnalysisStore(path) as analyses:
        analyses.save_curve("g1", {"playouts": 1}, cut, {"p": [0.5]})
        analyses.save_review("g1", {"budget": 1}, cut, {"game": "g1", "orders": []})
    with SQLiteEventStore(path) as store:  # the tables made on first write: every one there
        takeback_requests.ask(store, "g1", "red", 1, cut)
    return Base(path, g1[cut:cut + 3], cut, g3[:opening_length(g3)])


def copy_of(base: Base, target: Path) -> Path:
    """A copy of the base database, made with sqlite3's backup."""
    src, dst = sqlite3.connect(base.path), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close(), dst.close()
    return target


def apply(path: Path, plant: Plant) -> None:
    conn = sqlite3.connect(path)  # a plain connection: recursive_triggers off, no guards
    try:
        for statement in plant.statements:
            conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


def dump(path: Path) -> list[tuple]:
    """Every object's SQL and every table's rows (each table's sorted), read with a plain
    connection. (Not ``iterdump``: Python 3.11's quotes a table's name badly, and a name with a
    ``'`` in it makes it fail.)"""
    conn = sqlite3.connect(path)
    try:
        master = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"),
                        key=repr)
        out: list[tuple] = list(master)
        for kind, name, _, _ in master:
            if kind == "table":
                rows = conn.execute(f"SELECT * FROM {q(name)}").fetchall()
                out.append((name, sorted(rows, key=repr)))
        return out
    finally:
        conn.close()


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text, repr(text)
    return text


OUTCOMES: Counter = Counter()


@pytest.fixture(scope="module", autouse=True)
def _closing_note():
    yield
    if OUTCOMES:
        print("\nplanted-object fuzz, outcomes:")
        for key, count in sorted(OUTCOMES.items()):
            print(f"  {key}: {count}")


# ---- the family ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("index", range(PLANTS), ids=lambda i: f"{i:03d}-"
                         f"{FAMILY[i].kind.replace(' ', '_')}")
def test_a_planted_object_is_found_and_every_write_refused(index, base, tmp_path):
    plant = FAMILY[index]
    db = copy_of(base, tmp_path / "planted.db")
    apply(db, plant)
    planted = dump(db)
    faulthandler.dump_traceback_later(HANG, exit=True)  # a hang fails loudly, never waits
    try:
        _check(plant, base, db, planted)
    finally:
        faulthandler.cancel_dump_traceback_later()


def _check(plant: Plant, base: Base, db: Path, planted: list[str]) -> None:
    try:
        store = SQLiteEventStore(db)
    except StoreError as exc:
        one_line(exc)
        OUTCOMES[f"{plant.kind}: open refused"] += 1
        store = None
    if store is not None:
        with store:
            assert store.altered, plant
            assert all("\n" not in line for line in store.altered)
            shown = [_shown(name) for name in plant.names]
            assert any(s in line for s in shown for line in store.altered), \
                (plant, store.altered)
            for game, events, seq in (("g1", base.more, base.stored),
                                      ("g3", base.opening, 0)):
                with pytest.raises(StoreError) as info:
                    store.append(game, events, seq)
                assert one_line(info.value).endswith("nothing was written")
            with pytest.raises(StoreError) as info:
                store.verify("g1")
            one_line(info.value)
            with pytest.raises(StoreError) as info:  # a take-back asked between two browsers
                takeback_requests.ask(store, "g1", "blue", 1, base.stored)
            one_line(info.value)
        assert dump(db) == planted
        OUTCOMES[f"{plant.kind}: open found it"] += 1
    try:
        with AnalysisStore(db) as analyses:
            with pytest.raises(StoreError) as info:
                analyses.save_curve("g1", {"playouts": 2}, base.stored, {"p": [0.25]})
            one_line(info.value)
            with pytest.raises(StoreError) as info:
                analyses.save_review("g1", {"budget": 2}, base.stored, {"orders": []})
            one_line(info.value)
    except StoreError as exc:  # the open of the analysis store itself
        one_line(exc)
    assert dump(db) == planted
    result = run("games", "--db", str(db), ok=None)  # no traceback, no exception (run checks)
    assert "Traceback" not in result.stdout + result.stderr
    if result.exit_code == 0:
        warnings = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(warnings) == 1 and warnings[0].startswith(f"warning: {db}: the database "
                                                             "was altered outside warlog"), \
            result.stderr
        OUTCOMES[f"{plant.kind}: games warns"] += 1
    else:
        assert result.exit_code == 1, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        errors = [line for line in lines if not line.startswith("warning: ")]
        assert len(errors) == 1, result.output
        OUTCOMES[f"{plant.kind}: games fails in one line"] += 1
    assert dump(db) == planted


# ---- the generator itself -----------------------------------------------------------------------


def test_the_generator_is_seeded_and_covers_every_kind():
    assert plants() == FAMILY and plants(SEED, 20) == FAMILY[:20]
    assert plants(SEED + 1, 20) != FAMILY[:20]
    counts = Counter(plant.kind for plant in FAMILY)
    assert set(counts) == set(KINDS), counts
    assert len({plant.statements for plant in FAMILY}) > 0.9 * PLANTS  # not one plant repeated
    names = [name for plant in FAMILY for name in plant.names]
    assert any(name.endswith(" ") and name.strip() in _OWN for name in names)  # look-alikes
    assert any("WITH RECURSIVE" in plant.statements[-1] for plant in FAMILY
               if plant.kind == "table renamed to a view")  # a runaway view in a table's place
    assert any(not name.isascii() for name in names) and any('"' in name for name in names)
    print("\nplanted-object fuzz, plants per kind (seed %d):" % SEED)
    for kind in KINDS:
        print(f"  {kind}: {counts[kind]}")
