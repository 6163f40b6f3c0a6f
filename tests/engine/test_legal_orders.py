"""legal_orders lists exactly the orders the referee accepts: nothing missing, nothing extra."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from warlog.engine.bots import next_order, play_out
from warlog.engine.game import Game, legal_orders, start
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import bundled_scenarios
from warlog.events.model import MoveOrder, ShootOrder, TurnToFaceOrder

SCENARIOS = bundled_scenarios()


def every_conceivable_order(state):
    """Brute force: every order shape for every unit of the side to move."""
    grid = state.grid
    for u in state.alive(state.side):
        for f in grid.facings:
            for d in range(0, 6):
                for ef in (None, *grid.facings):
                    yield MoveOrder(unit=u.id, facing=f, distance=d, end_facing=ef)
                for e in state.alive():
                    if e.side != u.side:
                        yield MoveOrder(unit=u.id, facing=f, distance=d, attack=e.id)
        for e in state.alive():
            if e.side != u.side:
                yield ShootOrder(unit=u.id, target=e.id)
                yield TurnToFaceOrder(unit=u.id, enemy=e.id)


def accepted(state, order) -> bool:
    try:
        get_ruleset("ohw").check(state, order)
    except IllegalOrder:
        return False
    return True


def normal(order):
    """end_facing equal to the facing means no end turn: the same order written two ways."""
    if isinstance(order, MoveOrder) and order.end_facing == order.facing:
        return order.model_copy(update={"end_facing": None})
    return order


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
    assert len(listed) == len(set(map(normal, listed))), "duplicates in legal_orders"
    brute = {normal(o) for o in every_conceivable_order(state) if accepted(state, o)}
    assert set(map(normal, listed)) == brute


def test_a_finished_game_has_no_legal_orders():
    game = play_out("g", SCENARIOS[0], seed=1)
    assert game.state.ended and legal_orders(game.state) == []
