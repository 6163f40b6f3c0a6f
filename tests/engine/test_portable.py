"""The Portable Wargame: Ancient Battles as the book has it (warlog issue 18): the Commander's
notional strength points, which units may attack and then move, and pila thrown before the
attack. Each reading is an option whose `before` value keeps the engine as it was before
schema 3; a test shows that value still gives the old behaviour."""

from __future__ import annotations

from typing import Any

import pytest
from builders import tiny_scenario

from warlog.engine.dice import ManualDice
from warlog.engine.game import Game, legal_orders, start
from warlog.engine.narration import narrate
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.tables import options_added
from warlog.events.orders import EndPhaseOrder, MeleeOrder, RouteOrder, ShootOrder

END = EndPhaseOrder()


def game(units: list[tuple], **options: Any) -> Game:
    """A manual-dice Portable game at red's first activation (red wins the initiative).
    units: (id, side, type, (col, row), facing)."""
    scenario = tiny_scenario(units, size=(10, 6), options=options, rule_system="portable",
                             period="ancient_battles")
    g = Game(start("p", scenario, dice="manual"))
    g.play(END)  # red's missile machines
    g.play(END, dice=ManualDice([6, 2]))  # blue's; the initiative: red 6, blue 2
    assert (g.state.phase, g.state.side) == ("activation", "red")
    return g


def refused(g: Game, order, rule: str) -> IllegalOrder:
    before = list(g.events)
    with pytest.raises(IllegalOrder) as info:
        g.play(order, dice=ManualDice([6, 6, 6]))
    assert info.value.rule == rule, str(info.value)
    assert rule in catalogue()
    assert g.events == before
    return info.value


def kinds(events: list[dict]) -> list[str]:
    return [e["kind"] for e in events]


def test_the_old_readings_are_what_older_games_are_given():
    assert options_added("portable", "ancient_battles", 3) == {
        "attack_then_move": "infantry_melee", "commander_sp": "real", "pila_throw": "the_attack"}


# -- portable.commander: notional strength points ----------------------------------------------

COMMANDER = [("r-arc", "red", "Archers", (2, 2), "E"), ("b-cmd", "blue", "Commander", (4, 2), "W"),
             ("b-hi", "blue", "Heavy Infantry", (8, 0), "W"),
             ("b-hi2", "blue", "Heavy Infantry", (8, 5), "W")]


def test_a_commander_who_would_lose_a_point_is_lost_and_all_six_count_at_once():
    g = game(COMMANDER)
    assert g.state.exhaustion["blue"] == 5  # (6 + 4 + 4) / 3, rounded up
    events = g.play(ShootOrder(unit="r-arc", target="b-cmd"), dice=ManualDice([5, 2]))
    lost = next(e for e in events if e["kind"] == "strength_lost")
    assert (lost["amount"], lost["total"], lost["left"]) == (6, 6, 0)
    assert "portable.commander" in lost["rules"]
    assert kinds(events)[-3:] == ["strength_lost", "unit_removed", "army_exhausted"]
    assert g.state.units["b-cmd"].removed and g.state.units["b-cmd"].hits == 6
    assert get_ruleset("portable").strength(g.state, g.state.units["b-cmd"]) == (6, 6)
    hit = next(e for e in events if e["kind"] == "hit_taken")
    assert "is lost (a Commander's strength points are notional)" in narrate(hit, g.state)


def test_a_commander_hit_on_4_to_6_may_still_retreat_instead():
    g = game(COMMANDER)
    events = g.play(ShootOrder(unit="r-arc", target="b-cmd"), dice=ManualDice([6, 5]))
    assert events[-1]["kind"] == "hit_taken" and events[-1]["outcome"] == "choose"
    assert not g.state.units["b-cmd"].removed


def test_commander_sp_real_keeps_six_points_taken_one_at_a_time():
    g = game(COMMANDER, commander_sp="real")
    events = g.play(ShootOrder(unit="r-arc", target="b-cmd"), dice=ManualDice([5, 2]))
    lost = next(e for e in events if e["kind"] == "strength_lost")
    assert (lost["amount"], lost["total"], lost["left"]) == (1, 1, 5)
    assert "unit_removed" not in kinds(events) and "army_exhausted" not in kinds(events)
    assert get_ruleset("portable").strength(g.state, g.state.units["b-cmd"]) == (6, 0)


# -- portable.infantry_attack_move: who may attack and then move -------------------------------

SHOOTERS = [("r-arc", "red", "Archers", (2, 2), "E"),
            ("r-lc", "red", "Light Cavalry with bows", (2, 4), "E"),
            ("r-hi", "red", "Heavy Infantry", (5, 0), "E"),
            ("b-hi", "blue", "Heavy Infantry", (5, 2), "W"),
            ("b-hi2", "blue", "Heavy Infantry", (5, 4), "W"),
            ("b-hi3", "blue", "Heavy Infantry", (6, 0), "W")]


def test_infantry_that_shot_may_then_move():
    g = game(SHOOTERS)
    g.play(ShootOrder(unit="r-arc", target="b-hi"), dice=ManualDice([1]))  # a miss
    assert any(isinstance(o, RouteOrder) for o in legal_orders(g.state, "r-arc"))
    moved = g.play(RouteOrder(unit="r-arc", path=[(2, 1)], facing="E"))
    assert moved[-1]["kind"] == "unit_moved"
    assert "portable.infantry_attack_move" in moved[-1]["rules"]


def test_a_unit_that_is_not_infantry_may_not_shoot_and_then_move_and_is_told_why():
    g = game(SHOOTERS)
    g.play(ShootOrder(unit="r-lc", target="b-hi2"), dice=ManualDice([1]))
    assert not any(isinstance(o, RouteOrder) for o in legal_orders(g.state, "r-lc"))
    err = refused(g, RouteOrder(unit="r-lc", path=[(2, 5)], facing="E"),
                  "portable.infantry_attack_move")
    assert err.message == ("r-lc has attacked this turn, and Light Cavalry with bows are not "
                           "infantry: a unit that is not infantry may not attack and then move")


def test_infantry_may_still_attack_in_melee_and_then_move():
    for reading in ("infantry", "infantry_melee"):
        g = game(SHOOTERS, attack_then_move=reading)
        g.play(MeleeOrder(unit="r-hi", target="b-hi3"), dice=ManualDice([1, 1]))
        assert g.play(RouteOrder(unit="r-hi", path=[(4, 0)], facing="E"))[-1]["kind"] == \
            "unit_moved"


def test_attack_then_move_infantry_melee_keeps_no_move_after_shooting():
    g = game(SHOOTERS, attack_then_move="infantry_melee")
    g.play(ShootOrder(unit="r-arc", target="b-hi"), dice=ManualDice([1]))
    assert not any(isinstance(o, RouteOrder) for o in legal_orders(g.state, "r-arc"))
    err = refused(g, RouteOrder(unit="r-arc", path=[(2, 1)], facing="E"),
                  "portable.infantry_attack_move")
    assert err.message == ("r-arc has shot this turn: in this game no unit moves after "
                           "shooting, and only infantry after a melee attack "
                           "(options.attack_then_move)")


# -- portable.pila_throw: pila thrown before the attack -----------------------------------------

LEGION = [("r-leg", "red", "Legionaries", (2, 2), "E"),
          ("r-leg2", "red", "Legionaries", (2, 4), "E"),
          ("b-hi", "blue", "Heavy Infantry", (3, 2), "W"),
          ("b-hi2", "blue", "Heavy Infantry", (4, 4), "W")]


def test_pila_at_an_adjacent_enemy_then_the_melee_in_one_activation():
    g = game(LEGION, pila=True)
    events = g.play(ShootOrder(unit="r-leg", target="b-hi"), dice=ManualDice([1]))
    attack = next(e for e in events if e["kind"] == "attack_rolled")
    assert attack["attack"] == "pila_volley" and "portable.pila_throw" in attack["rules"]
    assert g.state.units["r-leg"].pila_used and not g.state.units["r-leg"].fought
    melee = g.play(MeleeOrder(unit="r-leg", target="b-hi"), dice=ManualDice([1, 1]))
    assert [e["attack"] for e in melee if e["kind"] == "attack_rolled"] == ["melee", "strike_back"]
    refused(g, MeleeOrder(unit="r-leg", target="b-hi"), "portable.activation")  # one attack


def test_pila_at_two_cells_then_a_move_and_the_melee():
    g = game(LEGION, pila=True)
    # r-leg2 throws at b-hi2, 2 cells E, moves next to it and attacks it
    assert get_ruleset("portable").fire_zone(g.state, g.state.units["r-leg2"]).near == 1
    g.play(ShootOrder(unit="r-leg2", target="b-hi2"), dice=ManualDice([1]))
    g.play(RouteOrder(unit="r-leg2", path=[(3, 4)], facing="E"))
    melee = g.play(MeleeOrder(unit="r-leg2", target="b-hi2"), dice=ManualDice([1, 1]))
    assert melee[-1]["kind"] == "attack_rolled" and melee[-1]["attack"] == "strike_back"


def test_pila_come_before_the_attack_never_after_it():
    g = game(LEGION, pila=True)
    g.play(MeleeOrder(unit="r-leg", target="b-hi"), dice=ManualDice([1, 1]))
    err = refused(g, ShootOrder(unit="r-leg", target="b-hi"), "portable.pila_throw")
    assert err.message == ("r-leg has already attacked this turn: Legionaries throw their pila "
                           "before their attack")


def test_pila_throw_the_attack_keeps_a_shot_at_exactly_two_cells_that_is_the_attack():
    g = game(LEGION, pila=True, pila_throw="the_attack")
    err = refused(g, ShootOrder(unit="r-leg", target="b-hi"), "grid.shooting")
    assert err.message.startswith("b-hi is adjacent: attack it in melee")
    events = g.play(ShootOrder(unit="r-leg2", target="b-hi2"), dice=ManualDice([1]))
    assert next(e for e in events if e["kind"] == "attack_rolled")["attack"] == "pila"
    assert g.state.units["r-leg2"].fought
    g.play(RouteOrder(unit="r-leg2", path=[(3, 4)], facing="E"), dice=ManualDice([]))
    refused(g, MeleeOrder(unit="r-leg2", target="b-hi2"), "portable.activation")
