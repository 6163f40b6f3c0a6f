"""Walking distances over the real board: round a river to its bridge, never into ground the
unit's type may not enter."""

from __future__ import annotations

from builders import new_game

from warlog.engine import paths


def _river_game():
    # A river down column 3 with its only bridge at (3, 0); blue waits across it at (5, 4).
    river = [[3, r] for r in range(1, 6)]
    return new_game([("r", "red", "Infantry", (1, 4), "E"), ("b", "blue", "Infantry", (5, 4), "W")],
                    size=(7, 6), terrain={"river": river, "bridge": [[3, 0]]})


def test_the_walk_goes_round_by_the_bridge_not_as_the_crow_flies():
    state = _river_game().state
    red = state.units["r"]
    field = paths.enemy_field(state, red)
    assert state.grid.distance((1, 4), (5, 4)) == 4
    # Steps to the enemy's own cell (1 = next to it), counted by hand from the enemy (5,4) back: (5,3)1 (5,2)2 (5,1)3 (5,0)4 (4,0)5 (3,0)6 bridge (2,0)7 (1,0)8
    # (1,1)9 (1,2)10 (1,3)11 (1,4)12; the river cells themselves are never entered.
    assert paths.walk(field, (1, 4)) == 12
    assert all((3, r) not in field for r in range(1, 6))
    assert paths.walk(field, (4, 4)) == 1  # next to the enemy: contact


def test_a_type_barred_from_woods_walks_round_them_and_one_allowed_walks_through():
    woods = [[2, r] for r in range(0, 5)]
    game = new_game([("inf", "red", "Infantry", (1, 2), "E"), ("skm", "red", "Skirmishers", (1, 3), "E"),
                     ("b", "blue", "Infantry", (4, 2), "W")],
                    size=(6, 6), terrain={"woods": woods})
    s = game.state
    assert "woods" in paths.blocked_kinds(s, "Infantry")
    assert "woods" not in paths.blocked_kinds(s, "Skirmishers")
    # Skirmishers go straight through the wood: (2,2) (3,2) (4,2): 3 steps to the enemy's cell.
    assert paths.walk(paths.enemy_field(s, s.units["skm"]), (1, 2)) == 3
    # Infantry must go below it: (1,3) (1,4) (1,5) (2,5) (3,5) (3,4) (3,3) (4,3) (4,2): 9 steps.
    assert paths.walk(paths.enemy_field(s, s.units["inf"]), (1, 2)) == 9


def test_objectives_and_fields_are_kept_per_game_and_none_without_objectives():
    state = _river_game().state
    assert paths.objective_field(state, state.units["r"]) is None
    again = paths.enemy_field(state, state.units["r"])
    assert paths.enemy_field(state.copy(), state.units["r"]) is again  # the memo is shared
