"""Every field has one rule and cap, applied at every door (issue 30).

The walk goes over every field of every event, order and scenario model, nested types and all,
and fails on text or a list, tuple or dict without a rule (events/fields.py's ``FieldRule``, or a
Literal): a field added later without one fails here. Then the hostile values the harness found
are tried at the doors that read them: a replay's event (``parse_event``, so import and verify),
a scenario (a file, a replay's first event), ``warlog note`` and the recorder's ``undo``.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from pydantic import ValidationError

from warlog.engine import field_table
from warlog.engine.fold import evolve
from warlog.engine.game import Game, start
from warlog.engine.scenario import ScenarioError, load_scenario, scenario_from_dict
from warlog.engine.verify import retraction, verify
from warlog.events import model
from warlog.events.ids import IdError, check_id
from warlog.events.model import EventError, make_note, parse_event
from warlog.events.orders import EndPhaseOrder, ShootOrder

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_NAMES = {
    "ESC": "Ann\x1b[2J",
    "right-to-left override": "Ann\u202eevil",
    "tab": "Ann\tBo",
    "no-break space": "Ann\u00a0Bo",
    "empty": "",
    "300 characters": "A" * 300,
    "1,000,000 characters": "A" * 1_000_000,
}


def test_every_text_list_tuple_and_dict_field_has_a_rule_or_a_cap():
    spots = list(field_table.every_field())
    bare = [f"{s.path}: {s.kind}" for s in spots if field_table.needs_rule(s.kind) and not s.rule]
    assert bare == []
    paths = {s.path for s in spots}
    # The walk reaches into every model: the envelope, nested types, orders, the scenario.
    for path in ("(every event).rules[]", "game_started.players{}", "note.author",
                 "order_given.order.unit", "order route.path", "scenario.units[].name",
                 "scenario.terrain{key}", "army_rolled.units[].type", "enemies_spotted.seen[][1]",
                 "order_retracted.by", "scenario.victory.objectives"):
        assert path in paths


def test_a_bare_field_would_fail_the_walk():
    from pydantic import BaseModel

    class Later(BaseModel):
        said: str
        cells: tuple[tuple[int, int], ...]

    spots = list(field_table.walk_model("later", Later))
    assert [s.path for s in spots if field_table.needs_rule(s.kind) and not s.rule] == \
        ["later.said", "later.cells"]


def test_the_docs_table_is_the_models_own():
    doc = (ROOT / "docs" / "replay-format.md").read_text("utf-8")
    assert field_table.with_table(doc) == doc, \
        "stale: run `python -m warlog.engine.field_table` to regenerate the table"
    for spot in field_table.every_field():
        if spot.rule is not None and ".order." not in spot.path:
            assert f"`{spot.path}`" in doc


def _started(players: dict, **extra) -> dict:
    scenario = load_scenario("ancients-river-crossing")
    first = start("g", scenario, dice="manual", players={"red": "Ann", "blue": "Bo"})[0]
    return {**first, "players": players, **extra}


@pytest.mark.parametrize("name", list(HOSTILE_NAMES.values()), ids=list(HOSTILE_NAMES))
def test_a_name_new_refuses_is_refused_in_a_file_too(name):
    with pytest.raises(IdError) as by_command:
        check_id(name, "player name")
    with pytest.raises(EventError) as by_file:
        parse_event(_started({"red": name, "blue": "Bo"}))
    message = str(by_file.value)
    assert "\n" not in message and len(message) < 300
    assert "field 'players.red'" in message and str(by_command.value) in message
    with pytest.raises(EventError, match="field 'by'"):
        parse_event({"kind": "order_given", "game": "g", "seq": 2, "turn": 1, "side": "red",
                     "order": {"type": "end_phase"}, "by": name})


@pytest.mark.parametrize("name", list(HOSTILE_NAMES.values()), ids=list(HOSTILE_NAMES))
def test_a_note_author_new_refuses_is_refused_by_note_and_in_a_file(name):
    events = [_started({"red": "Ann", "blue": "Bo"})]
    with pytest.raises(ValueError) as by_note:
        make_note(events, 1, "a fine start", author=name)
    assert "field 'author'" in str(by_note.value) and "\n" not in str(by_note.value)
    with pytest.raises(EventError, match="field 'author'"):
        parse_event({"kind": "note", "game": "g", "seq": 2, "turn": 0, "about": 1,
                     "text": "a fine start", "author": name})


@pytest.mark.parametrize(("field", "value", "words"), [
    ("title", "T" * 900_000, "the title is 900,000 characters long"),
    ("title", "Ford\u202e", "U+202E"),
    ("description", "a\x1b[2Jb", "U+001B"),
])
def test_scenario_text_is_held_to_its_rule(field, value, words):
    data = load_scenario("ancients-river-crossing").model_dump(mode="json")
    data[field] = value
    with pytest.raises(ScenarioError) as refused:
        scenario_from_dict(data, source="s.toml")
    assert refused.value.field == field and words in str(refused.value)
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 300


def test_a_scenario_of_120000_objectives_is_refused_where_it_loads():
    data = load_scenario("ancients-river-crossing").model_dump(mode="json")
    data["victory"]["objectives"] = [[1, 1]] * 120_000
    with pytest.raises(ScenarioError, match="victory.objectives: holds 120000 items; at most 1600"):
        scenario_from_dict(data, source="s.toml")


def test_a_forged_megabyte_consequence_is_refused_as_it_is_read():
    for kind, extra in [("unit_removed", {"unit": "u" * 1_000_000, "hits": 3}),
                        ("dice_rolled", {"purpose": "p" * 1_000_000, "faces": [3]}),
                        ("phase_started", {"rules": ["r" * 1_000_000]})]:
        with pytest.raises(EventError) as refused:
            parse_event({"kind": kind, "game": "g", "seq": 5, "turn": 1, **extra})
        assert len(str(refused.value)) < 300


def _retracting_game(times: int) -> list[dict]:
    """A table game in which red announces a shot and takes it back ``times`` times."""
    from builders import tiny_scenario

    scenario = tiny_scenario([("a", "red", "Archers", (1, 1), "E"),
                              ("x", "blue", "Cavalry", (4, 1), "W")])
    game = Game(start("t", scenario, dice="manual", players={"red": "Ann", "blue": "Bob"}))
    game.play(EndPhaseOrder(), by="Ann")
    events, state = list(game.events), copy.deepcopy(game.state)
    for _ in range(times):
        event = retraction(state, ShootOrder(unit="a", target="x"), "Ann")
        evolve(state, event)
        events.append(event)
    return events


def test_withdrawn_orders_are_capped_by_verify(monkeypatch):
    events = _retracting_game(3)
    assert verify(events).ok
    monkeypatch.setattr(model, "MAX_RETRACTIONS", 2)
    report = verify(events)
    assert report.mismatch.seq == events[-1]["seq"]
    assert "a game holds at most 2 withdrawn orders" in report.mismatch.message


def test_record_undo_says_what_verify_says(tmp_path, monkeypatch):
    from warlog.events.sqlite_store import SQLiteEventStore
    from warlog.app.errors import PlayError
    from warlog.app.recorder import Recorder
    from builders import table_game

    from builders import tiny_scenario

    monkeypatch.setattr(model, "MAX_RETRACTIONS", 1)
    scenario = tiny_scenario([("a", "red", "Archers", (1, 1), "E"),
                              ("x", "blue", "Cavalry", (4, 1), "W")])
    with SQLiteEventStore(tmp_path / "a.db") as store:
        table_game(store, scenario, "g", players={"red": "Ann", "blue": "Bob"})
        rec = Recorder(store, "g")
        rec.give(EndPhaseOrder())
        shot = ShootOrder(unit="a", target="x")
        assert rec.give(shot) is None  # waits for its die
        rec.undo()
        assert rec.give(shot) is None
        with pytest.raises(PlayError, match="cannot undo: a game holds at most 1 withdrawn"):
            rec.undo()


def test_the_models_refuse_what_the_engine_never_makes():
    with pytest.raises(ValidationError):
        model.GameEnded(game="g", seq=2, turn=1, winner=None, reason="x" * 301)
    with pytest.raises(ValidationError):
        model.StateChecksum(game="g", seq=2, turn=1, sha256="not a digest")


def test_report_writes_no_raw_bidi_or_invisible_character_from_a_log():
    from warlog.report import report_html

    events = _retracting_game(0)
    events[0] = {**events[0], "players": {"red": "Ann\u202eevil", "blue": "Bo\u2066b"}}
    events.append({"kind": "note", "game": "t", "seq": len(events) + 1, "turn": 1,
                   "side": None, "phase": None, "v": 3, "cause": None, "rules": [],
                   "about": 2, "text": "look\u2067 \x1b[2J", "author": "Ann\u202e"})
    page = report_html(events)
    for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\x1b":
        assert ch not in page
    assert "Ann\\u202eevil" in page and "look\\u2067" in page
