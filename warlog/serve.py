"""`warlog dashboard`'s server: Streamlit as a child process that stops when the command does.

Before, only Ctrl-C (KeyboardInterrupt) stopped the server: a SIGTERM (``kill``, a service
manager, a test harness) or a SIGHUP (a closed terminal or SSH session) ended warlog and left
Streamlit serving on its port, an orphan. Now the server runs in a process group of its own
(so the terminal's Ctrl-C reaches warlog alone, which decides what it means), and on SIGINT,
SIGTERM or SIGHUP, or when the server ends by itself, warlog stops the whole group: the server
and anything it started, with SIGTERM, then SIGKILL after ``GRACE`` seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

GRACE = 10.0
"""Seconds the server has to stop after SIGTERM before it is killed."""
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class _Stop(Exception):
    """A stop signal arrived while the server ran."""


def serve(cmd: list[str], env: dict[str, str], open_url: str | None = None) -> int:
    """Run ``cmd`` (the server) until it ends, or until a stop signal, and stop its process
    group either way. Returns the server's exit code, or 0 when a signal stopped it (as Ctrl-C
    always did). ``open_url``: a browser tab is opened there once the server answers."""
    caught: dict[str, Any] = {"armed": False, "signal": None}

    def on_signal(signum: int, frame: Any) -> None:
        caught["signal"] = signum
        if caught["armed"]:  # never inside Popen: a child started but not known would escape
            raise _Stop(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in STOP_SIGNALS}
    server: subprocess.Popen | None = None
    try:
        server = subprocess.Popen(cmd, env=env, start_new_session=hasattr(os, "killpg"))
        caught["armed"] = True
        if caught["signal"] is not None:  # it came while the server was being started
            return 0
        if open_url is not None:
            _open_when_ready(open_url, server)
        return server.wait()
    except _Stop:
        return 0
    finally:
        caught["armed"] = False
        for sig in STOP_SIGNALS:  # a second signal must not cut the stopping short
            signal.signal(sig, signal.SIG_IGN)
        try:
            if server is not None:
                stop_group(server)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _signal_group(server: subprocess.Popen, sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(server.pid, sig)  # the group outlives its leader while a member lives
        elif server.poll() is None:
            server.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass  # nothing left in the group


def stop_group(server: subprocess.Popen) -> None:
    """Stop ``server`` and everything in its process group: SIGTERM, then SIGKILL if it is
    still running after GRACE seconds; the server is waited for (no zombie is left)."""
    _signal_group(server, signal.SIGTERM)
    try:
        server.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        _signal_group(server, getattr(signal, "SIGKILL", signal.SIGTERM))
        server.wait()


def _open_when_ready(url: str, server: subprocess.Popen) -> None:
    """Open a browser tab on ``url`` once its health check answers (a thread: the command
    waits for the server meanwhile)."""
    import threading
    import time
    import urllib.request
    import webbrowser

    def wait_and_open() -> None:
        for _ in range(100):
            if server.poll() is not None:
                return
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1):
                    webbrowser.open(url)
                    return
            except OSError:
                time.sleep(0.2)

    threading.Thread(target=wait_and_open, daemon=True).start()
