"""Why an order (engine/order_reasons.py): an attack's line names its target with the exact odds
the rule system's own resolution gives, a move's line its ground and the nearest enemy; read
through the order vocabulary, so every system's bot gets a line."""

from __future__ import annotations

import pytest

from warlog.engine import vocabulary
from warlog.engine.bots import next_order
from warlog.engine.game import Game, start
from warlog.engine.odds import attack
from warlog.engine.order_reasons import why
from warlog.engine.rulesets.tables import systems
from warlog.engine.scenario import bundled_scenarios


def first_scenario(system: str):
    return next(s for s in bundled_scenarios() if s.rule_system == system)


@pytest.mark.parametrize("system", systems())
def test_every_systems_tactician_orders_get_lines_that_agree_with_the_odds(system):
    game = Game(start("why", first_scenario(system), seed=5,
                      players={"red": "tactician", "blue": "tactician"}))
    struck = moved = 0
    for _ in range(120):
        if game.state.ended:
            break
        before = game.state.copy()
        order = next_order(game.state)
        game.play(order, by="tactician")
        line = why(before, order, game.state)
        kind = vocabulary.kind_of(before, order)
        where = kind.gesture(before, order)
        if order.type == "end_phase":
            assert line == ""
        if where.how == "enemy" and kind.strikes:
            struck += 1
            target = before.units[where.at]
            assert line.startswith(f"at {target.id} ({target.type})"), line
            if order.type == "shoot":  # the shot's odds from where it stood
                odds = attack(before, kind.unit(order), target.id, "shoot")
                assert f"hits it {float(odds.on_target.p_hit):.0%}" in line, line
        unit = kind.unit(order)
        if kind.ends_on(before, order) is not None and unit and not game.state.units[unit].removed:
            moved += 1
            cell = game.state.units[unit].cell
            terrain = game.state.scenario.terrain_at(tuple(cell))
            assert f"ends on {terrain} ({cell[0]}, {cell[1]})" in line, line
    assert moved or struck, f"no {system} order had anything to say in 120 orders"
