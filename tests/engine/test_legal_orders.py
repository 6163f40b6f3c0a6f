"""legal_orders lists exactly the orders the referee accepts: nothing missing, nothing extra."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from warlog.engine.bots import next_order, play_out
from warlog.engine.game import Game, legal_orders, start
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.ohw.move import follow
from warlog.engine.scenario import bundled_scenarios
from warlog.events.orders import (
    BarrageOrder,
    BombardOrder,
    FightOrder,
    FormationOrder,
    HitChoiceOrder,
    MeleeOrder,
    MoveOrder,
    ReformOrder,
    RolesOrder,
    RouteOrder,
    ShootOrder,
    TurnToFaceOrder,
)

SCENARIOS = bundled_scenarios()


def every_conceivable_order(state):
    """Brute force: every order shape for every unit of the side to move."""
    grid = state.grid
    if state.phase == "roles":
        yield from (RolesOrder(defender=side) for side in ("red", "blue"))
        return
    if state.phase == "barrage":
        enemies = [u.id for u in state.alive(state.defender)]
        for n in range(len(enemies) + 1):
            yield from (BarrageOrder(targets=c) for c in combinations(enemies, n))
        return
    for e in state.alive():
        if e.side != state.side:
            yield from (FightOrder(target=e.id, advance=a) for a in (False, True))
    if state.pending:
        owed = state.pending[0]["unit"]
        yield from (HitChoiceOrder(unit=u.id, choice=c) for u in state.alive()
                    for c in ("retreat", "lose"))
        yield MeleeOrder(unit=owed, target=owed)
        return
    for u in state.alive(state.side):
        for f in grid.facings:
            for d in range(0, 6):
                for ef in (None, *grid.facings):
                    yield MoveOrder(unit=u.id, facing=f, distance=d, end_facing=ef)
                for e in state.alive():
                    if e.side != u.side:
                        yield MoveOrder(unit=u.id, facing=f, distance=d, attack=e.id)
            yield RouteOrder(unit=u.id, facing=f)
            for n in grid.neighbours(u.cell):  # a single step (napoleonic.advance, too)
                yield RouteOrder(unit=u.id, path=(n,), facing=f)
        for path in _paths(state, u):
            yield from (RouteOrder(unit=u.id, path=path, facing=f) for f in grid.facings)
        for formation in ("square", "line", "column", "limbered", "unlimbered"):
            yield FormationOrder(unit=u.id, formation=formation)
        yield ReformOrder(unit=u.id)
        for cell in grid.cells():
            if grid.distance(u.cell, cell) <= 10:
                yield BombardOrder(unit=u.id, cell=cell)
        for e in state.alive():
            if e.side != u.side:
                yield ShootOrder(unit=u.id, target=e.id)
                yield TurnToFaceOrder(unit=u.id, enemy=e.id)
                yield MeleeOrder(unit=u.id, target=e.id)


def _paths(state, u):
    """Every route of up to 6 cells that the referee accepts with some facing, for the
    free-turning systems. A prefix is extended when every facing would be accepted there (a
    Frontier stop in front of an enemy, which fixes the facing, cannot be passed) or when only
    a friend on the last cell stops it (where friends may be passed through) or only an
    exhausted army's bar on ending nearer the enemy (it may pass there); for density also
    when some facing is accepted (turning there only spends allowance)."""
    ruleset = get_ruleset(state.rule_system)
    free = state.rule_system != "ohw" or ruleset.period(state)["turning"] == "free"
    if state.phase not in ("movement", "activation", "actions") or not free:
        return
    todo = [()]
    while todo:
        path = todo.pop()
        last = path[-1] if path else u.cell
        for n in state.grid.neighbours(last):
            if n in path or n == u.cell:
                continue
            route = (*path, n)
            verdicts = []
            for f in state.grid.facings:
                try:
                    ruleset.check(state, RouteOrder(unit=u.id, path=route, facing=f))
                except IllegalOrder as exc:
                    verdicts.append(exc)
                else:
                    verdicts.append(None)
            if any(v is None for v in verdicts):
                yield route
            passable = all(v is None for v in verdicts) or any(
                v is not None and ("occupied" in v.message or v.rule == "portable.exhaustion")
                for v in verdicts) or (
                state.rule_system == "density" and any(v is None for v in verdicts))
            if passable and len(route) < 6:
                todo.append(route)


def accepted(state, order) -> bool:
    try:
        get_ruleset(state.rule_system).check(state, order)
    except IllegalOrder:
        return False
    return True


def normal(state, order):
    """One form per distinct result: a move cut short by a terrain feature is the move to where
    it stops; end_facing equal to the facing is no end turn; a route is its end cell and facing;
    barrage targets in any order are the same choice."""
    if isinstance(order, MoveOrder):
        if order.attack is None and order.distance:
            unit = state.units[order.unit]
            reach = get_ruleset("ohw")._walk(state, unit, order.facing, order.distance, False)
            order = order.model_copy(update={"distance": len(reach.cells)})
        if order.end_facing == order.facing:
            order = order.model_copy(update={"end_facing": None})
        return order
    if isinstance(order, RouteOrder):
        if not order.path:
            return ("route", order.unit, None, order.facing)
        ruleset, unit = get_ruleset(state.rule_system), state.units[order.unit]
        if state.rule_system == "ohw":
            end = follow(ruleset.mover(state, unit, False), order.path).cells[-1][0]
        elif state.rule_system == "portable":
            end = ruleset.walk(state, unit, order.path)[0][-1]
        else:  # Frontier: a route goes all the way or is refused
            end = tuple(order.path[-1])
        return ("route", order.unit, end, order.facing)
    if isinstance(order, BarrageOrder):
        return ("barrage", tuple(sorted(order.targets)))
    if isinstance(order, BombardOrder):
        return ("bombard", order.unit, tuple(order.cell))
    return order


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=st.sampled_from(SCENARIOS), seed=st.integers(0, 10_000),
       stop=st.integers(0, 400), policy=st.sampled_from(["random", "aggressive"]))
def test_legal_orders_equal_the_orders_the_referee_accepts(scenario, seed, stop, policy):
    game = Game(start("p", scenario, seed=seed, players={"red": policy, "blue": policy}))
    for _ in range(stop):
        if game.state.ended:
            break
        game.play(next_order(game.state))
    state = game.state
    listed = [o for o in legal_orders(state) if o.type != "end_phase"]
    assert all(accepted(state, o) for o in listed)
    results = [normal(state, o) for o in listed]
    assert len(results) == len(set(results)), "the same result listed twice"
    brute = {normal(state, o) for o in every_conceivable_order(state) if accepted(state, o)}
    assert set(results) == brute


def test_a_finished_game_has_no_legal_orders():
    game = play_out("g", SCENARIOS[0], seed=1)
    assert game.state.ended and legal_orders(game.state) == []
