"""Running many independent tasks (playouts, simulated games) on Dask, in task order.

`run_tasks(fn, tasks)` is the one runner what-if playouts and balance studies share:

- "inprocess": Dask's synchronous scheduler, no cluster, no processes (small jobs, tests).
- "local": a `distributed.LocalCluster` of ``workers`` processes (default: every core).
- "tcp://HOST:PORT": a `distributed.Client` to a scheduler someone already runs (its workers
  must be able to import warlog).
- "auto": in-process up to INPROCESS_MAX_TASKS tasks (a cluster costs about a second to start),
  else local.

Why results never depend on the workers: each task carries everything it needs, its seed
included (derive seeds with `task_seed(job_seed, index)`, never from a worker's identity or the
order in which chunks finish), and results are put back in task order. Tasks are batched into
chunks because on a couple of cores a Dask task per tiny task costs more than it runs.

Ctrl-C (KeyboardInterrupt) cancels what is queued, closes client and cluster (no worker process
is left behind) and raises `JobInterrupted(done, total)`, which a command turns into one line.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import shutil
import signal
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any, Iterator

import orjson

from warlog.engine.dice import SplitMix64

SCHEDULERS = ("auto", "inprocess", "local")
INPROCESS_MAX_TASKS = 64  # "auto" runs a job this small in process: no cluster to start
CHUNKS_PER_WORKER = 8  # enough chunks to balance the load and move the progress bar
MAX_CHUNK = 64  # tasks per chunk at most, so progress keeps moving on long jobs
CONNECT_TIMEOUT = 5  # seconds to reach an existing scheduler before giving up

_GOLDEN = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1

Progress = Callable[[int, int], None]


class JobError(Exception):
    """A job that cannot be run as asked (an unknown scheduler, a bad worker count)."""


class SchedulerUnreachable(JobError):
    """No Dask scheduler answers at the address given."""


class JobInterrupted(Exception):
    """The job was stopped (Ctrl-C) after ``done`` of ``total`` tasks; nothing is left running."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"stopped after {done:,} of {total:,} tasks")
        self.done = done
        self.total = total

    def message(self, noun: str = "tasks") -> str:
        """One line for a player: 'stopped after 312 of 1,000 playouts'."""
        return f"stopped after {self.done:,} of {self.total:,} {noun}"


def log_key(events: Sequence[dict[str, Any]]) -> str:
    """A game log's content hash: what a worker keeps the log's folded work under
    (``KeptByKey``), so the tasks of one chunk, and of later chunks in the same process, fold
    the log once."""
    return hashlib.sha256(orjson.dumps(list(events), option=orjson.OPT_SORT_KEYS)).hexdigest()


class KeptByKey:
    """The last ``size`` values made, by key (least recently used dropped first), for a worker
    process's tasks: the folded positions of a log its tasks share. Thread-safe, since the
    dashboard runs jobs in process on background threads; ``make`` runs outside the lock (two
    threads may both make a missing value: the same value, one kept)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        value = make()
        with self._lock:
            self._kept[key] = value
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return value


def task_seed(job_seed: int, index: int) -> int:
    """The seed of task ``index``: the index-th output of SplitMix64 seeded with the job's seed,
    computed directly (SplitMix64's state after i steps is seed + i*golden), so any task's seed
    is known without running the others."""
    return SplitMix64((job_seed + index * _GOLDEN) & _MASK).next64()


def task_seeds(job_seed: int, n: int) -> list[int]:
    return [task_seed(job_seed, i) for i in range(n)]


def chunk_size(n_tasks: int, slots: int) -> int:
    """Tasks per chunk: about CHUNKS_PER_WORKER chunks per worker, never more than MAX_CHUNK."""
    return max(1, min(MAX_CHUNK, math.ceil(n_tasks / (max(1, slots) * CHUNKS_PER_WORKER))))


def _chunks(tasks: Sequence, size: int) -> list[list]:
    return [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]


def run_chunk(fn: Callable[[Any], Any], chunk: list) -> list:
    """One Dask task: ``fn`` over a chunk of tasks (module level, so workers can unpickle it)."""
    return [fn(task) for task in chunk]


def _ignore_sigint() -> None:
    """Run on each worker: Ctrl-C in a terminal reaches the whole process group, and the client,
    not the workers, decides what it means (workers are closed by the client, quietly)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def resolve_scheduler(scheduler: str, n_tasks: int) -> str:
    """'inprocess', 'local' or a tcp:// address; a typed error for anything else."""
    if scheduler.startswith("tcp://"):
        return scheduler
    if scheduler not in SCHEDULERS:
        raise JobError(f"unknown scheduler {scheduler!r}: use auto, inprocess, local or "
                       "tcp://HOST:PORT")
    if scheduler == "auto":
        return "inprocess" if n_tasks <= INPROCESS_MAX_TASKS else "local"
    return scheduler


def run_tasks(fn: Callable[[Any], Any], tasks: Sequence, *, scheduler: str = "auto",
              workers: int | None = None, progress: Progress | None = None,
              chunk: int | None = None) -> list:
    """``[fn(t) for t in tasks]``, run on Dask, results in task order.

    ``fn`` must be a module-level function (workers unpickle it by name). ``progress(done,
    total)`` is called with 0 first, then as each chunk finishes, counting tasks. ``chunk``
    overrides the chunk size. An exception raised by ``fn`` is raised here, as itself.
    """
    tasks = list(tasks)
    if workers is not None and workers < 1:
        raise JobError(f"--workers must be at least 1, not {workers}")
    if chunk is not None and chunk < 1:
        raise JobError(f"a chunk holds at least 1 task, not {chunk}")
    where = resolve_scheduler(scheduler, len(tasks))
    report = progress or (lambda done, total: None)
    report(0, len(tasks))
    if not tasks:
        return []
    if where == "inprocess":
        return _run_inprocess(fn, tasks, chunk or chunk_size(len(tasks), 1), report)
    n_workers = workers or os.cpu_count() or 1
    try:
        with _client(where, n_workers) as client:
            slots = n_workers if where == "local" else max(1, sum(client.nthreads().values()))
            return _run_distributed(client, fn, tasks, chunk or chunk_size(len(tasks), slots),
                                    report)
    except KeyboardInterrupt:  # while the cluster was starting: nothing was done yet
        raise JobInterrupted(0, len(tasks)) from None


def _run_inprocess(fn, tasks: list, size: int, report: Progress) -> list:
    import dask

    results: list = []
    try:
        for part in _chunks(tasks, size):
            # The chunk goes in as one opaque value: left to itself, dask walks every
            # argument looking for dask collections, and a review's tasks each hold a whole
            # game's log (three quarters of an in-process review's time went to that walk).
            chunk_value = dask.delayed(part, traverse=False)
            (out,) = dask.compute(dask.delayed(run_chunk, pure=False)(fn, chunk_value),
                                  scheduler="synchronous")
            results.extend(out)
            report(len(results), len(tasks))
    except KeyboardInterrupt:
        raise JobInterrupted(len(results), len(tasks)) from None
    return results


def _run_distributed(client, fn, tasks: list, size: int, report: Progress) -> list:
    from distributed import as_completed

    parts = _chunks(tasks, size)
    done = 0
    futures = []
    try:
        futures = [client.submit(run_chunk, fn, part, pure=False) for part in parts]
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[list | None] = [None] * len(parts)
        for future in as_completed(futures, loop=client.loop):
            i = index[future.key]
            results[i] = future.result()  # raises fn's own exception, as itself
            done += len(parts[i])
            report(done, len(tasks))
    except KeyboardInterrupt:
        with _no_sigint():
            client.cancel(futures)
        raise JobInterrupted(done, len(tasks)) from None
    except BaseException:
        client.cancel(futures)
        raise
    return [r for part in results for r in part]


@contextmanager
def _no_sigint() -> Iterator[None]:
    """A second Ctrl-C while cleaning up must not leave workers behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _quiet_distributed() -> Iterator[None]:
    """distributed logs warnings while a cluster shuts down mid-task; a player sees one line."""
    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


@contextmanager
def _client(where: str, n_workers: int) -> Iterator[Any]:
    """A connected Client, closed (with its LocalCluster and scratch folder) however we leave."""
    from distributed import Client, LocalCluster

    cluster = None
    client = None
    scratch = None
    with _quiet_distributed():
        try:
            if where == "local":
                scratch = tempfile.mkdtemp(prefix="warlog-dask-")
                # No dashboard, and the scheduler's health endpoint on a free port: its default
                # (8787) is often taken by another cluster on a shared machine.
                cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       dashboard_address="127.0.0.1:0",
                                       scheduler_kwargs={"dashboard": False}, host="127.0.0.1",
                                       local_directory=scratch, silence_logs=logging.CRITICAL)
                client = Client(cluster, set_as_default=False)
                client.run(_ignore_sigint)
            else:
                try:
                    client = Client(where, timeout=CONNECT_TIMEOUT, set_as_default=False)
                except (OSError, TimeoutError, ValueError) as exc:
                    reason = " ".join(str(exc).split()) or type(exc).__name__
                    if len(reason) > 120:
                        reason = reason[:117] + "..."
                    raise SchedulerUnreachable(
                        f"cannot reach the Dask scheduler at {where} ({reason})") from None
            yield client
        finally:
            with _no_sigint():
                if client is not None:
                    client.close()
                if cluster is not None:
                    cluster.close()
                if scratch is not None:
                    shutil.rmtree(scratch, ignore_errors=True)
