"""The bots' decisions, made in worker processes rather than in the dashboard server's own
interpreter (issue 22: bot games on a server must not slow the person's click on another game).

Measured on 2 cores with the bots on threads of the server: a person's click repainted in 0.84 s
median beside one bot-vs-bot game (0.18-0.27 s alone) and 12 s beside eight, 7 clicks of 12
lost, the server at 89% CPU. A bot's decision is pure Python, so its thread holds the server's
GIL, and the page's script runs between its slices. So a decision is made in another process:
a small pool (``concurrent.futures.ProcessPoolExecutor``, the ``spawn`` start method: a
Streamlit server is threaded, and forking a threaded process may copy a held lock), at most
``os.cpu_count()`` workers, started when a page opens a game with a bot seat (``warm``: a
spawned worker takes a second or more to start and import the engine, which the bot's first
turn would otherwise wait for) or else on the first bot order of a server process, shut down
with it, its workers lowered in priority (``os.nice``) so that the server's page work
goes first when the cores are busy.

The unit of work is one order, not a whole run: ``play_one`` reads the game, lets the bot of
the side to act decide (``Session.bot_step``: ``engine.bots.next_order``, deterministic, so the
order is the one the server would have chosen) and appends it through the Recorder with
``expected_seq``, all in the worker. One order a task keeps the pool fair: with more bot games
than workers, every game's next order queues behind the others' current ones instead of a game
waiting for another to end, and a paced game's wait between orders holds no worker. The
server keeps a thread a run that submits the orders one by one (bot_runner.py), which is where
the pace and ``stop()`` are kept: a decision is in a worker whole, appended whole or not at all.

A worker that dies (killed, out of memory) breaks the pool: every order in it fails with
``BrokenProcessPool``, which the run reports as its line, and the next order starts a new pool.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from warlog.app.session import Session
from warlog.events.sqlite_store import SQLiteEventStore

NICE = 10  # how much lower the workers' priority is than the server's
KEEP_TABLES = 16  # the games a worker keeps open between two of their orders
STOP_POLL = 0.05  # seconds between two looks at a run's stop while its order waits for a worker

__all__ = ["BrokenProcessPool", "Step", "play_one", "step", "shutdown", "warm"]


@dataclass(frozen=True)
class Step:
    """What one task did: the order's line for the page (None: no bot was to act, nothing was
    appended), whether a bot is to act next, and the worker's process id."""

    reason: str | None
    more: bool
    pid: int


# -- in the worker -----------------------------------------------------------------------------

# (path, game) -> the game's store and Session, kept between orders: a game's run sends a dozen
# orders in a row, and reading the game anew for each would fold its whole log every time.
_TABLES: OrderedDict[tuple[str, str], tuple[SQLiteEventStore, Session]] = OrderedDict()


def _table(path: str, game: str) -> Session:
    key = (path, game)
    kept = _TABLES.pop(key, None)
    if kept is not None:
        store, table = kept
        try:
            table.refresh()  # a person, another page or the command line may have appended
        except Exception:  # noqa: BLE001 - a file replaced or gone: open it afresh
            store.close()
            kept = None
    if kept is None:
        store = SQLiteEventStore(path)
        kept = (store, Session(store, game))
    _TABLES[key] = kept
    while len(_TABLES) > KEEP_TABLES:
        _, (old, _) = _TABLES.popitem(last=False)
        old.close()
    return kept[1]


def _bot_to_act(table: Session) -> bool:
    seat = table.seat_to_act
    return seat is not None and seat.bot


def play_one(path: str, game: str) -> Step:
    """One bot order in ``game`` if a bot is to act (run in a worker; callable anywhere). A
    failure (GameMovedOn, PlayError, anything) is raised to the caller; the game is read
    afresh next time."""
    try:
        table = _table(path, game)
        if not _bot_to_act(table):
            return Step(None, False, os.getpid())
        reason = table.bot_step().reason
        return Step(reason, _bot_to_act(table), os.getpid())
    except BaseException:
        kept = _TABLES.pop((path, game), None)
        if kept is not None:
            kept[0].close()
        raise


def ready() -> int:
    """Nothing but the worker's process id: a task that makes the pool start its workers (they
    import this module, the engine and the store on their way)."""
    return os.getpid()


def _lower_priority() -> None:
    try:
        os.nice(NICE)
    except OSError:  # not allowed here: the workers run at the server's priority
        pass


# -- in the server -----------------------------------------------------------------------------

_POOL: ProcessPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
_WARMED: ProcessPoolExecutor | None = None  # the pool ``warm`` has started the workers of


def _pool() -> ProcessPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1),
                                        mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_lower_priority)
        return _POOL


def _drop(pool: ProcessPoolExecutor) -> None:
    """Forget a broken pool (if no other run has replaced it yet): the next order starts anew."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is pool:
            _POOL = None
    pool.shutdown(wait=False, cancel_futures=True)


def step(path: str, game: str, stop: threading.Event | None = None) -> Step | None:
    """Play one bot order of ``game`` in a worker and wait for it (a run's thread calls this;
    the server's interpreter only waits). Raises what the order raised in the worker, or
    ``BrokenProcessPool`` if a worker died.

    ``stop`` set while the order still waits for a worker (every worker busy with other games'
    orders) withdraws it and returns None: a player's "Pause the bots" takes at once, not after
    every order queued before this one (measured: beside eight search-bot games on 2 cores a
    pause never took within three minutes). An order a worker has begun is finished whole."""
    pool = _pool()
    try:
        future = pool.submit(play_one, path, game)
    except BrokenProcessPool:
        _drop(pool)
        raise
    except RuntimeError as exc:  # submitted while the pool shuts down (the server is ending)
        raise BrokenProcessPool(str(exc)) from exc
    try:
        while True:
            if stop is not None and stop.is_set() and future.cancel():
                return None
            try:
                return future.result(timeout=STOP_POLL)
            except FutureTimeout:
                continue
    except BrokenProcessPool:
        _drop(pool)
        raise


def warm() -> None:
    """Start the workers now, without waiting for them (a page calls this when it opens a game
    with a bot seat, on every rerun: only a pool's first call does anything). The pool starts
    its workers on its first task, so a no-op task is sent; a broken pool is left for
    ``step`` to drop."""
    global _WARMED
    pool = _pool()
    with _POOL_LOCK:
        if _WARMED is pool:
            return
        _WARMED = pool
    try:
        pool.submit(ready)
    except (BrokenProcessPool, RuntimeError):  # broken, or the server is ending: step says so
        pass


def shutdown() -> None:
    """Stop the workers (at exit; tests). An order being decided is finished first."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown)
