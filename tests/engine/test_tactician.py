"""The tactician reads the position: walks round rivers, weighs attacks by their expected
outcome, values a change of ground (not standing on it), turns shooters to face, keeps objectives."""

from __future__ import annotations

from builders import new_game

from warlog.engine import paths
from warlog.engine.bots import Aggressive, bot_rng, get_policy, play_out
from warlog.engine.tactician import Tactician, melee_balance
from warlog.engine.verify import verify
from warlog.events.orders import MoveOrder

from test_paths import _river_game


def _choice(game, policy=None):
    return (policy or Tactician()).choose(game.state, bot_rng(game.state))


def test_it_heads_for_the_bridge_where_the_crow_flies_into_the_river():
    game = _river_game()
    order = _choice(game)
    assert isinstance(order, MoveOrder) and order.unit == "r"
    end = game.state.grid.straight((1, 4), order.facing, order.distance)[-1]
    field = paths.enemy_field(game.state, game.state.units["r"])
    assert paths.walk(field, end) < paths.walk(field, (1, 4))  # nearer by the walk: north
    assert order.facing == "N"


def test_archers_do_not_charge_armoured_infantry_on_a_hill_but_the_aggressive_bot_does():
    game = new_game([("arc", "red", "Archers", (2, 2), "E"), ("inf", "blue", "Infantry", (4, 2), "W")],
                    size=(6, 5), terrain={"hill": [[4, 2]]})
    s = game.state
    charge = MoveOrder(unit="arc", facing="E", distance=1, attack="inf")
    assert charge in game.legal_orders("arc")
    # Archers melee +0, halved for armour and for a defender on a hill: die/4 rounded up, mean
    # (1+1+1+1+2+2)/6 = 1.33 dealt (twice: the first blow) against Infantry +2 back: mean 5.5.
    assert melee_balance(s, s.units["arc"], (3, 2), s.units["inf"]) < 0
    assert Tactician().score(s, s.units["arc"], charge) < 0
    assert Aggressive().choose(s, bot_rng(s)) == charge


def test_a_flank_charge_with_good_odds_is_taken():
    # Blue Archers face north; red Infantry beside them strikes their flank: doubled, +2.
    game = new_game([("inf", "red", "Infantry", (1, 2), "E"), ("arc", "blue", "Archers", (3, 2), "N")],
                    size=(6, 5))
    order = _choice(game)
    assert isinstance(order, MoveOrder) and order.attack == "arc"


def test_standing_on_a_hill_is_worth_nothing_extra_so_it_does_not_pivot_there():
    game = new_game([("inf", "red", "Infantry", (2, 2), "E"), ("far", "blue", "Infantry", (9, 2), "W")],
                    size=(11, 5), terrain={"hill": [[2, 2]]})
    s = game.state
    pivots = [o for o in game.legal_orders("inf") if isinstance(o, MoveOrder) and o.distance == 0]
    assert pivots and all(Tactician().score(s, s.units["inf"], o) < 0 for o in pivots)


def test_a_shooter_turns_to_face_an_enemy_in_range_but_out_of_its_arc():
    game = new_game([("arc", "red", "Archers", (2, 2), "N"), ("inf", "blue", "Infantry", (5, 2), "W")],
                    size=(8, 5))
    order = _choice(game)
    assert order == MoveOrder(unit="arc", facing="E", distance=0) or (
        isinstance(order, MoveOrder) and order.distance == 0 and order.facing == "E")


def test_a_unit_holding_an_objective_stays_on_it():
    game = new_game([("inf", "red", "Infantry", (3, 2), "E"), ("far", "blue", "Infantry", (9, 2), "W")],
                    size=(11, 5), objectives=[[3, 2]])
    s = game.state
    moves = [o for o in game.legal_orders("inf") if isinstance(o, MoveOrder) and o.distance > 0
             and o.attack is None]
    assert moves and all(Tactician().score(s, s.units["inf"], o) < 0 for o in moves)


def test_tactician_games_are_repeatable_and_verify():
    from warlog.engine.scenario import load_scenario

    scn = load_scenario("ancients-river-crossing")
    a = play_out("g", scn, seed=3, red="tactician", blue="aggressive")
    b = play_out("g", scn, seed=3, red="tactician", blue="aggressive")
    assert a.events == b.events and a.state.ended
    report = verify(a.events)
    assert report.ok and report.bot_orders > 0
    assert get_policy("tactician").name == "tactician"
