"""Store benchmarks, printed as ratios against references timed in the same process.

Run: ``.venv/bin/python benchmarks/bench_store.py`` (about a minute on 2 cores).

1. Append 100,000 events (one call, one transaction) into SQLiteEventStore on a temp file, vs.
   raw ``sqlite3.executemany`` of the same rows (same table, bodies serialized by the reference
   with orjson inside the timed section, no sorting, hashing or checks), vs. the eventsourcing
   library's SQLite recorder (StoredEvent objects built and inserted inside the timed section).
2. Load a 10,000-event game: ``store.read()`` vs. raw ``SELECT body`` + ``orjson.loads``; then the
   engine's fold over the loaded events, once the engine provides it (``fold_fn`` below).

Every figure is the best of REPEATS runs, each on a fresh database file. The cyclic garbage
collector is paused in every timed section (ours and the references alike), so the ratios compare
the work done, not when the collector happened to run.
"""

from __future__ import annotations

import gc
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from warlog.events.model import DiceRolled, GameStarted, HitsInflicted, to_dict
from warlog.events.sqlite_store import SQLiteEventStore

N_APPEND = 100_000
N_LOAD = 10_000
REPEATS = 5
TARGET = 0.5  # append: ours / raw sqlite3 events per second

# ---- HOOK: the engine's fold ------------------------------------------------------------------
# Set to warlog.engine.fold.replay (events -> state). Until the engine exists, the fold row says so.
try:
    from warlog.engine.fold import replay as fold_fn
except ImportError:
    fold_fn: Callable[[list[dict[str, Any]]], Any] | None = None  # type: ignore[no-redef]
# -----------------------------------------------------------------------------------------------

Events = list[dict[str, Any]]


def make_events(game: str, n: int, first: dict[str, Any] | None = None,
                units: tuple[list[str], list[str]] | None = None) -> Events:
    """A realistic game: game_started (``first`` if given, else a stand-in), then dice rolls each
    followed by the hits they caused, between the given red and blue unit ids."""
    if first is None:
        first = to_dict(
            GameStarted(
                game=game, seq=1, turn=0, rule_system="ohw", period="ancients",
                options={"grid": "square"}, scenario={"id": "pitched", "title": "Pitched battle"},
                dice="seeded", seed=7, players={"red": "Ann", "blue": "Bob"},
            )
        )
    reds, blues = units or ([f"r{i}" for i in range(6)], [f"b{i}" for i in range(6)])
    events = [first]
    for seq in range(2, n + 1):
        side = "red" if (seq // 20) % 2 else "blue"
        own, enemy = (reds, blues) if side == "red" else (blues, reds)
        turn, unit, target = seq // 40 + 1, own[seq % len(own)], enemy[seq % len(enemy)]
        face = 1 + (seq * 7) % 6
        if seq % 2 == 0:
            model: Any = DiceRolled(
                game=game, seq=seq, turn=turn, side=side, phase="shooting", cause=seq - 1,
                purpose="shoot", faces=(face,), unit=unit, rules=("ohw.shoot.roll",),
            )
        else:
            model = HitsInflicted(
                game=game, seq=seq, turn=turn, side=side, phase="shooting", cause=seq - 1,
                attack="shooting", source=unit, target=target, die=face, modifier=-2,
                base=max(face - 2, 0), halvings=("cover",), hits=max(face - 2, 0) // 2,
                total=seq % 15, rules=("ohw.shoot.hits", "ohw.terrain.cover"),
            )
        events.append(to_dict(model))
    return events


def engine_game(game: str, n: int) -> Events:
    """A load game the engine can fold: a real bundled scenario's game_started, then dice and
    hits between its real units. Needs the engine; raises if it is missing or has changed."""
    from warlog.engine.game import start
    from warlog.engine.scenario import bundled_scenarios

    first = start(game, bundled_scenarios()[0], seed=7)[0]
    units = first["scenario"]["units"]
    reds = [u["id"] for u in units if u["side"] == "red"]
    blues = [u["id"] for u in units if u["side"] == "blue"]
    return make_events(game, n, first, (reds, blues))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, result
    finally:
        gc.enable()


def best(run: Callable[[Path], float], workdir: Path, label: str) -> float:
    """Best time of REPEATS runs, each given a fresh database path."""
    times = [run(workdir / f"{label}-{i}.db") for i in range(REPEATS)]
    return min(times)


# ---- 1. append -----------------------------------------------------------------------------


def append_ours(events: Events) -> Callable[[Path], float]:
    def run(path: Path) -> float:
        with SQLiteEventStore(path) as store:
            seconds, last = timed(lambda: store.append(events[0]["game"], events, 0))
        assert last == len(events)
        return seconds

    return run


def append_raw(events: Events) -> Callable[[Path], float]:
    """Same table (copied from our schema, without triggers), same pragmas, one transaction."""
    with SQLiteEventStore(":memory:") as s:
        ddl = s.db.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()[0]

    def run(path: Path) -> float:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=wal")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(ddl)
        conn.commit()

        def insert() -> None:
            dumps = orjson.dumps
            rows = [
                (e["game"], e["seq"], e["turn"], e.get("side"), e.get("phase"), e["kind"],
                 dumps(e).decode(), "")
                for e in events
            ]
            with conn:
                conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

        seconds, _ = timed(insert)
        conn.close()
        return seconds

    return run


def append_eventsourcing(events: Events) -> Callable[[Path], float]:
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

    def run(path: Path) -> float:
        datastore = SQLiteDatastore(str(path), originator_id_type="text")
        recorder = SQLiteAggregateRecorder(datastore)
        recorder.create_table()

        def insert() -> None:
            dumps = orjson.dumps
            stored = [
                StoredEvent(
                    originator_id=e["game"], originator_version=e["seq"],
                    topic=f"warlog:{e['kind']}", state=dumps(e),
                )
                for e in events
            ]
            recorder.insert_events(stored)

        seconds, _ = timed(insert)
        datastore.close()
        return seconds

    return run


# ---- 2. load -------------------------------------------------------------------------------


def load(workdir: Path) -> dict[str, float | str]:
    path = workdir / "load.db"
    note = ""
    try:
        events = engine_game("load", N_LOAD) if fold_fn is not None else make_events("load", N_LOAD)
    except Exception as exc:  # the engine moved on: still time the read, and say why
        events = make_events("load", N_LOAD)
        note = f" (no engine scenario: {type(exc).__name__}: {exc})"
    with SQLiteEventStore(path) as store:
        store.append("load", events, 0)
        ours = min(timed(lambda: store.read("load"))[0] for _ in range(REPEATS))
        loaded = store.read("load")
    assert loaded == events
    conn = sqlite3.connect(path)

    def raw_read() -> Events:
        rows = conn.execute("SELECT body FROM events WHERE game = ? ORDER BY seq", ("load",))
        return [orjson.loads(body) for (body,) in rows.fetchall()]

    raw = min(timed(raw_read)[0] for _ in range(REPEATS))
    conn.close()
    result: dict[str, float | str] = {"ours": ours, "raw": raw}
    if fold_fn is None:
        result["fold"] = "fold: engine not available yet"
    else:
        try:
            result["fold_s"] = min(timed(lambda: fold_fn(loaded))[0] for _ in range(REPEATS))
        except Exception as exc:  # the benchmark's synthetic game may not fold: say why
            result["fold"] = (
                f"fold: failed on the benchmark game ({type(exc).__name__}: {exc}){note}"
            )
    return result


# ---- report --------------------------------------------------------------------------------


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}"


def main() -> int:
    console = Console()
    console.print(
        f"[bold]warlog store benchmark[/bold]  Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, sqlite-utils {version('sqlite-utils')}, "
        f"eventsourcing {version('eventsourcing')}; best of {REPEATS}, GC paused in timed code"
    )
    events = make_events("bench", N_APPEND)
    with tempfile.TemporaryDirectory(prefix="warlog-bench-") as tmp:
        workdir = Path(tmp)
        ours = best(append_ours(events), workdir, "ours")
        raw = best(append_raw(events), workdir, "raw")
        es = best(append_eventsourcing(events), workdir, "es")
        loaded = load(workdir)

    table = Table(title=f"1. append {N_APPEND:,} events, one call, one transaction")
    for col in ("", "seconds", "events/s", "speed: ours / this"):
        table.add_column(col, justify="right" if col else "left")
    table.add_row("warlog SQLiteEventStore", f"{ours:.3f}", rate(N_APPEND, ours), "1.00")
    table.add_row("raw sqlite3 executemany", f"{raw:.3f}", rate(N_APPEND, raw), f"{raw / ours:.2f}")
    table.add_row("eventsourcing SQLite recorder", f"{es:.3f}", rate(N_APPEND, es), f"{es / ours:.2f}")
    console.print(table)
    verdict = "meets" if raw / ours >= TARGET else "MISSES"
    console.print(f"append speed ours/raw = {raw / ours:.2f}x ({verdict} the {TARGET}x target); "
                  f"ours/eventsourcing = {es / ours:.2f}x")

    table = Table(title=f"2. load a {N_LOAD:,}-event game")
    for col in ("", "seconds", "events/s", "speed: ours / this"):
        table.add_column(col, justify="right" if col else "left")
    r_ours, r_raw = float(loaded["ours"]), float(loaded["raw"])
    table.add_row("warlog store.read()", f"{r_ours:.4f}", rate(N_LOAD, r_ours), "1.00")
    table.add_row("raw SELECT + orjson.loads", f"{r_raw:.4f}", rate(N_LOAD, r_raw),
                  f"{r_raw / r_ours:.2f}")
    if "fold_s" in loaded:
        fold_s = float(loaded["fold_s"])
        table.add_row("engine fold (replay)", f"{fold_s:.4f}", rate(N_LOAD, fold_s), "")
        table.add_row("read + fold", f"{r_ours + fold_s:.4f}", rate(N_LOAD, r_ours + fold_s), "")
    console.print(table)
    if "fold" in loaded:
        console.print(str(loaded["fold"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
