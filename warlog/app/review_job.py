"""A game's review at scale: engine.review's search at every decision, run through warlog.app.jobs
(in process, a local cluster, or a Dask scheduler elsewhere; ``auto`` keeps a game of
IN_PROCESS_UP_TO decisions or fewer in process, where a cluster's start costs more than it
saves).

A task is one decision: the game's log (shared by a chunk's tasks, pickled once per chunk), its
key and the decision's number. Each worker process folds the log once (the positions before
every decision, kept by key for the next tasks) and copies the position it needs, so a review
folds the game once per process, not once per decision. Seeds come from the review's seed and
the position alone (engine/review_expect.sample_seed): the same review, byte for byte, on any
number of workers, in any grouping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from warlog.engine import review
from warlog.engine.evaluator import load_weights
from warlog.engine.state import GameState
from warlog.app.jobs import KeptByKey, log_key, run_tasks

Event = dict[str, Any]
_CACHE_SIZE = 4
IN_PROCESS_UP_TO = 1_000
"""``auto`` reviews a game of this many decisions or fewer in process. A decision costs 2 to
15 ms of search (measured: a 200-decision Portable Wargame game 1.7-2.6 s of CPU, an
887-decision horse-and-musket game 1.3 s), while a local cluster costs about 1.5 s to start,
import warlog in its workers and close: below this size a cluster of 2 workers finishes later
than one process (benchmarks/bench_review.py prints both)."""


@dataclass(frozen=True)
class DecisionTask:
    key: str
    events: Sequence[Event]
    index: int
    budget: review.Budget
    seed: int


_positions = KeptByKey(_CACHE_SIZE)  # a log's decisions and the positions before them


def _folded(task: DecisionTask) -> tuple[list[review.Decision], list[GameState]]:
    def fold() -> tuple[list[review.Decision], list[GameState]]:
        every = review.decisions(task.events)
        return every, review.positions(task.events, every)

    return _positions.get(task.key, fold)


def judge_task(task: DecisionTask) -> review.Judgement:
    """One decision's verdict (a module-level function: workers unpickle it by name)."""
    every, states = _folded(task)
    decision = every[task.index]
    return review.judge_at(task.events[decision.at], decision, states[task.index].copy(),
                           task.budget, task.seed)


def run_review(game: str, events: Sequence[Event], *, budget: review.Budget = review.Budget(),
               seed: int = 0, scheduler: str = "auto", workers: int | None = None,
               runner: Callable[..., list] | None = None) -> review.Review:
    """The review of ``events`` (a game's log, checked by the caller): every decision judged,
    then assembled. ``runner``: warlog.app.jobs.run_tasks (the default) or a command's runner with
    its progress bar (warlog.progress.run_job)."""
    events = list(events)
    key = log_key(events)
    tasks = [DecisionTask(key, events, d.index, budget, seed) for d in review.decisions(events)]
    if scheduler == "auto" and len(tasks) <= IN_PROCESS_UP_TO:
        scheduler = "inprocess"
    verdicts = (runner or run_tasks)(judge_task, tasks, scheduler=scheduler, workers=workers)
    return review.assemble(game, events, verdicts, load_weights()["version"])
