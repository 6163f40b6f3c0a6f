"""A game a search bot played is re-derived in the background (warlog/app/background.py,
dashboard/verifying.py): a stored one is shown at once with how far its check has come, then
with the verified line; an uploaded one is shown only once it re-derives, or refused.

The re-derivation is held at a gate until the test has seen the page waiting, so what the first
run shows does not depend on how fast the machine is; after that, the test reruns the page until
the check is done (a condition, with tests/waits.py's limit), as the page's own polling
fragment would."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import app_pages
from streamlit.testing.v1 import AppTest
from markup_probe import shown
from waits import LIMIT
from whatif_games import bot_game

from warlog.app import background
from warlog.dashboard import data
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@pytest.fixture
def gate(monkeypatch) -> threading.Event:
    """Every re-derivation the dashboard starts in the background waits here until the test
    opens the gate (one made while the page runs, of a game no search bot played, does not)."""
    opened, real = threading.Event(), data.verify

    def held(events, progress=None):
        if threading.current_thread().name.startswith(background.THREAD_PREFIX):
            assert opened.wait(LIMIT), "the gate was never opened"
        return real(events, progress)

    monkeypatch.setattr(data, "verify", held)
    yield opened
    opened.set()


def texts(elements) -> str:
    """The elements' text as a reader sees it (the verified line is markdown-escaped)."""
    return " ".join(shown(e.value) for e in elements)


def rerun_until(at: AppTest, done) -> AppTest:
    return app_pages.rerun_until(at, done, "the background re-derivation never finished")


def open_page(tmp_path, monkeypatch, events=()) -> AppTest:
    db = tmp_path / "searched.db"
    with SQLiteEventStore(db) as store:
        for game in events:
            store.append(game[0]["game"], game, 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    return at


def test_a_stored_search_bot_game_is_shown_at_once_and_verified_in_the_background(
        tmp_path, monkeypatch, gate):
    game = bot_game(seed=3, red="aggressive", blue="search")
    at = open_page(tmp_path, monkeypatch, [game])
    waiting = texts(at.caption)
    orders = sum(e["kind"] == "order_given" for e in game)
    assert f"in the background: 0 of {orders} orders so far" in waiting
    assert "The search bot that played blue" in waiting and "not yet verified" in waiting
    at.button(key="next_step").click().run()  # the game can be stepped through meanwhile
    assert not at.exception and at.slider(key="step").value == 2
    gate.set()
    rerun_until(at, lambda at: "Verified:" in texts(at.caption))
    line = texts(at.caption)
    assert f"({orders} orders)" in line and "blue: search" in line
    assert "in the background" not in line


def test_an_uploaded_search_bot_game_is_shown_once_it_re_derives(tmp_path, monkeypatch, gate):
    game = bot_game(seed=5, red="search", blue="aggressive")
    at = open_page(tmp_path, monkeypatch, [bot_game(seed=1)])
    at.radio(key="source").set_value("Replay file").run()
    at.file_uploader(key="upload").set_value(("searched.jsonl", encode_replay(game),
                                               "application/octet-stream")).run()
    assert not at.exception and not at.title  # nothing of the game before it re-derives
    assert "Checking searched.jsonl before showing it" in texts(at.info)
    assert "The search bot that played red" in texts(at.info)
    gate.set()
    rerun_until(at, lambda at: bool(at.title))
    assert "Verified:" in texts(at.caption) and not at.error


def test_an_edited_search_bot_upload_is_refused_once_checked(tmp_path, monkeypatch, gate):
    game = bot_game(seed=6, red="aggressive", blue="search")
    rolled = next(e for e in game if e["kind"] == "dice_rolled")
    rolled["faces"] = [7 - f for f in rolled["faces"]]  # its chain recomputed by encode_replay
    at = open_page(tmp_path, monkeypatch, [bot_game(seed=1)])
    at.radio(key="source").set_value("Replay file").run()
    at.file_uploader(key="upload").set_value(("edited.jsonl", encode_replay(game),
                                               "application/octet-stream")).run()
    assert "Checking edited.jsonl" in texts(at.info) and not at.error
    gate.set()
    rerun_until(at, lambda at: bool(at.error))
    refused = shown(at.error[0].value)  # it quotes the file: markdown-escaped
    assert "Cannot open edited.jsonl: it does not re-derive" in refused
    assert f"event seq {rolled['seq']}" in refused and not at.title
