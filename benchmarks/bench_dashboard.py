"""Dashboard benchmark: the server time of one step switch on the replay page (issue 7, part 9).

Run: ``.venv/bin/python benchmarks/bench_dashboard.py`` (about a minute on 2 cores; ``--profile``
profiles the switches even when both targets are met).

Targets: a step switch re-renders in under 150 ms for a 1,000-event game, under 400 ms for a
10,000-event one. A switch is a whole script rerun, so the real app is driven through Streamlit's
AppTest, which runs dashboard/app.py as the server does (same caches, callbacks and figure
serialization; no websocket). A game's first run reads and caches it: "first open", not judged.
The switches then alternate a jump of the ``step`` slider (to points spread over the game, the
last step among them) with a ``next_step`` click: the cheap case (same turn, charts cached) and
the dear one (a new turn, charts rebuilt). Judged: median and 95th percentile of CPU time
(``time.process_time``: the page runs in AppTest's thread, and the machine is shared) with the
garbage collector on, as in a server, since a rerun that allocates pays for the collections it
causes; a second round with the collector paused shows what it adds.

The games are real, played by the engine's bots and cut mid-turn: the first 1,000 events of a
game of aggressive vs. cautious bots, 20 units a side on 16x22, and the first 10,000 of a 100-turn
game of random-legal bots, 70 units a side on 12x38, narrow enough that they fight (the wider
field of bench_store.py has no combat in its first 10,000 events). Two games in the database, so
the dashboard seeds no demo games into it.

Reference, for a ratio that compares across machines: the same AppTest machinery running a
minimal page (a title, three markdown lines, and the same game's board, final state, built and
drawn with ``st.plotly_chart`` on every run): the floor of any page with this board. Reference
and dashboard runs alternate, so machine noise hits both alike.
"""

from __future__ import annotations

import cProfile
import gc
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.local_script_runner import LocalScriptRunner

from warlog.events.sqlite_store import SQLiteEventStore

from bench_store import field_game  # noqa: E402  (benchmarks/ is the script's folder)

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "dashboard" / "app.py")
GAMES = {  # game id: (events kept, units a side, width, height, red bot, blue bot, seed)
    "bench-1k": (1_000, 20, 16, 22, "aggressive", "cautious", 2),
    "bench-10k": (10_000, 70, 12, 38, "random", "random", 1),
}
TARGET_MS = {"bench-1k": 150, "bench-10k": 400}
SWITCHES = 30  # per game and round: half slider jumps, half next_step clicks
PROFILED = 10  # switches per game under cProfile, when a target is missed (or --profile)
console = Console()
ROWS = ("first open: CPU / wall, s", "switch", "  wall", "  in the GC",
        "  full GC collections", "  next_step click", "  slider jump", "reference page",
        "ours / reference (medians)", "target", "switch, GC paused", "reference, GC paused")

REFERENCE = """
import os
import streamlit as st
from warlog.app.pictures.board import board_figure
from warlog.engine.fold import replay
from warlog.events.sqlite_store import SQLiteEventStore

@st.cache_resource
def final(path, game):
    with SQLiteEventStore(path) as store:
        return replay(store.read(game))

state = final(os.environ["WARLOG_DB"], st.session_state["game"])
st.title("Reference page")
for i in range(3):
    st.markdown(f"**Line {i}** of the reference: turn {state.turn}, game `{state.game}`")
st.plotly_chart(board_figure(state), key="board", config={"displayModeBar": False})
"""


GC_CLOCK = {"ms": 0.0, "full": 0, "start": 0.0}  # CPU ms in the collector, full collections


def _gc_clock(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        GC_CLOCK["start"] = time.process_time()
    else:
        GC_CLOCK["ms"] += (time.process_time() - GC_CLOCK["start"]) * 1000
        GC_CLOCK["full"] += info["generation"] == 2


def timed(action: Callable[[], Any], paused: bool = False) -> tuple[float, float, float, int]:
    """CPU ms, wall ms, ms in the GC and full collections of ``action``; the cyclic GC runs as
    in a server unless ``paused``."""
    if paused:
        gc.collect()
        gc.disable()
    gc_ms, full = GC_CLOCK["ms"], GC_CLOCK["full"]
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        action()
        return ((time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000,
                GC_CLOCK["ms"] - gc_ms, int(GC_CLOCK["full"] - full))
    finally:
        gc.enable()


def opened(script: str, game: str) -> tuple[AppTest, tuple[float, ...]]:
    """An AppTest on ``script`` with ``game`` selected, after its first (timed) run."""
    at = AppTest.from_file(script, default_timeout=120)
    at.session_state["game"] = game
    times = timed(at.run)
    if at.exception:
        raise RuntimeError(f"{Path(script).name} on {game}: {at.exception[0].message}")
    return at, times


def switches(steps: int, shift: float = 0.0) -> list[tuple[str, int]]:
    """Slider jumps to points spread over the game, in a fixed shuffled order, each followed by
    a next_step click; ``shift`` (a fraction of the spacing) moves the points to other turns."""
    half = SWITCHES // 2
    points = [max(1, round((steps - 1) * (k + 1 - shift) / half)) for k in range(half)]
    random.Random(7).shuffle(points)
    return [move for p in points for move in (("jump", p), ("next", p + 1))]


def switch(at: AppTest, move: str, target: int) -> Callable[[], Any]:
    return ((lambda: at.slider(key="step").set_value(target).run()) if move == "jump"
            else (lambda: at.button(key="next_step").click().run()))


def check(at: AppTest, target: int) -> None:
    if at.exception:
        raise RuntimeError(f"the dashboard failed at step {target}: {at.exception[0].message}")
    if at.slider(key="step").value != target:
        raise RuntimeError(f"expected step {target}, the page shows {at.slider(key='step').value}")


def measure(game: str, reference: str, progress: Progress) -> dict[str, Any]:
    """First open, then two rounds of SWITCHES switches, reference and ours alternating: the GC
    as in a server (judged), then the GC paused."""
    ref, _ = opened(reference, game)
    ours, first_open = opened(APP, game)
    steps = int(ours.slider(key="step").max)
    samples: dict[str, list[tuple[float, ...]]] = {}
    task = progress.add_task(f"{game}: 2 x {SWITCHES} switches", total=2 * SWITCHES)
    for paused, shift in ((False, 0.0), (True, 0.25)):
        gc.collect()
        for move, target in switches(steps, shift):
            samples.setdefault(f"ref{paused}", []).append(timed(ref.run, paused))
            t = timed(switch(ours, move, target), paused)
            check(ours, target)
            samples.setdefault(f"ours{paused}", []).append(t)
            samples.setdefault(f"{move}{paused}", []).append(t)
            progress.advance(task)
    return {"steps": steps, "open": first_open, "samples": samples, "at": ours}


def profile(results: dict[str, dict[str, Any]]) -> None:
    """cProfile (the GC on; wall-clock timer, so read it for the ranking) over PROFILED more
    switches of each game, in AppTest's script thread. The page is compiled anew on every run,
    so entries are summed over code objects by file, line and name."""
    prof, plain = cProfile.Profile(), LocalScriptRunner._run_script_thread

    def run_profiled(self: LocalScriptRunner) -> None:
        prof.enable()
        try:
            plain(self)
        finally:
            prof.disable()

    LocalScriptRunner._run_script_thread = run_profiled  # type: ignore[method-assign]
    try:
        for r in results.values():
            for move, target in switches(r["steps"], shift=0.5)[:PROFILED]:
                switch(r["at"], move, target)()
                check(r["at"], target)
    finally:
        LocalScriptRunner._run_script_thread = plain  # type: ignore[method-assign]
    total: dict[str, list[float]] = {}  # where: [calls, cumulative s, own s]
    for e in prof.getstats():
        c = e.code
        row = total.setdefault(c if isinstance(c, str) else
                               f"{c.co_filename}:{c.co_firstlineno} {c.co_name}", [0, 0.0, 0.0])
        row[:] = row[0] + e.callcount, row[1] + e.totaltime, row[2] + e.inlinetime
    ours = [(row[1], row[0], where.removeprefix(f"{ROOT}/")) for where, row in total.items()
            if where.startswith((f"{ROOT}/dashboard/", f"{ROOT}/engine/"))
            and not where.endswith("<module>")]
    anywhere = [(row[2], row[0], where.split("site-packages/")[-1].split("lib/python3.11/")[-1])
                for where, row in total.items()]
    n = PROFILED * len(results)
    for title, rows, top in (("in dashboard/ and engine/, by cumulative time", ours, 10),
                             ("anywhere, by own time", anywhere, 5)):
        table = Table(title=f"cProfile, {n} switches: top {top} {title}")
        for col in ("function", "ms per switch", "calls per switch"):
            table.add_column(col, justify="left" if col == "function" else "right")
        for seconds, calls, where in sorted(rows, reverse=True)[:top]:
            table.add_row(where, f"{seconds * 1000 / n:.1f}", f"{calls / n:,.1f}")
        console.print(table)


def stats(samples: list[tuple[float, ...]], i: int = 0) -> tuple[float, float]:
    """Median and 95th percentile (nearest rank) of field ``i`` of the samples."""
    values = sorted(s[i] for s in samples)
    return statistics.median(values), values[-(-len(values) * 95 // 100) - 1]


def cell(samples: list[tuple[float, ...]], i: int = 0) -> str:
    return "{:.0f} / {:.0f}".format(*stats(samples, i))


def main() -> int:
    console.print(f"[bold]warlog dashboard benchmark[/bold]  {os.cpu_count()} cores, Python "
                  f"{platform.python_version()}, Streamlit {version('streamlit')}, plotly "
                  f"{version('plotly')}; {SWITCHES} switches a game and round")
    missed = "--profile" in sys.argv
    gc.callbacks.append(_gc_clock)
    with tempfile.TemporaryDirectory(prefix="warlog-bench-") as tmp:
        db, reference = Path(tmp) / "bench.db", Path(tmp) / "reference.py"
        reference.write_text(REFERENCE)
        sizes: dict[str, int] = {}  # events stored (the last seq)
        with console.status("bots are playing the two games…"), SQLiteEventStore(db) as store:
            for game, (n, *field) in GAMES.items():
                sizes[game] = store.append(game, field_game(game, n, *field), 0)
        os.environ["WARLOG_DB"] = str(db)
        with Progress(console=console) as progress:
            results = {game: measure(game, str(reference), progress) for game in GAMES}
        recompile = min(timed(lambda: [ScriptCache().get_bytecode(p) for p in (
            APP, str(ROOT / "dashboard" / "views" / "replay.py"))], True)[0] for _ in range(5))

        table = Table(title="step switch: server time per rerun, ms (median / p95)")
        table.add_column("CPU ms unless marked; GC on unless marked")
        columns, verdicts = [], []
        for game, r in results.items():
            table.add_column(f"{sizes[game]:,} events\n{r['steps']:,} steps", justify="right")
            s, target = r["samples"], TARGET_MS[game]
            (med, high), (ref_med, _) = stats(s["oursFalse"]), stats(s["refFalse"])
            ratio = med / ref_med
            ok = ["meets" if x < target else "MISSES" for x in (med, high)]
            missed |= "MISSES" in ok
            columns.append((f"{r['open'][0] / 1000:.2f} / {r['open'][1] / 1000:.2f}",
                            cell(s["oursFalse"]), cell(s["oursFalse"], 1), cell(s["oursFalse"], 2),
                            f"{sum(t[3] for t in s['oursFalse'])} in {SWITCHES}",
                            cell(s["nextFalse"]), cell(s["jumpFalse"]), cell(s["refFalse"]),
                            f"{ratio:.2f}", f"< {target}: {ok[0]}, {ok[1]}", cell(s["oursTrue"]),
                            cell(s["refTrue"])))
            verdicts.append(f"{sizes[game]:,} events: median {med:.0f} ms ({ok[0]}), p95 "
                            f"{high:.0f} ms ({ok[1]}) the {target} ms target; ours / reference "
                            f"= {ratio:.2f}x")
        for row in zip(ROWS, *columns):
            table.add_row(*row)
        console.print(table)
        for line in verdicts:
            console.print(line)
        console.print(f"Inside every dashboard figure, AppTest only: {recompile:.0f} ms to compile "
                      "the page scripts again (AppTest does on every run, a server once)")
        full = timed(gc.collect)[0]
        console.print(f"The GC tracks {len(gc.get_objects()):,} objects now (the caches full of "
                      f"both games); one full collection takes {full:.0f} ms")
        if missed:
            profile(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
