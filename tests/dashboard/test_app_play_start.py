"""The Play page's start form (dashboard/play_start.py, AppTest): a scenario file, the options with
their rules, the date played, a manual-dice opening that rolls dice asked die by die; and the
options module under it (dashboard/play_options.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from app_pages import db_holding_a_game, open_page
from markup_probe import shown

from warlog.dashboard.play_options import option_rows, with_options
from warlog.engine.rules import catalogue
from warlog.engine.scenario import ScenarioError, bundled_scenarios, load_scenario
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def page(tmp_path, monkeypatch) -> tuple[AppTest, Path]:
    db = db_holding_a_game(tmp_path / "start.db")
    at = open_page(monkeypatch, db, "views/play.py")
    at.radio(key="play_what_next").set_value("Start a new game").run()  # held: Continue first
    return at, db


def landing_board(at: AppTest) -> ET.Element:
    """The one board on the Play page's landing (the game offered to continue): a still
    picture, no plotly chart (plotly.js is loaded only with the board played on)."""
    assert not at.get("plotly_chart")
    pictures = [m.value for m in at.markdown if 'data-board="still"' in m.value]
    assert len(pictures) == 1
    return ET.fromstring(pictures[0])


def test_an_unfinished_game_is_offered_first_and_the_start_form_on_request(tmp_path,
                                                                          monkeypatch):
    db = db_holding_a_game(tmp_path / "start.db")
    at = open_page(monkeypatch, db, "views/play.py")
    assert at.radio(key="play_what_next").value == "Continue a game"
    assert at.selectbox(key="play_continue").value == "held"
    captions = [shown(c.value) for c in at.caption]  # markdown-escaped: the game's text
    assert any(c.startswith("Cy (red) v Di (blue) · played 2026-12-01 · ")
               for c in captions), captions  # which game it is, before it is opened
    assert not [w for w in at.selectbox if w.key == "play_scenario"]  # the form is not drawn
    picture = landing_board(at)  # where it stands: every unit of the game, by its hover text
    with SQLiteEventStore(db) as store:
        units = {u["id"] for u in store.read("held")[0]["scenario"]["units"]}
    tips = [t.text for t in picture.iter("{http://www.w3.org/2000/svg}title")]
    assert tips[0] == "The board of held"
    units_group = picture.iter("{http://www.w3.org/2000/svg}g")
    drawn = [t.text for g in units_group if g.get("data-role") == "units"
             for t in g.iter("{http://www.w3.org/2000/svg}title")]
    assert {tip.split(" ", 1)[0].split("\n", 1)[0] for tip in drawn} == units
    at.radio(key="play_what_next").set_value("Start a new game").run()
    assert not [m for m in at.markdown if 'data-board="still"' in m.value]
    assert at.selectbox(key="play_scenario") and not [
        w for w in at.selectbox if w.key == "play_continue"]
    at.radio(key="play_what_next").set_value("Continue a game").run()
    at.button(key="play_continue_go").click().run()
    assert not at.exception and at.session_state["play_game"] == "held"


def test_a_game_that_does_not_fold_is_offered_with_a_line_not_a_traceback(tmp_path,
                                                                         monkeypatch):
    """A stored game the engine refuses to fold (a database changed outside warlog, or a rule
    system changed since) is still offered; its board is a line saying why."""
    from warlog.dashboard import data
    from warlog.engine.fold import FoldError

    def refuse(events):
        raise FoldError(f"event 2 of {len(events)} does not fold")

    monkeypatch.setattr(data, "replay", refuse)
    at = open_page(monkeypatch, db_holding_a_game(tmp_path / "start.db"), "views/play.py")
    assert at.selectbox(key="play_continue").value == "held"
    assert not [m for m in at.markdown if 'data-board="still"' in m.value]
    said = [c.value for c in at.caption if c.value.startswith("Its board cannot be drawn")]
    assert said == ["Its board cannot be drawn: event 2 of 2 does not fold"], \
        [c.value for c in at.caption]


def test_with_no_unfinished_game_the_start_form_is_all_there_is(tmp_path, monkeypatch):
    db = tmp_path / "start.db"
    from warlog.engine.bots import play_out

    done = play_out("done", load_scenario("ancients-river-crossing"), seed=1).events
    with SQLiteEventStore(db) as store:  # a finished game: no demo games, nothing to continue
        store.append("done", done, 0)
    at = open_page(monkeypatch, db, "views/play.py")
    assert not [w for w in at.radio if w.key == "play_what_next"]
    assert at.selectbox(key="play_scenario")


def games(db: Path) -> dict[str, list]:
    """The games the page stored (all but the one the fixture held)."""
    with SQLiteEventStore(db) as store:
        return {info.id: store.read(info.id) for info in store.games() if info.id != "held"}


def people(at: AppTest, sides=("red", "blue")) -> None:
    for side in sides:
        at.radio(key=f"play_seat_{side}").set_value("person")
    at.run()
    for side, name in zip(sides, ("Ann", "Bo")):
        at.text_input(key=f"play_name_{side}").set_value(name)


def test_every_option_of_every_system_shows_its_rule():
    for scenario in bundled_scenarios():
        rows = option_rows(scenario)
        assert rows, scenario.id
        for row in rows:
            assert row.value == scenario.options[row.name]
            if row.rule is not None and row.rule in catalogue():
                assert catalogue()[row.rule].text in row.words()
                assert ("interpretation" in row.words()) == row.interpretation


def test_with_options_checks_values_as_a_scenario_file_does():
    scenario = load_scenario("ancients-river-crossing")
    assert with_options(scenario, dict(scenario.options)) is scenario
    changed = with_options(scenario, {"hits_to_remove": 15})
    assert changed.options["hits_to_remove"] == 15 and scenario.options["hits_to_remove"] == 10
    with pytest.raises(ScenarioError, match="hits_to_remove"):
        with_options(scenario, {"hits_to_remove": 1000})


def test_a_game_starts_with_the_options_and_date_chosen(page):
    at, db = page
    at.selectbox(key="play_scenario").set_value("ancients-river-crossing").run()
    people(at)
    key = "play_option_ancients-river-crossing_hits_to_remove"
    assert "Rule ohw.removal" in at.number_input(key=key).help
    at.number_input(key=key).set_value(15)
    at.date_input(key="play_played").set_value("2026-11-28")
    at.number_input(key="play_seed").set_value(4)
    at.button(key="play_start").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (events,) = games(db).values()
    first = events[0]
    assert first["options"]["hits_to_remove"] == 15
    assert first["played"] == "2026-11-28" and first["seed"] == 4
    assert first["players"] == {"red": "Ann", "blue": "Bo"}


def test_a_scenario_file_is_played_and_a_bad_one_says_why(page):
    at, db = page
    at.radio(key="play_source").set_value("a scenario file").run()
    uploader = at.get("file_uploader")[0]
    uploader.set_value(("bad.toml", b"title = [", "application/toml")).run()
    assert not at.exception
    assert at.error and "bad.toml" in shown(at.error[0].value) and "TOML" in at.error[0].value
    text = (ROOT / "scenarios" / "ancients-river-crossing.toml").read_bytes()
    at.get("file_uploader")[0].set_value(("My Ford.toml", text, "application/toml")).run()
    assert not at.exception and not at.error
    people(at)
    at.button(key="play_start").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (events,) = games(db).values()
    assert events[0]["scenario"]["id"] == "my-ford"
    assert at.session_state["play_game"] == events[0]["game"]


def test_a_manual_opening_asks_each_die_with_what_it_is_for(page):
    at, db = page
    rolled = next(s for s in bundled_scenarios() if s.armies)
    at.selectbox(key="play_scenario").set_value(rolled.id).run()
    people(at)
    at.radio(key="play_dice_mode").set_value("manual").run()
    at.button(key="play_start").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert not games(db)  # nothing stored while the opening waits for its dice
    for _ in range(20):
        if "play_game" in at.session_state:
            break
        assert at.info and "Roll die" in at.info[0].value, [i.value for i in at.info]
        assert "army" in at.info[0].value or "for" not in at.info[0].value
        faces = [b for b in at.button if (b.key or "").startswith("play_opening_face_")
                 and b.label == "3"]
        faces[0].click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    (events,) = games(db).values()
    rolls = [e for e in events if e["kind"] == "dice_rolled"]
    assert rolls and all(face == 3 for e in rolls for face in e["faces"]), rolls
    assert events[0]["dice"] == "manual"
    assert verify(events).ok
