"""The search bot: playouts over the tactician's best orders, judged by a position's worth."""

from __future__ import annotations

import pytest
from builders import new_game

from warlog.engine.game import Game
from warlog.engine.rulesets.tables import systems
from warlog.engine.scenario import bundled_scenarios

from warlog.engine.bots import bot_rng, get_policy, play_out
from warlog.engine.scenario import scenario_from_dict
from warlog.engine.search_bot import DeepSearch, Search, evaluate
from warlog.engine.tactician import Tactician
from warlog.engine.verify import verify


def test_a_position_is_worth_the_strength_each_side_lost_and_the_objectives_held():
    game = new_game([("r1", "red", "Infantry", (1, 1), "E"), ("r2", "red", "Archers", (1, 3), "E"),
                     ("b1", "blue", "Infantry", (5, 1), "W")], size=(8, 5), objectives=[[1, 1]])
    s = game.state.copy()
    limit = s.options["hits_to_remove"]
    s.units["b1"].hits = limit // 2  # blue lost half a unit; red holds the one objective
    s.units["r2"].removed = True  # red lost a whole unit
    expected_red = (limit // 2) / limit - 1.0 + 0.2
    assert abs(evaluate(s, "red") - expected_red) < 1e-9
    assert abs(evaluate(s, "blue") + expected_red) < 1e-9
    s.ended, s.winner = True, "blue"
    assert evaluate(s, "blue") == 10.0 and evaluate(s, "red") == -10.0
    s.winner = None
    assert evaluate(s, "red") == 0.0


def test_the_search_weighs_only_legal_orders_and_chooses_the_same_every_time():
    game = new_game([("r1", "red", "Infantry", (1, 1), "E"), ("r2", "red", "Cavalry", (1, 3), "E"),
                     ("b1", "blue", "Infantry", (4, 1), "W"), ("b2", "blue", "Archers", (5, 3), "W")],
                    seed=4, size=(8, 5))
    s = game.state
    first = Search().choose(s, bot_rng(s))
    assert first == Search().choose(s.copy(), bot_rng(s))
    assert first in game.legal_orders(getattr(first, "unit", None)) or first.type == "end_phase"
    ranked = Tactician().ranked(s, bot_rng(s))
    # It weighs what the unit the tactician would order next should do, never another unit.
    assert getattr(first, "unit", None) == getattr(ranked[0][1], "unit", None)
    assert first in [o for _, o in ranked]


def _duel_scenario():
    return scenario_from_dict({
        "id": "duel", "title": "Duel", "rule_system": "ohw", "period": "ancients", "first": "red",
        "grid": {"kind": "square", "width": 7, "height": 4},
        "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
        "units": [{"id": f"{side[0]}{i}", "side": side, "type": t, "cell": [x, i], "facing": f}
                  for side, x, f in (("red", 1, "E"), ("blue", 5, "W"))
                  for i, t in enumerate(("Infantry", "Archers", "Cavalry"))],
        "victory": {"turn_limit": 6, "objectives": []},
    }, source="test")


def test_a_search_bot_game_is_repeatable_and_verify_re_chooses_its_orders():
    a = play_out("s", _duel_scenario(), seed=2, red="search", blue="tactician")
    b = play_out("s", _duel_scenario(), seed=2, red="search", blue="tactician")
    assert a.events == b.events and a.state.ended
    report = verify(a.events)
    assert report.ok and report.finished and ("red", "search") in report.bots
    assert get_policy("search").name == "search"


def test_a_unit_on_defensive_ground_is_worth_a_little_more():
    from warlog.engine.search_bot import GROUND_WORTH

    flat = new_game([("r1", "red", "Infantry", (1, 1), "E"), ("b1", "blue", "Infantry", (5, 1), "W")],
                    size=(8, 5)).state
    hill = new_game([("r1", "red", "Infantry", (1, 1), "E"), ("b1", "blue", "Infantry", (5, 1), "W")],
                    size=(8, 5), terrain={"hill": [[1, 1]]}).state
    assert evaluate(flat, "red") == 0.0
    assert abs(evaluate(hill, "red") - GROUND_WORTH) < 1e-9  # defensive position: a hill halves melee
    assert abs(evaluate(hill, "blue") + GROUND_WORTH) < 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("system", systems())
def test_the_search_plays_every_rule_system_through_its_legal_orders(system):
    scenario = next(s for s in bundled_scenarios() if s.rule_system == system)
    game = Game.new("s", scenario, seed=5, players={"red": "search", "blue": "search"})
    for _ in range(3):  # the first decisions, whichever side and phase they fall in
        state = game.state
        order = Search().choose(state, bot_rng(state))
        legal = game.legal_orders(getattr(order, "unit", None)) if order.type != "end_phase" \
            else game.legal_orders()
        assert order in legal, f"{system}: {order} is not a legal order"
        game.play(order, by="search")
    assert verify(game.events).ok


def test_a_deep_search_playout_runs_one_exchange_longer():
    """One exchange: the playout stops when the enemy has answered (our next turn begins); the
    deep search plays that turn and the enemy's answer to it too, and stops a turn later."""
    game = Game.new("d", _duel_scenario(), seed=3, players={"red": "tactician", "blue": "tactician"})
    state = game.state
    order = Tactician().choose(state, bot_rng(state))
    short = Search().playout(state, order, 11)
    long = DeepSearch().playout(state, order, 11)
    assert not short.ended and not long.ended
    assert (short.turn, short.side) == (state.turn + 1, "red")
    assert (long.turn, long.side) == (state.turn + 2, "red")
    assert long.seq > short.seq


def test_a_deep_search_game_is_repeatable_and_verify_re_chooses_its_orders():
    a = play_out("d", _duel_scenario(), seed=5, red="tactician", blue="deep-search")
    assert a.events == play_out("d", _duel_scenario(), seed=5, red="tactician",
                                blue="deep-search").events
    report = verify(a.events)
    assert report.ok and report.finished and ("blue", "deep-search") in report.bots
