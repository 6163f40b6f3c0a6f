"""engine/review_score.py: the battle review's arithmetic, on hand-built records (no engine)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warlog.engine import review_score as rs
from warlog.engine.review_score import Grade, Judged


def _order(index: int, side: str, before: float, expected: float, after: float,
           best: float | None = None) -> Judged:
    return Judged(index=index, seq=10 * index + 3, side=side, before=before, expected=expected,
                  after=after, best=expected if best is None else best)


def _path(positions: list[float], sides: str = "rb") -> list[Judged]:
    """Orders along red's expected scores ``positions`` (each order moves from one to the
    next), half of each step the decision's and half the dice's, sides alternating."""
    return [
        _order(i, "red" if sides[i % len(sides)] == "r" else "blue", a, (a + b) / 2, b)
        for i, (a, b) in enumerate(zip(positions, positions[1:]))
    ]


# --- grades ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("loss", "expected"), [
    (0.0, Grade.BEST), (0.999, Grade.BEST), (1.0, Grade.GOOD), (4.99, Grade.GOOD),
    (5.0, Grade.INACCURACY), (9.99, Grade.INACCURACY), (10.0, Grade.MISTAKE),
    (14.99, Grade.MISTAKE), (15.0, Grade.BLUNDER), (80.0, Grade.BLUNDER),
])
def test_a_loss_is_graded_at_lichess_thresholds(loss, expected):
    assert rs.grade_for_loss(loss) is expected


def test_grades_are_ordered_best_to_worst():
    assert [g.value for g in rs.GRADES] == ["best", "good", "inaccuracy", "mistake", "blunder"]


def test_a_record_is_graded_from_its_movers_view_on_expected_not_after():
    # 0.65 - 0.60 is 4.99999... in floats: still lichess's 5-point inaccuracy.
    assert rs.grade(_order(0, "red", 0.5, 0.60, 0.0, best=0.65)) is Grade.INACCURACY
    # Blue's view: best 1 - 0.35 = 0.65, played 1 - 0.45 = 0.55: 10 points, a mistake,
    # although the dice (after = 0.2, blue at 80%) made it look fine.
    blue = _order(0, "blue", 0.5, 0.45, 0.2, best=0.35)
    assert rs.loss_points(blue) == pytest.approx(10.0)
    assert rs.grade(blue) is Grade.MISTAKE
    # The same numbers for red would be a gain of 10 over "best": no loss, best.
    assert rs.grade(_order(0, "red", 0.5, 0.45, 0.2, best=0.35)) is Grade.BEST


def test_an_order_better_than_the_best_found_loses_nothing():
    record = _order(0, "red", 0.5, 0.9, 0.9, best=0.6)
    assert rs.loss_points(record) == 0.0
    assert rs.grade(record) is Grade.BEST


# --- accuracy --------------------------------------------------------------------------------

def test_move_accuracy_matches_lichess_by_hand():
    # drop 10: 103.1668100711649 * exp(-0.04354415386753951 * 10) - 3.166924740191411 + 1
    #        = 103.1668100711649 * 0.646978937779213 - 2.166924740191411
    #        = 66.74675319391208 - 2.166924740191411 = 64.57982845372067
    assert rs.accuracy_from_win_percents(60.0, 50.0) == pytest.approx(64.57982845372067)
    # drop 20: 103.1668... * 0.4185817459299188 = 43.18374348160854; - 2.16692... = 41.0168187
    assert rs.accuracy_from_win_percents(70.0, 50.0) == pytest.approx(41.016818741417126)
    # drop 100: 103.1668... * 0.0128499496 = 1.32568831; - 2.16692... < 0: clamped to 0
    assert rs.accuracy_from_win_percents(100.0, 0.0) == 0.0
    assert rs.accuracy_from_win_percents(40.0, 55.0) == 100.0  # an improvement
    assert rs.accuracy_from_win_percents(40.0, 40.0) == 100.0


def test_order_accuracy_is_the_movers_and_ignores_the_dice():
    # Blue at 40% before, 30% expected after (red 0.6 -> 0.7): a 10-point drop.
    assert rs.order_accuracy(_order(0, "blue", 0.6, 0.7, 0.0)) == pytest.approx(64.57982845372067)
    assert rs.order_accuracy(_order(0, "red", 0.6, 0.7, 0.0)) == 100.0


SMALL_GAME = [
    _order(0, "red", 0.5, 0.6, 0.6),    # red 50 -> 60 expected: accuracy 100
    _order(1, "blue", 0.6, 0.7, 0.4),   # blue 40 -> 30 expected: drop 10, 64.57982845372067
    _order(2, "red", 0.4, 0.2, 0.4),    # red 40 -> 20 expected: drop 20, 41.016818741417126
    _order(3, "blue", 0.4, 0.4, 0.3),   # blue 60 -> 60: 100
]


def test_volatility_weights_of_a_small_game_by_hand():
    # 4 orders: window size clamp(4 // 10, 2, 8) = 2, no repeated first window; the series
    # (each before, then the last after) 50 60 40 40 30 gives windows [50 60] [60 40] [40 40]
    # [40 30], population deviations 5, 10, 0 -> 0.5 (clamped), 5.
    assert rs.volatility_weights([50.0, 60.0, 40.0, 40.0, 30.0]) == [5.0, 10.0, 0.5, 5.0]


def test_volatility_weights_repeat_the_first_window_and_clamp():
    # 30 moves: window size 3, so lila repeats the first window once (3 - 2) before sliding.
    series = [20.0] + [50.0] * 29 + [80.0]
    weights = rs.volatility_weights(series)
    assert len(weights) == 30
    # [20 50 50] and [50 50 80] have deviation 14.14: clamped to 12; all-50 windows to 0.5.
    assert weights[:3] == [12.0, 12.0, 0.5]
    assert weights[-1] == 12.0 and weights[-2] == 0.5


def test_game_accuracy_of_a_small_game_by_hand():
    # red: accuracies 100 (weight 5) and 41.016818741417126 (weight 0.5)
    #   weighted = (500 + 20.508409370708563) / 5.5 = 94.6378926128561
    #   harmonic = 2 / (1/100 + 1/41.016818741417126) = 2 / (0.01 + 0.024380242804892142)
    #            = 58.17294576277424
    #   game     = (94.6378926128561 + 58.17294576277424) / 2 = 76.40541918781517
    # blue: 64.57982845372067 (weight 10) and 100 (weight 5)
    #   weighted = (645.7982845372067 + 500) / 15 = 76.38655230248044
    #   harmonic = 2 / (0.015484711309145426 + 0.01) = 78.47842479903947
    #   game     = (76.38655230248044 + 78.47842479903947) / 2 = 77.43248855075996
    accuracy = rs.game_accuracy(SMALL_GAME)
    assert accuracy["red"] == pytest.approx(76.40541918781517)
    assert accuracy["blue"] == pytest.approx(77.43248855075996)


def test_an_all_perfect_side_has_game_accuracy_100_and_a_side_without_orders_none():
    records = _path([0.5, 0.7, 0.2, 0.9, 0.1, 0.6, 0.3], sides="r")  # red never loses: expected
    records = [_order(r.index, "red", r.before, max(r.before, r.expected), r.after)
               for r in records]
    assert rs.game_accuracy(records) == {"red": 100.0, "blue": None}


def test_harmonic_mean_floors_each_accuracy_at_1_as_lila_does():
    # A 0% move counts as 1: 2 / (1/100 + 1/1) = 1.98..., not a division by zero.
    records = [_order(0, "red", 1.0, 0.0, 0.0), _order(1, "red", 0.0, 0.5, 0.5)]
    weighted = (0.0 * 12 + 100.0 * 12) / 24  # both windows [100 0] and [0 50]: 50 and 25 -> 12
    assert rs.game_accuracy(records)["red"] == pytest.approx((weighted + 2 / 1.01) / 2)


# --- luck against decisions ------------------------------------------------------------------

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def games(draw) -> list[Judged]:
    positions = draw(st.lists(unit, min_size=2, max_size=40))
    records = []
    for i, (a, b) in enumerate(zip(positions, positions[1:])):
        side = draw(st.sampled_from(rs.SIDES))
        records.append(_order(i, side, a, draw(unit), b))
    return records


@settings(max_examples=200, deadline=None)
@given(games(), st.sampled_from(rs.SIDES))
def test_the_split_adds_up_to_the_result(records, view):
    parts = rs.split(records, view)
    assert abs(parts.start + parts.decisions + parts.dice - parts.result) <= 1e-9
    assert sum(parts.decisions_by_side.values()) == pytest.approx(parts.decisions, abs=1e-12)
    assert sum(parts.dice_by_side.values()) == pytest.approx(parts.dice, abs=1e-12)
    other = rs.split(records, "blue" if view == "red" else "red")
    assert parts.start == pytest.approx(1 - other.start)
    assert parts.dice == pytest.approx(-other.dice)
    again = rs.seen_by(other, view)
    assert (again.start, again.decisions, again.result) == pytest.approx(
        (parts.start, parts.decisions, parts.result), abs=1e-12)


def test_a_broken_chain_names_the_order():
    records = _path([0.5, 0.6, 0.7, 0.8])
    records[2] = _order(2, "red", 0.75, 0.78, 0.8)  # order 1 ended at 0.7, not 0.75
    with pytest.raises(ValueError, match=r"order 1: .* order 2's before"):
        rs.split(records)


def test_the_split_gives_each_side_its_own_orders_and_dice():
    parts = rs.split(SMALL_GAME, "blue")
    # blue's view: start 1 - 0.5; red's orders' decisions +0.1, -0.2 -> blue sees +0.1;
    # blue's own: +0.1 (0.6 -> 0.7 red) seen as -0.1, and 0 -> -0.1.
    assert parts.start == 0.5 and parts.result == pytest.approx(0.7)
    assert parts.decisions_by_side["red"] == pytest.approx(0.1)
    assert parts.decisions_by_side["blue"] == pytest.approx(-0.1)
    assert parts.dice_by_side == pytest.approx({"red": -0.2, "blue": 0.4})


def test_the_headline_reads_as_the_brief_says():
    # One blue order: blue 38% -> 59% expected (+21) -> 100% when the dice fell (+41).
    parts = rs.split([_order(0, "blue", 0.62, 0.41, 0.0)])
    assert rs.headline(parts, "blue") == (
        "blue won from 38%: +21 points from the orders, +41 from the dice")
    assert rs.headline(parts, "red") == (
        "red lost from 62%: -21 points from the orders, -41 from the dice")
    drawn = rs.split([_order(0, "red", 0.5, 0.3, 0.5)])
    assert rs.headline(drawn, "red") == (
        "red drew from 50%: -20 points from the orders, +20 from the dice")
    ongoing = rs.split(_path([0.5, 0.7]))
    assert rs.headline(ongoing, "red").startswith("red stands at 70% from 50%:")
    level = rs.split(_path([0.6, 0.5]))  # not over, at exactly 50%: not a draw
    assert rs.headline(level, "red", ended=False).startswith("red stands at 50% from 60%:")
    assert rs.headline(level, "red").startswith("red drew from 60%:")


def test_largest_remainder_keeps_the_sum():
    assert rs.largest_remainder([20.6, 20.6], 41) == [21, 20]
    assert rs.largest_remainder([-0.4, 10.4], 10) == [0, 10]
    assert rs.largest_remainder([33.4, 33.3, 33.3], 100) == [34, 33, 33]


@settings(max_examples=200, deadline=None)
@given(games(), st.sampled_from(rs.SIDES))
def test_the_headlines_rounded_numbers_add_up(records, side):
    sentence = rs.headline(rs.split(records), side)
    match = re.fullmatch(
        r"(red|blue) (won|lost|drew|stands at (\d+)%) from (\d+)%: ([+-]\d+) points from the "
        r"orders, ([+-]\d+) from the dice", sentence)
    assert match, sentence
    end = {"won": 100, "lost": 0, "drew": 50}.get(match[2]) or int(match[3] or 0)
    assert int(match[4]) + int(match[5]) + int(match[6]) == end


# --- moments and turning points --------------------------------------------------------------

def test_moments_are_the_largest_swings_no_two_within_the_gap():
    # Swings by order: 0: +0.05, 4: -0.3, 5: +0.25 (its echo), 6: -0.2, 9: +0.1, others 0.
    steps = {0: 0.05, 4: -0.3, 5: 0.25, 6: -0.2, 9: 0.1}
    positions = [0.5]
    for i in range(10):
        positions.append(positions[-1] + steps.get(i, 0.0))
    records = _path(positions)
    assert [m.index for m in rs.moments(records)] == [0, 4, 9]
    assert [m.index for m in rs.moments(records, gap=0)] == [0, 4, 5, 6, 9]
    assert [m.index for m in rs.moments(records, n=2, gap=0)] == [4, 5]
    biggest = rs.moments(records, n=1)[0]
    assert (biggest.before, biggest.after, biggest.seq) == (positions[4], positions[5], 43)


def test_a_moment_names_what_moved_it_most():
    dice = rs.moments([_order(0, "red", 0.5, 0.55, 0.9)])[0]
    decision = rs.moments([_order(0, "red", 0.5, 0.85, 0.9)])[0]
    assert (dice.cause, decision.cause) == ("dice", "decision")
    assert dice.swing == pytest.approx(0.4) and dice.dice == pytest.approx(0.35)


def test_turning_points_ignore_a_hover_around_50():
    hover = _path([0.5, 0.45, 0.55, 0.48, 0.58, 0.42, 0.59, 0.41])
    assert rs.turning_points(hover) == []
    # Red takes the lead at 0.65 (order 7), keeps it through 0.45, loses it at 0.38 (order 9).
    game = _path([0.5, 0.45, 0.55, 0.48, 0.58, 0.42, 0.59, 0.41, 0.65, 0.45, 0.38])
    points = rs.turning_points(game)
    assert [(p.index, p.ahead_before, p.ahead_after) for p in points] == [
        (7, None, "red"), (9, "red", "blue")]
    assert [p.index for p in rs.turning_points(game, margin=0.0)] == [0, 1, 2, 3, 4, 5, 6, 7, 8]
