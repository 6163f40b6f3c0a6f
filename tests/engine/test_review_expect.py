"""An order's worth with its dice averaged out (engine/review_expect.py): exact where the walk
allows, sampled with common random numbers beyond it, and the best order found beside it.

Positions come from one tactician game per scenario of three rule systems; the value is red's
share of the strength left (the evaluator is someone else's), computed here from the rule
system's own ``strength``."""

from __future__ import annotations

import functools
import math
from itertools import product

import pytest

from warlog.engine import review_expect
from warlog.engine.bots import play_out
from warlog.engine.dice import DiceError, RecordedDice, SeededDice
from warlog.engine.fold import evolve
from warlog.engine.game import legal_orders, successor
from warlog.engine.review_expect import Expectation, best_order, candidates, expected_after
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import load_scenario
from warlog.engine.whatif import waiting_points
from warlog.events.orders import EndPhaseOrder, parse_order

SCENARIOS = ("portable-the-axona", "ancients-river-crossing", "density-granicus")


def red_share(state) -> float:
    """Red's share of the strength left on the board; an ended game's value is its result."""
    if state.ended:
        return {"red": 1.0, "blue": 0.0}.get(state.winner, 0.5)
    ruleset = get_ruleset(state.rule_system)
    left = {"red": 0.0, "blue": 0.0}
    for unit in state.units.values():
        full, lost = ruleset.strength(state, unit)
        if not unit.removed:
            left[unit.side] += (full - lost) / max(1, full)
    return left["red"] / (left["red"] + left["blue"])


@functools.cache
def positions(scenario: str) -> tuple:
    """(state, the order played there) at every point a tactician game waited for an order."""
    game = play_out("review", load_scenario(scenario), seed=3, red="tactician",
                    blue="tactician")
    points = set(waiting_points(game.events))
    out, state = [], None
    for i, event in enumerate(game.events):
        state = evolve(state, event, check=False)
        if event["seq"] in points and not state.ended:
            played = next(e for e in game.events[i + 1:] if e["kind"] == "order_given")
            out.append((state.copy(), parse_order(played["order"])))
    return tuple(out)


def brute_mean(state, order) -> tuple[float, int]:
    """The mean value over every sequence of k d6 faces, for the least k the order can be
    resolved with on every sequence: no odds walk, no grouping, only decide's own successor."""
    for k in range(1, 5):
        try:
            values = [red_share(successor(state, order, RecordedDice(faces)))
                      for faces in product(range(1, 7), repeat=k)]
        except DiceError:
            continue
        return math.fsum(values) / len(values), k
    raise AssertionError(f"{order} rolls more than 4 dice")


def dice_orders(scenario: str, count: int = 1):
    """The first position with ``count`` candidate orders whose dice change the value (some
    of 16 rolls differ) and can be walked exactly, and those orders."""
    for state, played in positions(scenario):
        rolling = []
        for order in candidates(state, played):
            try:
                successor(state, order, None)
            except DiceError:
                if expected_after(state, order, red_share, cap=0, samples=16).error > 0 \
                        and expected_after(state, order, red_share).exact:
                    rolling.append(order)
        if len(rolling) >= count:
            return state, rolling[:count]
    raise AssertionError(f"no position of {scenario} offers {count} orders with dice")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_an_order_without_dice_is_exact_with_one_outcome(scenario):
    for state, played in positions(scenario)[:40]:
        try:
            after = successor(state, played, None)  # no dice source: fails if it rolls any
        except DiceError:
            continue
        got = expected_after(state, played, red_share)
        assert got == Expectation(red_share(after), True, 1, 0.0, "exact: no dice")
        return
    raise AssertionError("no order without dice among the first 40 positions")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_an_attack_averages_its_value_over_every_way_its_dice_fall(scenario):
    state, (order,) = dice_orders(scenario)
    got = expected_after(state, order, red_share)
    mean, dice = brute_mean(state, order)
    assert got.exact and got.error == 0.0 and got.outcomes > 1
    assert got.how == f"exact over {got.outcomes} ways the dice fall"
    assert got.outcomes <= 6 ** dice
    assert got.mean == pytest.approx(mean, abs=1e-12)
    # the dice matter: some fall leaves a position worth other than the mean
    values = {red_share(successor(state, order, RecordedDice(f)))
              for f in product(range(1, 7), repeat=dice)}
    assert len(values) > 1


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_past_the_cap_an_order_is_sampled_deterministically_and_near_the_exact_mean(scenario):
    state, (order,) = dice_orders(scenario)
    exact = expected_after(state, order, red_share)
    sampled = expected_after(state, order, red_share, cap=0, samples=64, seed=5)
    assert not sampled.exact and sampled.outcomes == 64
    assert sampled == expected_after(state, order, red_share, cap=0, samples=64, seed=5)
    assert sampled.how == f"sampled: 64 rolls, +-{100 * sampled.error:.1f} points"
    assert sampled.error > 0.0
    assert abs(sampled.mean - exact.mean) < 4 * sampled.error
    # the k-th sample is the k-th seeded stream, nothing else
    values = [red_share(successor(state, order,
                                  SeededDice(review_expect.sample_seed(state, k, 5))))
              for k in range(64)]
    assert sampled.mean == pytest.approx(math.fsum(values) / 64, abs=1e-12)
    other = expected_after(state, order, red_share, cap=0, samples=64, seed=6)
    assert other.mean != sampled.mean or other.error != sampled.error


def test_every_order_at_a_position_meets_the_same_dice_in_its_kth_sample(monkeypatch):
    """Common random numbers: two orders' k-th samples come from one seed and see the same
    faces as far as both roll, so comparing them measures the orders, not their luck."""
    streams: list[tuple[int, list[int]]] = []

    class SpyDice(SeededDice):
        def __init__(self, seed: int, rolled: int = 0) -> None:
            self.faces: list[int] = []
            super().__init__(seed, rolled)
            streams.append((seed, self.faces))

        def roll(self, sides: int = 6) -> int:
            face = super().roll(sides)
            self.faces.append(face)
            return face

    state, (first, second) = dice_orders("density-granicus", 2)
    monkeypatch.setattr(review_expect, "SeededDice", SpyDice)
    assert first != second
    expected_after(state, first, red_share, cap=0, samples=8, seed=11)
    seen_first = list(streams)
    streams.clear()
    expected_after(state, second, red_share, cap=0, samples=8, seed=11)
    assert [seed for seed, _ in streams] == [seed for seed, _ in seen_first]
    assert len({seed for seed, _ in streams}) == 8  # each sample its own stream
    for (_, a), (_, b) in zip(seen_first, streams):
        assert a and b
        common = min(len(a), len(b))
        assert a[:common] == b[:common]


def test_an_order_the_walk_cannot_finish_is_sampled_under_the_default_cap():
    """A Portable end of phase can roll initiative, whose ties are rolled again: no walk of every
    way ends, so the order is sampled, and says so."""
    for state, played in positions("portable-the-axona"):
        if isinstance(played, EndPhaseOrder):
            got = expected_after(state, played, red_share)
            if not got.exact:
                assert got.outcomes == review_expect.SAMPLES
                assert got.how.startswith(f"sampled: {review_expect.SAMPLES} rolls, +-")
                return
    raise AssertionError("no end of phase in the game needed sampling")


def test_an_illegal_order_is_refused_as_illegal():
    state, played = positions("ancients-river-crossing")[0]
    other_side = next(u for u in state.alive() if u.side != state.to_act)
    order = next(o for o in legal_orders(state) if getattr(o, "unit", None))
    foreign = order.model_copy(update={"unit": other_side.id})
    with pytest.raises(IllegalOrder):
        expected_after(state, foreign, red_share)
    with pytest.raises(IllegalOrder):
        best_order(state, foreign, red_share)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_candidates_hold_the_played_order_once_and_are_the_same_every_time(scenario):
    for state, played in positions(scenario)[:60:6]:
        worst = legal_orders(state)[-1]  # an order the tactician would not pick first
        for given in (played, worst):
            found = candidates(state, given, limit=4)
            assert given in found
            assert len(found) == len({o.model_dump_json() for o in found})  # no duplicates
            assert found == candidates(state, given, limit=4)
            assert len(found) <= 4 + 2
            end = EndPhaseOrder()
            if end in legal_orders(state):
                assert end in found
            else:
                assert end not in found


def _brute_best(state, played):
    """The best order by hand: the mover's best mean; the played order keeps ties, else the
    first candidate reaching it."""
    sign = 1.0 if state.to_act == "red" else -1.0
    found = candidates(state, played)
    means = {o.model_dump_json(): expected_after(state, o, red_share).mean for o in found}
    top = max(sign * m for m in means.values())
    if sign * means[played.model_dump_json()] >= top - 1e-9:
        return played
    return next(o for o in found if sign * means[o.model_dump_json()] >= top - 1e-9)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("side", ("red", "blue"))
def test_the_best_order_is_best_from_the_movers_view(scenario, side):
    """At a position of ``side`` where some order's dice can change the value, best_order picks
    what red's value says is best for that side (blue: red's lowest), and never an order merely
    as good as the one played."""
    for state, played in positions(scenario):
        if state.to_act != side:
            continue
        best, best_exp, played_exp = best_order(state, played, red_share)
        means = [expected_after(state, o, red_share).mean for o in candidates(state, played)]
        if max(means) - min(means) < 1e-6:
            continue
        assert best == _brute_best(state, played)
        assert played_exp == expected_after(state, played, red_share)
        assert best_exp == expected_after(state, best, red_share)
        sign = 1.0 if side == "red" else -1.0
        assert sign * best_exp.mean == pytest.approx(max(sign * m for m in means))
        if best != played:
            assert sign * (best_exp.mean - played_exp.mean) > review_expect.TIE
        return
    raise AssertionError(f"no {side} position of {scenario} where the orders differ in value")


def test_the_played_order_wins_a_tie():
    """Where every order is worth the same, nothing is better than what was played."""
    for state, played in positions("portable-the-axona")[:30:3]:
        best, best_exp, played_exp = best_order(state, played, lambda s: 0.5)
        assert best == played and best_exp == played_exp
        assert best_exp.mean == 0.5
