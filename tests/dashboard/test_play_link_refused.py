"""A Play link (``/play?play=GAME&seat=TOKEN``) is anyone's text: an id no game has, or one no
id could be, is one short line naming the problem (the id shown short, escaped, never echoed
whole), with a way back, and never an exception."""

from __future__ import annotations

import re

import pytest
from app_pages import db_holding_a_game, open_page


@pytest.mark.parametrize(("game", "problem"), [
    ("no-such-game", "no game 'no-such-game' in this database"),
    ("x" * 5000, "5,000 characters long"),
    ("../../etc/passwd\x00", "control character (U+0000"),
    ("игра\u202e", "invisible (format) character (U+202E"),
])
def test_a_link_to_no_game_is_one_short_line_and_a_way_back(tmp_path, monkeypatch, game,
                                                             problem):
    at = open_page(monkeypatch, db_holding_a_game(tmp_path / "links.db"), "views/play.py")
    at.query_params["play"] = game
    at.query_params["seat"] = "'; drop table events; --"
    at.run()
    assert not at.exception
    (error,) = at.error
    shown = re.sub(r"\\(.)", r"\1", error.value)  # the line is Markdown-escaped: read as shown
    assert shown.startswith("Cannot open the game ") and problem in shown
    assert len(shown) < 400 and "\u202e" not in error.value and "\x00" not in error.value
    at.button[0].click().run()  # Back: the page as it opens, the game held still there
    assert not at.exception and not at.error
    assert at.selectbox(key="play_continue").value == "held"
