"""Helpers for the job tests: a port where nothing listens, and Ctrl-C pressed on a running
command once it shows progress. (tests/ is on pytest's pythonpath.)"""

from __future__ import annotations

import os
import signal
import socket
import subprocess

import psutil
from waits import LIMIT, Lines


class socket_without_listener:
    """A local port that was free a moment ago: nothing listens there."""

    def __enter__(self) -> str:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        return f"tcp://127.0.0.1:{port}"

    def __exit__(self, *exc) -> None:
        pass


def _sigint_as_at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


AS_FROM_A_TERMINAL = {"start_new_session": True, "preexec_fn": _sigint_as_at_a_terminal}
"""Popen arguments for a command the test will Ctrl-C: a session of its own (the signal goes to
its whole group), and SIGINT at its default whatever the runner's. A shell starts a background
job (``./dev test &``, nohup, many CI runners) with SIGINT ignored, a child inherits that, and
Python then installs no KeyboardInterrupt handler: the command would rightly ignore the Ctrl-C."""


class Interrupted:
    def __init__(self, returncode: int, stderr: str) -> None:
        self.returncode, self.stderr = returncode, stderr


def interrupt_when_progress_shows(argv: list[str], prefix: str, suffix: str) -> Interrupted:
    """Run ``argv`` in a session of its own; once it reports progress past zero, press Ctrl-C
    as a terminal does (SIGINT to the whole process group); wait for it and for every process it
    started to be gone (conditions, each with tests/waits.py's limit)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **AS_FROM_A_TERMINAL)
    try:
        lines = Lines(proc.stderr)
        seen = lines.until(
            lambda line: line.startswith(prefix) and line.rstrip().endswith(suffix)
            and not line.startswith(f"{prefix}0 "), "no progress shown")
        children = psutil.Process(proc.pid).children(recursive=True)
        os.killpg(proc.pid, signal.SIGINT)
        rest = lines.rest("it did not stop after Ctrl-C")
        proc.wait(timeout=LIMIT)
    finally:
        if proc.poll() is None:  # it did not stop: take its whole group down, then fail
            os.killpg(proc.pid, signal.SIGKILL)
    _, alive = psutil.wait_procs(children, timeout=LIMIT)
    assert not alive, f"left running: {[p.pid for p in alive]}"
    return Interrupted(proc.returncode, "".join(seen) + rest)
