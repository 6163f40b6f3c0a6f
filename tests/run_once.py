"""Build a file once per test run, whichever pytest-xdist worker asks first.

Session fixtures run once per worker: the games every worker reads (a bot game of each bundled
scenario, the demo database) were played twice a run, and once more by each module that made
its own. pytest-xdist's own recipe for this shares a file under the workers' common temporary
directory, guarded by a lock; here the lock is the standard library's ``fcntl.flock`` (Linux,
where the suite runs), and the file appears by an atomic rename, so a worker never reads half
of it."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest


def built_once(tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str,
               build: Callable[[Path], None]) -> Path:
    """The path of ``name``, written by ``build(path)`` the first time any worker of this run
    asks for it; the others wait for it and read the same file."""
    base = tmp_path_factory.getbasetemp()
    root = base if worker_id == "master" else base.parent  # the workers' common directory
    target = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, however this ends
        if not target.exists():
            part = root / f"{name}.part"
            part.unlink(missing_ok=True)
            build(part)
            os.replace(part, target)
    return target


def copied(database: Path, target: Path) -> Path:
    """A private copy of an SQLite database at ``target``, by SQLite's own backup (whole,
    whatever journal the source keeps), for a test that writes to what built_once shared."""
    with closing(sqlite3.connect(database)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)
    return target
