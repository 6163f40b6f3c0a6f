"""Engine figures of issue 10: the state at any step, random-legal games a second, and what-if
playouts on one and two Dask workers. Each function returns numbers; bench_issue10.py prints them.

Clocks: CPU time of this process (``time.process_time``) wherever one process does the work, the
machine being shared; wall time only for the Dask figure, where the work happens in worker
processes and what is asked is how much sooner two of them finish.
"""

from __future__ import annotations

import cProfile
import gc
import io
import pstats
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from warlog.engine.dice import SplitMix64
from warlog.engine.fold import Timeline

Events = list[dict[str, Any]]

ANCIENTS = ("ancients-battle-for-the-hill", "ancients-river-crossing",
            "ancients-village-between-marshes")


def nearest_rank(values: list[float], q: float) -> float:
    """The q-quantile by nearest rank (no interpolation): a value that was measured."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))]


# ---- the state at any step ------------------------------------------------------------------


@dataclass
class StepTimes:
    open_s: float  # building the Timeline (the first open of the game)
    ms: list[float]  # one state_at each, CPU ms
    steps: int

    def q(self, quantile: float) -> float:
        return nearest_rank(self.ms, quantile)


def state_at_steps(events: Events, queries: int = 1000, seed: int = 7) -> StepTimes:
    """Open a Timeline on the game, then ask for the state after ``queries`` steps drawn by a
    seeded generator, each timed on its own (the collector on, as a dashboard runs)."""
    start = time.process_time()
    timeline = Timeline(events)
    opened = time.process_time() - start
    rng = SplitMix64(seed)
    ms = []
    for _ in range(queries):
        index = rng.below(len(events))
        start = time.process_time()
        timeline.state_at(index)
        ms.append((time.process_time() - start) * 1000)
    return StepTimes(opened, ms, len(events))


# ---- random-legal games a second --------------------------------------------------------------


def _scenarios():
    from warlog.engine.scenario import load_scenario

    return [load_scenario(name) for name in ANCIENTS]


def play_games(n: int, first_seed: int = 0) -> int:
    """``n`` random-legal games over the three Ancients scenarios in turn; their events."""
    from warlog.engine.bots import play_out

    scenarios, events = _scenarios(), 0
    for i in range(n):
        game = play_out(f"bench-{i}", scenarios[i % len(scenarios)], seed=first_seed + i,
                        red="random", blue="random")
        events += len(game.events)
    return events


@dataclass
class GameRate:
    games: int
    seconds: float  # CPU, the best round
    events: int
    rounds: list[float]

    @property
    def per_second(self) -> float:
        return self.games / self.seconds


def games_per_second(games: int = 30, rounds: int = 3) -> GameRate:
    """Best of ``rounds`` rounds of the same ``games`` seeded games (CPU time, one core, the
    collector on: a long run of games collects as it goes)."""
    play_games(3, first_seed=10_000)  # warm: imports, tables, caches every game shares
    times, events = [], 0
    for _ in range(rounds):
        start = time.process_time()
        events = play_games(games)
        times.append(time.process_time() - start)
    return GameRate(games, min(times), events, times)


def profile_games(games: int = 30, top: int = 15) -> str:
    """cProfile of ``games`` games (CPU clock): the top functions by own time and by
    cumulative time, as text."""
    play_games(3, first_seed=10_000)
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    play_games(games)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    for key in ("tottime", "cumulative"):
        out.write(f"\n--- top {top} by {key} ---\n")
        stats.sort_stats(key).print_stats(top)
    return out.getvalue()


# ---- what-if playouts on Dask -----------------------------------------------------------------


@dataclass
class DaskRun:
    workers: int
    wall_s: float
    estimate: dict[str, Any]
    overhead_s: float  # a one-task job on the same cluster size: start, submit, close


def job_overhead(workers: int) -> float:
    """Wall seconds of a job of one trivial task on a local cluster of ``workers``: what every
    job pays to start and close its cluster, whatever its size."""
    from warlog.app.jobs import run_tasks

    start = time.perf_counter()
    run_tasks(abs, [0], scheduler="local", workers=workers)
    return time.perf_counter() - start


def late_position(turns_left: int = 4) -> tuple[Events, int]:
    """A real game (random-legal bots on an Ancients scenario) and a step at the start of its
    fourth turn from the end: playouts from there are four turns long, long enough that a
    cluster's start (about 0.7 s) is not most of what two workers can halve, short enough that
    10,000 of them take well under a minute on two workers."""
    from warlog.engine.bots import play_out
    from warlog.engine.whatif import snap

    scenario = _scenarios()[0]
    events = play_out("bench-whatif", scenario, seed=3, red="random", blue="random").events
    turn = scenario.victory.turn_limit - turns_left + 1
    start = next(e["seq"] for e in events
                 if e["kind"] == "phase_started" and e["turn"] == turn)
    return events, snap(events, start)


def whatif_runs(playouts: int, order: tuple[int, ...] = (1, 2, 2, 1, 1, 2),
                progress: Callable[[str], None] | None = None) -> list[DaskRun]:
    """``playouts`` what-if playouts from a late step, on a local Dask cluster of 1 or 2 worker
    processes, in ``order`` (1 2 2 1 1 2: a drift of the machine's load hits both alike). Wall
    time from the call to the answer, the cluster's start included (a user waits for it too)."""
    from warlog.app.whatif_job import run_whatif

    events, seq = late_position()
    runs = []
    for workers in order:
        if progress:
            progress(f"{playouts:,} playouts on {workers} worker(s)")
        gc.collect()
        start = time.perf_counter()
        answer = run_whatif(events, seq, playouts=playouts, seed=1, scheduler="local",
                            workers=workers)
        wall = time.perf_counter() - start
        runs.append(DaskRun(workers, wall, answer.as_dict(), job_overhead(workers)))
    first = runs[0].estimate
    assert all(r.estimate == first for r in runs), "the playouts differ between worker counts"
    return runs


def dask_speedup(runs: list[DaskRun], less_overhead: bool = False) -> tuple[float, float, float]:
    """(median wall seconds on 1 worker, on 2, and 1-worker / 2-worker); ``less_overhead``:
    each run less its cluster's start and close (the playouts alone)."""
    def seconds(r: DaskRun) -> float:
        return r.wall_s - r.overhead_s if less_overhead else r.wall_s

    one = statistics.median(seconds(r) for r in runs if r.workers == 1)
    two = statistics.median(seconds(r) for r in runs if r.workers == 2)
    return one, two, one / two
