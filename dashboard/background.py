"""Work too long to hold a page for, done in a background thread, once per server.

Re-deriving a game a search bot played re-chooses each of its orders by playing its playouts
again: minutes, where any other game takes a second, and the page would show nothing of the
game but a spinner all that time. Instead the work runs here, keyed: every session and rerun
asking for the same key finds the same job, reads how far it has come, and shows the game
meanwhile; a fragment on the page polls until it is done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

Progress = Callable[[int, int], None]
THREAD_PREFIX = "warlog-background"


@dataclass
class Job:
    """A piece of work under way or done: ``done`` of ``total`` steps so far."""

    future: Future = field(default_factory=Future)
    done: int = 0
    total: int = 0

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    @property
    def finished(self) -> bool:
        return self.future.done()

    def result(self) -> Any:
        return self.future.result()


@st.cache_resource(show_spinner=False, max_entries=32)
def job(key: str, _work: Callable[[Progress], Any]) -> Job:
    """The job for ``key``: ``_work(progress)`` started on the first call, found on later ones
    (only ``key`` tells jobs apart: it must name everything the work depends on). The thread is
    a daemon: stopping the dashboard (Ctrl-C) does not wait minutes for it to finish."""
    started = Job()

    def run() -> None:
        try:
            started.future.set_result(_work(started.progress))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever reads the result
            started.future.set_exception(exc)

    threading.Thread(target=run, name=f"{THREAD_PREFIX} {key}", daemon=True).start()
    return started
