"""How long a test may wait: one generous limit for every wait in the suite.

A test waits only for a condition (a page drew its first chart, a process exited, a background
job finished) and gives up only after ``LIMIT`` seconds, which only a hang reaches. Playwright's
and AppTest's own defaults (30 s, 3 s) are far too short: beside two CPU burners on 2 cores, a
browser's first chart or a dashboard's first AppTest run took most of a minute (and `./dev test`
at a load of 6-10 missed a 30 s wait twice). A slower machine (an emulated CPU, a sanitizer
build) scales the limit: ``WARLOG_TEST_SLOWDOWN=3 ./dev test``. Nothing sleeps a fixed time
except between two looks at a condition (``wait_until``); a process's output is read by a thread
(``Lines``), so that waiting for a line has the limit too. tests/test_waits.py checks that no
test brings a number of its own."""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

BASE_LIMIT = 180.0  # seconds, on a loaded machine at WARLOG_TEST_SLOWDOWN=1
POLL = 0.05  # seconds between two looks at a condition


def slowdown(environ=os.environ) -> float:
    """WARLOG_TEST_SLOWDOWN, a positive number (1 when unset); ValueError naming it otherwise."""
    raw = environ.get("WARLOG_TEST_SLOWDOWN", "").strip()
    if not raw:
        return 1.0
    try:
        factor = float(raw)
    except ValueError:
        factor = float("nan")
    if not factor > 0 or factor == float("inf"):
        raise ValueError(f"WARLOG_TEST_SLOWDOWN must be a positive number, not {raw!r}")
    return factor


LIMIT = BASE_LIMIT * slowdown()  # seconds (tests/conftest.py turns a bad factor into one line)
LIMIT_MS = LIMIT * 1000  # Playwright counts in milliseconds


def wait_until(condition: Callable[[], T], what: str | Callable[[], str], *,
               limit: float | None = None) -> T:
    """Look at ``condition()`` every POLL seconds until it is true and return it; fail the test
    with ``what`` (or what it returns, when called at the end) if it is still false after
    ``limit`` (LIMIT) seconds."""
    limit = LIMIT if limit is None else limit
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"{said}: not within {limit:g} s")
        time.sleep(POLL)


class Lines:
    """A stream's lines, read to its end by a thread of their own, so that a test waits for one
    of them with the limit (a blocking read of a process that hangs would wait forever)."""

    def __init__(self, stream) -> None:
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._ended = False
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        try:
            for line in stream:
                self._queue.put(line)
        finally:
            self._queue.put(None)  # the end of the stream

    def _next(self, deadline: float, limit: float, what: str, seen: list[str]) -> str | None:
        try:
            line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"{what}: not within {limit:g} s: {''.join(seen)}") from None
        self._ended = line is None
        return line

    def until(self, match: Callable[[str], bool], what: str, *,
              limit: float | None = None) -> list[str]:
        """The lines up to and including the first that ``match``es; fails with ``what`` (and
        the lines seen) if the stream ends first or none comes within ``limit`` (LIMIT)."""
        limit = LIMIT if limit is None else limit
        deadline, seen = time.monotonic() + limit, []
        while not self._ended:
            line = self._next(deadline, limit, what, seen)
            if line is None:
                break
            seen.append(line)
            if match(line):
                return seen
        raise AssertionError(f"{what}: {''.join(seen)}")

    def rest(self, what: str = "the stream did not end", *, limit: float | None = None) -> str:
        """Every line to the end of the stream, which must come within ``limit`` (LIMIT)."""
        limit = LIMIT if limit is None else limit
        deadline, seen = time.monotonic() + limit, []
        while not self._ended:
            line = self._next(deadline, limit, what, seen)
            if line is not None:
                seen.append(line)
        return "".join(seen)
