"""The grouped walk of the exact odds (engine/odds.py ``leaves(grouped=True)``): a die whose
rule says what it decides (flow.Context.roll's ``decides``) is walked once per decision, not once
per face. That is a claim the rule makes about its own code, so it is checked here the only way
it can be: both walks, every face and grouped, must give the very same Odds (the same exact
fractions, outcomes in words, effects, and ways for the dice to fall), for every unit type
pair and attack of every rule system, and for every attack of stored games."""

from __future__ import annotations

from pathlib import Path

import pytest

from warlog.engine import odds
from warlog.engine.fold import evolve
from warlog.engine.odds_position import ASPECTS, position
from warlog.engine.rulesets.tables import periods, unit_types
from warlog.events.replay_file import load_replay

FIXTURES = Path(__file__).resolve().parents[1] / "events" / "fixtures"
SYSTEMS = ("ohw", "portable", "frontier", "napoleonic", "density")


def both_ways(state, source, target, kind, choice=None):
    """The Odds of one attack by the walk over every face and by the grouped walk, and the
    number of leaves each walked."""
    view, resolve, two_way = odds.plan(state, source, target, kind, choice=choice)
    out = []
    for grouped in (False, True):
        found = odds.leaves(view, resolve, grouped=grouped)
        out.append((odds.summarise(view, found, source, target, kind, two_way, choice),
                    len(found)))
    return out


def type_pairs(system):
    """(period, attacker type, target type): each type of each period attacking the period's
    first type, and attacked by its last (every type's bonuses, given and taken)."""
    for period in periods(system):
        types = unit_types(system, period)
        pairs = [(a, types[0]) for a in types] + [(types[-1], t) for t in types]
        for a, t in dict.fromkeys(pairs):
            yield period, a, t


def hypotheticals(system):
    for period, a, t in type_pairs(system):
        for kind in odds.KINDS[system]:
            if kind in odds.NO_ATTACKER:
                continue
            for aspect in ASPECTS[:2]:
                try:
                    state = position(system, period, a, t, kind=kind, terrain="open",
                                     aspect=aspect, options={}, grid="square", distance=None,
                                     extras={})
                    yield state, kind, both_ways(state, "attacker", "target", kind)
                except odds.OddsError:
                    continue  # an attack these types cannot make


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_type_pair_and_attack_has_the_same_odds_both_ways(system):
    compared = 0
    for state, kind, ((every, walked), (grouped, short)) in hypotheticals(system):
        assert grouped == every, (system, state.period, kind, [u.type for u in state.alive()])
        assert short <= walked
        compared += 1
    assert compared >= 10, system


@pytest.mark.parametrize("choice", [None, "lose", "retreat"])
def test_the_hit_table_choice_settled_or_owed_has_the_same_odds_both_ways(choice):
    for system in ("portable", "napoleonic"):
        types = unit_types(system, periods(system)[0])
        state = position(system, None, types[0], types[-1], kind="melee", terrain="open",
                         aspect="front", options={}, grid="square", distance=None, extras={})
        (every, _), (grouped, _) = both_ways(state, "attacker", "target", "melee", choice)
        assert grouped == every and grouped.choice == choice


def test_a_portable_melee_walks_nine_leaves_for_its_256_ways():
    # two attack dice (hit or miss), then up to two hit-table dice (1-3 or 4-6): 2 x 2 at the
    # first two, then one hit-table die on each hit, 2 ways each: 1 + 2 + 2 + 4 = 9
    state = position("portable", None, "Heavy Infantry", "Heavy Infantry", kind="melee",
                     terrain="open", aspect="front", options={}, grid="square", distance=None,
                     extras={})
    view, resolve, _ = odds.plan(state, "attacker", "target", "melee")
    found = odds.leaves(view, resolve, grouped=True)
    assert len(found) == 9 and sum(leaf.ways for leaf in found) == 256
    assert sum(leaf.probability for leaf in found) == 1
    assert odds.attack(state, "attacker", "target", "melee").leaves == 256


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "v2-portable-issus-aggressive-cautious-s2.jsonl",
    "v2-portable-zama-pila-aggressive-cautious-s3.jsonl",
    "v2-portable-commander-left-brick.jsonl",
    "v2-napoleonic-aspern-tactician-tactician-s2.jsonl",
])
def test_every_attack_of_a_stored_game_has_the_same_odds_both_ways(name):
    state, compared, shorter = None, 0, 0
    for event in load_replay(FIXTURES / name):
        order = event.get("order") if event["kind"] == "order_given" else None
        if order and order["type"] in ("shoot", "melee"):
            choice = (None, "lose")[compared % 2]  # owed, or settled as the tactician asks
            (every, walked), (grouped, short) = both_ways(
                state, order["unit"], order["target"], order["type"], choice)
            assert grouped == every, (name, event["seq"], choice)
            assert short <= walked
            shorter += short < walked
            compared += 1
        state = evolve(state, event)
    assert compared >= 4, name
    # every Portable attack die is grouped (hit or miss); a Napoleonic hit-table die is
    assert shorter == compared if "portable" in name else shorter >= 1, name
