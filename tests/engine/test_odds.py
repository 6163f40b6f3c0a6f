"""Exact odds (engine/odds.py). Every expected number below is worked by hand from the rule text
(docs/rules.md) and the tables (engine/rulesets/*.toml), written out as the arithmetic; none
comes from running the code. Then real positions: the referee's phase, its refusals, and every
attack of bot games re-resolved from its recorded dice to the very same events."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from warlog.engine import odds
from warlog.engine.bots import play_out
from warlog.engine.fold import evolve
from warlog.engine.game import Game
from warlog.engine.odds import OddsError, attack, hypothetical
from warlog.engine.scenario import load_scenario
from warlog.engine.state import other_side
from warlog.events.orders import EndPhaseOrder, MoveOrder

from builders import new_game
from odds_dice import FACES, SIXTH, per_face, up


def exact(o: odds.Odds) -> odds.Odds:
    """Every result is a whole distribution: the outcomes and each unit's numbers add to 1."""
    assert sum(p for _, p in o.outcomes) == 1
    for e in (o.on_target, o.on_attacker, *o.others):
        if e is not None:
            assert sum(e.distribution.values()) == 1 and sum(e.lost.values()) == 1
    return o


def outcome(o: odds.Odds, words: str) -> F:
    """The probability of every outcome whose words include ``words``."""
    return sum((p for label, p in o.outcomes if words in label), F(0))


# -- One Hour Wargames --------------------------------------------------------------------------


def test_ohw_melee_is_the_die_plus_the_modifier():
    # ohw.melee.own_turn: d6 + modifier = hits; ancients Infantry +2; Cavalry has no armour
    o = exact(hypothetical("ohw", "ancients", "Infantry", "Cavalry", kind="melee"))
    assert o.distribution == per_face(f + 2 for f in FACES)  # 3 .. 8
    assert o.mean == F(3 + 4 + 5 + 6 + 7 + 8, 6) == F(11, 2)
    assert o.mean_float == 5.5 and o.p_hit == 1
    assert o.on_attacker is None  # the defender strikes back in its own turn, not here


@pytest.mark.parametrize("grid", ["square", "hex", "brick"])
@pytest.mark.parametrize("aspect", ["flank", "rear"])
def test_ohw_flank_and_rear_double_the_hits(grid, aspect):
    # ohw.melee.flank: (d6 + 2) x 2 = 6, 8, ..., 16; mean 2 x 11/2
    o = exact(hypothetical("ohw", "ancients", "Infantry", "Cavalry", kind="melee",
                           aspect=aspect, grid=grid))
    assert o.distribution == per_face(2 * (f + 2) for f in FACES)
    assert o.mean == 11


def test_ohw_shooting_into_cover_is_halved_rounding_up():
    # Archers +0 (ohw.ancients.shooting); Skirmishers in woods: cover halves (ohw.ancients.cover)
    o = exact(hypothetical("ohw", "ancients", "Archers", "Skirmishers", kind="shoot",
                           terrain="woods"))
    assert o.distribution == per_face(up(f) for f in FACES)  # 1 1 2 2 3 3
    assert o.mean == F(1 + 1 + 2 + 2 + 3 + 3, 6) == 2


def test_ohw_each_halving_applies_in_turn_unless_the_option_says_once():
    # Cavalry +0 on Infantry defending a hill: armour and the defensive position, each halving
    # rounding up: 1 1 1 1 2 2 (ohw.halving); option halving = once halves once: 1 1 2 2 3 3
    each = exact(hypothetical("ohw", "ancients", "Cavalry", "Infantry", kind="melee",
                              terrain="hill"))
    assert each.distribution == per_face(up(up(f)) for f in FACES) == {1: F(4, 6), 2: F(2, 6)}
    assert each.mean == F(4, 3)
    once = exact(hypothetical("ohw", "ancients", "Cavalry", "Infantry", kind="melee",
                              terrain="hill", options={"halving": "once"}))
    assert once.mean == F(1 + 1 + 2 + 2 + 3 + 3, 6) == 2


def test_ohw_doubling_comes_before_halving():
    # Infantry +2 into Cavalry's flank on a hill: (d6 + 2) x 2, halved for the defensive position
    o = exact(hypothetical("ohw", "ancients", "Infantry", "Cavalry", kind="melee",
                           aspect="flank", terrain="hill"))
    assert o.distribution == per_face(up(2 * (f + 2)) for f in FACES)  # = d6 + 2 again
    assert o.mean == F(11, 2)


def test_ohw_a_result_below_zero_is_no_hits():
    # Skirmishers -2 in melee (ohw.ancients.melee): 0 0 1 2 3 4 (ohw.shoot.roll: below 0 is 0)
    o = exact(hypothetical("ohw", "ancients", "Skirmishers", "Cavalry", kind="melee"))
    assert o.distribution == {0: F(2, 6), 1: SIXTH, 2: SIXTH, 3: SIXTH, 4: SIXTH}
    assert o.mean == F(0 + 0 + 1 + 2 + 3 + 4, 6) and o.p_hit == F(4, 6)


def test_ohw_pike_and_shot_ammunition_is_a_second_die():
    # Infantry +0; then a d6 for ammunition: 1 or 2 and it is out (ohw.pike_and_shot.ammo)
    o = exact(hypothetical("ohw", "pike_and_shot", "Infantry", "Swordsmen", kind="shoot"))
    assert o.distribution == per_face(FACES) and o.mean == F(7, 2)
    assert outcome(o, "attacker: out of ammunition") == F(2, 6)
    assert o.leaves == 36 and o.dice == 2


def test_ohw_horse_and_musket_cavalry_loses_its_bonus_after_1860_and_falls_back():
    # ohw.horse_and_musket.melee: Cavalry +2 before 1860, +0 after; regroup after each attack
    # that does not destroy (at most 8 hits of 10): it falls back (ohw.horse_and_musket.regroup)
    before = exact(hypothetical("ohw", "horse_and_musket", "Cavalry", "Infantry", kind="melee",
                                year=1815))
    assert before.mean == F(11, 2) and outcome(before, "attacker: falls back") == 1
    after = exact(hypothetical("ohw", "horse_and_musket", "Cavalry", "Infantry", kind="melee",
                               year=1866))
    assert after.distribution == per_face(FACES) and after.mean == F(7, 2)


def test_ohw_ww2_hull_down():
    # Tanks +2 against Tanks (ohw.ww2.shooting); a Tank on a hill is hull-down: halved
    o = exact(hypothetical("ohw", "ww2", "Tanks", "Tanks", kind="shoot", terrain="hill"))
    assert o.distribution == per_face(up(f + 2) for f in FACES)  # 2 2 3 3 4 4
    assert o.mean == 3


def test_ohw_machine_age_trench():
    # options.trenches: the target's side defends, its unit on open ground is in a trench, which
    # halves shooting (ohw.machine_age.trenches); Machine guns +2: ceil((d6 + 2) / 2)
    o = exact(hypothetical("ohw", "machine_age", "Machine guns", "Infantry", kind="shoot",
                           options={"trenches": True}))
    assert o.distribution == per_face(up(f + 2) for f in FACES) and o.mean == 3


def test_ohw_machine_age_no_trench_on_a_hill():
    # a hill is not open ground, so no trench (ohw.machine_age.in_trench), and the Machine Age
    # gives it no cover: d6 + 2 in full, whichever reading of the trench cells
    for cells in ("open_ground", "start"):
        o = exact(hypothetical("ohw", "machine_age", "Machine guns", "Infantry", kind="shoot",
                               terrain="hill", options={"trenches": True, "trench_cells": cells}))
        assert o.distribution == per_face(f + 2 for f in FACES) and o.mean == F(11, 2)


def test_ohw_periods_without_melee_have_no_melee_odds():
    with pytest.raises(OddsError, match="no melee"):
        hypothetical("ohw", "machine_age", "Infantry", "Infantry", kind="melee")


# -- The Portable Wargame -----------------------------------------------------------------------


def test_portable_shot_hits_on_5_and_the_hit_table_leaves_a_choice():
    # portable.resolution: 5 or 6 hits (2/6); portable.hit_table: 1-3 loses a SP (1/2), 4-6 the
    # owner chooses (1/2: on an open board it can retreat)
    o = exact(hypothetical("portable", None, "Archers", "Heavy Infantry", kind="shoot"))
    assert o.p_hit == F(2, 6)
    assert o.on_target.p_choice == F(2, 6) * F(1, 2)
    assert o.distribution == {0: 1 - F(1, 6), 1: F(2, 6) * F(1, 2)}
    assert o.notes  # the owed choice is said to be counted as owed
    lose = exact(hypothetical("portable", None, "Archers", "Heavy Infantry", kind="shoot",
                              choice="lose"))
    assert lose.distribution == {0: F(4, 6), 1: F(2, 6)} and lose.on_target.p_choice == 0
    retreat = exact(hypothetical("portable", None, "Archers", "Heavy Infantry", kind="shoot",
                                 choice="retreat"))
    assert retreat.mean == F(1, 6) and retreat.on_target.p_retreated == F(1, 6)


def test_portable_option_hit_on():
    # options.hit_on = 4: 4, 5, 6 hit; every hit costs a point (choice lose): mean 3/6
    o = exact(hypothetical("portable", None, "Archers", "Heavy Infantry", kind="shoot",
                           options={"hit_on": 4}, choice="lose"))
    assert o.p_hit == F(3, 6) and o.mean == F(1, 2)


def test_portable_melee_strikes_back_at_the_same_time():
    # both roll 5+ (2/6 each, independent); each hit costs a point with choice lose
    o = exact(hypothetical("portable", None, "Heavy Infantry", "Heavy Infantry", kind="melee",
                           choice="lose"))
    assert o.distribution == {0: F(4, 6), 1: F(2, 6)}
    assert o.on_attacker.distribution == {0: F(4, 6), 1: F(2, 6)}
    assert outcome(o, "target: -1 SP; attacker: -1 SP") == F(2, 6) * F(2, 6)


def test_portable_charge_and_braced_spears():
    # Cataphracts that moved 1 cell: +2 (portable.special.cataphracts): 3+ hits (4/6); Hoplites
    # strike back +1 against mounted from the front: 4+ (3/6) (portable.special.hoplites)
    o = exact(hypothetical("portable", None, "Cataphracts", "Hoplites", kind="melee", moved=1,
                           choice="lose"))
    assert o.p_hit == F(4, 6) and o.on_attacker.p_hit == F(3, 6)
    # standing still, into the flank: Cataphracts +1: 4+ (3/6); Hoplites -1 in flank: 6 (1/6)
    flank = exact(hypothetical("portable", None, "Cataphracts", "Hoplites", kind="melee",
                               aspect="flank", choice="lose"))
    assert flank.p_hit == F(3, 6) and flank.on_attacker.p_hit == F(1, 6)


def test_portable_a_poor_unit_of_one_point_is_destroyed_by_any_lost_point():
    # Archers 2 SP, poor -1 (portable.sp): 1 SP; a hit (2/6) that costs the point removes it
    o = exact(hypothetical("portable", None, "Archers", "Archers", kind="shoot",
                           target_quality="poor", choice="lose"))
    assert o.on_target.p_removed == F(2, 6)


def test_portable_terrain_does_not_change_the_die():
    # nothing in portable.resolution reads the ground: woods (which Archers enter) change nothing
    woods = hypothetical("portable", None, "Archers", "Archers", kind="shoot", terrain="woods")
    open_ = hypothetical("portable", None, "Archers", "Archers", kind="shoot")
    assert woods.outcomes == open_.outcomes


# -- Frontier -----------------------------------------------------------------------------------


def test_frontier_combat_both_roll_at_or_under_their_strength():
    # frontier.combat: European Infantry 5 destroys on 1-5 (5/6); Native Infantry 4 destroys
    # the attacker on 1-4 (4/6); the two dice are independent; losses are whole units
    o = exact(hypothetical("frontier", None, "European Infantry", "Native Infantry",
                           kind="melee"))
    assert o.p_hit == F(5, 6) and o.on_attacker.p_hit == F(4, 6)
    assert outcome(o, "target: destroyed; attacker: destroyed") == F(5, 6) * F(4, 6)
    assert o.outcomes[0] == ("no effect", F(1, 6) * F(2, 6))
    assert o.distribution == {0: F(1, 6), 4: F(5, 6)}  # strength lost: all 4 of it
    assert o.mean == 4 * F(5, 6) and o.on_attacker.mean == 5 * F(4, 6)


@pytest.mark.parametrize(("terrain", "mine", "theirs"), [
    ("river", 5, 4 - 1),  # frontier.rivers: attacked in a river, strength -1
    ("hill", 5 - 1, 4 + 1),  # frontier.hills: one level up: attacker -1, defender +1
])
def test_frontier_ground_changes_the_strengths(terrain, mine, theirs):
    o = exact(hypothetical("frontier", None, "European Infantry", "Native Infantry",
                           kind="melee", terrain=terrain))
    assert o.p_hit == F(mine, 6) and o.on_attacker.p_hit == F(theirs, 6)


def test_frontier_cavalry_into_woods_and_several_attackers():
    # frontier.woods: cavalry attacking into woods -1: 4 of 6
    woods = exact(hypothetical("frontier", None, "European Cavalry", "Native Infantry",
                               kind="melee", terrain="woods"))
    assert woods.p_hit == F(4, 6)
    # frontier.several_attackers: three attackers take 2 off the defender: 4 - 2 = 2 of 6
    three = exact(hypothetical("frontier", None, "European Infantry", "Native Infantry",
                               kind="melee", attackers=3))
    assert three.on_attacker.p_hit == F(2, 6) and three.p_hit == F(5, 6)


def test_frontier_bombard_falls_then_destroys():
    # frontier.fall_of_shot: 5 or 6 on the cell (2/6); frontier.effect: direct fire destroys a
    # unit on 2, 4, 6 (3/6); the other falls land on empty cells
    direct = exact(hypothetical("frontier", None, "Field Artillery", "Native Infantry",
                                kind="bombard"))
    assert direct.p_hit == F(2, 6) * F(3, 6) == direct.on_target.p_removed
    # woods hide the cell: indirect, 4 or 6 (2/6)
    hidden = exact(hypothetical("frontier", None, "Field Artillery", "Native Infantry",
                                kind="bombard", terrain="woods"))
    assert hidden.p_hit == F(2, 6) * F(2, 6)
    # a Commander under direct fire: 4 or 6
    commander = exact(hypothetical("frontier", None, "Field Artillery", "Commander",
                                   kind="bombard"))
    assert commander.p_hit == F(2, 6) * F(2, 6)


# -- Napoleonic ---------------------------------------------------------------------------------


def test_napoleonic_musketry():
    # napoleonic.fire: 5+ after modifiers; in line +2, has not moved +1: 2+ hits (5/6); the
    # hits table (option hits_table = choose): 1-3 a point, 4-6 the owner's choice
    o = exact(hypothetical("napoleonic", None, "Infantry", "Infantry", kind="shoot"))
    assert o.p_hit == F(5, 6)
    assert o.distribution == {0: 1 - F(5, 12), 1: F(5, 6) * F(1, 2)}
    # option hits_table = lose: every hit a point
    lose = exact(hypothetical("napoleonic", None, "Infantry", "Infantry", kind="shoot",
                              options={"hits_table": "lose"}))
    assert lose.distribution == {0: F(1, 6), 1: F(5, 6)} and lose.mean == F(5, 6)


@pytest.mark.parametrize(("extras", "modifier"), [
    ({"terrain": "woods"}, 2 + 1 - 1),  # line, still, cover -1
    ({"aspect": "flank"}, 2 + 1 + 1),  # line, still, flank +1 (napoleonic.flank_at_range)
    ({"moved": True}, 2),  # line; no +1 for standing still (napoleonic.fire.still)
    ({"commander": True, "terrain": "woods"}, 2 + 1 + 1 - 1),  # commander +1, cover -1
])
def test_napoleonic_musketry_modifiers(extras, modifier):
    # a hit is a die of 5 - modifier or more
    o = exact(hypothetical("napoleonic", None, "Infantry", "Infantry", kind="shoot",
                           choice="lose", **extras))
    assert o.p_hit == F(sum(1 for f in FACES if f + modifier >= 5), 6)


@pytest.mark.parametrize(("extras", "target_hit", "attacker_hit"), [
    ({}, F(2, 6), F(2, 6)),  # napoleonic.melee: each side's total of 2 or less takes a hit
    ({"formation": "column"}, F(2, 6), F(1, 6)),  # column against line: attacker +1
    ({"aspect": "flank"}, F(3, 6), F(1, 6)),  # attacking the flank +1, attacked there -1
    ({"terrain": "hill"}, F(2, 6), F(3, 6)),  # attacking high ground: attacker -1
])
def test_napoleonic_melee_both_roll(extras, target_hit, attacker_hit):
    o = exact(hypothetical("napoleonic", None, "Infantry", "Infantry", kind="melee",
                           choice="lose", **extras))
    assert o.p_hit == target_hit and o.on_attacker.p_hit == attacker_hit
    assert o.mean == target_hit and o.on_attacker.mean == attacker_hit  # 1 SP a hit


def test_napoleonic_artillery():
    # napoleonic.artillery_fire: 2 cells: canister +2, direct +1: 2+ (5/6); 3 cells: direct +1:
    # 4+ (3/6); a target in column +1 more: 3+ (4/6)
    near = hypothetical("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                        choice="lose")
    assert exact(near).p_hit == F(5, 6)
    far = hypothetical("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                       distance=3, choice="lose")
    assert exact(far).p_hit == F(3, 6)
    column = hypothetical("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                          distance=3, target_formation="column", choice="lose")
    assert exact(column).p_hit == F(4, 6)


# -- Formation density --------------------------------------------------------------------------


def test_density_uses_one_hour_wargames_arithmetic():
    # density.combat (option combat = ancients): Archers +0 at Infantry, armour halves: 1 1 2 2 3 3
    shot = exact(hypothetical("density", None, "Archers", "Infantry", kind="shoot"))
    assert shot.distribution == per_face(up(f) for f in FACES) and shot.mean == 2
    # Infantry +2 into Cavalry's flank: doubled
    flank = exact(hypothetical("density", None, "Infantry", "Cavalry", kind="melee",
                               aspect="flank"))
    assert flank.distribution == per_face(2 * (f + 2) for f in FACES) and flank.mean == 11


def test_density_defensive_position_needs_the_attacker_to_close_in():
    # Cavalry moves into contact with Infantry on a hill: armour and defensive position
    # (density.contact: the mover is the attacker): 1 1 1 1 2 2; option halving = once: 1 1 2 2 3 3
    hill = exact(hypothetical("density", None, "Cavalry", "Infantry", kind="melee",
                              terrain="hill"))
    assert hill.mean == F(4, 3)
    once = exact(hypothetical("density", None, "Cavalry", "Infantry", kind="melee",
                              terrain="hill", options={"halving": "once"}))
    assert once.mean == 2


def test_density_option_combat_dark_ages():
    # option combat = dark_ages: Warband +2 against Infantry's shield wall: ceil((d6 + 2) / 2)
    o = exact(hypothetical("density", None, "Warband", "Infantry", kind="melee",
                           options={"combat": "dark_ages"}))
    assert o.distribution == per_face(up(f + 2) for f in FACES) and o.mean == 3


# -- questions the rules refuse -----------------------------------------------------------------


@pytest.mark.parametrize(("args", "kwargs", "words"), [
    (("ohw", "ancients", "Archers", "Cavalry"), {"kind": "shoot", "distance": 5},
     "5 cells away.*ohw.ancients.shooting"),
    (("ohw", "ancients", "Knights", "Cavalry"), {"kind": "melee"},
     "attacker: Ancients has no unit type 'Knights'; known: Infantry, Archers"),
    (("ohw", "ancient", "Infantry", "Cavalry"), {"kind": "melee"}, "period: 'ancient'"),
    (("ohw", None, "Infantry", "Cavalry"), {"kind": "melee"}, "period: .*name one of"),
    (("ohw", "ancients", "Infantry", "Cavalry"), {"kind": "bombard"},
     "kind: 'bombard' is not one of: shoot, melee"),
    (("ohw", "ancients", "Infantry", "Cavalry"), {"kind": "melee", "formation": "x"},
     "option: ohw has no option 'formation'"),
    (("ohw", "ancients", "Infantry", "Cavalry"), {"kind": "melee", "options": {"halving": "x"}},
     "options.halving"),
    (("ohw", "ancients", "Infantry", "Cavalry"), {"kind": "melee", "terrain": "woods"},
     "target.cell.*Cavalry may not enter woods"),
    (("portable", None, "Archers", "Archers"), {"kind": "melee", "choice": "flee"},
     "choice: 'flee'"),
    (("ohw", "horse_and_musket", "Infantry", "Cavalry"), {"kind": "melee"},
     "ohw.horse_and_musket.attack"),
])
def test_an_attack_the_rules_refuse_is_one_line_naming_why(args, kwargs, words):
    with pytest.raises(OddsError, match=words):
        hypothetical(*args, **kwargs)


def test_the_enumeration_is_capped():
    from warlog.engine.odds_position import position

    # a Portable melee: two attack dice, then up to two hit-table dice: 256 ways in all
    state = position("portable", None, "Heavy Infantry", "Heavy Infantry", kind="melee",
                     terrain="open", aspect="front", options={}, grid="square", distance=None,
                     extras={})
    view, resolve, _ = odds.plan(state, "attacker", "target", "melee")
    assert len(odds.leaves(view, resolve)) == 4 * 4 + 2 * (2 * 4 * 6) + 2 * 2 * 6 * 6
    with pytest.raises(OddsError, match="more than 10 ways"):
        odds.leaves(view, resolve, cap=10)


# -- real positions ------------------------------------------------------------------------------


def test_a_shot_is_asked_as_at_the_shooting_phase_it_belongs_to():
    game = new_game([("r-arc", "red", "Archers", (1, 2), "E"),
                     ("b-cav", "blue", "Cavalry", (4, 2), "W")], seed=1)
    assert game.state.phase == "movement" and game.state.side == "red"
    early = attack(game.state, "r-arc", "b-cav", "shoot")  # red's shooting phase, to come
    assert early.mean == F(7, 2)  # Archers +0 (ohw.ancients.shooting)
    game.play(EndPhaseOrder())
    assert game.state.phase == "shooting"
    assert attack(game.state, "r-arc", "b-cav", "shoot") == early
    game.play(EndPhaseOrder())  # no shot; on to red's melee, then blue's turn
    while game.state.side != "blue":
        game.play(EndPhaseOrder())
    assert attack(game.state, "r-arc", "b-cav", "shoot") == early  # red's next turn


def test_a_unit_that_moved_may_not_shoot_in_the_same_turn():
    game = new_game([("r-arc", "red", "Archers", (1, 2), "E"),
                     ("b-cav", "blue", "Cavalry", (5, 2), "W")], seed=1)
    game.play(MoveOrder(unit="r-arc", facing="E", distance=1))
    with pytest.raises(OddsError, match="moved this turn and may not shoot"):
        attack(game.state, "r-arc", "b-cav", "shoot")  # ohw.ancients.move_shoot


def test_attack_refuses_what_the_referee_refuses():
    state = Game.new("g", load_scenario("ancients-river-crossing"), seed=3).state
    red = state.alive("red")
    blue = state.alive("blue")
    with pytest.raises(OddsError, match="target: .* own side"):
        attack(state, red[0].id, red[1].id, "shoot")
    with pytest.raises(OddsError, match="attacker: no unit 'nobody'"):
        attack(state, "nobody", blue[0].id, "shoot")
    with pytest.raises(OddsError, match="not next to"):
        attack(state, red[0].id, blue[0].id, "melee")
    infantry = next(u for u in red if u.type == "Infantry")
    with pytest.raises(OddsError, match="may not shoot"):
        attack(state, infantry.id, blue[0].id, "shoot")


SYSTEM_GAMES = [  # (scenario, seed, blue's policy): every rule system, and the rarer steps
    ("ancients-battle-for-the-hill", 1, "cautious"),  # melees with several enemies to choose
    ("horse-and-musket-quatre-bras", 9, "aggressive"),  # cavalry that regroups
    ("pike-and-shot-auldearn", 7, "cautious"),  # ammunition dice
    ("ww2-villers-bocage", 7, "cautious"),  # spotting
    ("portable-zama", 7, "cautious"), ("frontier-ulundi", 7, "cautious"),
    ("napoleonic-hougoumont", 7, "cautious"), ("density-granicus", 7, "cautious")]
SKIP = {"game", "seq", "cause", "v", "turn", "side", "phase"}


def _plain(events):
    return [{k: v for k, v in e.items() if k not in SKIP} for e in events
            if e["kind"] not in ("phase_started", "state_checksum", "unit_activated")
            and "frontier.advance" not in e["rules"]]


def _recorded_attacks(events):
    """(state before, attacker, target, kind, the events it caused) for every attack order, and
    for every melee die a phase rolled by itself (One Hour Wargames, density)."""
    state = None
    for i, e in enumerate(events):
        order = e.get("order") if e["kind"] == "order_given" else None
        if order and order["type"] in ("shoot", "melee", "bombard", "fight"):
            caused = [x for x in events[i + 1:] if x.get("cause") == e["seq"]]
            if order["type"] == "fight":
                fought = next(x for x in caused if x["kind"] == "combat_fought")
                yield state, fought["faced"], order["target"], "melee", caused
            elif order["type"] == "bombard":
                there = [u for u in state.alive(other_side(state.side))
                         if u.cell == tuple(order["cell"])]
                if there:
                    yield state, order["unit"], there[0].id, "bombard", caused
            else:
                yield state, order["unit"], order["target"], order["type"], caused
        if (e["kind"] == "dice_rolled" and e["purpose"] == "melee"
                and state.rule_system in ("ohw", "density")):  # a melee phase's own die
            rest = events[i + 1:]
            end = next(j for j, x in enumerate(rest)
                       if x["kind"] in ("dice_rolled", "phase_started", "state_checksum"))
            hit = rest[0]
            yield state, hit["source"], hit["target"], "melee", [e, *rest[:end]]
        state = evolve(state, e)


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "seed", "blue"), SYSTEM_GAMES)
def test_every_recorded_attack_is_one_of_its_enumerated_outcomes_event_for_event(scenario, seed,
                                                                                 blue):
    """The odds resolve an attack with the referee's own code: the leaf whose faces are the
    dice a bot game recorded emits exactly the events that game recorded."""
    events = play_out("g", load_scenario(scenario), seed=seed, blue=blue).events
    checked = 0
    for state, source, target, kind, caused in _recorded_attacks(events):
        view, resolve, _ = odds.plan(state, source, target, kind)
        found = {leaf.faces: leaf for leaf in odds.leaves(view, resolve)}
        faces = tuple(f for x in caused if x["kind"] == "dice_rolled" for f in x["faces"])
        assert _plain(found[faces].events) == _plain(caused), (scenario, source, target)
        assert sum(leaf.probability for leaf in found.values()) == 1
        checked += 1
    assert checked >= 5, scenario


def test_odds_are_plain_data_for_json():
    o = hypothetical("napoleonic", None, "Infantry", "Infantry", kind="melee")
    data = json.loads(json.dumps(o.as_dict()))
    assert data["target_effect"]["p_hit"] == {"fraction": "1/3", "float": 1 / 3}
    assert sum(F(x["fraction"]) for x in data["outcomes"]) == 1
    assert data["attacker_effect"]["unit"] == "attacker"
