"""A tabletop game started and recorded into a real database through the application's one start
function (warlog/app/start.py) and one order writer (warlog/app/recorder.py): the rules referee
every order, the real dice are entered, a stale append fails whole, and the record verifies."""

from __future__ import annotations

import pytest

from warlog.engine.dice import DiceError
from warlog.engine.rules import IllegalOrder
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.orders import EndPhaseOrder, MoveOrder, ShootOrder
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError
from warlog.app.errors import PlayError, SeatError
from warlog.app.recorder import Recorder
from warlog.app.start import free_game_id
from warlog.app.table_dice import OpeningDiceNeeded
from warlog.engine.game import Game

from builders import table_game as new_game
from builders import tiny_scenario

SCENARIO = load_scenario("ancients-river-crossing")
PLAYERS = {"red": "Ann", "blue": "Bo"}


def record(store, game_id: str, order, faces: list[int] | None = None) -> list[dict]:
    """One order given whole, as `warlog order` gives it: the events appended."""
    new = Recorder(store, game_id).give(order, faces)
    assert new is not None, "the order waits for more dice"
    return new


def load(store, game_id: str) -> Game:
    return Game(store.read(game_id))


@pytest.fixture
def store(tmp_path):
    with SQLiteEventStore(tmp_path / "t.db") as s:
        yield s


@pytest.fixture
def game_id(store):
    game = free_game_id(store, SCENARIO)
    new_game(store, SCENARIO, game, players=PLAYERS)
    return game


def test_game_ids_count_up_and_bot_names_are_refused(store, game_id):
    assert game_id == "ancients-river-crossing-1"
    assert free_game_id(store, SCENARIO) == "ancients-river-crossing-2"
    with pytest.raises(SeatError, match="bot policy"):
        new_game(store, SCENARIO, "x", players={"red": "random", "blue": "Bo"})
    assert not store.has_game("x")


def test_orders_are_signed_by_their_player_and_the_record_verifies(store, game_id):
    record(store, game_id, MoveOrder(unit="r-inf-1", facing="E", distance=3))
    record(store, game_id, EndPhaseOrder())  # red: movement over
    record(store, game_id, EndPhaseOrder())  # red: no shooting
    record(store, game_id, MoveOrder(unit="b-skm-1", facing="W", distance=2))
    state = load(store, game_id).state
    assert (state.turn, state.side, state.phase) == (1, "blue", "movement")
    assert state.units["r-inf-1"].cell == (4, 2)  # 2 + 1 along the road
    events = store.read(game_id)
    assert [e["by"] for e in events if e["kind"] == "order_given"] == ["Ann", "Ann", "Ann", "Bo"]
    assert verify(events).ok


def test_a_shot_takes_the_die_the_player_rolled(store):
    scenario = tiny_scenario([("a", "red", "Archers", (1, 1), "E"),
                              ("x", "blue", "Cavalry", (4, 1), "W")])
    new_game(store, scenario, "d", players=PLAYERS)
    record(store, "d", EndPhaseOrder())
    before = store.last_seq("d")
    waiting = Recorder(store, "d")
    assert waiting.give(ShootOrder(unit="a", target="x"), []) is None  # it waits for its die
    assert waiting.pending is not None and waiting.pending.wanted == 1
    with pytest.raises(DiceError, match="rolls 1 dice but 2 were given"):
        record(store, "d", ShootOrder(unit="a", target="x"), [6, 6])
    with pytest.raises(IllegalOrder, match="ohw.turn"):
        record(store, "d", ShootOrder(unit="x", target="a"), [4])
    assert store.last_seq("d") == before  # nothing half-written
    hits = record(store, "d", ShootOrder(unit="a", target="x"), [5])[-1]
    assert (hits["die"], hits["modifier"], hits["hits"], hits["total"]) == (5, 0, 5, 5)
    assert verify(store.read("d")).ok


def test_a_stale_recorder_fails_whole(tmp_path, store, game_id):
    with SQLiteEventStore(tmp_path / "t.db") as other:
        stale = load(other, game_id)  # read before the first recorder appends
        record(store, game_id, MoveOrder(unit="r-inf-1", facing="E", distance=1))
        events = stale.play(MoveOrder(unit="r-inf-2", facing="E", distance=1))
        with pytest.raises(ConcurrencyError, match="reload and try again"):
            other.append(game_id, events, stale.events[-len(events) - 1]["seq"])
    assert [e["order"]["unit"] for e in store.read(game_id) if e["kind"] == "order_given"] == [
        "r-inf-1"]


def test_a_seeded_recording_rolls_its_own_dice(store):
    new_game(store, SCENARIO, "s", players=PLAYERS, dice="seeded", seed=3)
    record(store, "s", EndPhaseOrder())
    with pytest.raises(DiceError, match="rolls its own dice"):
        record(store, "s", ShootOrder(unit="r-arc-1", target="b-skm-1"), [4])
    drawn = new_game(store, SCENARIO, "t", players=PLAYERS, dice="seeded")[0]["seed"]
    assert isinstance(drawn, int)  # no seed given: one read from the OS at the edge, recorded


def _rolled_army_scenario():
    from warlog.engine.scenario import scenario_from_dict

    return scenario_from_dict({
        "id": "rolled", "title": "Rolled", "rule_system": "ohw", "period": "medieval",
        "first": "red", "grid": {"kind": "square", "width": 8, "height": 6},
        "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
        "units": [{"id": "b-kn", "side": "blue", "type": "Knights", "cell": [7, 2], "facing": "W"}],
        "armies": {"red": {"units": 3, "cells": [[0, 1], [0, 2], [0, 3]], "facing": "E"}},
    }, source="test")


def test_a_rolled_army_is_recorded_from_the_real_die_and_verifies(store):
    scenario = _rolled_army_scenario()
    with pytest.raises(OpeningDiceNeeded, match="roll die 1 \\(d6\\)") as needed:
        new_game(store, scenario, "g", players=PLAYERS)
    assert needed.value.die.number == 1
    with pytest.raises(DiceError, match="rolled 1 dice but 2 were given"):
        new_game(store, scenario, "g", players=PLAYERS, opening_dice=[4, 2])
    assert not store.has_game("g")
    new_game(store, scenario, "g", players=PLAYERS, opening_dice=[4])  # 3 units, 4: A2 B1
    state = load(store, "g").state
    assert [(u.id, u.type, u.cell) for u in state.alive("red")] == [
        ("r-knights-1", "Knights", (0, 1)), ("r-knights-2", "Knights", (0, 2)),
        ("r-archers-1", "Archers", (0, 3))]
    record(store, "g", MoveOrder(unit="r-knights-1", facing="E", distance=4))
    assert verify(store.read("g")).ok


def test_an_order_for_a_side_a_bot_plays_is_refused_and_nothing_is_written(store):
    from warlog.engine.bots import play_out

    game = play_out("sim", SCENARIO, seed=1, red="aggressive", blue="cautious")
    cut = next(i for i, e in enumerate(game.events) if e["kind"] == "order_given")
    store.append("sim", game.events[:cut], 0)
    before = store.read("sim")
    with pytest.raises(PlayError, match="played by the aggressive bot"):
        record(store, "sim", EndPhaseOrder())
    assert store.read("sim") == before


def test_a_shot_with_real_dice_is_taken_back_and_the_record_verifies(tmp_path, store):
    """issue 39: the side's orders since the other side last ordered, taken back by an event;
    the real die entered stays in the log (voided), the shot is given again with another die,
    and verify re-derives both. A stale recorder's take-back fails whole; an order waiting for
    its dice is undone, not taken back."""
    scenario = tiny_scenario([("a", "red", "Archers", (1, 1), "E"),
                              ("x", "blue", "Cavalry", (4, 1), "W")])
    new_game(store, scenario, "d", players=PLAYERS)
    record(store, "d", EndPhaseOrder())  # red's move phase ends: red shoots next
    shot = record(store, "d", ShootOrder(unit="a", target="x"), [6])
    assert shot[-1]["hits"] == 6
    with SQLiteEventStore(tmp_path / "t.db") as other:
        stale = Recorder(other, "d")
        taken = Recorder(store, "d").take_back()  # the side of the last order: red
        assert (taken["side"], taken["orders"], taken["by"]) == ("red", 1, "Ann")
        before = store.last_seq("d")
        with pytest.raises(ConcurrencyError):
            stale.take_back("red", 1)
        assert store.last_seq("d") == before
    waiting = Recorder(store, "d")
    assert waiting.state.to_act == "red" and waiting.state.units["x"].hits == 0
    assert waiting.give(ShootOrder(unit="a", target="x"), []) is None
    with pytest.raises(PlayError, match="waits for its dice: give them or undo it"):
        waiting.take_back()
    again = waiting.dice([2])
    assert again[-1]["hits"] == 2
    events = store.read("d")
    assert verify(events).ok
    assert load(store, "d").state.units["x"].hits == 2
    with pytest.raises(PlayError, match="cannot take back: blue has no order to take back"):
        Recorder(store, "d").take_back("blue")
