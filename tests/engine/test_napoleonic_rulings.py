"""The Napoleonic rulings brought to the source at schema 3 (issue 18), each beside the option
value that keeps the reading older games were played by: breaking contact step by step, a horse
battery that fired, the advance after a melee, and who may share a commander's cell."""

from __future__ import annotations

from typing import Any

import pytest
from builders import tiny_scenario

from warlog.engine.dice import ManualDice
from warlog.engine.game import Game, start
from warlog.engine.rules import IllegalOrder
from warlog.events.orders import (BombardOrder, EndPhaseOrder, FormationOrder, HitChoiceOrder,
                                  MeleeOrder, RouteOrder, ShootOrder)


def game(units: list[tuple], options: dict[str, Any] | None = None) -> Game:
    """A manual-dice Napoleonic game on an 8x6 square board, red to play its artillery phase.
    units: (id, side, type, (col, row), facing)."""
    scenario = tiny_scenario(units, options=options, rule_system="napoleonic",
                             period="napoleonic")
    return Game(start("t", scenario, dice="manual"))


def refused(g: Game, order, rule: str) -> str:
    with pytest.raises(IllegalOrder) as exc:
        g.play(order)
    assert exc.value.rule == rule
    return str(exc.value)


def to_movement(g: Game) -> None:
    g.play(EndPhaseOrder())
    assert g.state.phase == "movement"


FACING = [("r", "red", "Cavalry", (3, 2), "E"), ("b", "blue", "Infantry", (4, 2), "W")]


def test_breaking_contact_every_step_goes_farther_from_the_enemy_left():
    g = game(FACING)
    to_movement(g)
    # (3,1) is 2 from b, farther than 1; (4,1) is 1 again, beside the enemy it left.
    words = refused(g, RouteOrder(unit="r", path=((3, 1), (4, 1)), facing="S"),
                    "napoleonic.move.break_contact")
    assert "(4, 1) is not farther" in words
    # Sideways round the same enemy: 2, 3, then 2 again.
    refused(g, RouteOrder(unit="r", path=((2, 2), (2, 1), (3, 1)), facing="E"),
            "napoleonic.move.break_contact")
    g.play(RouteOrder(unit="r", path=((2, 2), (2, 1), (1, 1)), facing="E"))  # 2, 3, 4
    assert g.state.units["r"].cell == (1, 1)


def test_the_option_first_step_keeps_the_older_reading():
    g = game(FACING, {"break_contact": "first_step"})
    to_movement(g)
    g.play(RouteOrder(unit="r", path=((3, 1), (4, 1)), facing="S"))
    assert g.state.units["r"].cell == (4, 1)


def test_the_legal_moves_of_a_unit_breaking_contact_never_end_beside_that_enemy():
    g = game(FACING)
    to_movement(g)
    grid, enemy = g.state.grid, g.state.units["b"]
    routes = [o for o in g.legal_orders("r") if isinstance(o, RouteOrder) and o.path]
    assert routes
    assert all(grid.distance(tuple(o.path[-1]), enemy.cell) > 1 for o in routes)
    old = game(FACING, {"break_contact": "first_step"})
    to_movement(old)
    assert any(grid.distance(tuple(o.path[-1]), enemy.cell) == 1
               for o in old.legal_orders("r") if isinstance(o, RouteOrder) and o.path)


def test_a_unit_in_contact_turns_in_place_only_to_face_an_enemy():
    g = game([("r", "red", "Infantry", (3, 2), "N"), ("b", "blue", "Infantry", (4, 2), "W")])
    to_movement(g)
    words = refused(g, RouteOrder(unit="r", facing="S"), "napoleonic.move.break_contact")
    assert "only turn to face one (E)" in words
    events = g.play(RouteOrder(unit="r", facing="E"))
    assert events[-1]["kind"] == "unit_turned"
    assert events[-1]["rules"] == ["napoleonic.move.break_contact"]
    old = game([("r", "red", "Infantry", (3, 2), "N"), ("b", "blue", "Infantry", (4, 2), "W")],
               {"break_contact": "first_step"})
    to_movement(old)
    old.play(RouteOrder(unit="r", facing="S"))
    assert old.state.units["r"].facing == "S"


BATTERIES = [("ha", "red", "Horse Artillery", (0, 1), "E"),
             ("fa", "red", "Foot Artillery", (0, 4), "E"),
             ("b1", "blue", "Infantry", (3, 1), "W"), ("b2", "blue", "Infantry", (3, 4), "W")]


def fire_both(g: Game) -> None:
    for unit, cell in (("ha", (3, 1)), ("fa", (3, 4))):  # die 1 + 1 direct: a miss
        g.play(BombardOrder(unit=unit, cell=cell), dice=ManualDice([1]))
    to_movement(g)
    g.play(FormationOrder(unit="ha", formation="limbered"))


def test_a_horse_battery_that_fired_limbers_and_still_moves_a_cell():
    g = game(BATTERIES)
    fire_both(g)
    refused(g, RouteOrder(unit="ha", path=((1, 1), (1, 0)), facing="E"), "napoleonic.defaults")
    events = g.play(RouteOrder(unit="ha", path=((1, 1),), facing="E"))
    assert "napoleonic.move.fired_artillery" in events[-1]["rules"]
    assert "napoleonic.move.fire_penalty" not in events[-1]["rules"]
    g.play(FormationOrder(unit="fa", formation="limbered"))  # limbering is not moving
    refused(g, RouteOrder(unit="fa", path=((1, 4),), facing="E"), "napoleonic.move.fired_artillery")


def test_the_option_shot_and_limber_keeps_a_fired_horse_battery_in_place():
    g = game(BATTERIES, {"fired_horse_artillery": "shot_and_limber"})
    fire_both(g)
    refused(g, RouteOrder(unit="ha", path=((1, 1),), facing="E"), "napoleonic.defaults")


MELEE = [("r", "red", "Infantry", (2, 2), "E"), ("b", "blue", "Infantry", (3, 2), "W")]


def to_melee(g: Game) -> None:
    for phase in ("movement", "musketry", "melee"):
        g.play(EndPhaseOrder())
        assert g.state.phase == phase


def test_an_advance_next_to_the_enemy_that_retreated_ends_facing_it():
    g = game(MELEE)
    to_melee(g)
    # Red's die 6 (no hit); blue's 1 (a hit), hit table 5: blue chooses to retreat, to (4,2).
    g.play(MeleeOrder(unit="r", target="b"), dice=ManualDice([6, 1, 5]))
    g.play(HitChoiceOrder(unit="b", choice="retreat"))
    assert g.state.units["b"].cell == (4, 2)
    words = refused(g, RouteOrder(unit="r", path=((3, 2),), facing="N"),
                    "napoleonic.advance.facing")
    assert "end facing E" in words
    facings = {o.facing for o in g.legal_orders("r") if isinstance(o, RouteOrder)}
    assert facings == {"E"}
    events = g.play(RouteOrder(unit="r", path=((3, 2),), facing="E"))
    assert events[-1]["rules"] == ["napoleonic.advance", "napoleonic.advance.facing"]
    assert (g.state.units["r"].cell, g.state.units["r"].facing) == ((3, 2), "E")


def test_the_option_any_facing_keeps_the_older_advance():
    g = game(MELEE, {"advance_facing": "any"})
    to_melee(g)
    g.play(MeleeOrder(unit="r", target="b"), dice=ManualDice([6, 1, 5]))
    g.play(HitChoiceOrder(unit="b", choice="retreat"))
    g.play(RouteOrder(unit="r", path=((3, 2),), facing="N"))
    assert g.state.units["r"].facing == "N"


@pytest.mark.parametrize("own_hit,offered", [(True, True), (False, False)])
def test_a_winner_hit_too_that_stood_its_ground_may_advance(own_hit, offered):
    g = game(MELEE, {"advance_after_own_hit": own_hit})
    to_melee(g)
    # Both roll 1: both hit; both hit-table dice 5: each owner chooses.
    g.play(MeleeOrder(unit="r", target="b"), dice=ManualDice([1, 1, 5, 5]))
    assert [p["unit"] for p in g.state.pending] == ["b", "r"]
    g.play(HitChoiceOrder(unit="b", choice="retreat"))
    events = g.play(HitChoiceOrder(unit="r", choice="lose"))
    offers = [e for e in events if e["kind"] == "advance_offered"]
    assert bool(offers) is offered
    assert all(e["rules"] == ["napoleonic.advance", "napoleonic.advance.winner"] for e in offers)
    advances = [o for o in g.legal_orders("r") if isinstance(o, RouteOrder)]
    assert bool(advances) is offered


def test_a_unit_may_not_end_on_a_lone_commanders_cell_but_a_commander_joins_a_unit():
    units = [("r-cmd", "red", "Commander", (2, 2), "E"), ("r-inf", "red", "Infantry", (1, 2), "E"),
             ("r-cmd2", "red", "Commander", (1, 4), "E"), ("r-inf2", "red", "Infantry", (3, 4), "E"),
             ("b", "blue", "Infantry", (7, 0), "W")]
    g = game(units)
    to_movement(g)
    words = refused(g, RouteOrder(unit="r-inf", path=((2, 2),), facing="E"),
                    "napoleonic.move.stacking")
    assert "commanders excepted" in words
    g.play(RouteOrder(unit="r-cmd2", path=((2, 4), (3, 4)), facing="E"))
    assert g.state.units["r-cmd2"].cell == g.state.units["r-inf2"].cell
    old = game(units, {"stacking": "either_joins"})
    to_movement(old)
    old.play(RouteOrder(unit="r-inf", path=((2, 2),), facing="E"))
    assert old.state.units["r-inf"].cell == (2, 2)


@pytest.mark.parametrize("turn_in_place,still", [("not_a_move", True), ("a_move", False)])
def test_a_unit_that_only_turned_in_place_fires_as_one_that_has_not_moved(turn_in_place, still):
    g = game([("r", "red", "Infantry", (1, 2), "N"), ("b", "blue", "Infantry", (3, 2), "W")],
             {"turn_in_place": turn_in_place})
    to_movement(g)
    g.play(RouteOrder(unit="r", facing="E"))
    g.play(EndPhaseOrder())
    assert g.state.phase == "musketry"
    events = g.play(ShootOrder(unit="r", target="b"), dice=ManualDice([1, 1, 1]))
    shot = next(e for e in events if e["kind"] == "attack_rolled")
    assert ("napoleonic.fire.still" in [rule for rule, _ in shot["modifiers"]]) is still
