"""One dashboard page under AppTest over a given database (the tests of every page start so)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest
from waits import LIMIT

APP = str(Path(__file__).resolve().parents[1] / "dashboard" / "app.py")


def open_page(monkeypatch, db: Path, page: str) -> AppTest:
    """The app run once over ``db`` (WARLOG_DB), then switched to ``page`` ("views/play.py")."""
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    at.switch_page(page).run()
    assert not at.exception
    return at
