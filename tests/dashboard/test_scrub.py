"""The scrubbing controls move through a game's steps by step, phase and turn."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from warlog.dashboard.scrub import MOVES, target
from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario


@dataclass(frozen=True)
class S:
    index: int
    turn: int
    side: str | None
    phase: str | None


# opening; turn 1 red movement x2, red shooting; turn 1 blue movement; turn 2 red movement x2
STEPS = [S(0, 0, None, None), S(1, 1, "red", "movement"), S(2, 1, "red", "movement"),
         S(3, 1, "red", "shooting"), S(4, 1, "blue", "movement"), S(5, 2, "red", "movement"),
         S(6, 2, "red", "movement")]


@pytest.mark.parametrize("index,move,expected", [
    (3, "first", 0), (3, "last", 6), (3, "prev_step", 2), (3, "next_step", 4),
    (0, "prev_step", 0), (6, "next_step", 6),
    (1, "next_phase", 3), (2, "next_phase", 3), (3, "next_phase", 4), (4, "next_phase", 5),
    (6, "next_phase", 6),
    (2, "prev_phase", 1),  # inside a phase: back to its start
    (1, "prev_phase", 0), (3, "prev_phase", 1), (5, "prev_phase", 4),
    (1, "next_turn", 5), (4, "next_turn", 5), (0, "next_turn", 1), (6, "next_turn", 6),
    (6, "prev_turn", 5), (5, "prev_turn", 1), (3, "prev_turn", 1), (1, "prev_turn", 0),
])
def test_each_move_lands_where_a_reader_expects(index, move, expected):
    assert target(STEPS, index, move) == expected


def test_every_move_from_every_step_of_a_real_game_stays_in_the_game():
    events = play_out("s", load_scenario("ancients-river-crossing"), seed=7).events
    steps = analysis.steps(events)
    for i in range(len(steps)):
        for move in MOVES:
            j = target(steps, i, move)
            assert 0 <= j < len(steps)
            if move == "next_turn" and j != i:
                assert steps[j].turn == steps[i].turn + 1 and steps[j - 1].turn == steps[i].turn
            if move == "next_phase" and j != i:
                assert (steps[j].turn, steps[j].side, steps[j].phase) != (
                    steps[i].turn, steps[i].side, steps[i].phase)


def test_a_click_on_a_chart_point_goes_to_the_first_step_of_its_turn():
    from warlog.dashboard.scrub import step_of_click

    assert step_of_click(STEPS, {"selection": {"points": [{"x": 2, "y": 5}]}}) == 5
    assert step_of_click(STEPS, {"selection": {"points": [{"x": 1.0}]}}) == 1
    assert step_of_click(STEPS, {"selection": {"points": [{"x": 9}]}}) == 6  # past the end: last
    assert step_of_click(STEPS, {"selection": {"points": []}}) is None
    assert step_of_click(STEPS, None) is None
    assert step_of_click(STEPS, {"selection": {"points": [{"x": "red"}]}}) is None


# -- one numbering: event numbers (seq) as the command line speaks them ---------------------------


@pytest.fixture(scope="module")
def noted():
    """A played game with a note appended at its end about an event of its 10th step."""
    from warlog.events.model import make_note

    events = play_out("n", load_scenario("ancients-river-crossing"), seed=7).events
    about = events[analysis.steps(events)[9].first + 1]["seq"]
    return events + [make_note(events, about, "here")]


def test_each_event_number_opens_the_step_that_holds_it(noted):
    from warlog.dashboard.scrub import event_span, step_of_event

    steps = analysis.steps(noted)
    for s in steps:
        for i in range(s.first, s.last + 1):
            if noted[i]["kind"] != "note":
                assert step_of_event(steps, noted, noted[i]["seq"]) == s.index
        first, last = noted[s.first]["seq"], noted[s.last]["seq"]
        assert event_span(noted, s) == (f"event {first}" if first == last
                                        else f"events {first}–{last}")
    # a note opens the step it is about, where the page shows it, not where it was appended
    assert step_of_event(steps, noted, noted[-1]["seq"]) == 9
    assert step_of_event(steps, noted, noted[-1]["seq"] + 1) is None
    assert step_of_event(steps, noted, 0) is None


def test_an_address_opens_its_step_or_says_what_is_wrong(noted):
    from warlog.dashboard.scrub import linked_step

    steps = analysis.steps(noted)
    n, last_seq = len(steps), noted[-1]["seq"]
    seq = noted[steps[12].first + 1]["seq"]
    assert linked_step(steps, noted, str(seq), None) == (12, None)
    assert linked_step(steps, noted, str(seq), "13") == (12, None)  # as the page writes it
    index, said = linked_step(steps, noted, str(seq), "3")  # the event wins, and it is said
    assert index == 12 and said == (f"The address names step 3 and event {seq}, which is in "
                                    "step 13: showing step 13.")
    assert linked_step(steps, noted, None, "3") == (2, None)  # old links: steps from 1
    assert linked_step(steps, noted, None, str(n)) == (n - 1, None)
    assert linked_step(steps, noted, None, None) == (None, None)

    index, said = linked_step(steps, noted, None, str(n + 16))
    assert index == n - 1
    assert said == (f"This game has {n} steps: step {n + 16} does not exist; showing the last "
                    "step.")
    index, said = linked_step(steps, noted, None, "0")
    assert index == 0 and "step 0 does not exist; showing the first step" in said
    index, said = linked_step(steps, noted, str(last_seq + 5), None)
    assert index == n - 1
    assert said == (f"This game's events are numbered 1–{last_seq}: event {last_seq + 5} does "
                    "not exist; showing the last step.")
    for bad in ("twelve", "", "4.5"):
        index, said = linked_step(steps, noted, bad, None)
        assert index == 0 and f"event {bad!r}, which is not an event number" in said
        index, said = linked_step(steps, noted, None, bad)
        assert index == 0 and f"step {bad!r}, which is not a step number" in said
    index, said = linked_step(steps, noted, None, "x" * 500)  # an address's text is cut short
    assert len(said) < 200
