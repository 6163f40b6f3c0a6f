"""The order vocabulary (engine/rulesets/order_kinds.py, engine/vocabulary.py): every order a
rule system gives is described by it, every order a player gave is offered by the click that
gives it, and a click on a cell means the cell the unit then stands on."""

from __future__ import annotations

import random

import pytest

from warlog.engine import vocabulary
from warlog.engine.fold import Timeline
from warlog.engine.rulesets import get_ruleset
from warlog.events.orders import parse_order

SYSTEMS = ("ohw", "portable", "frontier", "napoleonic", "density")
SAMPLED = 12  # orders a game, at seeded positions


def _orders_given(events):
    return [i for i, e in enumerate(events) if e["kind"] == "order_given"]


def test_every_system_lists_each_order_type_once():
    for system in SYSTEMS:
        types = [kind.type for kind in get_ruleset(system).orders]
        assert len(types) == len(set(types)), system
        assert "end_phase" in types, system


def test_every_order_given_in_every_bundled_game_is_offered_by_its_click(bundled_games):
    """For sampled orders of a bot game of every bundled scenario: the order is among the
    choices of the unit it names (or the side's), under the gesture its kind says; a cell click
    is the cell the unit stands on after the order (unless terrain stopped it short, which the
    unit_moved event names); an enemy click names an enemy of the acting side."""
    rng = random.Random(22)
    seen: set[tuple[str, str]] = set()
    for name, events in sorted(bundled_games.items()):
        if "." in name:  # the golden games: hand-made positions, covered by their own tests
            continue
        timeline = Timeline(events)
        given = _orders_given(events)
        for i in sorted(rng.sample(given, min(SAMPLED, len(given)))):
            state = timeline.state_at(i - 1)
            order = parse_order(events[i]["order"])
            kind = vocabulary.kind_of(state, order)
            unit = kind.unit(order)
            offered = vocabulary.choices(state, unit)
            where = kind.gesture(state, order)
            group = {"cell": offered.cells.get(where.at, []),
                     "enemy": offered.enemies.get(where.at, []),
                     "aim": offered.aims.get(where.at, []),
                     "unit": offered.buttons, "side": offered.side}[where.how]
            if unit is None and where.how == "enemy":
                group = vocabulary.choices(state, None).enemies.get(where.at, [])
            assert order in group, f"{name} event {i}: {order} not offered at {where}"
            seen.add((state.rule_system, where.how))
            if where.how == "enemy":
                assert state.units[where.at].side != state.to_act, (name, i)
            if where.how == "cell":
                moved = next((e for e in events[i + 1:] if e["kind"] == "unit_moved"
                              and e["unit"] == unit), None)
                assert moved is not None, (name, i)
                if not moved.get("stopped_by"):
                    assert tuple(moved["to_cell"]) == where.at, (name, i, moved)
    assert {system for system, _ in seen} == set(SYSTEMS)
    assert {"cell", "enemy", "side"} <= {how for _, how in seen}


def test_a_units_choices_hold_each_of_its_legal_orders_once(bundled_games):
    """At positions of every system: the legal orders of a unit are exactly what its choices
    offer, each once (no order lost between the groups, none offered twice)."""
    rng = random.Random(5)
    for name in ("ancients-river-crossing", "portable-zama", "frontier-ulundi",
                 "napoleonic-hougoumont", "density-granicus"):
        events = bundled_games[name]
        timeline = Timeline(events)
        for i in sorted(rng.sample(_orders_given(events), 6)):
            state = timeline.state_at(i - 1)
            legal = get_ruleset(state.rule_system).legal_orders(state)
            for u in state.alive(state.to_act):
                mine = [o for o in legal if vocabulary.unit_of(state, o) == u.id]
                offered = vocabulary.choices(state, u.id, legal)
                pointed = [o for group in (*offered.cells.values(), *offered.enemies.values(),
                                           *offered.aims.values(), offered.buttons)
                           for o in group if vocabulary.unit_of(state, o) == u.id]
                assert sorted(map(repr, pointed)) == sorted(map(repr, mine)), (name, i, u.id)
            acting = vocabulary.units_to_act(state, legal)
            assert set(acting) <= {u.id for u in state.alive(state.to_act)}


def test_labels_are_short_words_for_every_legal_order(bundled_games):
    events = bundled_games["napoleonic-hougoumont"]
    timeline = Timeline(events)
    for i in _orders_given(events)[:40]:
        state = timeline.state_at(i - 1)
        for order in get_ruleset(state.rule_system).legal_orders(state):
            text = vocabulary.label(state, order)
            assert text and len(text) <= 60 and "\n" not in text, (order, text)


def test_an_order_type_a_system_does_not_describe_is_named():
    from warlog.engine.game import start
    from warlog.engine.scenario import load_scenario
    from warlog.events.orders import FightOrder

    events = start("v", load_scenario("ancients-river-crossing"), seed=1)
    state = Timeline(events).state_at(len(events) - 1)
    with pytest.raises(vocabulary.UnknownOrderKind, match="fight"):
        vocabulary.kind_of(state, FightOrder(target="b-inf-1"))
