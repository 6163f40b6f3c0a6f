"""Store benchmarks, printed as ratios against references timed in the same process.

Run: ``.venv/bin/python benchmarks/bench_store.py`` (about a minute on 2 cores).

1. Append 100,000 events (one call, one transaction) into SQLiteEventStore on a temp file (and
   into the same store with its REPLACE guard dropped, to show what the guard costs), vs.
   raw ``sqlite3.executemany`` of the same rows (same table, bodies serialized by the reference
   with orjson inside the timed section, no sorting, hashing or checks), vs. the eventsourcing
   library's SQLite recorder (StoredEvent objects built and inserted inside the timed section).
2. Load a 10,000-event game: ``store.read()`` vs. raw ``SELECT body`` + ``orjson.loads``; then the
   engine's fold over the loaded events. The game is a real one (random-legal bots on a big
   board); its first 10,000 events are movement, not combat (the armies have not met yet).

Every figure is the best of REPEATS runs in CPU time of this process (the machine is shared), each
on a fresh database file, the candidates taking turns round by round. The cyclic garbage collector
is paused in every timed section (ours and the references alike), so the ratios compare the work
done, not when the collector happened to run.
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

from warlog.engine.fold import replay as fold_fn
from warlog.engine.rulesets.common.events import HitsInflicted
from warlog.events.model import DiceRolled, GameStarted, to_dict
from warlog.events.sqlite_store import SQLiteEventStore

N_APPEND = 100_000
N_LOAD = 10_000
REPEATS = 5
TARGET = 0.5  # append: ours / raw sqlite3 events per second
LOAD_TARGET_MS = 50  # load + fold of the 10,000-event game

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


def field_game(game: str, n: int, per_side: int, width: int, height: int, red: str, blue: str,
               seed: int) -> Events:
    """Two bots play on an open field, two columns of units a side; the first ``n`` events.
    On a field this narrow the armies meet: dice, hits, melees and removals (the dashboard's
    and the Timeline's benchmark game)."""
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import scenario_from_dict

    types = ["Infantry", "Archers", "Skirmishers", "Cavalry"]
    units = [{"id": f"{side[0]}{i}", "side": side, "type": types[i % 4],
              "cell": [col + i % 2, 1 + i // 2], "facing": facing}
             for side, col, facing in (("red", 1, "E"), ("blue", width - 3, "W"))
             for i in range(per_side)]
    scenario = scenario_from_dict({
        "id": "bench", "title": "Benchmark field", "rule_system": "ohw", "period": "ancients",
        "first": "red", "grid": {"kind": "square", "width": width, "height": height},
        "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}}, "units": units,
        "victory": {"turn_limit": 100},
    }, source="benchmark")
    return play_out(game, scenario, seed=seed, red=red, blue=blue).events[:n]


def engine_game(game: str, n: int) -> Events:
    """A real game of at least ``n`` events, cut to its first ``n``: two random-legal bots play
    100 turns with 36 units a side on a 32x38 square board (every kind of event occurs)."""
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import scenario_from_dict

    types = ["Infantry", "Archers", "Skirmishers", "Cavalry"]
    units = [
        {"id": f"{side[0]}{i}", "side": side, "type": types[i % 4],
         "cell": [col + i % 2, 1 + i], "facing": facing}
        for side, col, facing in (("red", 1, "E"), ("blue", 29, "W"))
        for i in range(36)
    ]
    scenario = scenario_from_dict({
        "id": "bench", "title": "Benchmark field", "rule_system": "ohw", "period": "ancients",
        "first": "red", "grid": {"kind": "square", "width": 32, "height": 38},
        "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}}, "units": units,
        "victory": {"turn_limit": 100},
    }, source="benchmark")
    events = play_out(game, scenario, seed=1, red="random", blue="random").events
    if len(events) < n:
        raise RuntimeError(f"the benchmark game has only {len(events)} events, {n} needed")
    return events[:n]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of this process spent in ``fn`` (the machine is shared: wall time would
    count the other processes' turns), the garbage collector paused."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        result = fn()
        return time.process_time() - start, result
    finally:
        gc.enable()


def best(run: Callable[[Path], float], workdir: Path, label: str) -> float:
    """Best time of REPEATS runs, each given a fresh database path."""
    times = [run(workdir / f"{label}-{i}.db") for i in range(REPEATS)]
    return min(times)


def best_alternating(runs: dict[str, Callable[[Path], float]], workdir: Path,
                     repeats: int = REPEATS) -> dict[str, float]:
    """Best time of each candidate over ``repeats`` rounds, each round running every candidate
    once in turn (A B C, A B C, ...), each run on a fresh database path: a slow spell of the
    shared machine hits every candidate alike instead of one of them."""
    times: dict[str, list[float]] = {label: [] for label in runs}
    for i in range(repeats):
        for label, run in runs.items():
            times[label].append(run(workdir / f"{label}-{i}.db"))
    return {label: min(t) for label, t in times.items()}


# ---- 1. append -----------------------------------------------------------------------------


def append_ours(events: Events) -> Callable[[Path], float]:
    def run(path: Path) -> float:
        with SQLiteEventStore(path) as store:
            seconds, last = timed(lambda: store.append(events[0]["game"], events, 0))
        assert last == len(events)
        return seconds

    return run


def append_unguarded(events: Events) -> Callable[[Path], float]:
    """Ours with the REPLACE guard dropped (``events_no_replace``, a BEFORE INSERT trigger that
    SQLite runs once per row): what the database's refusal of INSERT OR REPLACE costs."""

    def run(path: Path) -> float:
        with SQLiteEventStore(path) as store:
            store.db.execute("DROP TRIGGER events_no_replace")
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
    events = engine_game("load", N_LOAD)
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
    result: dict[str, float] = {"ours": ours, "raw": raw}
    result["fold_s"] = min(timed(lambda: fold_fn(loaded))[0] for _ in range(REPEATS))
    return result


# ---- report --------------------------------------------------------------------------------


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}"


def main() -> int:
    console = Console()
    console.print(
        f"[bold]warlog store benchmark[/bold]  Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, sqlite-utils {version('sqlite-utils')}, "
        f"eventsourcing {version('eventsourcing')}; best of {REPEATS} (CPU time, candidates "
        "alternating), GC paused in timed code"
    )
    events = make_events("bench", N_APPEND)
    with tempfile.TemporaryDirectory(prefix="warlog-bench-") as tmp:
        workdir = Path(tmp)
        best_of = best_alternating({"ours": append_ours(events),
                                    "unguarded": append_unguarded(events),
                                    "raw": append_raw(events), "es": append_eventsourcing(events)},
                                   workdir)
        ours, unguarded, raw, es = (best_of[k] for k in ("ours", "unguarded", "raw", "es"))
        loaded = load(workdir)

    table = Table(title=f"1. append {N_APPEND:,} events, one call, one transaction")
    for col in ("", "seconds", "events/s", "speed: ours / this"):
        table.add_column(col, justify="right" if col else "left")
    table.add_row("warlog SQLiteEventStore", f"{ours:.3f}", rate(N_APPEND, ours), "1.00")
    table.add_row("warlog, REPLACE guard dropped", f"{unguarded:.3f}", rate(N_APPEND, unguarded),
                  f"{unguarded / ours:.2f}")
    table.add_row("raw sqlite3 executemany", f"{raw:.3f}", rate(N_APPEND, raw), f"{raw / ours:.2f}")
    table.add_row("eventsourcing SQLite recorder", f"{es:.3f}", rate(N_APPEND, es), f"{es / ours:.2f}")
    console.print(table)
    verdict = "meets" if raw / ours >= TARGET else "MISSES"
    console.print(f"append speed ours/raw = {raw / ours:.2f}x ({verdict} the {TARGET}x target); "
                  f"ours/eventsourcing = {es / ours:.2f}x")
    console.print(f"the REPLACE guard costs {(ours - unguarded) / N_APPEND * 1e6:.1f} µs an event "
                  f"({(ours - unguarded) / ours:.0%} of this append)")

    table = Table(title=f"2. load a {N_LOAD:,}-event game")
    for col in ("", "seconds", "events/s", "speed: ours / this"):
        table.add_column(col, justify="right" if col else "left")
    r_ours, r_raw = float(loaded["ours"]), float(loaded["raw"])
    table.add_row("warlog store.read()", f"{r_ours:.4f}", rate(N_LOAD, r_ours), "1.00")
    table.add_row("raw SELECT + orjson.loads", f"{r_raw:.4f}", rate(N_LOAD, r_raw),
                  f"{r_raw / r_ours:.2f}")
    fold_s = float(loaded["fold_s"])
    table.add_row("engine fold (replay)", f"{fold_s:.4f}", rate(N_LOAD, fold_s), "")
    table.add_row("read + fold", f"{r_ours + fold_s:.4f}", rate(N_LOAD, r_ours + fold_s), "")
    console.print(table)
    total_ms = (r_ours + fold_s) * 1000
    verdict = "meets" if total_ms <= LOAD_TARGET_MS else "MISSES"
    console.print(f"load + fold = {total_ms:.1f} ms ({verdict} the {LOAD_TARGET_MS} ms target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
