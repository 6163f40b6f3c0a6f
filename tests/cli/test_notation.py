"""The order notation reads what it writes, for every legal order of real games."""

from __future__ import annotations

import pytest

from warlog.engine.bots import play_out
from warlog.engine.game import Game, legal_orders
from warlog.engine.scenario import bundled_scenarios
from warlog.events.orders import (
    BarrageOrder,
    EndPhaseOrder,
    FormationOrder,
    MoveOrder,
    RolesOrder,
    RouteOrder,
    ShootOrder,
    TurnToFaceOrder,
)
from warlog.app.notation import NotationError, format_order, parse_order


@pytest.mark.parametrize("text,order", [
    ("end", EndPhaseOrder()),
    ("move r1 E 2", MoveOrder(unit="r1", facing="E", distance=2)),
    ("move r1 ne 2 then sw", MoveOrder(unit="r1", facing="NE", distance=2, end_facing="SW")),
    ("move c1 E 3 attack b2", MoveOrder(unit="c1", facing="E", distance=3, attack="b2")),
    ("move c1 E attack b2", MoveOrder(unit="c1", facing="E", distance=0, attack="b2")),
    ("turn a1 N", MoveOrder(unit="a1", facing="N", distance=0)),
    ("shoot a1 b1", ShootOrder(unit="a1", target="b1")),
    ("face i1 b3", TurnToFaceOrder(unit="i1", enemy="b3")),
    ("route t1 3,4 4,4 then se", RouteOrder(unit="t1", path=((3, 4), (4, 4)), facing="SE")),
    ("route t1 then W", RouteOrder(unit="t1", facing="W")),
    ("square i1", FormationOrder(unit="i1", formation="square")),
    ("line i1", FormationOrder(unit="i1", formation="line")),
    ("defend Blue", RolesOrder(defender="blue")),
    ("barrage b1 b2", BarrageOrder(targets=("b1", "b2"))),
])
def test_parse(text, order):
    assert parse_order(text.split()) == order


@pytest.mark.parametrize("text", ["", "fly r1", "move r1", "move r1 E 2 sideways N",
                                  "shoot a1", "end now", "move r1 E 2 then", "route t1 3,4",
                                  "route t1 3;4 then E", "defend green", "barrage", "square"])
def test_words_that_are_no_order_are_refused_with_the_forms(text):
    with pytest.raises(NotationError, match="orders: move UNIT FACING"):
        parse_order(text.split())


@pytest.mark.slow
def test_every_legal_order_of_real_games_round_trips():
    seen = set()
    for scenario in bundled_scenarios():
        game = play_out("n", scenario, seed=2, red="aggressive", blue="random")
        for upto in range(2, len(game.events), 9):
            state = Game(game.events[:upto]).state
            for order in legal_orders(state):
                assert parse_order(format_order(order).split()) == order
                seen.add(format_order(order).split()[0])
    assert seen >= {"move", "turn", "shoot", "end", "route", "square", "line"}
