"""engine/whatif.py: playouts from a step (pure, no Dask) and their summary."""

from __future__ import annotations

import math

import pytest
from whatif_games import bot_game, far_apart_scenario

from warlog.engine import whatif
from warlog.engine.bots import get_policy
from warlog.engine.dice import DiceError, SplitMix64
from warlog.engine.fold import replay
from warlog.engine.game import Game, start
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import SIDES


@pytest.fixture(scope="module")
def game() -> list[dict]:
    return bot_game(seed=3)


def _opening(events: list[dict]) -> int:
    return whatif.waiting_points(events)[0]


def test_the_same_seed_gives_the_same_playout_and_seeds_differ(game):
    start_at = whatif.prefix(game, _opening(game))
    runs = {seed: whatif.playout(start_at, seed=seed) for seed in (1, 2, 3, 4, 5, 6)}
    assert whatif.playout(start_at, seed=4) == runs[4]
    # fresh dice and bot choices from each seed: six playouts are not all one game
    assert len({(r.winner, r.end_turn, tuple(r.lost.values()), r.orders)
                for r in runs.values()}) > 1


def test_a_finished_game_returns_its_own_result(game):
    ended = game[-1]
    assert ended["kind"] == "game_ended"
    result = whatif.playout(game, seed=99)
    assert (result.winner, result.end_reason) == (ended["winner"], ended["reason"])
    assert result.orders == 0 and result.lost == {"red": 0, "blue": 0}
    assert result.end_turn == ended["turn"]


def test_attrition_is_what_each_side_lost_from_the_step_on(game):
    # From a step where both sides have already lost strength, a side wiped out in the playout
    # loses what it still had: its full strength (3 units x hits_to_remove) less the loss so far.
    limit = game[0]["options"]["hits_to_remove"]
    ruleset = get_ruleset("ohw")
    for step in whatif.waiting_points(game)[:-1]:
        state = replay(whatif.prefix(game, step))
        before = {s: sum(ruleset.strength(state, u)[1] for u in state.units.values()
                         if u.side == s) for s in SIDES}
        if min(before.values()) > 0 and not state.ended:
            break
    wiped = []
    for seed in range(1, 7):
        result = whatif.playout(whatif.prefix(game, step), seed=seed)
        for side in SIDES:
            assert 0 <= result.lost[side] <= 3 * limit - before[side]
        if result.end_reason.endswith("has no units left"):
            loser = "red" if result.winner == "blue" else "blue"
            assert result.lost[loser] == 3 * limit - before[loser]
            wiped.append(seed)
    assert wiped  # some playouts end in a wipe-out (the bots are aggressive)


def _moves_only_game(turns: int = 2) -> list[dict]:
    """A tabletop game (manual dice) of moves only: the armies start too far apart to fight, so
    no order needs a die. Orders chosen by the cautious bot until turn ``turns`` + 1."""
    game = Game(start("tabletop", far_apart_scenario(), dice="manual"))
    bot = get_policy("cautious")
    while game.state.turn <= turns:
        game.play(bot.choose(game.state, SplitMix64(game.state.seq)), by="alice")
    return game.events


def test_recorded_mode_follows_the_log_while_it_stays_legal():
    events = _moves_only_game()
    logged = whatif.recorded_orders(events, 0)
    opening = _opening(events)
    assert len(logged) > 6
    prefix = whatif.prefix(events, opening)
    result = whatif.playout(prefix, seed=5, mode="recorded",
                            recorded_orders=whatif.recorded_orders(events, opening))
    assert result.recorded == len(logged)  # no dice in them: every one stays legal
    assert result.orders > result.recorded  # then bots play the game to its end
    assert result.winner is not None or result.end_reason
    bots = whatif.playout(prefix, seed=5, mode="bots")
    assert bots.recorded == 0
    # An order the rules refuse (a move far off the board) ends the log's part there.
    k = 4
    broken = [dict(e) for e in logged]
    broken[k] = {**broken[k], "order": {"type": "move", "unit": "r1", "facing": "W",
                                        "distance": 9}}
    cut = whatif.playout(prefix, seed=5, mode="recorded", recorded_orders=broken)
    assert cut.recorded == k


def test_a_recorded_order_given_by_the_other_side_is_not_replayed():
    events = _moves_only_game()
    opening = _opening(events)
    logged = whatif.recorded_orders(events, opening)
    swapped = [{**logged[0], "side": "blue" if logged[0]["side"] == "red" else "red"}]
    result = whatif.playout(whatif.prefix(events, opening), seed=5, mode="recorded",
                            recorded_orders=swapped + logged[1:])
    assert result.recorded == 0


def test_a_tabletop_game_with_manual_dice_plays_on_with_fresh_dice():
    events = _moves_only_game(turns=1)
    assert events[0]["dice"] == "manual"
    with pytest.raises(DiceError):  # its own dice source has no die to give
        Game(events).dice.roll()
    result = whatif.playout(events, seed=8, policies={"red": "aggressive", "blue": "aggressive"})
    assert result.winner in ("red", "blue", None) and result.orders > 0


def test_default_policies_are_the_games_bots_else_the_tactician(game):
    state = Game(game[:1]).state
    assert whatif.default_policies(state) == {"red": "aggressive", "blue": "aggressive"}
    assert whatif.default_policies(state, blue="random") == {"red": "aggressive", "blue": "random"}
    tabletop = Game(_moves_only_game(turns=1)[:1]).state  # players are people, not bots
    assert whatif.default_policies(tabletop) == {"red": whatif.DEFAULT_POLICY,
                                                 "blue": whatif.DEFAULT_POLICY}
    with pytest.raises(whatif.WhatIfError, match="unknown policy 'nobody' for red"):
        whatif.default_policies(state, red="nobody")


def test_a_step_inside_an_orders_consequences_snaps_back_to_the_order(game):
    points = whatif.waiting_points(game)
    assert points == sorted(points)
    for p in points[:-1]:  # the game waits for an order right after each point
        nxt = next(e for e in game if e["seq"] == p + 1)
        assert nxt["kind"] == "order_given"
    i = next(i for i in range(len(points) - 1) if points[i + 1] - points[i] > 2)
    assert whatif.snap(game, points[i] + 2) == points[i]  # inside the order after points[i]
    assert whatif.snap(game, points[i + 1]) == points[i + 1]
    assert whatif.snap(game, 1) == points[0]  # before the first order: the opening
    assert whatif.snap(game, game[-1]["seq"]) == game[-1]["seq"]
    with pytest.raises(whatif.WhatIfError, match="step 999 is not in the game"):
        whatif.snap(game, 999)


def test_wilson_interval_against_a_hand_computed_value():
    # 8 of 10, z = 1.96: centre (0.8 + 1.96^2/20) / (1 + 1.96^2/10) = 0.71674,
    # half 1.96/1.38415 * sqrt(0.8*0.2/10 + 1.96^2/400) = 0.22658: (0.4902, 0.9433).
    s = whatif.wilson(8, 10)
    assert s.p == 0.8
    assert s.low == pytest.approx(0.4902, abs=1e-4)
    assert s.high == pytest.approx(0.9433, abs=1e-4)
    none, every = whatif.wilson(0, 20), whatif.wilson(20, 20)
    assert (none.low, every.high) == (0.0, 1.0)
    assert none.high == pytest.approx(1.96 ** 2 / (20 + 1.96 ** 2), abs=1e-3)  # 0.1611


def test_mean_interval_against_a_hand_computed_value():
    # 2, 4, 6, 8: mean 5, sd sqrt(20/3) = 2.582, se 1.291, half 1.96 * 1.291 = 2.530
    m = whatif.mean_interval([2, 4, 6, 8])
    assert m.mean == 5
    assert (m.low, m.high) == pytest.approx((5 - 2.5303, 5 + 2.5303), abs=1e-3)
    assert whatif.mean_interval([3]) == whatif.Mean(3, 3, 3)


def test_estimate_counts_each_outcome():
    def r(winner, red, blue):
        return whatif.PlayoutResult(winner, "x", 5, 10, 0, {"red": red, "blue": blue})

    est = whatif.estimate([r("red", 1, 4), r("red", 3, 6), r("blue", 5, 2), r(None, 0, 0)])
    assert (est.n, est.red.p, est.blue.p, est.draw.p) == (4, 0.5, 0.25, 0.25)
    assert est.red == whatif.wilson(2, 4)
    assert est.lost["red"].mean == 9 / 4 and est.lost["blue"].mean == 3
    assert math.isclose(est.red.p + est.blue.p + est.draw.p, 1.0)
    assert est.as_dict()["red"] == {"p": 0.5, "low": est.red.low, "high": est.red.high}


def test_an_unknown_mode_is_refused(game):
    with pytest.raises(whatif.WhatIfError, match="unknown mode 'chess'"):
        whatif.playout(whatif.prefix(game, _opening(game)), seed=1, mode="chess")


def test_a_game_waits_before_every_kind_of_input():
    """Every input a game can take (an order, a withdrawn one, a note, seats changed, a side
    conceding) is a point the game waits at: the what-if starts from the same points the
    command line forks at."""
    from warlog.app.forking import INPUT_KINDS
    events = [{"seq": 1, "kind": "game_started"}] + [
        {"seq": i + 2, "kind": kind} for i, kind in enumerate(INPUT_KINDS)]
    assert whatif.waiting_points(events) == [e["seq"] for e in events[1:]]  # opening: none
