"""The fold: evolve writes down what events say; replay and Timeline agree at every point."""

from __future__ import annotations

import copy

import pytest

from warlog.engine.bots import play_out
from warlog.engine.fold import DivergenceError, FoldError, Timeline, evolve, replay
from warlog.engine.game import start
from warlog.engine.scenario import load_scenario

from builders import tiny_scenario


@pytest.fixture(scope="module")
def events():
    return play_out("g", load_scenario("ancients-village-between-marshes"), seed=3).events


def test_replay_upto_and_timeline_agree_everywhere(events):
    timeline = Timeline(events)
    for i in range(0, len(events), 7):
        assert timeline.state_at(i).public() == replay(events, upto=events[i]["seq"]).public()
    assert timeline.final.public() == replay(events).public()
    with pytest.raises(IndexError):
        timeline.state_at(len(events))


def test_fold_applies_moves_hits_and_removals(events):
    state = replay(events)
    for e in events:
        if e["kind"] == "unit_removed":
            assert state.units[e["unit"]].removed
    last_total = {}
    for e in events:
        if e["kind"] == "hits_inflicted":
            last_total[e["target"]] = e["total"]
    for unit, total in last_total.items():
        assert state.units[unit].hits == total
    moved = [e for e in events if e["kind"] == "unit_moved"]
    unit = moved[-1]["unit"]
    last_cell = [e["to_cell"] for e in moved if e["unit"] == unit][-1]
    assert list(state.units[unit].cell) == last_cell


def test_a_wrong_checksum_is_divergence(events):
    edited = copy.deepcopy(events)
    i = next(i for i, e in enumerate(edited) if e["kind"] == "state_checksum")
    j = next(j for j in range(i) if edited[j]["kind"] == "unit_moved")
    edited[j]["to_cell"] = [0, 0]
    with pytest.raises(DivergenceError, match=f"event seq {edited[i]['seq']}"):
        replay(edited)
    assert replay(edited, check=False).seq == edited[-1]["seq"]


def test_bad_logs_raise_fold_errors(events):
    with pytest.raises(FoldError, match="game_started"):
        replay(events[1:])
    with pytest.raises(FoldError, match="no events"):
        replay([])
    with pytest.raises(FoldError, match="only once"):
        evolve(replay(events[:1]), events[0])
    bad = dict(events[5], kind="unit_moved", unit="nobody", to_cell=[0, 0])
    with pytest.raises(FoldError, match="no unit 'nobody'"):
        evolve(replay(events[:5]), bad)


def test_copy_is_independent(events):
    state = replay(events[:30])
    twin = state.copy()
    unit = next(iter(twin.units.values()))
    unit.hits += 5
    twin.melees.append(("a", "b"))
    assert state.units[unit.id].hits == unit.hits - 5
    assert ("a", "b") not in state.melees


@pytest.mark.parametrize("change,words", [
    ({"halving": "bogus"}, "options.halving: 'bogus' is not one of"),
    ({"hits_to_remove": "10"}, "options.hits_to_remove: expected a whole number"),
    ({"fog_of_war": True}, "options.fog_of_war: unknown option"),
    ({"square": True}, "options.square: applies only to horse_and_musket"),
    ({"hits_to_remove": 12}, "options.hits_to_remove is 12, but the game's scenario says 10"),
])
def test_a_game_whose_recorded_options_are_not_valid_does_not_fold(change, words):
    """A game's first event records every option in force: an edited, unknown, misplaced or
    missing option is refused by name, wherever the log came from."""
    first = start("g", tiny_scenario([("a", "red", "Infantry", (0, 0), "E"),
                                      ("b", "blue", "Infantry", (5, 5), "W")]))[0]
    bad = {**first, "options": {**first["options"], **change}}
    with pytest.raises(FoldError, match=words):
        evolve(None, bad)
    missing = {**first, "options": {k: v for k, v in first["options"].items() if k != "halving"}}
    with pytest.raises(FoldError, match="options.halving: missing"):
        evolve(None, missing)
