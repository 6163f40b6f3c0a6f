"""Notes cost the report and the charts nothing per turn they name (issue 19): before, notes about
turns 1, 2, 1, 2 ... made the report draw a board each (300 notes: 37 s, 1,000 did not finish),
and one note with turn 2**62 made every per-turn chart range over 2**62 turns (MemoryError)."""

from __future__ import annotations

import copy

import pytest

from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.model import make_note
from warlog.report import _turn_ends


@pytest.fixture(scope="module")
def played() -> list[dict]:
    return play_out("n", load_scenario("ancients-river-crossing"), seed=3).events


def _alternating_notes(events: list[dict], count: int) -> list[dict]:
    turn_1 = next(e["seq"] for e in events if e["turn"] == 1)
    turn_2 = next(e["seq"] for e in events if e["turn"] == 2)
    out = copy.deepcopy(events)
    for n in range(count):
        out.append(make_note(out, turn_1 if n % 2 == 0 else turn_2, f"note {n}"))
    return out


def test_alternating_notes_add_no_board(played):
    noted = _alternating_notes(played, 300)
    assert _turn_ends(noted) == _turn_ends(played)
    assert len(_turn_ends(played)) == played[-1]["turn"] + 1


def test_a_note_far_in_the_future_does_not_stretch_the_charts(played):
    forged = copy.deepcopy(played)
    forged.append({**make_note(forged, 2, "far away"), "turn": 2**62})
    turns = {row["turn"] for row in analysis.attrition(forged)}
    assert max(turns) == played[-1]["turn"]
    assert max(row["turn"] for row in analysis.luck_by_turn(forged)) <= played[-1]["turn"]
