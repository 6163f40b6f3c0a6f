"""dashboard/background.py: one job per key, whoever asks, with its progress and result."""

from __future__ import annotations

import threading

from waits import LIMIT

from warlog.dashboard import background


def test_a_key_starts_its_work_once_and_every_caller_finds_the_same_job():
    release, calls = threading.Event(), []

    def work(progress):
        calls.append(1)
        progress(1, 3)
        assert release.wait(LIMIT)
        progress(3, 3)
        return "done"

    first = background.job("test:same-key", work)
    again = background.job("test:same-key", lambda progress: "another")
    assert again is first
    release.set()
    assert first.future.result(timeout=LIMIT) == "done" and first.finished
    assert (first.done, first.total) == (3, 3) and first.result() == "done" and calls == [1]
    assert background.job("test:other-key", lambda progress: "another").future.result(LIMIT) == \
        "another"
