"""Exact odds of what a hypothetical once left out (engine/odds.py, odds_position.py): density's
figures out of formation, Napoleonic fire at a cell fired at the turn before, and One Hour
Wargames' pre-game barrage. Every expected number is worked by hand from the rule text
(engine/rulesets/rules*.toml) and the tables, written out as the arithmetic; the position is
checked to carry the condition in its real state, so the referee's own code is what reads it."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from warlog.engine.game import Game, start
from warlog.engine.odds import OddsError, attack, hypothetical
from warlog.engine.odds_position import position
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import load_scenario
from warlog.events.orders import BarrageOrder, RolesOrder

from odds_dice import FACES, per_face, up

def board(system, period, attacker, target, kind, **extras):
    return position(system, period, attacker, target, kind=kind, terrain="open", aspect="front",
                    options={}, grid="square", distance=None, extras=extras)


# -- density: figures out of formation ------------------------------------------------------------


@pytest.mark.parametrize(("figures", "expected", "mean"), [
    # density.combat (combat = ancients): Archers +0 at Infantry, armour halves (ohw.halving, up).
    # density.disorder_penalty: each figure out of formation takes 1 off the die, at most 2;
    # ohw: a result below 0 is 0.
    # 0: faces 1..6 -> ceil(1..6 / 2) = 1 1 2 2 3 3; mean 12/6 = 2
    (0, {1: F(2, 6), 2: F(2, 6), 3: F(2, 6)}, F(2)),
    # 1: 0..5 -> 0 1 1 2 2 3; mean 9/6 = 3/2
    (1, {0: F(1, 6), 1: F(2, 6), 2: F(2, 6), 3: F(1, 6)}, F(3, 2)),
    # 2: -1..4 -> 0 0 1 2 3 4 -> 0 0 1 1 2 2; mean 6/6 = 1
    (2, {0: F(2, 6), 1: F(2, 6), 2: F(2, 6)}, F(1)),
    # 3 (two tests at density 3: 2 then 1): the penalty stops at 2, as for 2
    (3, {0: F(2, 6), 1: F(2, 6), 2: F(2, 6)}, F(1)),
])
def test_density_disorder_takes_a_figure_off_the_die_at_most_two(figures, expected, mean):
    o = hypothetical("density", None, "Archers", "Infantry", kind="shoot", disorder=figures)
    assert o.distribution == expected and o.mean == mean
    state = board("density", None, "Archers", "Infantry", "shoot", disorder=figures)
    shooter = state.units["attacker"]
    assert shooter.disordered == figures and shooter.facing == "W" and not shooter.acted


def test_density_disorder_in_melee_made_by_as_many_tests_as_the_density_needs():
    # density 2: a disorder test puts out a figure only on a 1 (density.disorder_test), so two
    # figures take two turns in place. Infantry +2 into Cavalry (no halving), less 2:
    # d6 + 2 - 2 = 1..6, each 1/6; mean 21/6 = 7/2
    o = hypothetical("density", None, "Infantry", "Cavalry", kind="melee", density=2,
                     disorder=2)
    assert o.distribution == per_face(FACES) and o.mean == F(7, 2)
    state = board("density", None, "Infantry", "Cavalry", "melee", density=2, disorder=2)
    assert state.units["attacker"].disordered == 2
    assert state.grid.distance(state.units["attacker"].cell, state.units["target"].cell) == 1


# -- Napoleonic: the same cell as last turn -----------------------------------------------------


def test_napoleonic_same_cell_adds_one_to_the_artillery_die():
    # napoleonic.artillery_fire, 3 cells (no canister): direct +1, 5+ hits: 4+, 3/6;
    # napoleonic.artillery_fire.same_cell: +1 more: 3+, 4/6 (every hit loses a point: lose)
    before = hypothetical("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                          distance=3, choice="lose")
    again = hypothetical("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                         distance=3, choice="lose", same_cell=True)
    assert before.p_hit == F(3, 6) and again.p_hit == F(4, 6) and again.mean == F(4, 6)
    state = position("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                     terrain="open", aspect="front", options={}, grid="square", distance=3,
                     extras={"same_cell": True})
    battery, target = state.units["attacker"], state.units["target"]
    assert (battery.aimed, battery.aimed_turn, state.turn) == (target.cell, 1, 2)
    assert get_ruleset("napoleonic").strength(state, target)[1] == 0  # last turn's die missed
    assert not battery.fired and state.phase == "artillery" and state.side == "red"


def test_napoleonic_same_cell_when_every_die_would_have_hit_the_turn_before():
    # flank +2, canister +2 (2 cells), direct +1: +5, so last turn's die hit on every face
    with pytest.raises(OddsError, match=r"^same_cell: .*every die \(modifiers \+5, 5\+ hits"):
        hypothetical("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                     aspect="flank", same_cell=True)


# -- One Hour Wargames: the pre-game barrage ------------------------------------------------------


@pytest.mark.parametrize(("target", "terrain", "options", "expected"), [
    # ohw.machine_age.barrage: a d6 for the target, that many hits (no modifier). A trench is
    # cover against shooting, not against the barrage (ohw.machine_age.trenches): 1..6, mean 7/2
    ("Infantry", "open", {}, per_face(FACES)),
    # nor woods (the number on the die, ohw.machine_age.barrage): 1..6
    ("Infantry", "woods", {}, per_face(FACES)),
    # before schema 3 (barrage_cover = terrain) woods halved barrage hits: 1 1 2 2 3 3, mean 2
    ("Infantry", "woods", {"barrage_cover": "terrain"}, per_face(up(f) for f in FACES)),
    # tank armour does not (the barrage is artillery): 1..6
    ("Tanks", "open", {"tanks": True}, per_face(FACES)),
])
def test_ohw_barrage_is_a_die_of_hits_on_each_target(target, terrain, options, expected):
    o = hypothetical("ohw", "machine_age", None, target, kind="barrage", terrain=terrain,
                     options=options)
    assert o.distribution == expected and o.p_hit == 1
    assert o.source is None and o.on_attacker is None and o.leaves == 6 and o.dice == 1
    assert o.mean == sum(k * p for k, p in expected.items())


def test_ohw_barrage_in_a_real_game_at_its_phase():
    game = Game(start("g", load_scenario("machine-age-hill-sixty"), seed=3))
    with pytest.raises(OddsError, match="roles are not chosen yet"):
        attack(game.state, None, "b-inf-1", "barrage")
    game.play(RolesOrder(defender="blue"))
    for unit in game.state.alive("blue"):  # open ground: a d6 of hits each, mean 7/2
        o = attack(game.state, None, unit.id, "barrage")
        assert o.distribution == per_face(FACES) and o.mean == F(7, 2)
    with pytest.raises(OddsError, match=r"not a unit of the defender \(blue\)"):
        attack(game.state, None, "r-inf-1", "barrage")
    targets = tuple(u.id for u in game.state.alive("blue"))[:game.state.barrage_targets]
    game.play(BarrageOrder(targets=targets))
    with pytest.raises(OddsError, match="before the first turn.*past it"):
        attack(game.state, None, "b-inf-1", "barrage")


# -- malformed questions: one line naming the field -----------------------------------------------


@pytest.mark.parametrize(("args", "kwargs", "words"), [
    (("density", None, "Archers", "Infantry"), {"kind": "shoot", "disorder": "x"},
     "^disorder: a whole number from 0 to 5, not 'x'"),
    (("density", None, "Archers", "Infantry"), {"kind": "shoot", "disorder": 1, "density": 1},
     "^disorder: at density 1 no die is below the density"),
    (("napoleonic", None, "Infantry", "Infantry"), {"kind": "shoot", "same_cell": True},
     r"^same_cell: true or false, for artillery \(kind bombard\)"),
    (("napoleonic", None, "Foot Artillery", "Infantry"), {"kind": "bombard", "same_cell": "x"},
     "^same_cell: true or false"),
    (("ohw", "machine_age", "Infantry", "Infantry"), {"kind": "barrage"},
     "^attacker: the barrage has no attacking unit"),
    (("ohw", "ancients", None, "Infantry"), {"kind": "barrage"},
     "^kind: the barrage belongs to the trenches option of machine_age"),
    (("ohw", "machine_age", None, "Infantry"), {"kind": "barrage",
                                                 "options": {"trenches": False}},
     "^trenches: the barrage comes with the trenches option"),
    (("ohw", "machine_age", None, "Infantry"), {"kind": "barrage", "distance": 3},
     "^distance: the barrage has no attacking unit"),
    (("ohw", "machine_age", None, "Infantry"), {"kind": "shoot"},
     "^attacker: a shoot needs the attacker's unit type"),
    (("ohw", "machine_age", None, "Tanks"), {"kind": "barrage"}, "^target.type: Tanks need"),
])
def test_a_malformed_question_is_one_line_naming_the_field(args, kwargs, words):
    with pytest.raises(OddsError, match=words) as raised:
        hypothetical(*args, **kwargs)
    assert "\n" not in str(raised.value)
