"""The battle review's arithmetic (issue 38): "was it the dice or the decisions, and where was it
won or lost", computed from numbers others measured.

The evaluator gives red's expected score (P(red wins) + P(draw)/2) for a position, and the
expectation of an order over its dice; this module only combines those numbers, so it is pure:
no engine state, no I/O, no randomness. Everything comes in from red's view; a blue order is
judged from its mover's view, ``mover(v, "blue") = 1 - v``.

Grades follow lichess, which grades a move by the winning chances it gives away, not by
material. Lichess judges a drop of its winning chances (on -1..1) of 0.1, 0.2 and 0.3; on the
0-100 win-% scale used here those are 5, 10 and 15 points:

* loss = mover(best) - mover(expected), in win-% points, clipped at 0 (an order may beat the
  best one the search found: it loses nothing);
* **best** below 1 point, **good** below 5, **inaccuracy** from 5, **mistake** from 10,
  **blunder** from 15.

The loss is judged on ``expected`` (the order averaged over its dice), never on ``after``: the
grade is for the decision, and the dice are accounted for separately (:func:`split`).

Accuracy is lichess's (lila, modules/analyse/src/main/AccuracyPercent.scala, read for this
module): a move's accuracy is ``103.1668 * exp(-0.04354 * (before - after)) - 3.1669`` on the
mover's win %, **plus lichess's "uncertainty bonus" of 1** (its code adds it; the formula on its
accuracy page does not show it), clamped to [0, 100], 100 for any move that does not lose.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

SIDES = ("red", "blue")

BEST_WITHIN = 1.0
"""A loss below this many win-% points is as good as the best order found."""
INACCURACY = 5.0
"""lichess's inaccuracy: winning chances down 0.1 on -1..1, i.e. 5 win-% points."""
MISTAKE = 10.0
"""lichess's mistake: 0.2 on -1..1, 10 points."""
BLUNDER = 15.0
"""lichess's blunder: 0.3 on -1..1, 15 points."""
EDGE = 1e-9
"""Float slack at a threshold, so a drop of 0.65 - 0.60 (4.999999... points) is still 5."""

ACCURACY_SCALE = 103.1668100711649
ACCURACY_DECAY = 0.04354415386753951
ACCURACY_OFFSET = -3.166924740191411
UNCERTAINTY_BONUS = 1.0
"""lila adds 1 to a losing move's accuracy 'due to imperfect analysis': our evaluator is too."""
WEIGHT_RANGE = (0.5, 12.0)
"""lila's clamp on a window's standard deviation, used as its weight."""
WINDOW_RANGE = (2, 8)
"""lila's window size: the number of moves over 10, within this range."""
CHAIN_TOLERANCE = 1e-9
"""How far an order's ``after`` may be from the next order's ``before`` (the same position)."""


class Grade(StrEnum):
    """An order's judgement, as lichess names a move's."""

    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


GRADES = (Grade.BEST, Grade.GOOD, Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER)
"""From best to worst, so a grade's place in the tuple orders it."""


@dataclass(frozen=True)
class Judged:
    """One order of the game with the evaluator's numbers, all red's expected score in [0, 1]."""

    index: int
    seq: int
    side: str
    before: float
    expected: float
    after: float
    best: float
    best_order: str | None = None

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"order {self.index}: side {self.side!r} is not one of {SIDES}")
        for name in ("before", "expected", "after", "best"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:  # also refuses NaN
                raise ValueError(f"order {self.index}: {name} {value!r} is not within [0, 1]")


def mover(value: float, side: str) -> float:
    """Red's expected score seen by ``side``: a blue order is judged by what it gives blue."""
    if side not in SIDES:
        raise ValueError(f"side {side!r} is not one of {SIDES}")
    return value if side == "red" else 1.0 - value


# --- grades -------------------------------------------------------------------------------

def percent(value: float) -> str:
    """Red's expected score (0 to 1) as the whole win-% every face of the review prints."""
    return f"{100 * value:.0f}%"


def loss_points(record: Judged) -> float:
    """The winning chances the order gave away against the best found, in win-% points (>= 0).

    Judged on ``expected``, so a good order that the dice punished is not called a mistake."""
    return max(0.0, 100.0 * (mover(record.best, record.side) - mover(record.expected, record.side)))


def grade_for_loss(loss: float) -> Grade:
    """The grade of a loss in win-% points, by the thresholds in the module docstring."""
    for threshold, worse in ((BLUNDER, Grade.BLUNDER), (MISTAKE, Grade.MISTAKE),
                             (INACCURACY, Grade.INACCURACY)):
        if loss + EDGE >= threshold:
            return worse
    return Grade.BEST if loss < BEST_WITHIN else Grade.GOOD


def grade(record: Judged) -> Grade:
    """The order's grade: its loss of winning chances against the best order found."""
    return grade_for_loss(loss_points(record))


# --- accuracy -----------------------------------------------------------------------------

def accuracy_from_win_percents(before: float, after: float) -> float:
    """lichess's accuracy of a move from the mover's win % (0-100) before and after it.

    An exponential fitted by lichess to "0 lost is 100, 5 is 75, 10 is 60, 40 is 20": small
    losses cost much, and a lost game cannot be lost twice. A move that loses nothing is 100."""
    if after >= before:
        return 100.0
    raw = ACCURACY_SCALE * math.exp(-ACCURACY_DECAY * (before - after)) + ACCURACY_OFFSET
    return min(100.0, max(0.0, raw + UNCERTAINTY_BONUS))


def order_accuracy(record: Judged) -> float:
    """An order's accuracy, on the mover's win % before it and expected after it (dice aside)."""
    before = 100.0 * mover(record.before, record.side)
    after = 100.0 * mover(record.expected, record.side)
    return accuracy_from_win_percents(before, after)


def window_size(orders: int) -> int:
    """lila's volatility window: a tenth of the game's moves, within 2..8."""
    low, high = WINDOW_RANGE
    return min(high, max(low, orders // 10))


def _deviation(values: Sequence[float]) -> float:
    """Population standard deviation, as lila's ``Maths.standardDeviation``."""
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def volatility_weights(win_percents: Sequence[float]) -> list[float]:
    """One weight per move from the win-% series (the start and the position after each move).

    As lila: windows of ``window_size`` positions sliding over the series, with the first window
    repeated so there is one per move (window i ends at the position after move i); a window's
    weight is its standard deviation clamped to 0.5..12, so moves made while the game swung count
    more and a dead position's moves count little."""
    size = window_size(len(win_percents) - 1)
    values = list(win_percents)
    first = values[:size]
    windows = [first] * (min(size, len(values)) - 2)
    if len(values) <= size:
        windows.append(values)  # Scala's sliding gives one short window
    else:
        windows += [values[i:i + size] for i in range(len(values) - size + 1)]
    low, high = WEIGHT_RANGE
    return [min(high, max(low, _deviation(w))) for w in windows]


def _harmonic_mean(values: Sequence[float]) -> float:
    """lila's harmonic mean, each value at least 1 so one 0% move does not make the game 0."""
    return len(values) / sum(1.0 / max(1.0, v) for v in values)


def game_accuracy(records: Sequence[Judged]) -> dict[str, float | None]:
    """Each side's game accuracy as lichess computes it: the mean of its moves' accuracies
    weighted by volatility and their harmonic mean (which a single blunder pulls down).

    Adapted to warlog in two ways, both because a turn here is not one move each: a move's side
    is who gave the order (sides may give several in a row; lila alternates by ply), and the
    win-% series is the real game's (each order's ``before`` and the last ``after``, so the dice
    make it volatile) while each accuracy is judged on ``expected`` (the decision alone). A side
    without orders has None."""
    if not records:
        return {side: None for side in SIDES}
    series = [100.0 * r.before for r in records] + [100.0 * records[-1].after]
    weights = volatility_weights(series)
    result: dict[str, float | None] = {}
    for side in SIDES:
        pairs = [(order_accuracy(r), w) for r, w in zip(records, weights) if r.side == side]
        if not pairs:
            result[side] = None
            continue
        weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
        result[side] = (weighted + _harmonic_mean([a for a, _ in pairs])) / 2
    return result


# --- luck against decisions ----------------------------------------------------------------

@dataclass(frozen=True)
class Split:
    """The game's expected score from ``view``'s side, cut into what the orders did and what
    the dice did: ``start + decisions + dice == result`` (to float precision)."""

    view: str
    start: float
    decisions: float
    decisions_by_side: dict[str, float]
    dice: float
    dice_by_side: dict[str, float]
    result: float


def split(records: Sequence[Judged], view: str = "red") -> Split:
    """Cut the game's course into decisions (expected - before) and dice (after - expected).

    The sum telescopes only if every order's ``after`` is the next order's ``before`` (they are
    the same position); a break there would silently leak into one of the parts, so it raises
    a ValueError naming the order instead. A side's dice are the dice of its own orders."""
    if not records:
        raise ValueError("no orders to split")
    mover(0.0, view)  # refuses an unknown view
    for here, following in zip(records, records[1:]):
        if abs(here.after - following.before) > CHAIN_TOLERANCE:
            raise ValueError(
                f"order {here.index}: its after ({here.after!r}) is not order "
                f"{following.index}'s before ({following.before!r}): not the same position")
    sign = 1.0 if view == "red" else -1.0
    decisions = {side: sign * math.fsum(r.expected - r.before for r in records if r.side == side)
                 for side in SIDES}
    dice = {side: sign * math.fsum(r.after - r.expected for r in records if r.side == side)
            for side in SIDES}
    return Split(
        view=view,
        start=mover(records[0].before, view),
        decisions=math.fsum(decisions.values()),
        decisions_by_side=decisions,
        dice=math.fsum(dice.values()),
        dice_by_side=dice,
        result=mover(records[-1].after, view),
    )


def seen_by(parts: Split, side: str) -> Split:
    """The same split from the other side's view (or unchanged if already ``side``'s)."""
    if parts.view == side:
        return parts
    mover(0.0, side)  # refuses an unknown side
    return Split(
        view=side, start=1.0 - parts.start, result=1.0 - parts.result,
        decisions=-parts.decisions, dice=-parts.dice,
        decisions_by_side={k: -v for k, v in parts.decisions_by_side.items()},
        dice_by_side={k: -v for k, v in parts.dice_by_side.items()},
    )


def _half_up(value: float) -> int:
    """Round half up, not to even (Python's round): 38.5% reads 39% as 37.5% reads 38%."""
    return math.floor(value + 0.5)


def largest_remainder(values: Sequence[float], total: int) -> list[int]:
    """Integers, each the floor or ceiling of its value, that add up to ``total``.

    Each part is floored and the shortfall goes, one each, to the parts with the largest
    remainders (earlier parts first on a tie), so a sentence's rounded numbers add up."""
    floors = [math.floor(v) for v in values]
    shortfall = total - sum(floors)
    if not 0 <= shortfall <= len(values):
        raise ValueError(f"{total} is not a rounding of the sum of {list(values)}")
    by_remainder = sorted(range(len(values)), key=lambda i: (-(values[i] - floors[i]), i))
    for i in by_remainder[:shortfall]:
        floors[i] += 1
    return floors


def headline(parts: Split, side: str, ended: bool = True) -> str:
    """One sentence for ``side``: "blue won from 38%: +21 points from the orders, +41 from the
    dice". Start and result are rounded half up and the two parts share their difference by
    largest remainder, so the sentence itself adds up (38 + 21 + 41 = 100). A game that has
    not ended (``ended`` False, or its result not 1, 0 or 1/2) "stands at" its last expected
    score: an unfinished game at exactly 50% has not drawn."""
    parts = seen_by(parts, side)
    start = _half_up(100.0 * parts.start)
    end = _half_up(100.0 * parts.result)
    orders, dice = largest_remainder([100.0 * parts.decisions, 100.0 * parts.dice], end - start)
    if not ended:
        outcome = f"stands at {end}% from"
    elif abs(parts.result - 1.0) <= CHAIN_TOLERANCE:
        outcome = "won from"
    elif abs(parts.result) <= CHAIN_TOLERANCE:
        outcome = "lost from"
    elif abs(parts.result - 0.5) <= CHAIN_TOLERANCE:
        outcome = "drew from"
    else:
        outcome = f"stands at {end}% from"
    return f"{side} {outcome} {start}%: {orders:+d} points from the orders, {dice:+d} from the dice"


# --- moments and turning points ------------------------------------------------------------

@dataclass(frozen=True)
class Moment:
    """One of the game's largest swings of red's expected score, and what moved it most."""

    index: int
    seq: int
    side: str
    before: float
    after: float
    decision: float
    dice: float

    @property
    def swing(self) -> float:
        """after - before, red's view."""
        return self.after - self.before

    @property
    def cause(self) -> str:
        """"decision" or "dice": whichever part of the swing is larger (a tie is the decision's,
        since the order came first)."""
        return "decision" if abs(self.decision) >= abs(self.dice) else "dice"


def moved_by(moment: dict[str, Any]) -> str:
    """What a stored moment's swing is told as: "the order" or "the dice", by ``Moment.cause``'s
    rule (every face that names a moment's cause says it in these words)."""
    return "the dice" if abs(moment["dice"]) > abs(moment["decision"]) else "the order"


def moments(records: Sequence[Judged], n: int = 5, gap: int = 3) -> list[Moment]:
    """The ``n`` largest swings (after - before), in game order, no two within ``gap`` orders.

    A big swing is often followed by its echo (the counter-attack a lost unit invited); taking
    the largest first and skipping anything within ``gap`` orders of a moment already taken
    keeps them one moment. Orders that moved nothing are never moments."""
    if n < 0 or gap < 0:
        raise ValueError(f"n ({n}) and gap ({gap}) must not be negative")
    ranked = sorted(records, key=lambda r: (-abs(r.after - r.before), r.index))
    taken: list[Judged] = []
    for record in ranked:
        if len(taken) == n or record.after == record.before:
            break
        if all(abs(record.index - other.index) > gap for other in taken):
            taken.append(record)
    return [
        Moment(index=r.index, seq=r.seq, side=r.side, before=r.before, after=r.after,
               decision=r.expected - r.before, dice=r.after - r.expected)
        for r in sorted(taken, key=lambda r: r.index)
    ]


@dataclass(frozen=True)
class TurningPoint:
    """An order after which the side ahead changed; ``value`` is red's expected score then."""

    index: int
    seq: int
    side: str
    ahead_before: str | None
    ahead_after: str
    value: float


def _ahead(value: float, margin: float, current: str | None) -> str | None:
    """Who is ahead, with hysteresis: a side takes the lead only by ``margin`` past 50%, and
    keeps it until the other side does."""
    if value >= 0.5 + margin:
        return "red"
    if value <= 0.5 - margin:
        return "blue"
    return current


def turning_points(records: Sequence[Judged], margin: float = 0.1) -> list[TurningPoint]:
    """The orders after which the side ahead changed (red's expected score crossed 50%).

    Nobody is ahead until a side leads by ``margin``; after that the lead changes only when the
    other side leads by ``margin``, so a game hovering around 50% does not turn every order."""
    if not 0.0 <= margin < 0.5:
        raise ValueError(f"margin {margin!r} is not within [0, 0.5)")
    if not records:
        return []
    ahead = _ahead(records[0].before, margin, None)
    points: list[TurningPoint] = []
    for record in records:
        now = _ahead(record.after, margin, ahead)
        if now is not None and now != ahead:
            points.append(TurningPoint(index=record.index, seq=record.seq, side=record.side,
                                       ahead_before=ahead, ahead_after=now, value=record.after))
        ahead = now
    return points
