"""Dice sources: seeded dice are portable and resumable; recorded and manual dice refuse to invent."""

from __future__ import annotations

from collections import Counter

import pytest

from warlog.engine.dice import DiceError, ManualDice, RecordedDice, SeededDice, SplitMix64


def test_splitmix64_matches_the_reference_sequence():
    # The published test vector for splitmix64 seeded with 1234567 (Rosetta Code, "Splitmix64").
    rng = SplitMix64(1234567)
    assert [rng.next64() for _ in range(3)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423,
    ]


def test_seeded_dice_are_fair_enough_and_repeatable():
    a, b = SeededDice(42), SeededDice(42)
    faces = [a.roll() for _ in range(6000)]
    assert faces == [b.roll() for _ in range(6000)]
    counts = Counter(faces)
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(900 < n < 1100 for n in counts.values()), counts
    assert faces[:20] != [SeededDice(43).roll() for _ in range(20)]


def test_seeded_dice_resume_where_the_log_stopped():
    full = SeededDice(7)
    faces = [full.roll() for _ in range(10)]
    resumed = SeededDice(7, rolled=6)
    assert resumed.rolled == 6
    assert [resumed.roll() for _ in range(4)] == faces[6:]


def test_recorded_dice_replay_the_log_and_run_out_loudly():
    events = [{"kind": "dice_rolled", "faces": [3]}, {"kind": "unit_moved"},
              {"kind": "dice_rolled", "faces": [6, 1]}]
    dice = RecordedDice.from_events(events)
    assert [dice.roll(), dice.roll(), dice.roll()] == [3, 6, 1]
    with pytest.raises(DiceError, match="no die left"):
        dice.roll()


def test_manual_dice_ask_for_a_die_and_reject_impossible_faces():
    with pytest.raises(DiceError, match="roll a d6"):
        ManualDice().roll()
    with pytest.raises(DiceError, match="1 to 6"):
        ManualDice([7]).roll()
    assert ManualDice([2]).roll() == 2
