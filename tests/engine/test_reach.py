"""A selected unit's reach (engine/reach.py) against what the engine really does: every move
dot is a cell a legal order ends the unit on, every ring an enemy a legal order attacks, and the
shaded zone holds every target it may shoot."""

from __future__ import annotations

import pytest

from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.dice import SeededDice
from warlog.engine.fold import Timeline, evolve
from warlog.engine.game import decide
from warlog.engine.reach import describe, unit_reach
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import load_scenario
from warlog.events.orders import FightOrder, MoveOrder, RouteOrder, ShootOrder

SCENARIOS = ["ancients-river-crossing", "horse-and-musket-quatre-bras", "ww2-villers-bocage",
             "portable-zama", "frontier-ulundi"]


@pytest.fixture(scope="module", params=SCENARIOS)
def game(request):
    events = play_out("reach", load_scenario(request.param), seed=5).events
    return events, Timeline(events)


def _states(events, tl, every=5, most=None):
    steps = analysis.steps(events)[::every]
    if most is not None:  # spread over the whole game
        steps = steps[:: max(1, len(steps) // most)]
    for step in steps:
        yield tl.state_at(step.last)


def _after(state, order):
    """The state after ``order`` (a copy: the timeline's snapshots stay as they were). The
    state's own ``copy()``, as Timeline.state_at folds on one: the fold writes only the units and
    the containers it copies. (A deepcopy also copied the grid's and memo's caches, which grow
    as the test asks the rules: 98% of this module's time, three minutes for the WW2 game.)"""
    s = state.copy()
    for event in decide(s, order, SeededDice(1, s.dice_rolled)):
        evolve(s, event, check=False)
    return s


def test_move_dots_are_exactly_where_legal_moves_end(game):
    events, tl = game
    checked = 0
    for state in _states(events, tl, every=1, most=8):
        ruleset = get_ruleset(state.rule_system)
        for u in state.alive(state.to_act)[:3] if state.to_act else ():
            reach = unit_reach(state, u.id)
            orders = ruleset.legal_orders(state, u.id)  # asked once, read twice
            ends = set()
            for order in orders:
                moving = (isinstance(order, MoveOrder) and order.distance > 0
                          or isinstance(order, RouteOrder) and order.path)
                if moving and not getattr(order, "attack", None):
                    ends.add(_after(state, order).units[u.id].cell)
            assert ends <= set(reach.moves), (u.id, state.phase)
            checked += len(ends)
            if len(reach.moves) > len(ends):  # the others are where an attack move stops
                assert any(isinstance(o, MoveOrder) and o.attack for o in orders)
    assert checked > 0


def test_targets_are_the_enemies_legal_orders_strike_and_shots_stay_in_the_zone(game):
    events, tl = game
    shots = 0
    for state in _states(events, tl, every=3):
        ruleset = get_ruleset(state.rule_system)
        for u in state.alive(state.to_act) if state.to_act else ():
            reach = unit_reach(state, u.id)
            orders = ruleset.legal_orders(state, u.id)  # asked once, read three times
            struck = {o.target for o in orders if hasattr(o, "target")}
            struck |= {o.attack for o in orders if isinstance(o, MoveOrder) and o.attack}
            assert struck <= set(reach.targets)
            for o in orders:
                if isinstance(o, ShootOrder):
                    assert state.units[o.target].cell in reach.zone_cells
                    shots += 1
    if events[0]["rule_system"] != "frontier":
        assert shots > 0


def test_a_unit_whose_side_is_not_to_act_has_no_orders_and_says_why(game):
    events, tl = game
    state = next(s for s in _states(events, tl, every=1) if s.to_act in ("red", "blue"))
    other = next(u for u in state.alive() if u.side != state.to_act)
    reach = unit_reach(state, other.id)
    assert not reach.acting and not reach.moves and not reach.targets
    assert f"{state.to_act} is to act" in describe(state, reach)


def test_the_zone_is_the_shooting_range_within_the_arc():
    events = play_out("z", load_scenario("horse-and-musket-quatre-bras"), seed=5).events
    state = Timeline(events).state_at(0)
    gunner = next(u for u in state.alive() if get_ruleset("ohw").row(state, u)["shoot_range"] > 0)
    reach = unit_reach(state, gunner.id)
    grid, row = state.grid, get_ruleset("ohw").row(state, gunner)
    assert reach.zone.far == row["shoot_range"] and reach.zone.near == 2  # adjacent: melee
    assert reach.zone_cells
    for cell in grid.cells():
        inside = (2 <= grid.distance(gunner.cell, cell) <= row["shoot_range"]
                  and grid.in_arc(gunner.cell, gunner.facing, cell, state.options["arc_degrees"]))
        assert (cell in reach.zone_cells) == inside
    assert "shooting range: 2–4 cells within a" in describe(state, reach)


def test_frontier_combat_rings_the_enemy_a_unit_faces():
    events = play_out("f", load_scenario("frontier-ulundi"), seed=5).events
    tl = Timeline(events)
    found = 0
    for state in _states(events, tl, every=1):
        if state.phase != "combat" or state.to_act is None:
            continue
        fights = [o for o in get_ruleset("frontier").legal_orders(state) if isinstance(o, FightOrder)]
        for order in fights:
            target = state.units[order.target]
            facing_it = [u for u in state.alive(state.to_act)
                         if state.grid.step(u.cell, u.facing) == target.cell]
            for u in facing_it:
                assert order.target in unit_reach(state, u.id).targets
                assert unit_reach(state, u.id).zone_cells == (target.cell,)
                found += 1
    assert found > 0


def test_a_unit_without_missiles_strikes_only_by_contact():
    state = Timeline(play_out("p", load_scenario("ancients-river-crossing"), seed=5).events).state_at(0)
    foot = next(u for u in state.alive() if get_ruleset("ohw").row(state, u)["shoot_range"] == 0)
    reach = unit_reach(state, foot.id)
    assert reach.zone is None and reach.zone_cells == ()
    assert "only by moving into contact" in describe(state, reach)
