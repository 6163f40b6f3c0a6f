"""The inputs of a game (engine/inputs.py): a table game's dice, an order's signature, a note's
envelope. Each forged file is rechained as a forger would, so that only verify can see it, and
goes through import as a user's file does: refused, with the field named, and nothing stored."""

from __future__ import annotations

import copy

import pytest
from builders import tiny_scenario

from warlog.engine.dice import ManualDice, RecordedDice, DiceError
from warlog.engine.game import Game, start
from warlog.engine.verify import NotRederived, require_rederived, verify
from warlog.events import model
from warlog.events.orders import EndPhaseOrder, MoveOrder, ShootOrder
from warlog.events.replay_file import import_replay, write_replay
from warlog.events.sqlite_store import SQLiteEventStore


@pytest.fixture(scope="module")
def table_game() -> list[dict]:
    """A two-turn table game (manual dice) with named players, signed as the recorder signs."""
    scenario = tiny_scenario([("a", "red", "Archers", (1, 1), "E"),
                              ("x", "blue", "Cavalry", (4, 1), "W")])
    game = Game(start("t", scenario, dice="manual", players={"red": "Ann", "blue": "Bob"}))
    game.play(EndPhaseOrder(), by="Ann")
    game.play(ShootOrder(unit="a", target="x"), by="Ann", dice=ManualDice([5]))
    while game.state.to_act == "red":
        game.play(EndPhaseOrder(), by="Ann")
    game.play(MoveOrder(unit="x", facing="W", distance=1), by="Bob")
    return game.events


def _index(events: list[dict], kind: str, start: int = 0) -> int:
    return next(i for i, e in enumerate(events) if i >= start and e["kind"] == kind)


def _refused_on_import(tmp_path, events: list[dict]) -> str:
    """Write ``events`` as a rechained replay, import it: return the refusal; nothing stored."""
    path = tmp_path / "forged.jsonl"
    write_replay(path, events)
    with SQLiteEventStore(tmp_path / "games.db") as store:
        with pytest.raises(NotRederived) as refused:
            import_replay(store, path, check=require_rederived)
        assert store.games() == []
    return str(refused.value)


def test_the_table_game_is_genuine(table_game):
    report = verify(table_game)
    assert report.ok, report.mismatch
    assert report.dice == "manual"


@pytest.mark.parametrize("face", [6000, 0, -9, 7])
def test_a_die_face_outside_its_sides_is_refused(tmp_path, table_game, face):
    forged = copy.deepcopy(table_game)
    dice = _index(forged, "dice_rolled")
    forged[dice]["faces"] = [face]
    message = _refused_on_import(tmp_path, forged)
    assert f"event seq {forged[dice]['seq']} (dice_rolled)" in message
    assert f"a d6 shows 1 to 6, not {face}" in message


def test_every_face_from_one_to_six_is_a_face(table_game):
    for face in range(1, 7):
        assert RecordedDice([face]).roll(6) == face
    with pytest.raises(DiceError, match="a d4 shows 1 to 4, not 5"):
        RecordedDice([5]).roll(4)


def test_an_order_signed_by_a_third_name_is_refused(tmp_path, table_game):
    forged = copy.deepcopy(table_game)
    blue = next(i for i, e in enumerate(forged)
                if e["kind"] == "order_given" and e["side"] == "blue")
    forged[blue]["by"] = "Mallory"
    message = _refused_on_import(tmp_path, forged)
    assert "signed by 'Mallory'" in message and "played by 'Bob'" in message


def test_an_order_signed_by_the_other_side_player_is_refused(table_game):
    forged = copy.deepcopy(table_game)
    blue = next(i for i, e in enumerate(forged)
                if e["kind"] == "order_given" and e["side"] == "blue")
    forged[blue]["by"] = "Ann"
    report = verify(forged)
    assert not report.ok and report.mismatch.seq == forged[blue]["seq"]


def test_an_unsigned_order_is_still_a_person_order(table_game):
    unsigned = copy.deepcopy(table_game)
    for event in unsigned:
        if event["kind"] == "order_given":
            event["by"] = None
    assert verify(unsigned).ok


def _with_note(events: list[dict], about: int, **envelope) -> list[dict]:
    note = model.make_note(events, about, "the archers open up")
    return [*copy.deepcopy(events), {**note, **envelope}]


def test_a_note_made_by_warlog_verifies(table_game):
    assert verify(_with_note(table_game, 3)).ok


@pytest.mark.parametrize("envelope", [
    {"turn": 2**62}, {"turn": 0}, {"side": "blue"}, {"phase": "shooting"}, {"cause": 1},
    {"rules": ["ohw.shooting"]},
])
def test_a_note_envelope_other_than_its_event_is_refused(tmp_path, table_game, envelope):
    forged = _with_note(table_game, 3, **envelope)
    message = _refused_on_import(tmp_path, forged)
    assert f"event seq {forged[-1]['seq']} (note)" in message
    assert next(iter(envelope)) in message


def test_a_blank_note_and_a_note_about_itself_are_refused(table_game):
    blank = _with_note(table_game, 3, text="   ")
    assert "the note is blank" in verify(blank).mismatch.message
    itself = _with_note(table_game, 3)
    itself[-1]["about"] = itself[-1]["seq"]
    assert "does not come before it" in verify(itself).mismatch.message


def test_a_game_holds_at_most_max_notes(monkeypatch, table_game):
    monkeypatch.setattr(model, "MAX_NOTES", 3)
    events = copy.deepcopy(table_game)
    for _ in range(3):
        events.append(model.make_note(events, 2, "a note"))
    assert verify(events).ok
    with pytest.raises(ValueError, match="already holds 3 notes"):
        model.make_note(events, 2, "one too many")
    over = [*events, {**events[-1], "seq": events[-1]["seq"] + 1}]
    report = verify(over)
    assert not report.ok and "at most 3 notes" in report.mismatch.message
