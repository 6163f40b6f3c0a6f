"""No text from a game, a file or an address reaches Streamlit's markdown as markup (AppTest).

A hostile probe of the dashboard found a player named ``![i](http://host/x)`` drawn as an image
(every viewer of a shared replay file fetching that address) and ``?play=[text](http://host/evil)``
drawn as a link in the error box. Here games whose ids, players, scenario title and notes are such
texts are stored in a real database, each page is opened on them, and every markdown-rendered text
of the page (tests/markup_probe.py) is checked: none draws the data as an image, a link, HTML,
emphasis, a colour or an auto-linked address.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from app_pages import APP, open_page
from markup_probe import HOSTILE, leaks, markdown_bodies, shown
from waits import LIMIT

from warlog.engine.scenario import load_scenario
from warlog.events.model import make_note
from warlog.events.sqlite_store import SQLiteEventStore
from builders import table_game

ROOT = Path(__file__).resolve().parents[2]
LINKED = "[text](http://host/evil)"  # a game id that is a disguised link
BARE = "http://host/bare"  # a game id that is a bare address
GAMES = {
    LINKED: {"title": "![i](http://host/x) **bold** http://host/bare",
             "players": {"red": "![i](http://host/x)", "blue": "<img src=x onerror=alert(1)>"}},
    BARE: {"title": ":red[x] <img src=x onerror=alert(1)>",
           "players": {"red": "**bold**", "blue": "[text](http://host/evil)"}},
}
NOTE = ":red[x] http://host/bare ![i](http://host/x)"


@pytest.fixture
def hostile_db(tmp_path) -> Path:
    """Two unfinished games, every text of theirs hostile; the first has a note on its last
    event, by an author named ``**bold**``."""
    db = tmp_path / "hostile.db"
    with SQLiteEventStore(db) as store:
        for game, texts in GAMES.items():
            scenario = load_scenario("ancients-river-crossing").model_copy(
                update={"title": texts["title"]})
            events = table_game(store, scenario, game, dice="seeded", seed=1,
                                players=texts["players"], played="2026-12-01")
            if game == LINKED:
                note = make_note(events, events[-1]["seq"], NOTE, "**bold**")
                store.append(game, [note], events[-1]["seq"])
    return db


def assert_no_leak(at: AppTest, page: str) -> None:
    assert not at.exception, at.exception
    assert markdown_bodies(at), f"{page}: nothing collected (the probe reads no page)"
    found = leaks(at)
    assert not found, f"{page}: data drawn as markup: {found}"


def test_the_probe_finds_what_it_must():
    """The probe itself: raw data is found in every form; escaped data, a code span, our own
    emphasis and the SVG namespace of a picture are not."""
    from markup_probe import Body, unescaped_markup
    from warlog.dashboard.data import markdown_text

    for text in HOSTILE:
        assert unescaped_markup(Body("markdown", f"a {text} b")), text
        assert not unescaped_markup(Body("markdown", f"**a** {markdown_text(text)}")), text
        assert shown(markdown_text(text)) == text
    assert unescaped_markup(Body("markdown", "http\\://host/bare"))  # a backslash: still linked
    assert unescaped_markup(Body("markdown", "ann@example.com"))
    assert not unescaped_markup(Body("markdown", f"game `{LINKED}`"))
    assert unescaped_markup(Body("markdown", f"game ``{LINKED}`"))  # a span never closed
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><title>x</title></svg>'
    assert not unescaped_markup(Body("markdown", svg, html=True))


def test_the_library_shows_hostile_games_and_file_names_as_written(hostile_db, monkeypatch):
    at = open_page(monkeypatch, hostile_db, "views/library.py")
    for game, only_in_it in ((LINKED, "![i]"), (BARE, ":red[x]")):
        at.text_input(key="library_search").input(only_in_it).run()
        assert_no_leak(at, f"library, {game} chosen")
        assert [shown(h.value) for h in at.subheader][0] == game  # shown as written
    at.file_uploader(key="library_upload").set_value(
        (f"{LINKED}.jsonl", b"not a replay file", "application/octet-stream")).run()
    assert at.error and f"Cannot add {LINKED}.jsonl" in shown(at.error[0].value)
    assert_no_leak(at, "library, a hostile file refused")


def test_the_play_landing_previews_hostile_games_as_written(hostile_db, monkeypatch):
    at = open_page(monkeypatch, hostile_db, "views/play.py")
    for game, texts in GAMES.items():
        at.selectbox(key="play_continue").set_value(game).run()
        assert_no_leak(at, f"the Continue preview of {game}")
        players = texts["players"]
        assert any(shown(c.value).startswith(f"{players['red']} (red) v {players['blue']} (blue)")
                   for c in at.caption), [c.value for c in at.caption]


def test_the_start_form_shows_a_hostile_scenario_file_as_written(hostile_db, monkeypatch):
    at = open_page(monkeypatch, hostile_db, "views/play.py")
    at.radio(key="play_what_next").set_value("Start a new game").run()
    at.radio(key="play_source").set_value("a scenario file").run()
    at.get("file_uploader")[0].set_value((f"{LINKED}.toml", b"title = [", "text/plain")).run()
    assert at.error and f"{LINKED}.toml" in shown(at.error[0].value)
    assert_no_leak(at, "a hostile scenario file refused")
    text = (ROOT / "scenarios" / "ancients-river-crossing.toml").read_text()
    title = next(line for line in text.splitlines() if line.startswith("title"))
    hostile = text.replace(title, 'title = "![i](http://host/x) :red[x] http://host/bare"', 1)
    at.get("file_uploader")[0].set_value(("ford.toml", hostile.encode(), "text/plain")).run()
    assert not at.error, [e.value for e in at.error]
    assert any(shown(c.value).startswith("![i](http://host/x) :red[x] http://host/bare (")
               for c in at.caption), [c.value for c in at.caption]
    assert_no_leak(at, "a hostile scenario file read")


def test_the_seed_is_asked_only_for_seeded_dice(hostile_db, monkeypatch):
    at = open_page(monkeypatch, hostile_db, "views/play.py")
    at.radio(key="play_what_next").set_value("Start a new game").run()
    assert at.number_input(key="play_seed")
    at.radio(key="play_dice_mode").set_value("manual").run()
    assert not [w for w in at.number_input if w.key == "play_seed"]


def test_the_rules_page_draws_no_markup_from_the_games(hostile_db, monkeypatch):
    assert_no_leak(open_page(monkeypatch, hostile_db, "views/rules.py"), "rules")


@pytest.mark.parametrize("game", list(GAMES))
def test_the_replay_header_shows_a_hostile_game_as_written(hostile_db, monkeypatch, game):
    """Opened by its address, ``?game=ID``, at the step of its note (``&event=SEQ``)."""
    monkeypatch.setenv("WARLOG_DB", str(hostile_db))
    with SQLiteEventStore(hostile_db) as store:
        last = store.read(game)[-1]
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    at.query_params["game"] = game
    at.query_params["event"] = str(last.get("about", last["seq"]))
    at.run()
    assert_no_leak(at, f"replay of {game}")
    assert [shown(t.value) for t in at.title] == [GAMES[game]["title"]]
    if game == LINKED:  # the note, at its step, is on the page (and was checked above)
        assert any(NOTE in shown(b.text) for b in markdown_bodies(at))


@pytest.mark.parametrize("address", [LINKED, LINKED + "x"])
def test_a_play_address_shows_its_hostile_id_as_written(hostile_db, monkeypatch, address):
    """``?play=ID``: an existing game (its header) and a missing one (the error box)."""
    monkeypatch.setenv("WARLOG_DB", str(hostile_db))
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    at.query_params["play"] = address
    at.run()
    at.switch_page("views/play.py").run()
    assert_no_leak(at, f"play of {address}")
