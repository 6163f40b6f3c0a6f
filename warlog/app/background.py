"""The one registry of work done in the background, once per key per process: a game
re-derived, a review, a what-if curve, a bot's run of orders.

A page asks for work by a key that names everything the work depends on; every session and
rerun asking for the same key finds the same work, reads how far it has come, and shows the
game meanwhile (a fragment polls until it is done). Work is a daemon thread: stopping the
dashboard does not wait minutes for it. Finished work is kept (its result read again at once)
until the registry holds more than ``keep`` finished items, the least recently asked dropped
first; work under way is never dropped. Kinds of work differ in one thing only: whether asking
again for a finished key starts it again (a bot's run: the game has moved on) or returns it (a
job's result: the key names its inputs).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

Progress = Callable[[int, int], None]
THREAD_PREFIX = "warlog-background"
KEEP_FINISHED = 32


class Work(Protocol):
    """What the registry holds: something started once, done some time later."""

    @property
    def finished(self) -> bool: ...

    def begin(self) -> None:
        """Start it (a daemon thread); called once, outside the registry's lock."""


W = TypeVar("W", bound=Work)


class Registry:
    """Work by key, thread-safe: at most one item under way per key."""

    def __init__(self, keep: int = KEEP_FINISHED) -> None:
        self.keep = keep
        self._items: OrderedDict[Hashable, Work] = OrderedDict()
        self._lock = threading.Lock()

    def current(self, key: Hashable) -> Work | None:
        """The latest work of ``key`` (under way or done), or None."""
        with self._lock:
            return self._items.get(key)

    def start(self, key: Hashable, make: Callable[[Any], W], *, again_when_done: bool = False
              ) -> W:
        """The work under way for ``key``; else the finished one (unless ``again_when_done``);
        else ``make(previous)`` (the finished work it replaces, or None), begun."""
        with self._lock:
            held = self._items.get(key)
            if held is not None and (not held.finished or not again_when_done):
                self._items.move_to_end(key)
                return held  # type: ignore[return-value]
            work = self._items[key] = make(held)
            self._items.move_to_end(key)
            self._trim()
        work.begin()
        return work

    def _trim(self) -> None:
        finished = [k for k, w in self._items.items() if w.finished]
        for key in finished[:max(0, len(finished) - self.keep)]:
            del self._items[key]


@dataclass
class Job:
    """A function run once in the background: ``done`` of ``total`` steps so far, then its
    result (or its exception, raised to whoever reads it)."""

    work: Callable[[Progress], Any]
    name: str = "job"
    future: Future = field(default_factory=Future)
    done: int = 0  # steps done so far
    total: int = 0

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    @property
    def finished(self) -> bool:
        return self.future.done()

    def result(self) -> Any:
        return self.future.result()

    def begin(self) -> None:
        def run() -> None:
            try:
                self.future.set_result(self.work(self.progress))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever reads the result
                self.future.set_exception(exc)

        threading.Thread(target=run, name=f"{THREAD_PREFIX} {self.name}", daemon=True).start()


REGISTRY = Registry()


def job(key: str, work: Callable[[Progress], Any]) -> Job:
    """The job for ``key``: ``work(progress)`` begun on the first call, found on later ones
    (only ``key`` tells jobs apart: it must name everything the work depends on)."""
    return REGISTRY.start(("job", key), lambda previous: Job(work, key))
