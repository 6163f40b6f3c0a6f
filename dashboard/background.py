"""Work too long to hold a page for, done in a background thread, once per server.

Re-deriving a game a search bot played re-chooses each of its orders by playing its playouts
again: minutes, where any other game takes a second. The page would show nothing but a spinner
all that time, and a click (which reruns the script) would throw the work away. Instead the work
runs here, keyed: every session and rerun asking for the same key finds the same job, reads how
far it has come, and shows the game meanwhile; a fragment on the page polls until it is done.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

Progress = Callable[[int, int], None]
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="warlog-background")


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
    (only ``key`` tells jobs apart: it must name everything the work depends on)."""
    started = Job()
    started.future = _POOL.submit(_work, started.progress)
    return started
