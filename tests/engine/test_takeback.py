"""Taking orders back (engine/takeback.py, issue 39): the rule, the fold of a log holding
take-backs (the voided stretch skipped, the seeded dice going on), and verify re-deriving it."""

from __future__ import annotations

import copy

import pytest

from warlog.engine.bots import bot_rng, get_policy
from warlog.engine.fold import FoldError, LiveLine, Timeline, evolve, live, replay
from warlog.engine.game import Game, start
from warlog.engine.scenario import load_scenario
from warlog.engine.takeback import TakeBackError, orders_to_take_back, take_back, voided
from warlog.engine.verify import verify
from warlog.events.orders import EndPhaseOrder

PEOPLE = {"red": "ann", "blue": "bob"}


def person_game(players=None, seed=3, scenario="horse-and-musket-quatre-bras") -> Game:
    return Game(start("tb", load_scenario(scenario), seed=seed, players=players or PEOPLE))


def play(game: Game, n: int, policy: str = "aggressive") -> None:
    """n orders chosen by a bot's policy, signed by the people seated."""
    for _ in range(n):
        side = game.state.to_act
        order = get_policy(policy).choose(game.state, bot_rng(game.state))
        game.play(order, by=game.state.players.get(side, side))


def until_side_changes(game: Game) -> str:
    """Play until the side to act changes; the side that acted last."""
    side = game.state.to_act
    while game.state.to_act == side:
        play(game, 1)
    return side


def without_dice_count(state) -> str:
    """The position's checksum, its count of dice rolled left out."""
    other = state.copy()
    other.dice_rolled = 0
    return other.checksum()


def test_a_take_back_puts_the_game_where_it_stood_before_the_orders():
    game = person_game()
    play(game, 3)
    before = replay(game.events)
    side = game.state.to_act
    play(game, 2)
    assert game.state.to_act == side  # the same side gave both
    rolled = game.state.dice_rolled
    event = game.take_back(side, 2, by=PEOPLE[side])
    assert event["kind"] == "orders_taken_back" and event["orders"] == 2
    assert event["back_to"] == before.seq + 1 and event["dice_rolled"] == rolled
    assert without_dice_count(game.state) == without_dice_count(before)
    assert game.state.dice_rolled == rolled  # the dice go on from where they were
    assert replay(game.events).checksum() == game.state.checksum()
    play(game, 6)
    report = verify(game.events)
    assert report.mismatch is None, report.mismatch


def test_the_dice_are_never_rolled_again_after_a_take_back():
    """The same order given again after it was taken back draws the next dice of the seeded
    stream, not the ones it drew before (else a player could look at the dice, then order)."""
    game = person_game(scenario="portable-issus")
    for _ in range(60):
        side, rolled = game.state.to_act, game.state.dice_rolled
        order = get_policy("aggressive").choose(game.state, bot_rng(game.state))
        first = sum(len(e["faces"]) for e in game.play(order, by=PEOPLE[side]) if "faces" in e)
        if first:
            break
    else:
        pytest.fail("no order rolled a die in 60 orders")
    game.take_back(side, 1, by=PEOPLE[side])
    assert game.state.dice_rolled == rolled + first
    again = sum(len(e["faces"]) for e in game.play(order, by=PEOPLE[side]) if "faces" in e)
    assert again >= 1 and game.state.dice_rolled == rolled + first + again
    assert verify(game.events).mismatch is None


def test_an_end_of_phase_is_taken_back_while_the_other_side_has_not_ordered():
    game = person_game()
    side = until_side_changes(game)  # the last order was side's end of phase (or its last)
    assert game.state.to_act != side
    last = [e for e in game.events if e["kind"] == "order_given"][-1]
    game.take_back(side, 1, by=PEOPLE[side])
    assert game.state.to_act == side
    assert game.state.phase == last["phase"]
    play(game, 4)
    assert verify(game.events).mismatch is None


def test_the_rule_refuses_what_is_not_the_sides_own_since_the_last_other_decision():
    game = person_game()
    side = until_side_changes(game)
    other = game.state.to_act
    play(game, 1)  # the other side has ordered since
    if game.state.to_act == other:
        with pytest.raises(TakeBackError, match=f"{other} has ordered since"):
            take_back(game.state, game.events, side, 1, PEOPLE[side])
    mine = orders_to_take_back(game.events, other)
    with pytest.raises(TakeBackError, match=f"{other} can take back {len(mine)} order"):
        take_back(game.state, game.events, other, len(mine) + 1, PEOPLE[other])
    with pytest.raises(TakeBackError, match="field 'by'"):
        take_back(game.state, game.events, other, 1, "mallory")
    with pytest.raises(TakeBackError, match="not a side"):
        take_back(game.state, game.events, "green", 1)
    with pytest.raises(TakeBackError, match="not a number of orders"):
        take_back(game.state, game.events, other, 0)
    count = len(game.events)
    with pytest.raises(TakeBackError):
        game.take_back(side, 1)
    assert len(game.events) == count  # nothing written


def test_a_bots_orders_are_never_taken_back():
    game = person_game(players={"red": "aggressive", "blue": "bob"})
    while game.state.to_act != "red":
        play(game, 1)
    play(game, 1)  # the bot's order
    bot_side = [e for e in game.events if e["kind"] == "order_given"][-1]["side"]
    assert bot_side == "red" and game.state.players[bot_side] == "aggressive"
    with pytest.raises(TakeBackError, match="the aggressive bot: a bot's orders are never"):
        take_back(game.state, game.events, bot_side, 1)


def test_take_backs_nest_and_the_voided_stretch_is_the_outermost():
    game = person_game()
    play(game, 2)
    side = game.state.to_act
    play(game, 2)
    first = game.take_back(side, 1, by=PEOPLE[side])
    play(game, 1)
    assert game.state.to_act == side
    second = game.take_back(side, 2, by=PEOPLE[side])  # back over the first take-back
    assert second["back_to"] < first["back_to"]
    gone = voided(game.events)
    assert first["seq"] in gone and gone[first["seq"]] == second["seq"]
    assert all(second["back_to"] <= seq < second["seq"] for seq in gone)
    assert [e["seq"] for e in live(game.events)] == [
        e["seq"] for e in game.events if e["seq"] not in gone]
    play(game, 5)
    assert verify(game.events).mismatch is None
    timeline = Timeline(game.events)
    assert timeline.final.checksum() == replay(game.events).checksum()
    at = next(i for i, e in enumerate(game.events) if e["seq"] == second["seq"])
    assert timeline.state_at(at).checksum() == replay(game.events[: at + 1]).checksum()
    assert timeline.state_at(at + 2).checksum() == replay(game.events[: at + 3]).checksum()


def test_evolve_alone_refuses_a_take_back_rather_than_fold_a_wrong_position():
    game = person_game()
    side = game.state.to_act
    play(game, 2)
    game.take_back(side, 1, by=PEOPLE[side])
    state = None
    with pytest.raises(FoldError, match="fold the live log"):
        for event in game.events:
            state = evolve(state, event)
    line = LiveLine()
    for event in game.events:
        line.push(event)
    assert line.state.checksum() == game.state.checksum()


def test_verify_refuses_a_forged_take_back():
    game = person_game()
    play(game, 2)
    side = game.state.to_act
    play(game, 2)
    game.take_back(side, 2, by=PEOPLE[side])
    for field, value in (("dice_rolled", 99), ("orders", 1), ("back_to", 2), ("by", "mallory"),
                         ("side", "blue" if side == "red" else "red")):
        forged = copy.deepcopy(game.events)
        forged[-1][field] = value
        report = verify(forged)
        assert report.mismatch is not None and report.mismatch.seq == forged[-1]["seq"], field


def test_a_table_game_with_real_dice_takes_back_and_verifies():
    from builders import new_game

    game = new_game([("r1", "red", "Infantry", (2, 2), "E"),
                     ("b1", "blue", "Infantry", (5, 2), "W")])  # manual dice, nobody named
    side = game.state.to_act
    game.play(EndPhaseOrder(), by=None)
    game.take_back(side, 1)
    assert game.state.to_act == side
    game.play(EndPhaseOrder(), by=None)
    assert verify(game.events).mismatch is None
