"""Frontier's referee: rulings brought to Morschauser's book in schema 3, each with the option
value that keeps the reading warlog played before (engine/rulesets/frontier.toml).

Every expected number is worked by hand from the rule text (engine/rulesets/rules.toml) and the
table (frontier.toml):

- frontier.combat: a unit that makes contact (its order ends next to the enemy, facing it) turns
  the enemy to face it, so the enemy faces the last to make contact; both roll a d6, at or under
  the strength destroys; if the attackers lose, the unit faced is destroyed.
- frontier.several_attackers: two attackers take 1 off the defender; the attackers use the
  strength of the unit faced. Strengths: European Infantry 5, Native Infantry 4.
- frontier.artillery / grid.shooting: artillery fire is shooting, at a cell not next to the
  battery; frontier.fall_of_shot: every fall lands next to the aimed cell.
"""

from __future__ import annotations

import pytest

from warlog.engine.dice import RecordedDice
from warlog.engine.game import Game, start
from warlog.engine.geometry import GRID_KINDS, make_grid
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.frontier import fire as frontier_fire
from warlog.engine.scenario import scenario_from_dict
from warlog.events.orders import BombardOrder, EndPhaseOrder, FightOrder, RouteOrder

OLD_CONTACT = {"contact_facing": "flank_rear"}
OLD_BOMBARD = {"bombard_adjacent": True}


def frontier(units, *, kind="square", size=(10, 7), options=None):
    """A Frontier game (red first) at red's artillery phase of turn 1; ``units`` as
    (id, side, type, cell, facing). Each side has a reserve in a far corner, so a loss never
    ends the battle."""
    rows = [*units, ("red-reserve", "red", "European Infantry", (size[0] - 1, 0), "W"),
            ("blue-reserve", "blue", "Native Infantry", (0, size[1] - 1), "E")]
    data = {"id": "f", "title": "F", "rule_system": "frontier", "period": "frontier",
            "first": "red", "grid": {"kind": kind, "width": size[0], "height": size[1]},
            "terrain": {}, "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
            "units": [{"id": uid, "side": side, "type": t, "cell": list(cell), "facing": f}
                      for uid, side, t, cell, f in rows],
            "victory": {"turn_limit": 15}, "options": options or {}}
    game = Game(start("f", scenario_from_dict(data, source="test"), seed=None, dice="manual"))
    assert (game.state.phase, game.state.side) == ("artillery", "red")
    return game


def to_red_movement(game):
    """End both artillery phases; red wins the initiative (red 6, blue 1)."""
    game.play(EndPhaseOrder())
    game.play(EndPhaseOrder(), dice=RecordedDice([6, 1]))
    assert (game.state.phase, game.state.side) == ("movement", "red")


# -- item: the defender faces the last unit to make contact (frontier.combat) -------------------

HEX = make_grid("hex", 10, 9)
D = (4, 4)                           # the defender (blue Native Infantry), facing E
A = HEX.step(D, "E")                 # red European Infantry, in contact from the start, faced
NE = HEX.step(D, "NE")               # a cell of D's front aspect that D does not face
B_START = HEX.step(NE, "NE")         # red Native Infantry, two cells off


def kandahar_like(options=None):
    """Two attackers on a hex grid: A (strength 5) already faced by D; B (strength 4) comes in
    to D's front aspect, at the side beside the one D faces."""
    assert HEX.aspect(D, "E", NE) == "front" and HEX.distance(B_START, D) == 2
    game = frontier([("D", "blue", "Native Infantry", D, "E"),
                     ("A", "red", "European Infantry", A, HEX.facing_to(A, D)),
                     ("B", "red", "Native Infantry", B_START, "W")],
                    kind="hex", size=(10, 9), options=options)
    to_red_movement(game)
    game.play(RouteOrder(unit="B", path=(NE,), facing=HEX.facing_to(NE, D)))
    return game


def fight(game, faces):
    game.play(EndPhaseOrder())  # red's movement ends: its combat
    events = game.play(FightOrder(target="D"), dice=RecordedDice(faces))
    return next(e for e in events if e["kind"] == "combat_fought"), events


def test_the_defender_turns_to_the_last_unit_to_make_contact_and_its_strength_counts():
    game = kandahar_like()
    assert game.state.units["D"].facing == "NE"  # B made contact last: D faces it
    # attacker die 5 against B's 4 (A's 5 would have destroyed D); defender die 6 against 4 - 1
    fought, _ = fight(game, [5, 6])
    assert fought["faced"] == "B" and fought["attacker_strength"] == 4
    assert fought["defender_strength"] == 4 - 1 and not fought["target_destroyed"]


def test_when_the_attack_fails_the_unit_faced_last_is_destroyed():
    game = kandahar_like()
    fought, events = fight(game, [6, 1])  # the defender's 1 at or under 3: the faced one falls
    assert fought["attacker_destroyed"] and fought["faced"] == "B"
    assert [e["unit"] for e in events if e["kind"] == "unit_removed"] == ["B"]
    assert not game.state.units["A"].removed


def test_flank_rear_keeps_the_old_reading_the_first_faced_counts():
    game = kandahar_like(OLD_CONTACT)
    assert game.state.units["D"].facing == "E"  # a front-aspect contact did not turn it
    fought, events = fight(game, [5, 1])
    assert fought["faced"] == "A" and fought["attacker_strength"] == 5
    assert fought["target_destroyed"] and fought["attacker_destroyed"]
    assert {e["unit"] for e in events if e["kind"] == "unit_removed"} == {"D", "A"}


@pytest.mark.parametrize(("options", "turned"), [({}, "SE"), (OLD_CONTACT, None)])
def test_a_turn_in_place_to_face_the_enemy_makes_contact(options, turned):
    # C stands at D's south-east side (front aspect on hexes) facing away; it turns to face D.
    se = HEX.step(D, "SE")
    game = frontier([("D", "blue", "Native Infantry", D, "E"),
                     ("C", "red", "European Infantry", se, "E")],
                    kind="hex", size=(10, 9), options=options)
    to_red_movement(game)
    events = game.play(RouteOrder(unit="C", facing=HEX.facing_to(se, D)))
    turns = [e for e in events if e["kind"] == "unit_turned" and e["unit"] == "D"]
    assert [e["to_facing"] for e in turns] == ([turned] if turned else [])
    assert all(e["rules"] == ["frontier.combat"] for e in turns)


@pytest.mark.parametrize("options", [{}, OLD_CONTACT])
def test_a_flank_contact_turns_the_defender_in_both_readings(options):
    # Square grid: D at (4, 3) faces E; C comes from the north, (4, 1) -> (4, 2), D's flank.
    game = frontier([("D", "blue", "Native Infantry", (4, 3), "E"),
                     ("C", "red", "European Infantry", (4, 1), "S")], options=options)
    to_red_movement(game)
    game.play(RouteOrder(unit="C", path=((4, 2),), facing="S"))
    assert game.state.units["D"].facing == "N"


def test_a_unit_in_contact_that_is_given_no_order_does_not_turn_the_defender_back():
    # A faced D from the start; B's contact turned D; A, given no order, leaves it so.
    game = kandahar_like()
    game.play(EndPhaseOrder())
    assert game.state.units["D"].facing == "NE" and game.state.phase == "combat"


# -- item: artillery never aims at the next cell (grid.shooting, frontier.artillery) -------------

def battery(*units, options=None):
    """Red Field Artillery ``bat`` at (6, 3) facing W on a square 10 x 7 board."""
    return frontier([("bat", "red", "Field Artillery", (6, 3), "W"), *units], options=options)


def bombards(game):
    return sorted(tuple(o.cell) for o in get_ruleset("frontier").legal_orders(game.state, "bat")
                  if isinstance(o, BombardOrder))


def test_a_battery_may_not_aim_at_the_cell_next_to_it():
    game = battery(("near", "blue", "Native Infantry", (5, 3), "E"),
                   ("far", "blue", "Native Infantry", (3, 3), "E"))
    with pytest.raises(IllegalOrder) as refused:
        game.play(BombardOrder(unit="bat", cell=(5, 3)))
    assert refused.value.rule == "grid.shooting"
    assert "(5, 3) is next to bat" in refused.value.message and "shooting" in refused.value.message
    assert (5, 3) not in bombards(game) and (4, 3) in bombards(game)  # two cells off: allowed
    assert get_ruleset("frontier").fire_zone(game.state, game.state.units["bat"]).near == 2


def test_bombard_adjacent_keeps_the_old_reading_and_its_short_shell_on_the_battery():
    game = battery(("near", "blue", "Native Infantry", (5, 3), "E"), options=OLD_BOMBARD)
    assert (5, 3) in bombards(game)
    assert get_ruleset("frontier").fire_zone(game.state, game.state.units["bat"]).near == 1
    # fall 4 (short) lands on the battery's own cell; effect 2 destroys (direct fire)
    events = game.play(BombardOrder(unit="bat", cell=(5, 3)), dice=RecordedDice([4, 2]))
    landed = next(e for e in events if e["kind"] == "shell_landed")
    assert landed["fall"] == "short" and tuple(landed["landed"]) == (6, 3)
    assert game.state.marked == ["bat"]


@pytest.mark.parametrize(("options", "fires"), [({}, False), (OLD_BOMBARD, True)])
def test_an_enemy_only_next_to_the_battery_is_not_in_its_range(options, fires):
    game = battery(("near", "blue", "Native Infantry", (5, 3), "E"), options=options)
    if fires:
        game.play(BombardOrder(unit="bat", cell=(3, 3)), dice=RecordedDice([5]))
        return
    with pytest.raises(IllegalOrder, match="no enemy in range.*one next to it is not") as refused:
        game.play(BombardOrder(unit="bat", cell=(3, 3)))
    assert refused.value.rule == "frontier.artillery"
    assert bombards(game) == []


@pytest.mark.parametrize("kind", GRID_KINDS)
def test_a_shell_aimed_two_or_more_cells_off_never_falls_on_the_battery(kind):
    """Every fall lands next to the aimed cell, so only an aim at the next cell can fall back on
    the battery, and the default no longer allows one."""
    game = frontier([("bat", "red", "Mountain Artillery", (5, 5), "E")], kind=kind,
                    size=(11, 11))
    state, grid, here = game.state, game.state.grid, (5, 5)
    checked = 0
    for cell in grid.cells():
        if grid.distance(here, cell) < 2:
            continue
        for fall in frontier_fire.TURN:
            assert frontier_fire.fall_cell(state, here, cell, fall) != here, (cell, fall)
            checked += 1
    assert checked > 100
    ahead = grid.step(here, "E")
    assert frontier_fire.fall_cell(state, here, ahead, "short") == here  # why the rule matters


# -- roads: every road cell costs half (frontier.roads, option road_cost) -------------------------

ROAD = {"road": [[2, 3], [3, 3], [4, 3], [5, 3]]}


def frontier_with_terrain(units, terrain, options=None):
    """As ``frontier``, on a board with ``terrain``."""
    game = frontier(units, options=options)
    data = game.events[0]["scenario"]
    data = {**data, "terrain": terrain}
    return Game(start("f", scenario_from_dict(data, source="test"), seed=None, dice="manual"))


@pytest.mark.parametrize(("options", "reach"), [({}, 4), ({"road_cost": "along"}, 3)])
def test_the_first_road_cell_costs_half_too(options, reach):
    # every: 4 road cells at half a cell each = 2 cells of movement; along: the first road cell
    # costs a whole cell, then 2 more at half: 3 cells, and the fourth is refused.
    game = frontier_with_terrain([("inf", "red", "European Infantry", (1, 3), "E")], ROAD,
                                 options)
    to_red_movement(game)
    path = ((2, 3), (3, 3), (4, 3), (5, 3))
    if reach == 4:
        game.play(RouteOrder(unit="inf", path=path, facing="E"))
        assert game.state.units["inf"].cell == (5, 3)
        return
    with pytest.raises(IllegalOrder) as refused:
        game.play(RouteOrder(unit="inf", path=path, facing="E"))
    assert refused.value.rule == "frontier.roads"
    game.play(RouteOrder(unit="inf", path=path[:3], facing="E"))


# -- a shell falling left or right of a hex or brick fired at along its row -----------------------

@pytest.mark.parametrize("kind", ("hex", "brick"))
def test_left_and_right_mirror_each_other_at_the_targets_range(kind):
    # A battery at (1, 4) fires east along row 4 at (4, 4), 3 cells off. The two neighbours to
    # each side of the target are equally to that side; same_range: the one 3 cells off, as the
    # target is.
    distance = {}
    for ties in ("same_range", "facing_order"):
        game = frontier([("bat", "red", "Mountain Artillery", (1, 4), "E")], kind=kind,
                        size=(9, 9), options={"side_fall_ties": ties})
        state = game.state
        distance[ties] = {fall: state.grid.distance((1, 4), frontier_fire.fall_cell(
            state, (1, 4), (4, 4), fall)) for fall in ("left", "right", "over", "short")}
    assert distance["same_range"] == {"left": 3, "right": 3, "over": 4, "short": 2}
    # facing order (before schema 3): left a cell long, right at the target's range
    assert distance["facing_order"] == {"left": 4, "right": 3, "over": 4, "short": 2}


def test_the_referee_lands_a_left_shell_beside_the_target():
    game = frontier([("bat", "red", "Mountain Artillery", (1, 4), "E"),
                     ("foe", "blue", "Native Infantry", (4, 4), "W")], kind="hex", size=(9, 9))
    events = game.play(BombardOrder(unit="bat", cell=(4, 4)), dice=RecordedDice([1]))
    landed = next(e for e in events if e["kind"] == "shell_landed")
    assert landed["fall"] == "left" and game.state.grid.distance((1, 4), landed["landed"]) == 3


# -- breaking off (frontier.break_off, option break_off) ------------------------------------------

@pytest.mark.parametrize("options", [{}, {"break_off": "slide"}])
def test_a_unit_breaking_off_retreats_not_round_to_the_same_enemys_flank(options):
    # inf faces foe across (4, 3) | (5, 3); it goes (4, 2), (5, 2), north of foe (its flank),
    # facing south at it.
    game = frontier([("inf", "red", "European Infantry", (4, 3), "E"),
                     ("foe", "blue", "Native Infantry", (5, 3), "W")], options=options)
    to_red_movement(game)
    order = RouteOrder(unit="inf", path=((4, 2), (5, 2)), facing="S")
    if options:  # slide: allowed, and the contact in its flank turns foe
        game.play(order)
        assert game.state.units["foe"].facing == "N"
        return
    with pytest.raises(IllegalOrder, match="may not end its move next to it") as refused:
        game.play(order)
    assert refused.value.rule == "frontier.break_off"
    assert order not in get_ruleset("frontier").legal_orders(game.state, "inf")
    events = game.play(RouteOrder(unit="inf", path=((3, 3), (2, 3)), facing="E"))  # away: fine
    moved = next(e for e in events if e["kind"] == "unit_moved")
    assert "frontier.break_off" in moved["rules"]


@pytest.mark.parametrize(("options", "allowed"), [({}, True), ({"break_off": "slide"}, False)])
def test_a_unit_only_faced_by_an_enemy_is_not_breaking_off(options, allowed):
    # foe at (5, 3) faces inf (at (4, 3), facing N, not at foe). inf goes (3, 3), (3, 2): next to
    # other at (2, 2), at its flank (other faces S). Not a break-off: an ordinary move, allowed;
    # slide (before schema 3): a break-off, which may not come into contact with another enemy.
    game = frontier([("inf", "red", "European Infantry", (4, 3), "N"),
                     ("foe", "blue", "Native Infantry", (5, 3), "W"),
                     ("other", "blue", "Native Infantry", (2, 2), "S")], options=options)
    to_red_movement(game)
    order = RouteOrder(unit="inf", path=((3, 3), (3, 2)), facing="N")
    if allowed:
        events = game.play(order)
        moved = next(e for e in events if e["kind"] == "unit_moved")
        assert "frontier.break_off" not in moved["rules"]
        return
    with pytest.raises(IllegalOrder, match="another enemy") as refused:
        game.play(order)
    assert refused.value.rule == "frontier.break_off"


def test_on_squares_no_side_neighbour_is_at_the_targets_range_so_facing_order_decides():
    # Fired at 45 degrees, (4, 5) -> (6, 3): right ties E (7, 3) and S (6, 4), neither 4 cells
    # off; the first in facing order, E, in both readings.
    for ties in ("same_range", "facing_order"):
        state = frontier([("bat", "red", "Field Artillery", (4, 5), "N")], size=(8, 6),
                         options={"side_fall_ties": ties}).state
        assert frontier_fire.fall_cell(state, (4, 5), (6, 3), "right") == (7, 3)
