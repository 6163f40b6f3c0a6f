"""The battle review on real games (engine/review.py): every decision graded, and start + the
orders' part + the dice's part = the result, exactly, in every rule system.

Games are bot games of bundled scenarios, one per rule system, reviewed with a small budget
(two candidate orders, eight samples past the exact walk) so the file stays quick: the budget
changes which better orders are found, never the arithmetic checked here."""

from __future__ import annotations

import functools
import math

import pytest

from warlog.engine import review
from warlog.engine.bots import play_out
from warlog.engine.game import Game, concede, reseat
from warlog.engine.scenario import load_scenario

SMALL = review.Budget(candidates=2, cap=64, samples=8)
ONE_A_SYSTEM = ["ancients-river-crossing", "portable-the-axona", "frontier-ulundi",
                "napoleonic-hougoumont", "density-granicus"]


@functools.cache
def _game(scenario: str, seed: int = 2) -> list[dict]:
    return play_out(f"rv-{scenario}", load_scenario(scenario), seed=seed, red="aggressive",
                    blue="cautious").events


@functools.cache
def _reviewed(scenario: str) -> review.Review:
    events = _game(scenario)
    every = review.decisions(events)
    verdicts = review.judge(events, [d.index for d in every], SMALL)
    return review.assemble(events[0]["game"], events, verdicts, "test")


@pytest.mark.parametrize("scenario", ONE_A_SYSTEM)
def test_start_plus_orders_plus_dice_is_the_result_in_every_rule_system(scenario):
    r = _reviewed(scenario)
    assert r.ended and r.orders
    result = {"red": 1.0, "blue": 0.0, None: 0.5}[r.winner]
    parts = r.split
    assert math.isclose(parts["result"], result, abs_tol=1e-12)
    assert abs(parts["start"] + parts["decisions"] + parts["dice"] - result) < 1e-9
    by_side = sum(parts["decisions_by_side"].values()), sum(parts["dice_by_side"].values())
    assert abs(by_side[0] - parts["decisions"]) < 1e-9 and abs(by_side[1] - parts["dice"]) < 1e-9
    for before, nxt in zip(r.orders, r.orders[1:]):  # each after is the next before
        assert before.after == nxt.before
    no_dice = [o for o in r.orders if o.how == "exact: no dice"]
    assert no_dice  # moves, turns, ends of phase that resolve nothing
    for o in no_dice:  # an order without dice leaves the dice no part of the sum
        assert abs(o.after - o.expected) < 1e-12, o
    assert all(o.grade in ("best", "good", "inaccuracy", "mistake", "blunder") for o in r.orders)
    assert all(0.0 <= o.accuracy <= 100.0 and o.loss >= 0.0 for o in r.orders)
    winner_words = {"red": "red won from", "blue": "blue won from"}.get(r.winner, "red drew")
    assert any(line.startswith(winner_words) for line in r.headline.values())


def test_a_better_order_is_named_where_one_was_found_and_worth_more_to_its_mover():
    r = _reviewed("portable-the-axona")
    better = [o for o in r.orders if o.best_order is not None]
    assert better, "the search found nothing better than any order of a bot game"
    for o in better:
        sign = 1 if o.side == "red" else -1
        assert sign * (o.best - o.expected) > 0
        assert o.best_text and o.best_text != o.text
    played_best = [o for o in r.orders if o.best_order is None]
    assert all(o.grade == "best" and o.loss == 0.0 for o in played_best)


def test_the_verdicts_do_not_depend_on_how_the_decisions_are_grouped():
    events = _game("ancients-river-crossing")
    n = len(review.decisions(events))
    whole = review.judge(events, list(range(n)), SMALL)
    odd_then_even = (review.judge(events, list(range(1, n, 2)), SMALL)
                     + review.judge(events, list(range(0, n, 2)), SMALL))
    assert sorted(odd_then_even, key=lambda j: j.index) == whole


def test_an_unfinished_game_is_reviewed_up_to_where_it_stands():
    events = _game("ancients-river-crossing")
    every = review.decisions(events)
    cut = events[: every[len(every) // 2].at]  # the log stops where the game waits
    verdicts = review.judge(cut, list(range(len(review.decisions(cut)))), SMALL)
    r = review.assemble("cut", cut, verdicts, "test")
    assert not r.ended and r.winner is None
    assert len(r.orders) == len(every) // 2
    parts = r.split
    assert abs(parts["start"] + parts["decisions"] + parts["dice"] - parts["result"]) < 1e-9
    assert all("stands at" in line for line in r.headline.values())


def test_a_concession_is_the_conceding_sides_decision_and_ends_the_sum():
    events = list(_game("ancients-river-crossing"))
    every = review.decisions(events)
    before = Game(events[: every[6].at])
    seats = reseat(before.state, {"red": "Ann", "blue": "Bo"})  # a bot never concedes
    game = Game([*before.events, seats])
    side = game.state.to_act
    game.events.extend(concede(game.state, side))
    verdicts = review.judge(game.events, list(range(7)), SMALL)
    r = review.assemble("conceded", game.events, verdicts, "test")
    last = r.orders[-1]
    assert r.ended and r.winner != side and last.side == side
    assert last.text == f"{side} concedes the battle"
    assert last.expected == last.after == (0.0 if side == "red" else 1.0)
    assert abs(r.split["start"] + r.split["decisions"] + r.split["dice"]
               - r.split["result"]) < 1e-9


def test_a_verdict_is_missing_is_refused_by_name():
    events = _game("ancients-river-crossing")
    verdicts = review.judge(events, [0, 1], SMALL)
    with pytest.raises(ValueError, match="no verdict on decision 2"):
        review.assemble("x", events, verdicts, "test")


def test_budget_from_the_command_line():
    assert review.Budget.of(None) == review.Budget()
    assert review.Budget.of(3).candidates == 3
    with pytest.raises(ValueError, match="--budget"):
        review.Budget.of(0)


# -- planted decisions ---------------------------------------------------------------------
#
# A decision is planted in a bot game: the game is cut where it was made, the planted order
# given (with the dice asked for), and the bots finish the game from there. The planted order
# is found by the evaluator's own measure over every legal order (so what is checked is that
# the review, which weighs only its few candidates, finds a better order and grades and splits
# as it should, not that the evaluator is right about the battle).


def _every_order(state) -> list:
    from warlog.engine.game import legal_orders
    from warlog.engine.vocabulary import units_to_act

    return [*legal_orders(state), *(o for u in units_to_act(state) for o in legal_orders(state, u))]


def _worths(state, keep=lambda order: True) -> tuple[float, dict]:
    """The best worth the review's own search finds at ``state`` (its candidates at the test's
    budget), from the mover's view, and the worth of every legal order ``keep`` keeps."""
    from warlog.engine.review_expect import best_order, candidates, expected_after

    orders = [o for o in _every_order(state) if keep(o)]
    # the tactician's first candidate as the played order: the candidates weighed are then
    # exactly those the review weighs for any played order, less the played one itself
    top = candidates(state, orders[0] if orders else _every_order(state)[0],
                     SMALL.candidates)[0]
    _, best, _ = best_order(state, top, review.value, limit=SMALL.candidates, cap=SMALL.cap,
                            samples=SMALL.samples)
    sign = 1 if state.to_act == "red" else -1
    return sign * best.mean, {o: expected_after(state, o, review.value, cap=SMALL.cap,
                                                samples=SMALL.samples) for o in orders}


def _attacks(order) -> bool:
    return any(getattr(order, name, None) for name in ("target", "attack"))


def _planted(events: list[dict], decision: review.Decision, order, dice=None) -> list[dict]:
    from warlog.engine.bots import next_order

    game = Game(events[: decision.at])
    game.play(order, by=game.state.players[game.state.to_act], dice=dice)
    while not game.state.ended:
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    return game.events


def _review_of(events: list[dict]) -> review.Review:
    n = len(review.decisions(events))
    return review.assemble("planted", events, review.judge(events, list(range(n)), SMALL), "t")


def test_a_planted_blunder_is_graded_a_blunder_and_a_better_order_is_named():
    events = _game("ancients-river-crossing")
    every = review.decisions(events)
    for decision, state in zip(every, review.positions(events, every)):
        sign = 1 if state.to_act == "red" else -1
        best, worths = _worths(state)
        if (best if sign > 0 else 1 + best) < 0.5:  # its side is not winning: nothing to lose
            continue
        worst, w = min(worths.items(), key=lambda kv: sign * kv[1].mean)
        if 100 * (best - sign * w.mean) >= 20:
            break
    else:
        pytest.fail("no order gives 20 points away in a winning position of this game")
    r = _review_of(_planted(events, decision, worst))
    planted = r.orders[decision.index]
    assert planted.text == review._text({"kind": "order_given", "side": decision.side,
                                         "phase": decision.phase,
                                         "order": worst.model_dump(mode="json")})
    assert planted.grade == "blunder", (planted.loss, planted.text)
    assert planted.best_text is not None and planted.best_text != planted.text


def test_a_bad_order_saved_by_its_best_roll_is_credited_to_the_dice():
    from warlog.engine import odds
    from warlog.engine.dice import RecordedDice
    from warlog.engine.review_expect import _play

    events = _game("portable-the-axona")
    every = review.decisions(events)
    for decision, state in zip(every, review.positions(events, every)):
        sign = 1 if state.to_act == "red" else -1
        best, worths = _worths(state, _attacks)
        chosen = None
        for order, w in worths.items():
            loss = best - sign * w.mean
            if loss < 0.08 or not w.exact or w.outcomes < 2:
                continue
            leaves = odds.leaves(state, lambda ctx, o=order: _play(ctx, o), grouped=True)
            luckiest = max(leaves, key=lambda leaf: sign * review.value(leaf.state))
            if sign * (review.value(luckiest.state) - w.mean) >= loss + 0.05:
                chosen = order, luckiest.faces
                break
        if chosen:
            break
    else:
        pytest.fail("no bad order with a lucky roll in this game")
    order, faces = chosen
    r = _review_of(_planted(events, decision, order, RecordedDice(faces)))
    planted = r.orders[decision.index]
    s = 1 if planted.side == "red" else -1
    decided, rolled = s * (planted.expected - planted.before), s * (planted.after - planted.expected)
    assert planted.grade in ("inaccuracy", "mistake", "blunder"), planted.loss
    assert rolled > abs(decided)  # the dice, not the order, moved it: the split says so
