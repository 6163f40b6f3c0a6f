"""An order's worth with its dice averaged out, and the best order found beside it (issue 38).

The battle review grades each order by what it was worth before its dice fell: red's expected
score (any ``value`` function of a position that waits for an order; an ended game's value is
its result) averaged over every way the order's dice can fall. So the order is judged, not its
luck, and the dice's part is what remains between that average and what really happened.

- Exact where the rules' odds allow: the order is resolved, to the next point the game waits at,
  on engine/odds.py's walk (every face, faces that decide alike walked once, exact fractions),
  by the very functions game.decide calls. Nothing here re-implements a rule.
- Else by sampling, and said so: SAMPLES seeded dice streams, the k-th seeded from the
  position and k only, never from the order, so every candidate at a position meets the same
  dice in its k-th sample (common random numbers: comparing two orders measures the orders,
  not which of them drew the better luck).

EXACT_CAP and SAMPLES are measured, not guessed. Value: red's share of the strength left; the
candidates at every 9th waiting point of two tactician games each of portable-the-axona,
ancients-river-crossing, density-granicus, napoleonic-aspern, frontier-ulundi and
machine-age-hill-sixty (734 orders); one core of a 2-core machine:
- the largest walk was 80 leaves (a Napoleonic melee), every other one 64 or fewer; the only orders
  no walk finishes roll more than odds.MAX_DICE dice (an initiative roll whose ties are rolled
  again, at an end of phase), and they are sampled whatever the cap;
- a leaf costs 0.10-0.22 ms (resolution and value), 32 samples 2-8 ms an order; a walk at
  EXACT_CAP = 256 would cost some 25-60 ms, about eight times sampling: a cap far above every
  walk seen, so exact is the rule and sampling the exception, yet bounded;
- sampling 347 of those attacks that walk exactly (cap 0): with 32 samples the standard error
  averaged 0.02-0.24 points by system (at most 0.57) and the sampled mean was at most 0.51
  points from the exact one (1.9 with 16 samples, 0.36 with 64). For a win probability whose
  outcomes spread some 10 points, 32 samples leave about 1.8 points of standard error, well
  inside the review's 5-point step between grades, and common random numbers shrink the error
  of a comparison further;
- best_order took 1-4 ms a position on average, 31 ms at most, with this value.
The cost of a review is otherwise how often it calls ``value``: once a leaf or a sample.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from warlog.engine import odds
from warlog.engine.bots import bot_rng
from warlog.engine.dice import SeededDice
from warlog.engine.flow import Context, advance
from warlog.engine.game import successor
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.search_bot import _outcome_key
from warlog.engine.state import GameState
from warlog.engine.tactician import Tactician
from warlog.engine.whatif import mix
from warlog.events import model
from warlog.events.orders import EndPhaseOrder, Order

Value = Callable[[GameState], float]

EXACT_CAP = 256
"""Most leaves an exact walk may have before the order is sampled instead (see measurements)."""
SAMPLES = 32
"""Dice streams drawn for an order whose dice are too many to walk."""
CANDIDATES = 6
"""The tactician's distinct best orders weighed at a position (the played one and end-phase
come on top)."""
TIE = 1e-9
"""Values closer than this are equal: float sums of the same leaves in another order differ in
the last bits, and an order must not beat the played one by rounding."""
_SAMPLE_STREAM = 0x5EED_0F_D1CE
"""Keeps sample seeds apart from any other stream mixed from the same (seed, seq)."""


@dataclass(frozen=True)
class Expectation:
    """Red's expected score after an order, over its dice. ``outcomes``: leaves walked (exact;
    faces that decide alike are walked once, so 9 leaves may stand for 256 falls) or samples
    drawn; ``error``: 0.0 when exact, else the standard error of the mean; ``how``:
    that in words, for the review."""

    mean: float
    exact: bool
    outcomes: int
    error: float
    how: str


def _play(ctx: Context, order: Order) -> None:
    """What game._resolve does on a Context it is given (odds.leaves makes the Context, with
    its branching dice): the order_given event, the rules' apply, and the flow forward to the
    next point the game waits at. The check is done once, before the walk."""
    ruleset = get_ruleset(ctx.state.rule_system)
    given = ctx.emit(model.OrderGiven, order=order, by=None, rules=(), side=ctx.state.to_act)
    ctx.cause = given["seq"]
    if isinstance(order, EndPhaseOrder) or ruleset.apply(ctx, order):
        advance(ctx, ruleset)


def _exact(state: GameState, order: Order, value: Value, cap: int) -> Expectation:
    found = odds.leaves(state, lambda ctx: _play(ctx, order), cap=cap, grouped=True)
    mean = math.fsum(float(leaf.probability) * value(leaf.state) for leaf in found)
    if len(found) == 1 and not found[0].faces:
        how = "exact: no dice"
    else:
        how = f"exact over {len(found)} ways the dice fall"
    return Expectation(mean, True, len(found), 0.0, how)


def sample_seed(state: GameState, k: int, seed: int = 0) -> int:
    """The dice stream of the k-th sample at this position: from (seed, position, k) only,
    never the order, so every order weighed here meets the same dice in its k-th sample."""
    return mix(mix(mix(seed, _SAMPLE_STREAM), state.seq), k)


def _sampled(state: GameState, order: Order, value: Value, samples: int,
             seed: int) -> Expectation:
    values = [value(successor(state, order, SeededDice(sample_seed(state, k, seed))))
              for k in range(samples)]
    n = len(values)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    error = sd / math.sqrt(n)
    return Expectation(mean, False, n, error,
                       f"sampled: {n} rolls, +-{100 * error:.1f} points")


def expected_after(state: GameState, order: Order, value: Value, *, cap: int = EXACT_CAP,
                   samples: int = SAMPLES, seed: int = 0) -> Expectation:
    """Red's expected score after ``order`` at ``state``, over its dice: exact over every way
    they fall (at most ``cap`` leaves), else the mean of ``samples`` seeded rolls. IllegalOrder
    if the rules refuse the order here (the walk would otherwise report it as an odds error)."""
    if samples < 1:
        raise ValueError("samples: at least one sample is needed to sample an order")
    get_ruleset(state.rule_system).check(state, order)
    try:
        return _exact(state, order, value, cap)
    except odds.OddsError:
        return _sampled(state, order, value, samples, seed)


def _legal(state: GameState, order: Order) -> bool:
    try:
        get_ruleset(state.rule_system).check(state, order)
    except IllegalOrder:
        return False
    return True


def candidates(state: GameState, played: Order, limit: int = CANDIDATES) -> list[Order]:
    """The orders worth weighing at ``state``: the tactician's best ``limit`` distinct ones
    (distinct in what they do: where they leave their unit or whom they strike, for any unit
    of the side, the best-ranked facing standing for the rest), then the played order and
    end-phase where they are not among them already (end-phase only if legal). Deterministic:
    the tactician's ties are broken by ``bot_rng(state)``."""
    ranked = Tactician().ranked(state, bot_rng(state))
    out: list[Order] = []
    seen: set = set()
    for _, order in ranked:
        if len(out) >= limit:
            break
        key = (getattr(order, "unit", None), _outcome_key(state, order))
        if key in seen or order in out:
            continue
        seen.add(key)
        out.append(order)
    if played not in out:
        out.append(played)
    end = EndPhaseOrder()
    if end not in out and _legal(state, end):
        out.append(end)
    return out


def best_order(state: GameState, played: Order, value: Value, *, limit: int = CANDIDATES,
               cap: int = EXACT_CAP, samples: int = SAMPLES,
               seed: int = 0) -> tuple[Order, Expectation, Expectation]:
    """(the best order found, its expectation, the played order's expectation). Best from the
    mover's view: red maximises red's expected score, blue minimises it. The played order keeps
    the title unless another is strictly better (by more than TIE); among the others, ties go
    to the earlier candidate (the tactician's ranking)."""
    sign = 1.0 if state.to_act == "red" else -1.0
    mine = expected_after(state, played, value, cap=cap, samples=samples, seed=seed)
    best, best_exp = played, mine
    for order in candidates(state, played, limit):
        if order == played:
            continue
        exp = expected_after(state, order, value, cap=cap, samples=samples, seed=seed)
        if sign * (exp.mean - best_exp.mean) > TIE:
            best, best_exp = order, exp
    return best, best_exp, mine
