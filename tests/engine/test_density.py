"""The density system: allowance from density, disorder tests (rough ground, friends, turning in
place), figures out of formation off the die, reform, contact, villages, rivers, the melee phase,
and the catalogue behind every rule it cites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from warlog.engine.dice import ManualDice
from warlog.engine.fold import replay
from warlog.engine.game import Game, legal_orders, start
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.engine.scenario import ScenarioError, scenario_from_dict
from warlog.events.orders import EndPhaseOrder, ReformOrder, RouteOrder, ShootOrder

END = EndPhaseOrder()
ROOT = Path(__file__).resolve().parents[2]


def density_game(units, *, kind="square", size=(10, 6), terrain=None, options=None,
                 turn_limit=5) -> Game:
    """units: (id, side, type, (col, row), facing, density); manual dice."""
    scenario = scenario_from_dict({
        "id": "d", "title": "D", "rule_system": "density", "period": "density", "first": "red",
        "grid": {"kind": kind, "width": size[0], "height": size[1]},
        "terrain": terrain or {}, "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
        "units": [{"id": i, "side": s, "type": t, "cell": list(c), "facing": f, "density": d}
                  for i, s, t, c, f, d in units],
        "victory": {"turn_limit": turn_limit}, "options": options or {},
    }, source="test")
    return Game(start("d", scenario, dice="manual"))


def route(unit, *cells, facing="E") -> RouteOrder:
    return RouteOrder(unit=unit, path=tuple(cells), facing=facing)


def refused(game: Game, order, rule: str) -> str:
    with pytest.raises(IllegalOrder) as caught:
        game.play(order, dice=ManualDice())
    assert caught.value.rule == rule, caught.value
    return caught.value.message


def kinds(events, kind):
    return [e for e in events if e["kind"] == kind]


FAR_ENEMY = ("b", "blue", "Infantry", (9, 5), "W", 3)


# -- movement allowance -----------------------------------------------------------------------


def allowance_is(game: Game, unit: str, cells: int, row: int) -> str:
    """Refuse one cell past ``cells`` straight east, then move ``cells``: the refusal's words."""
    straight = [(c, row) for c in range(1, cells + 2)]
    message = refused(game, route(unit, *straight), "density.move")
    assert f"moves at most {cells} cell" in message
    game.play(route(unit, *straight[:cells]), dice=ManualDice())
    assert game.state.units[unit].cell == straight[cells - 1]
    return message


@pytest.mark.parametrize("density,cells", [(1, 3), (2, 3), (3, 2), (4, 2), (5, 2), (6, 1)])
def test_the_default_allowance_is_ten_less_density_at_three_inches_to_the_nearest_cell(
        density, cells):
    game = density_game([("r", "red", "Cavalry", (0, 2), "E", density), FAR_ENEMY],
                        size=(12, 6))
    assert (game.state.options["inches_per_cell"],
            game.state.options["allowance_rounding"]) == (3, "nearest")
    message = allowance_is(game, "r", cells, 2)
    assert (f"10 - {density} = {10 - density} inches at 3 inches a cell: {10 - density}/3 to "
            "the nearest cell, halves up)") in message


@pytest.mark.parametrize("density,scale,cells", [
    (4, 4, 2), (6, 8, 1), (2, 4, 2), (1, 6, 2),             # halves up: 6/4, 4/8, 8/4, 9/6
    (5, 4, 1), (3, 2, 4), (1, 2, 5), (6, 2, 2),             # 5/4 down, 7/2 and 9/2 up
    (6, 10, 1), (5, 10, 1),                                 # 0.4 is 0, 0.5 is 1: at least 1
])
def test_to_the_nearest_cell_halves_round_up_and_never_below_one(density, scale, cells):
    game = density_game([("r", "red", "Cavalry", (0, 2), "E", density), FAR_ENEMY],
                        size=(12, 6), options={"inches_per_cell": scale})
    message = allowance_is(game, "r", cells, 2)
    assert ("and never less than 1);" in message) == (2 * (10 - density) < scale)


@pytest.mark.parametrize("density,scale,cells", [
    (1, 4, 2), (2, 4, 2), (3, 4, 1), (5, 4, 1), (6, 4, 1),   # (10 - d) // 4
    (1, 3, 3), (2, 3, 2), (4, 3, 2), (5, 3, 1),              # (10 - d) // 3
    (1, 2, 4), (3, 2, 3), (6, 2, 2), (2, 1, 8),
    (6, 6, 1), (5, 10, 1),                                   # below one cell: still 1
])
def test_rounding_down_is_the_allowance_before_schema_3(density, scale, cells):
    game = density_game([("r", "red", "Cavalry", (0, 2), "E", density), FAR_ENEMY],
                        size=(12, 6),
                        options={"inches_per_cell": scale, "allowance_rounding": "down"})
    message = allowance_is(game, "r", cells, 2)
    floor = ", and never less than 1" if 10 - density < scale else ""
    assert f"10 - {density} = {10 - density} inches at {scale} inches a cell{floor});" in message


def test_the_before_values_of_schema_3_are_four_inches_a_cell_rounded_down():
    from warlog.engine.rulesets.tables import option_specs, options_added
    assert options_added("density", "density", 3) == {"allowance_rounding": "down"}
    # inches_per_cell is no schema-3 option: every game has recorded it since the system began
    assert "since" not in option_specs("density", "density")["inches_per_cell"]


@pytest.mark.parametrize("kind,turn", [("square", "N"), ("hex", "NE")])
def test_at_the_default_a_density_3_unit_turns_once_and_moves_a_cell(kind, turn):
    units = [("r", "red", "Infantry", (2, 2), "E", 3), FAR_ENEMY]
    game = density_game(units, kind=kind)
    one = game.state.grid.step((2, 2), turn)
    two = game.state.grid.step(one, turn)
    refused(game, route("r", one, two, facing=turn), "density.wheel")  # 1 side + 2 cells
    refused(game, route("r", one, facing="E"), "density.wheel")  # turned there and back
    events = game.play(route("r", one, facing=turn), dice=ManualDice())  # 1 side + 1 cell
    assert (game.state.units["r"].cell, game.state.units["r"].facing) == (one, turn)
    assert not kinds(events, "disorder_tested")  # a wheel while moving is no test
    # rounded down at 4 inches a cell (warlog before schema 3) it had 1 cell and could not turn
    old = density_game(units, kind=kind,
                       options={"inches_per_cell": 4, "allowance_rounding": "down"})
    refused(old, route("r", one, facing=turn), "density.wheel")


def test_every_side_turned_counts_a_cell_of_the_allowance():
    # Cavalry, density 3: 2 cells. One side turned and one cell fits; two sides and one cell not.
    game = density_game([("r", "red", "Cavalry", (2, 2), "E", 3), FAR_ENEMY])
    refused(game, route("r", (2, 3), (2, 4), facing="S"), "density.wheel")  # 1 + 2 cells
    refused(game, route("r", (1, 2), facing="W"), "density.wheel")  # about face: 2 sides + 1
    game.play(route("r", (2, 3), facing="S"), dice=ManualDice())  # 1 side + 1 cell
    assert (game.state.units["r"].cell, game.state.units["r"].facing) == ((2, 3), "S")


def test_a_move_stops_at_the_first_cell_next_to_an_enemy_and_joins_the_melee():
    game = density_game([("r", "red", "Cavalry", (2, 2), "E", 2),
                         ("b", "blue", "Infantry", (3, 3), "N", 3)])
    message = refused(game, route("r", (3, 2), (4, 2)), "density.contact")  # (3,2) touches b
    assert "comes into contact with b at (3, 2)" in message
    events = game.play(route("r", (3, 2)), dice=ManualDice())
    joined = kinds(events, "melee_joined")
    assert [(e["attacker"], e["defender"], e["aspect"]) for e in joined] == [("r", "b", "front")]
    assert game.state.melees == [("r", "b")]


# -- disorder tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("die,figures", [(3, 3), (5, 5), (6, 0)])
def test_rough_ground_tests_below_the_density_puts_that_many_figures_out(die, figures):
    game = density_game([("r", "red", "Infantry", (2, 2), "E", 6), FAR_ENEMY],
                        terrain={"marsh": [[3, 2]]})
    events = game.play(route("r", (3, 2)), dice=ManualDice([die]))
    (test,) = kinds(events, "disorder_tested")
    assert (test["reason"], test["die"], test["density"], test["figures"]) == ("terrain", die, 6,
                                                                               figures)
    assert game.state.units["r"].disordered == figures


def test_a_feature_crossed_whole_is_one_test_and_stopping_inside_costs_another_on_moving_on():
    units = [("r", "red", "Cavalry", (1, 2), "E", 2), FAR_ENEMY]
    terrain = {"woods": [[2, 2], [3, 2]], "field": [[4, 2]]}
    game = density_game(units, terrain=terrain, options={"inches_per_cell": 2})  # 4 cells
    events = game.play(route("r", (2, 2), (3, 2), (4, 2)), dice=ManualDice([1, 1]))
    tests = kinds(events, "disorder_tested")
    assert [(t["reason"], t["figures"]) for t in tests] == [("terrain", 1), ("terrain", 1)]
    game.play(END), game.play(END)  # to red's next turn: r stands in the field
    events = game.play(route("r", (5, 2)), dice=ManualDice([1]))
    assert len(kinds(events, "disorder_tested")) == 1  # moving on from inside
    assert game.state.units["r"].disordered == 3


def test_passing_through_a_friend_tests_and_ending_on_it_is_refused():
    game = density_game([("r", "red", "Skirmishers", (1, 2), "E", 2),
                         ("f", "red", "Infantry", (2, 2), "E", 5), FAR_ENEMY])
    assert "occupied" in refused(game, route("r", (2, 2)), "density.pass_through")
    events = game.play(route("r", (2, 2), (3, 2)), dice=ManualDice([1]))
    (test,) = kinds(events, "disorder_tested")
    assert (test["reason"], test["figures"]) == ("friends", 1)
    assert game.state.units["f"].cell == (2, 2)  # bases are never pushed


@pytest.mark.parametrize("die,figures", [(4, 4), (5, 0)])
def test_turning_in_place_tests_and_is_the_units_action(die, figures):
    game = density_game([("r", "red", "Warband", (2, 2), "E", 5), FAR_ENEMY],
                        options={"combat": "dark_ages"})
    events = game.play(RouteOrder(unit="r", facing="W"), dice=ManualDice([die]))
    (test,) = kinds(events, "disorder_tested")
    assert (test["reason"], test["die"], test["figures"]) == ("turn", die, figures)
    assert game.state.units["r"].facing == "W"
    assert refused(game, route("r", (1, 2), facing="W"), "density.actions")
    refused(game, RouteOrder(unit="r", facing="E"), "density.actions")


def test_a_wheel_while_moving_is_no_test():
    game = density_game([("r", "red", "Cavalry", (2, 2), "E", 2), FAR_ENEMY])
    events = game.play(route("r", (3, 2), facing="N"), dice=ManualDice())
    assert not kinds(events, "disorder_tested") and game.state.units["r"].facing == "N"


# -- figures out of formation in combat, and reform --------------------------------------------


@pytest.mark.parametrize("figures,off", [(0, 0), (1, -1), (2, -2), (5, -2)])
def test_figures_out_take_one_each_off_the_die_at_most_two(figures, off):
    # Archers (ancients, +0) at Cavalry 3 cells away: hits = die + disorder.
    game = density_game([("r", "red", "Archers", (2, 2), "E", 6),
                         ("b", "blue", "Cavalry", (5, 2), "W", 2)])
    if figures:  # turn away (die = figures out) and back (die 6: none), a turn each
        game.play(RouteOrder(unit="r", facing="N"), dice=ManualDice([figures]))
        game.play(END), game.play(END)
        game.play(RouteOrder(unit="r", facing="E"), dice=ManualDice([6]))
        game.play(END), game.play(END)
    assert game.state.units["r"].disordered == figures
    events = game.play(ShootOrder(unit="r", target="b"), dice=ManualDice([5]))
    (hits,) = kinds(events, "hits_inflicted")
    assert hits.get("disorder", 0) == off
    assert hits["base"] == hits["hits"] == 5 + off
    assert ("density.disorder_penalty" in hits["rules"]) == bool(off)


def test_reform_brings_the_figures_back_and_is_refused_with_none_out():
    game = density_game([("r", "red", "Infantry", (2, 2), "E", 6),
                         ("o", "red", "Infantry", (2, 4), "E", 6), FAR_ENEMY])
    refused(game, ReformOrder(unit="o"), "density.disorder_test")
    game.play(RouteOrder(unit="r", facing="N"), dice=ManualDice([4]))
    assert ReformOrder(unit="r") not in legal_orders(game.state, "r")  # it has acted
    game.play(END), game.play(END)
    assert ReformOrder(unit="r") in legal_orders(game.state, "r")
    events = game.play(ReformOrder(unit="r"), dice=ManualDice())
    assert [(e["unit"], e["figures"]) for e in kinds(events, "unit_reformed")] == [("r", 4)]
    assert game.state.units["r"].disordered == 0


def test_figures_out_of_formation_join_the_state_checksum():
    state = density_game([("r", "red", "Infantry", (2, 2), "E", 6), FAR_ENEMY]).state
    shaken = state.copy()
    shaken.units["r"].disordered = 4
    assert shaken.checksum() != state.checksum()


def test_the_actions_phase_gives_the_side_its_actions_back():
    game = density_game([("r", "red", "Infantry", (2, 2), "E", 6), FAR_ENEMY])
    game.play(route("r", (3, 2)), dice=ManualDice())
    assert game.state.units["r"].acted and game.state.units["r"].moved_cells == 1
    game.play(END), game.play(END)
    folded = replay(game.events)
    assert not folded.units["r"].acted and not folded.units["r"].moved
    assert folded.units["r"].moved_cells == 0 and folded.phase == "actions"


# -- contact and melee ------------------------------------------------------------------------


def test_a_unit_in_contact_may_not_act():
    game = density_game([("r", "red", "Archers", (2, 2), "E", 3),
                         ("b", "blue", "Infantry", (3, 2), "W", 5),
                         ("c", "blue", "Infantry", (6, 2), "W", 5)])
    for order in (route("r", (2, 3), facing="S"), RouteOrder(unit="r", facing="N"),
                  ShootOrder(unit="r", target="c")):
        assert "in contact with b" in refused(game, order, "density.actions")
    assert legal_orders(game.state, "r") == []


def test_the_melee_phase_resolves_every_pair_in_contact():
    # r touches b1 and b2; s touches b2: three rolls, in scenario order, each with its target.
    game = density_game([("r", "red", "Cavalry", (3, 2), "E", 2),
                         ("s", "red", "Cavalry", (3, 4), "E", 2),
                         ("b1", "blue", "Cavalry", (4, 2), "W", 2),
                         ("b2", "blue", "Cavalry", (3, 3), "N", 2)])
    events = game.play(END, dice=ManualDice([1, 2, 3]))
    blows = [(e["source"], e["target"], e["die"]) for e in kinds(events, "hits_inflicted")]
    assert blows == [("r", "b1", 1), ("r", "b2", 2), ("s", "b2", 3)]
    assert [game.state.units[b].hits for b in ("b1", "b2")] == [1, 2 + 3 * 2]  # s: b2's rear
    events = game.play(END, dice=ManualDice([4, 5, 6]))  # blue's own melee phase
    back = [(e["source"], e["target"]) for e in kinds(events, "hits_inflicted")]
    assert back == [("b1", "r"), ("b2", "r"), ("b2", "s")]


def test_a_unit_due_for_removal_is_not_struck_again_and_removal_ends_the_battle():
    game = density_game([("r", "red", "Cavalry", (3, 2), "E", 2),
                         ("s", "red", "Cavalry", (4, 3), "N", 2),
                         ("b", "blue", "Cavalry", (4, 2), "W", 2)],
                        options={"hits_to_remove": 3})
    events = game.play(END, dice=ManualDice([6]))  # r's 6 removes b; s does not roll
    assert [e["source"] for e in kinds(events, "hits_inflicted")] == ["r"]
    assert kinds(events, "unit_removed")[0]["unit"] == "b"
    assert game.state.ended and game.state.winner == "red"
    assert "density.victory" in events[-1]["rules"]


# -- terrain ----------------------------------------------------------------------------------


def test_villages_are_barred_to_close_order_and_tested_by_open_order():
    terrain = {"village": [[3, 2]]}
    for density in (4, 6):
        game = density_game([("r", "red", "Infantry", (2, 2), "E", density), FAR_ENEMY],
                            terrain=terrain)
        message = refused(game, route("r", (3, 2)), "density.close_order")
        assert f"density {density}" in message and "close order" in message
    game = density_game([("r", "red", "Infantry", (2, 2), "E", 3), FAR_ENEMY], terrain=terrain)
    events = game.play(route("r", (3, 2)), dice=ManualDice([2]))
    (test,) = kinds(events, "disorder_tested")
    assert test["figures"] == 2 and "density.close_order" in test["rules"]


def test_a_river_is_crossed_only_at_a_ford_with_a_test_or_a_bridge_without():
    terrain = {"river": [[3, 0], [3, 1], [3, 3]], "ford": [[3, 2]], "bridge": [[3, 4]],
               "lake": [[3, 5]]}
    units = [("f", "red", "Cavalry", (2, 2), "E", 2), ("g", "red", "Cavalry", (2, 1), "E", 2),
             ("h", "red", "Cavalry", (2, 4), "E", 2), ("k", "red", "Cavalry", (2, 5), "E", 2),
             ("b", "blue", "Infantry", (9, 0), "W", 3)]
    game = density_game(units, terrain=terrain)
    assert "cross it at a bridge or a ford" in refused(game, route("g", (3, 1)), "density.terrain")
    refused(game, route("k", (3, 5)), "density.terrain")  # a lake
    events = game.play(route("f", (3, 2), (4, 2)), dice=ManualDice([1]))
    assert [t["reason"] for t in kinds(events, "disorder_tested")] == ["terrain"]
    events = game.play(route("h", (3, 4), (4, 4)), dice=ManualDice())
    assert not kinds(events, "disorder_tested")
    assert game.state.units["h"].cell == (4, 4)


def test_legal_moves_take_the_route_with_the_fewest_tests_that_fits():
    # To (4, 2) facing E: straight through the wood costs 2 and a test; round it costs 4 cells
    # and 4 sides turned = 8, no test. Density 1 moves 4 cells at 2 inches, 9 at 1 inch.
    def moves(scale):
        game = density_game([("r", "red", "Skirmishers", (2, 2), "E", 1), FAR_ENEMY],
                            terrain={"woods": [[3, 2]]}, options={"inches_per_cell": scale})
        return {(o.path[-1], o.facing): o.path for o in legal_orders(game.state, "r")
                if isinstance(o, RouteOrder) and o.path}

    assert moves(2)[((4, 2), "E")] == ((3, 2), (4, 2))
    assert moves(1)[((4, 2), "E")] == ((2, 1), (3, 1), (4, 1), (4, 2))


# -- scenarios and the catalogue --------------------------------------------------------------


def test_a_scenario_gives_every_unit_a_density_and_fields_the_combat_periods_types():
    base = [("r", "red", "Infantry", (0, 0), "E", 4), FAR_ENEMY]
    with pytest.raises(ScenarioError, match="fielded only with options.combat = dark_ages"):
        density_game([("w", "red", "Warband", (0, 0), "E", 4), FAR_ENEMY])
    density_game([("w", "red", "Warband", (0, 0), "E", 4), FAR_ENEMY],
                 options={"combat": "dark_ages"})
    with pytest.raises(ScenarioError, match="a density is 1 to 6, not 7"):
        density_game([("r", "red", "Infantry", (0, 0), "E", 7), FAR_ENEMY])
    with pytest.raises(ScenarioError, match="needs its formation density"):
        scenario_from_dict({
            "id": "d", "title": "D", "rule_system": "density", "period": "density",
            "first": "red", "grid": {"kind": "square", "width": 6, "height": 6},
            "sides": {"red": {"name": "R"}, "blue": {"name": "B"}},
            "units": [{"id": "r", "side": "red", "type": "Infantry", "cell": [0, 0],
                       "facing": "E"}, {"id": "b", "side": "blue", "type": "Infantry",
                                        "cell": [5, 5], "facing": "W", "density": 3}],
        }, source="test")
    assert density_game(base).state.units["r"].density == 4


def test_every_rule_the_density_system_cites_is_in_the_catalogue():
    sources = [*(ROOT / "engine" / "rulesets" / "density").glob("*.py"),
               ROOT / "engine" / "rulesets" / "density" / "table.toml"]
    text = "".join(p.read_text("utf-8") for p in sources)
    cited = set(re.findall(r'"((?:grid|ohw|density)\.[a-z_0-9.]*[a-z0-9_])"', text))
    assert {"density.move", "density.contact", "density.melee"} <= cited
    known = catalogue()
    assert not [rule for rule in cited if rule not in known]
    for period in ("ancients", "dark_ages", "medieval"):  # f"ohw.{p}.shooting" and .melee
        assert {f"ohw.{period}.shooting", f"ohw.{period}.melee"} <= set(known)
    for rule in (r for r in known.values() if r.id.startswith("density.")):
        assert rule.source in ("density", "warlog")
        if rule.interpretation:
            assert rule.note or rule.option, rule.id
