"""warlog/app/background.py: one job per key, whoever asks, with its progress and result."""

from __future__ import annotations

import threading

from waits import LIMIT

from warlog.app import background


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


def test_a_bots_run_and_a_job_share_the_one_registry_and_a_finished_run_starts_again():
    """The bots' runs are kept in the same registry as the jobs (one place to find the work a
    server does); asking for a finished job gives its result, for a finished run a new run."""
    from warlog.dashboard import bot_runner

    class Quick:
        def __init__(self) -> None:
            self.started = 0

        @property
        def finished(self) -> bool:
            return self.started > 0

        def begin(self) -> None:
            self.started += 1

    registry = background.Registry(keep=1)
    first = registry.start("k", lambda previous: Quick(), again_when_done=True)
    second = registry.start("k", lambda previous: Quick() if previous is first else None,
                            again_when_done=True)
    assert second is not first and second.started == 1
    kept = registry.start("j", lambda previous: Quick())
    assert registry.start("j", lambda previous: Quick()) is kept  # a finished job is kept
    registry.start("m", lambda previous: Quick())
    assert registry.current("k") is None  # keep=1: the least recently asked finished item
    assert registry.current("j") is kept  # went, the one asked for since stayed
    assert bot_runner.REGISTRY is background.REGISTRY
