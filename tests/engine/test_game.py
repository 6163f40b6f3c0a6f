"""decide + the referee: illegal orders are refused with the rule they break, and nothing is
produced; legal orders produce the consequences the rules say."""

from __future__ import annotations

from pathlib import Path

import pytest

from warlog.engine.dice import DiceError, ManualDice
from warlog.engine.game import Game, decide, legal_orders, start
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.events.model import parse_event
from warlog.events.orders import EndPhaseOrder, MoveOrder, ShootOrder

from builders import new_game
from golden.golden_runner import load_case, scenario_of

END = EndPhaseOrder()


def refused(game: Game, order, rule: str) -> IllegalOrder:
    before_events, before_state = list(game.events), game.state.public()
    with pytest.raises(IllegalOrder) as info:
        game.play(order, dice=ManualDice([6, 6]))
    assert info.value.rule == rule, str(info.value)
    assert info.value.rule in catalogue()
    assert game.events == before_events
    assert game.state.public() == before_state
    return info.value


def to_shooting(game: Game) -> None:
    game.play(END)
    assert game.state.phase == "shooting"


def test_cavalry_may_not_enter_woods():
    g = new_game([("c", "red", "Cavalry", (1, 1), "E"), ("x", "blue", "Infantry", (7, 5), "W")],
                 terrain={"woods": [[3, 1]]})
    err = refused(g, MoveOrder(unit="c", facing="E", distance=2), "ohw.ancients.terrain")
    assert "Cavalry may not enter woods" in err.message
    g.play(MoveOrder(unit="c", facing="E", distance=1))  # stopping short is fine
    assert g.state.units["c"].cell == (2, 1)


def test_skirmishers_enter_woods_and_stop_there():
    """Ordered further, the move ends where the wood stops it, and the event says why."""
    g = new_game([("s", "red", "Skirmishers", (1, 1), "E"), ("x", "blue", "Infantry", (7, 5), "W")],
                 terrain={"woods": [[2, 1]]})
    events = g.play(MoveOrder(unit="s", facing="E", distance=3))
    moved = events[-1]
    assert moved["kind"] == "unit_moved" and moved["to_cell"] == [2, 1]
    assert moved["stopped_by"] == "ohw.terrain.stop"
    assert "ohw.terrain.stop" in moved["rules"] and "ohw.ancients.terrain" in moved["rules"]


def test_an_attack_cut_short_by_a_feature_is_refused():
    g = new_game([("c", "red", "Cavalry", (0, 1), "E"), ("x", "blue", "Infantry", (3, 1), "W")],
                 terrain={"hill": [[1, 1]]})
    refused(g, MoveOrder(unit="c", facing="E", distance=2, attack="x"), "ohw.terrain.stop")


def test_moving_within_one_wood_is_not_entering_it_again():
    """ohw.terrain.feature: the default reads a feature as an area, the option as single cells."""
    units = [("s", "red", "Skirmishers", (1, 1), "E"), ("x", "blue", "Infantry", (7, 5), "W")]
    wood = {"woods": [[1, 1], [2, 1], [3, 1], [4, 1]]}
    g = new_game(units, terrain=wood)
    moved = g.play(MoveOrder(unit="s", facing="E", distance=3))[-1]
    assert moved["to_cell"] == [4, 1] and moved["stopped_by"] is None
    assert "ohw.terrain.feature" in moved["rules"]
    g = new_game(units, terrain=wood, options={"terrain_feature": "cell"})
    moved = g.play(MoveOrder(unit="s", facing="E", distance=3))[-1]
    assert moved["to_cell"] == [2, 1] and moved["stopped_by"] == "ohw.terrain.stop"


def test_no_move_through_a_marsh_or_across_a_river():
    g = new_game([("c", "red", "Cavalry", (1, 1), "E"), ("x", "blue", "Infantry", (7, 5), "W")],
                 terrain={"marsh": [[2, 1]], "river": [[1, 2], [1, 0]], "ford": [[0, 1]]})
    refused(g, MoveOrder(unit="c", facing="E", distance=3), "ohw.terrain.marsh")
    refused(g, MoveOrder(unit="c", facing="S", distance=2), "ohw.terrain.river")
    g.play(MoveOrder(unit="c", facing="W", distance=1))  # a ford may be crossed
    assert g.state.units["c"].cell == (0, 1)


def test_shooting_after_moving_out_of_arc_and_out_of_range_are_refused():
    units = [("a", "red", "Archers", (1, 2), "E"), ("a2", "red", "Archers", (1, 4), "E"),
             ("near", "blue", "Cavalry", (4, 2), "W"), ("far", "blue", "Cavalry", (6, 4), "W"),
             ("behind", "blue", "Cavalry", (0, 0), "S")]
    g = new_game(units, size=(10, 6))
    g.play(MoveOrder(unit="a2", facing="N", distance=0))  # a pivot is a move (ohw.move.pivot)
    to_shooting(g)
    refused(g, ShootOrder(unit="a2", target="near"), "ohw.ancients.move_shoot")
    refused(g, ShootOrder(unit="a", target="far"), "ohw.ancients.shooting")  # 5+2 = 7 > 4
    refused(g, ShootOrder(unit="a", target="behind"), "ohw.shoot.arc")
    events = g.play(ShootOrder(unit="a", target="near"), dice=ManualDice([5]))
    assert [e["kind"] for e in events] == ["order_given", "dice_rolled", "hits_inflicted"]
    assert events[-1]["hits"] == 5 and g.state.units["near"].hits == 5
    refused(g, ShootOrder(unit="a", target="near"), "ohw.shoot.once")


def test_infantry_may_not_shoot_and_adjacent_enemies_are_melee_not_shooting():
    g = new_game([("i", "red", "Infantry", (1, 1), "E"), ("s", "red", "Skirmishers", (1, 3), "E"),
                  ("x", "blue", "Infantry", (2, 3), "W")])
    to_shooting(g)
    refused(g, ShootOrder(unit="i", target="x"), "ohw.ancients.shooting")
    refused(g, ShootOrder(unit="s", target="x"), "grid.shooting")


def test_orders_out_of_phase_or_for_the_enemy_are_refused():
    g = new_game([("i", "red", "Infantry", (1, 1), "E"), ("x", "blue", "Infantry", (6, 4), "W")])
    refused(g, ShootOrder(unit="i", target="x"), "ohw.turn")
    refused(g, MoveOrder(unit="x", facing="W", distance=1), "ohw.turn")
    refused(g, MoveOrder(unit="ghost", facing="W", distance=1), "ohw.turn")
    refused(g, MoveOrder(unit="i", facing="NE", distance=1), "ohw.move.straight")


def test_one_move_per_turn_and_zone_of_control():
    g = new_game([("i", "red", "Infantry", (1, 1), "E"), ("x", "blue", "Infantry", (4, 1), "W")])
    refused(g, MoveOrder(unit="i", facing="E", distance=2), "ohw.zoc")  # (3,1) touches x
    g.play(MoveOrder(unit="i", facing="E", distance=1))
    refused(g, MoveOrder(unit="i", facing="E", distance=1), "ohw.move.once")


def test_attack_then_melee_in_own_turn_only_with_flank_doubling():
    # x faces north; i comes from the west: a flank attack (hits doubled), Infantry +2, armour.
    g = new_game([("i", "red", "Infantry", (1, 2), "E"), ("x", "blue", "Infantry", (3, 2), "N")])
    events = g.play(MoveOrder(unit="i", facing="E", distance=1, attack="x"))
    joined = events[-1]
    assert joined["kind"] == "melee_joined" and joined["aspect"] == "flank"
    g.play(END)  # movement -> shooting
    events = g.play(END, dice=ManualDice([4]))  # shooting -> melee (resolved) -> removal -> blue
    hits = next(e for e in events if e["kind"] == "hits_inflicted")
    # (4 + 2) doubled = 12, armour halves: 6
    assert (hits["base"], hits["doubled"], hits["halvings"], hits["hits"]) == (6, True, ["armour"], 6)
    assert "ohw.melee.flank" in hits["rules"] and "ohw.ancients.armour" in hits["rules"]
    assert g.state.side == "blue" and g.state.phase == "movement"
    # the melee lock: x may not walk away, but may turn to face its flank attacker
    refused(g, MoveOrder(unit="x", facing="E", distance=1), "ohw.melee.locked")
    assert [o.type for o in legal_orders(g.state, "x")] == ["turn_to_face"]


def test_attack_turn_limit_and_front_contact():
    g = new_game([("c", "red", "Cavalry", (2, 2), "E"), ("x", "blue", "Infantry", (0, 2), "E"),
                  ("y", "blue", "Infantry", (5, 3), "W")])
    refused(g, MoveOrder(unit="c", facing="W", distance=1, attack="x"), "ohw.attack")  # 180 turn
    refused(g, MoveOrder(unit="c", facing="E", distance=2, attack="y"), "ohw.attack.front")
    refused(g, MoveOrder(unit="c", facing="E", distance=2, end_facing="S", attack="y"), "ohw.attack")


def test_removal_at_ten_hits_ends_the_game():
    g = new_game([("a", "red", "Archers", (1, 1), "E"), ("x", "blue", "Cavalry", (4, 1), "W")],
                 options={"hits_to_remove": 4})
    to_shooting(g)
    g.play(ShootOrder(unit="a", target="x"), dice=ManualDice([4]))
    events = g.play(END)
    kinds = [e["kind"] for e in events]
    assert "unit_removed" in kinds and kinds[-1] == "game_ended"
    assert g.state.ended and g.state.winner == "red"
    refused(g, END, "ohw.victory")


def test_every_event_decide_makes_matches_its_schema_and_cites_known_rules():
    g = new_game([("a", "red", "Archers", (1, 1), "E"), ("x", "blue", "Cavalry", (4, 1), "W")],
                 seed=3)
    to_shooting(g)
    g.play(ShootOrder(unit="a", target="x"))
    for event in g.events:
        parse_event(event)
        assert all(r in catalogue() for r in event["rules"]), event


def test_decide_leaves_the_state_it_was_given_untouched():
    g = new_game([("a", "red", "Archers", (1, 1), "E"), ("x", "blue", "Cavalry", (4, 1), "W")])
    before = g.state.public()
    decide(g.state, MoveOrder(unit="a", facing="S", distance=2), ManualDice())
    assert g.state.public() == before


def test_pila_out_of_the_game_are_refused_in_words_naming_the_option():
    case = load_case(Path(__file__).parents[1] / "golden" / "portable-pila-brick.toml")
    case.scenario["options"] = {"pila": False}
    g = Game(start("no-pila", scenario_of(case), dice="manual"))
    g.play(END)  # red's missile machines
    g.play(END, dice=ManualDice([6, 2]))  # the initiative: red acts first
    err = refused(g, ShootOrder(unit="r-leg1", target="b-hi"), "portable.pila")
    assert err.message == ("Legionaries throw pila 2 cells only under an optional rule this "
                           "game leaves off (options.pila)")


def test_a_missing_or_impossible_die_says_what_it_is_for_and_changes_nothing():
    g = new_game([("a", "red", "Archers", (1, 2), "E"), ("x", "blue", "Cavalry", (4, 2), "W")])
    to_shooting(g)
    before = list(g.events)
    for dice, said in ((ManualDice([]), "this order needs die number 1: roll a d6 and enter it"),
                       (ManualDice([7]), "a d6 shows 1 to 6, not 7")):
        with pytest.raises(DiceError) as caught:
            g.play(ShootOrder(unit="a", target="x"), dice=dice)
        assert str(caught.value) == f"{said} — die for shooting, a"
        assert g.events == before


# -- Machine Age trenches and barrage (ohw.machine_age.trenches, .in_trench, .barrage) ------------

TRENCH_LINE = [  # red, the defender: in woods, in a village, on open ground, on a hill
    ("r-w", "red", "Infantry", (1, 0), "E"), ("r-v", "red", "Infantry", (1, 2), "E"),
    ("r-o", "red", "Infantry", (0, 4), "E"), ("r-h", "red", "Machine guns", (1, 5), "E"),
    ("b-mg", "blue", "Machine guns", (4, 4), "W"), ("b-art", "blue", "Artillery", (7, 1), "W"),
    ("b-inf", "blue", "Infantry", (4, 2), "W"),
]


def trench_game(targets: int = 1, **options) -> Game:
    """The trench line with the roles chosen (red 5, blue 2: red defends): the barrage phase,
    striking ``targets`` units (its die: 2 * targets, halved)."""
    from warlog.engine.scenario import scenario_from_dict
    from warlog.events.orders import RolesOrder

    scenario = scenario_from_dict({
        "id": "trench-line", "title": "Trench line", "rule_system": "ohw", "period": "machine_age",
        "first": "red", "grid": {"kind": "square", "width": 8, "height": 6},
        "terrain": {"woods": [[1, 0]], "village": [[1, 2]], "hill": [[1, 5]]},
        "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
        "units": [{"id": i, "side": s, "type": t, "cell": list(c), "facing": f}
                  for i, s, t, c, f in TRENCH_LINE],
        "options": {"trenches": True, **options}}, source="test")
    game = Game(start("t", scenario, dice="manual", opening_dice=[5, 2]))
    game.play(RolesOrder(defender="red"), dice=ManualDice([2 * targets]))
    assert game.state.defender == "red" and game.state.barrage_targets == targets
    return game


def shot(game: Game, unit: str, target: str, die: int) -> dict:
    game.play(ShootOrder(unit=unit, target=target), dice=ManualDice([die]))
    return game.events[-1]


OLD_TRENCHES = {"trench_cells": "start", "barrage_cover": "terrain"}  # the `before` values


@pytest.mark.parametrize(("options", "moved_hits", "halvings"), [
    ({}, (3, 3), ["trench"]),  # a defender's unit on open ground is in a trench wherever it is
    (OLD_TRENCHES, (6, 5), []),  # before schema 3: only in the cells held at the roll-off
])
def test_a_defender_that_moved_onto_open_ground_is_in_a_trench(options, moved_hits, halvings):
    from warlog.engine.analysis import unit_status
    from warlog.engine.bots import expected_shot
    from warlog.engine.rulesets.ohw.combat import trench_cells
    from warlog.events.orders import BarrageOrder, RouteOrder

    game = trench_game(**options)
    game.play(BarrageOrder(targets=("r-v",)), dice=ManualDice([1]))
    assert game.state.trenches == [(0, 4)]  # the open cells held as the roles were chosen
    game.play(RouteOrder(unit="r-o", path=((1, 4),), facing="E"))  # open ground to open ground
    game.play(RouteOrder(unit="r-w", path=((2, 0),), facing="E"))  # out of the woods
    for _ in range(3):  # red shooting, blue movement, blue shooting
        game.play(END)
    s = game.state  # the bots' expected hits read the same halvings: d6 + 2, halved or not
    assert expected_shot(s, s.units["b-mg"], s.units["r-o"]) == (3 if halvings else 5.5)
    mg = shot(game, "b-mg", "r-o", 4)  # Machine guns +2: 6
    art = shot(game, "b-art", "r-w", 5)  # 6 cells, range 12: 5
    assert (mg["hits"], art["hits"]) == moved_hits
    assert mg["halvings"] == art["halvings"] == halvings
    assert ("ohw.machine_age.in_trench" in mg["rules"]) == bool(halvings)  # the halving's rule
    in_a_trench = [u.id for u in game.state.alive() if "in a trench" in unit_status(game.state, u)]
    if options:
        assert in_a_trench == [] and trench_cells(game.state) == [(0, 4)]
    else:  # the board draws the trench under each unit: it follows the unit
        assert in_a_trench == ["r-w", "r-o"] and trench_cells(game.state) == [(2, 0), (1, 4)]


@pytest.mark.parametrize("options", [{}, OLD_TRENCHES])
def test_a_defender_on_a_hill_has_no_trench_and_no_cover_a_village_halves_once(options):
    from warlog.events.orders import BarrageOrder

    game = trench_game(**options)
    game.play(BarrageOrder(targets=("r-o",)), dice=ManualDice([1]))
    for _ in range(3):
        game.play(END)
    hill = shot(game, "b-art", "r-h", 5)  # a hill is not open ground; the Machine Age's cover
    assert (hill["hits"], hill["halvings"]) == (5, [])  # is woods and villages only
    village = shot(game, "b-inf", "r-v", 4)  # cover, and no trench on top of it
    assert (village["hits"], village["halvings"]) == (2, ["cover"])
    open_ground = shot(game, "b-mg", "r-o", 4)  # where it stood: a trench under both readings
    assert (open_ground["hits"], open_ground["halvings"]) == (3, ["trench"])


@pytest.mark.parametrize(("options", "hits", "halvings"), [
    ({}, [5, 3, 4], [[], [], []]),  # the number on the die, whatever cover
    (OLD_TRENCHES, [3, 2, 4], [["cover"], ["cover"], []]),  # before: woods and villages halved
])
def test_the_barrage_does_the_number_on_the_die(options, hits, halvings):
    from warlog.events.orders import BarrageOrder

    game = trench_game(3, **options)
    game.play(BarrageOrder(targets=("r-w", "r-v", "r-o")), dice=ManualDice([5, 3, 4]))
    struck = [e for e in game.events if e["kind"] == "hits_inflicted"]
    assert [e["target"] for e in struck] == ["r-w", "r-v", "r-o"]
    assert [e["hits"] for e in struck] == hits and [e["halvings"] for e in struck] == halvings
    assert [("ohw.halving" in e["rules"]) for e in struck] == [bool(h) for h in halvings]
    assert [game.state.units[u].hits for u in ("r-w", "r-v", "r-o")] == hits


def test_the_trench_options_belong_to_the_machine_age_and_older_games_get_the_old_reading():
    from warlog.engine.rulesets.tables import (OptionError, option_specs, options_added,
                                                resolve_options)

    assert {"trench_cells", "barrage_cover"} <= set(option_specs("ohw", "machine_age"))
    assert options_added("ohw", "machine_age", 3) == OLD_TRENCHES
    with pytest.raises(OptionError, match="applies only to machine_age"):
        resolve_options("ohw", "ww2", {"trench_cells": "start"}, source="test")
