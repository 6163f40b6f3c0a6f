"""Exact odds of a Frontier bombardment aimed at a cell, a unit there or not (engine/odds_cell.py).

Every expected number is worked by hand from the rule text (engine/rulesets/rules.toml) and the
table (frontier.toml):

- frontier.fall_of_shot: a d6; 5 or 6 the aimed cell, 1 the cell to its left, 2 the cell beyond
  it (over), 3 the cell to its right, 4 the cell before it (short), as the battery sees it.
- frontier.effect: on a cell holding a unit, a d6: direct fire destroys a Commander on 4 or 6 and
  any other unit on 2, 4 or 6; indirect fire a Commander on 6 and any other unit on 4 or 6.
- frontier.artillery: fire is direct if the battery sees the whole target cell (units hide it).
- frontier.units / frontier.toml: strength Native Infantry 4, European Infantry 5, Commander 6,
  Field Artillery 1 (range 6); a destroyed unit loses all of it.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from warlog.engine.bots import play_out
from warlog.engine.fold import replay
from warlog.engine.game import Game, start
from warlog.engine.odds import OddsError, attack, bombard_cell
from warlog.engine.odds_position import position
from warlog.engine.scenario import load_scenario, scenario_from_dict

SIXTH = F(1, 6)


def frontier(*units, options=None):
    """A square 10 x 7 Frontier board at red's artillery phase of turn 1: the battery ``bat``
    (red Field Artillery) at (6, 3) facing west, and ``units`` as (id, side, type, cell)."""
    rows = [("bat", "red", "Field Artillery", (6, 3)), *units]
    data = {"id": "cell", "title": "Cell", "rule_system": "frontier", "period": "frontier",
            "first": "red", "grid": {"kind": "square", "width": 10, "height": 7},
            "terrain": {}, "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
            "units": [{"id": uid, "side": side, "type": kind, "cell": list(cell),
                       "facing": "W" if side == "red" else "E"}
                      for uid, side, kind, cell in rows],
            "victory": {"turn_limit": 15}, "options": options or {}}
    state = Game(start("cell", scenario_from_dict(data, source="test"), seed=0)).state
    assert (state.phase, state.side) == ("artillery", "red")
    return state


def whole(o):
    """Every result is a whole distribution: the outcomes and each unit's numbers add to 1."""
    assert sum(p for _, p in o.outcomes) == 1
    for e in (o.on_target, o.on_attacker, *o.others):
        if e is not None:
            assert sum(e.distribution.values()) == 1 and sum(e.lost.values()) == 1
    return o


def struck(o):
    return {e.unit: e.p_removed for e in (o.on_target, o.on_attacker, *o.others) if e}


def test_an_empty_cell_with_one_unit_beside_it():
    # The battery at (6, 3) faces west; the target (Native Infantry) at (3, 3). Aimed at the
    # empty (3, 2): the line of fire runs west and a little north, so left (as the battery sees
    # it, facing west: south) is (3, 3). Nothing stands between: direct fire.
    # P(destroyed) = P(fall 1) x P(effect 2, 4, 6) = 1/6 x 3/6 = 1/12; strength lost 4 then.
    state = position("frontier", None, "Field Artillery", "Native Infantry", kind="bombard",
                     terrain="open", aspect="front", options={}, grid="square", distance=3,
                     extras={})
    o = whole(bombard_cell(state, "attacker", (3, 2)))
    assert o.target is None and o.on_target is None and o.on_attacker is None
    assert o.cell == (3, 2) and o.kind == "bombard" and o.source == "attacker"
    assert o.outcomes == (("no effect", F(11, 12)), ("target: destroyed", F(1, 12)))
    [near] = o.others
    assert near.unit == "target" and near.p_removed == near.p_hit == F(1, 12)
    assert near.lost == {0: F(11, 12), 4: F(1, 12)} and near.mean_lost == F(1, 3)
    # 5 falls with a unit nowhere (1 leaf each), 1 fall on the target (6 effect faces): 11
    assert (o.leaves, o.dice) == (4 + 1 + 6, 2)
    with pytest.raises(OddsError, match=r"^target: no unit stands on \(3, 2\)"):
        o.p_hit  # noqa: B018 (the target's headline numbers: an empty cell has none)


@pytest.mark.parametrize(("friend", "expected"), [
    # The friend (red European Infantry) at (4, 3) stands in the line of fire: it hides the
    # aimed (3, 3), so the fire is indirect (frontier.artillery), and the short fall (4) lands on
    # it. over (2) -> (2, 3) natives: 1/6 x 2/6 (4, 6) = 2/36; left (1) -> (3, 4), south as the
    # battery faces west, the chief: 1/6 x 1/6 (6) = 1/36; short (4) -> (4, 3) the friend:
    # 1/6 x 2/6 = 2/36; right (3) -> (3, 2) and 5, 6 (the aimed cell) strike nothing.
    ((4, 3), {"natives": F(2, 36), "chief": F(1, 36), "friend": F(2, 36)}),
    # The friend out of the way at (8, 6): the battery sees (3, 3), direct fire; natives
    # 1/6 x 3/6 (2, 4, 6) = 3/36, chief 1/6 x 2/6 (4, 6) = 2/36; the short fall (4, 3) is empty.
    ((8, 6), {"natives": F(3, 36), "chief": F(2, 36)}),
])
def test_every_neighbour_the_shell_can_strike_friend_or_foe(friend, expected):
    state = frontier(("natives", "blue", "Native Infantry", (2, 3)),
                     ("chief", "blue", "Commander", (3, 4)),
                     ("friend", "red", "European Infantry", friend))
    o = whole(bombard_cell(state, "bat", (3, 3)))
    assert o.target is None and struck(o) == expected
    assert o.outcomes[0] == ("no effect", 1 - sum(expected.values()))
    assert dict(o.outcomes[1:]) == {f"{uid}: destroyed": p for uid, p in expected.items()}
    strength = {"natives": 4, "chief": 6, "friend": 5}
    for e in o.others:  # a destroyed unit loses all its strength, whole
        p = expected[e.unit]
        assert e.lost == {0: 1 - p, strength[e.unit]: p} and e.mean == strength[e.unit] * p
    sides = {"natives": "blue", "chief": "blue", "friend": "red"}  # friend or foe alike
    assert {e.unit: e.side for e in o.others} == {uid: sides[uid] for uid in expected}


def test_a_shell_aimed_next_to_the_battery_is_refused_or_by_the_old_reading_falls_on_it():
    # grid.shooting: artillery fire is shooting, never at the next cell (5, 3).
    state = frontier(("natives", "blue", "Native Infantry", (2, 3)))
    with pytest.raises(OddsError, match=r"\(5, 3\) is next to bat: artillery fire is shooting"
                                        r".*\(grid.shooting\)$"):
        bombard_cell(state, "bat", (5, 3))
    # bombard_adjacent (before schema 3): aimed at (5, 3), short (4) falls back on (6, 3), the
    # battery itself, under direct fire (no cell between): 1/6 x 3/6 = 1/12, its 1 strength point.
    state = frontier(("natives", "blue", "Native Infantry", (2, 3)),
                     options={"bombard_adjacent": True})
    o = whole(bombard_cell(state, "bat", (5, 3)))
    assert o.target is None and o.others == ()
    assert o.on_attacker.unit == "bat" and o.on_attacker.p_removed == F(1, 12)
    assert o.on_attacker.lost == {0: F(11, 12), 1: F(1, 12)}
    assert o.outcomes == (("no effect", F(11, 12)), ("bat: destroyed", F(1, 12)))


def test_a_cell_with_a_unit_answers_as_the_unit_target_form():
    state = position("frontier", None, "Field Artillery", "Native Infantry", kind="bombard",
                     terrain="woods", aspect="front", options={}, grid="square", distance=3,
                     extras={})
    by_cell = bombard_cell(state, "attacker", state.units["target"].cell)
    by_unit = attack(state, "attacker", "target", "bombard")
    assert by_cell.as_dict() == {**by_unit.as_dict(), "cell": [3, 3]}
    # woods hide the cell: indirect, 4 or 6: 2/6 x 2/6 (as test_odds' unit-target form)
    assert by_cell.target == "target" and by_cell.p_hit == F(4, 36)


def test_every_recorded_bombardment_of_a_real_game_in_both_forms():
    events = play_out("g", load_scenario("frontier-kandahar"), seed=1).events
    checked = 0
    for i, e in enumerate(events):
        order = e.get("order") if e["kind"] == "order_given" else None
        if not order or order["type"] != "bombard":
            continue
        state = replay(events, events[i - 1]["seq"])
        there = state.unit_at(tuple(order["cell"]))
        by_cell = whole(bombard_cell(state, order["unit"], order["cell"]))
        by_unit = attack(state, order["unit"], there.id, "bombard")
        assert by_cell.as_dict() == {**by_unit.as_dict(), "cell": order["cell"]}
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize(("cell", "source", "words"), [
    ("3,2", "bat", r"^cell: a cell is two whole numbers \(x, y\), not '3,2'"),
    ((3,), "bat", r"^cell: a cell is two whole numbers"),
    ((True, 2), "bat", r"^cell: a cell is two whole numbers"),
    ((10, 3), "bat", r"^cell: \(10, 3\) is off the board \(x from 0 to 9, y from 0 to 6\) "
                     r"\(grid.cells\)$"),
    ((-1, 3), "bat", r"^cell: \(-1, 3\) is off the board"),
    ((6, 3), "bat", r"\(6, 3\) is 0 cells away; Field Artillery reach 6 \(frontier.units\)$"),
    ((0, 0), "bat", r"is 9 cells away; Field Artillery reach 6 \(frontier.units\)$"),
    ((8, 3), "bat", r"outside the 90-degree arc of bat \(facing W\) \(grid.arc\)$"),
    ((3, 3), "nobody", r"^attacker: no unit 'nobody' on the board"),
])
def test_a_malformed_or_illegal_bombardment_is_one_line_naming_the_field_or_rule(cell, source,
                                                                                 words):
    state = frontier(("natives", "blue", "Native Infantry", (2, 3)),
                     ("inf", "red", "European Infantry", (6, 5)))
    with pytest.raises(OddsError, match=words) as raised:
        bombard_cell(state, source, cell)
    assert "\n" not in str(raised.value)


def test_only_artillery_and_only_frontier_bombard_a_cell():
    state = frontier(("natives", "blue", "Native Infantry", (2, 3)),
                     ("inf", "red", "European Infantry", (6, 5)))
    with pytest.raises(OddsError, match=r"only artillery fires in this phase "
                                        r"\(frontier.artillery\)$"):
        bombard_cell(state, "inf", (3, 3))
    far = frontier(("natives", "blue", "Native Infantry", (0, 0)))  # 9 cells: out of reach
    with pytest.raises(OddsError, match=r"bat has no enemy in range.*\(frontier.artillery\)$"):
        bombard_cell(far, "bat", (3, 3))
    napoleonic = position("napoleonic", None, "Foot Artillery", "Infantry", kind="bombard",
                          terrain="open", aspect="front", options={}, grid="square",
                          distance=3, extras={})
    with pytest.raises(OddsError, match=r"^cell: a bombardment of a cell is Frontier's"):
        bombard_cell(napoleonic, "attacker", (3, 2))
