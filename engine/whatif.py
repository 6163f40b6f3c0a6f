"""What-if: from a step of a game, play the rest out with fresh dice, and sum up many playouts.

Pure: no Dask, no I/O, no clock. A playout is a function of the game's events, the step and a
seed, so the same seed gives the same playout on any machine, in any process (warlog/app/whatif_job.py
runs many of them through warlog.app.jobs).

- The step is snapped back to a point where the game waits for an order (a prefix cut inside the
  consequences of an order is not a position anyone could play from).
- Fresh dice: SeededDice from the playout's seed, whatever the game's own dice were (a tabletop
  game with manual dice plays on too).
- Bots choose with ``SplitMix64(mix(seed, state.seq))``, so playouts differ from one another and
  from the recorded game, and each is repeatable.
- "recorded" mode replays the game's later orders while each stays legal: the same turn, phase
  and side as when it was given, and accepted by the rules; from the first that is not, bots play.
  Only the live line's orders: an order a take-back voided was never given (``fold.live``). A
  step inside a voided stretch starts from the position as it stood then (``replay`` of the
  prefix folds its live line, which the later take-back is not part of).
- Attrition is strength lost from the step to the end, in the system's own measure
  (``Ruleset.strength``: hits a unit can take, or strength points).

`estimate` sums playouts up: P(red wins), P(blue wins), P(draw) with Wilson 95% intervals, and
the mean strength lost per side with a normal 95% interval (see docs/whatif.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from warlog.engine.bots import MAX_ORDERS, POLICIES, get_policy
from warlog.engine.dice import SeededDice, SplitMix64
from warlog.engine.fold import TAKEBACK, evolve, live, replay
from warlog.engine.game import decide
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import SIDES, GameState
from warlog.events.orders import parse_order

Event = dict[str, Any]

MODES = ("bots", "recorded")
DEFAULT_POLICY = "tactician"  # for a side the game's own record gives no bot for (the best heuristic)
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: two-sided 95%
# Events before which the game waits for an order (what a step may be snapped to).
_WAITING_BEFORE = ("order_given", "order_retracted", "note", "seats_changed", "side_conceded",
                   TAKEBACK)
"""The inputs a game waits for: the point before each is a point it waits at."""
_MASK = (1 << 64) - 1
_DICE_STREAM = _MASK  # a key no seq can take: the dice's seed never equals a bot's


class WhatIfError(ValueError):
    """A what-if that cannot be run as asked (an unknown mode or policy, a step out of range)."""


def mix(seed: int, key: int) -> int:
    """A 64-bit seed from two numbers, well mixed both ways (two SplitMix64 steps)."""
    return SplitMix64((seed ^ SplitMix64(key & _MASK).next64()) & _MASK).next64()


@dataclass(frozen=True)
class PlayoutResult:
    """How one playout ended. ``lost``: strength lost per side from the step to the end;
    ``exhausted``: side -> turn it became exhausted, where the system has the rule."""

    winner: str | None
    end_reason: str | None
    end_turn: int
    orders: int
    recorded: int  # how many of those orders came from the log (mode "recorded")
    lost: dict[str, int]
    exhausted: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Share:
    """A proportion with its Wilson 95% interval."""

    p: float
    low: float
    high: float


@dataclass(frozen=True)
class Mean:
    """A mean with its normal 95% interval (mean +- 1.96 standard errors)."""

    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class WinEstimate:
    n: int
    red: Share
    blue: Share
    draw: Share
    lost: dict[str, Mean]
    exhausted: dict[str, Share]
    mean_end_turn: float

    def as_dict(self) -> dict[str, Any]:
        def share(s: Share) -> dict[str, float]:
            return {"p": s.p, "low": s.low, "high": s.high}

        return {"n": self.n, "red": share(self.red), "blue": share(self.blue),
                "draw": share(self.draw),
                "lost": {k: {"mean": m.mean, "low": m.low, "high": m.high}
                         for k, m in self.lost.items()},
                "exhausted": {k: share(s) for k, s in self.exhausted.items()},
                "mean_end_turn": self.mean_end_turn}


# -- where a playout starts --------------------------------------------------------------------


def waiting_points(events: Sequence[Event]) -> list[int]:
    """The seqs after which the game waits for an order (or is over): the steps a what-if can
    start from, in order."""
    out = []
    for i in range(1, len(events) + 1):
        if i == len(events) or events[i].get("kind") in _WAITING_BEFORE:
            if i > 1 or len(events) == 1:
                out.append(events[i - 1]["seq"])
    return out


def snap(events: Sequence[Event], seq: int) -> int:
    """The last waiting point at or before ``seq`` (the first one if ``seq`` is before it)."""
    if not events:
        raise WhatIfError("the game has no events")
    last = events[-1]["seq"]
    if not 1 <= seq <= last:
        raise WhatIfError(f"step {seq} is not in the game: its events are numbered 1 to {last}")
    points = waiting_points(events)
    before = [p for p in points if p <= seq]
    return before[-1] if before else points[0]


def prefix(events: Sequence[Event], seq: int) -> list[Event]:
    return [e for e in events if e["seq"] <= seq]


def recorded_orders(events: Sequence[Event], seq: int) -> list[Event]:
    """The live line's order_given events after ``seq`` (withdrawn orders are not orders, and
    neither are orders a take-back voided)."""
    return [e for e in live(events) if e["seq"] > seq and e["kind"] == "order_given"]


def default_policies(state: GameState, red: str | None = None,
                     blue: str | None = None) -> dict[str, str]:
    """The policy for each side: as asked, else the game's own bot, else DEFAULT_POLICY."""
    asked = {"red": red, "blue": blue}
    out = {}
    for side in SIDES:
        name = asked[side] or (state.players.get(side) if state.players.get(side) in POLICIES
                               else DEFAULT_POLICY)
        if name not in POLICIES:
            raise WhatIfError(f"unknown policy {name!r} for {side}; choose one of "
                              f"{', '.join(POLICIES)}")
        out[side] = name
    return out


# -- one playout -----------------------------------------------------------------------------


def _strength_lost(state: GameState) -> dict[str, int]:
    ruleset = get_ruleset(state.rule_system)
    lost = dict.fromkeys(SIDES, 0)
    for u in state.units.values():
        lost[u.side] += ruleset.strength(state, u)[1]
    return lost


def _recorded_fits(state: GameState, logged: Event) -> Any | None:
    """The logged order if it can be given now (same turn, phase and side, accepted by the
    rules), else None."""
    if (logged.get("turn"), logged.get("phase"), logged.get("side")) != \
            (state.turn, state.phase, state.to_act):
        return None
    order = parse_order(logged["order"])
    try:
        get_ruleset(state.rule_system).check(state, order)
    except IllegalOrder:
        return None
    return order


def playout_from(state: GameState, *, seed: int, mode: str = "bots",
                 policies: Mapping[str, str], recorded: Sequence[Event] = ()) -> PlayoutResult:
    """Play ``state`` (which is changed: pass a copy) to the end. See `playout`."""
    if mode not in MODES:
        raise WhatIfError(f"unknown mode {mode!r}: use bots or recorded")
    start = _strength_lost(state)
    players = {side: get_policy(policies[side]) for side in SIDES}
    dice = SeededDice(mix(seed, _DICE_STREAM))
    queue = list(recorded) if mode == "recorded" else []
    given = from_log = 0
    while not state.ended:
        if given >= MAX_ORDERS:
            raise RuntimeError(f"no result after {MAX_ORDERS} orders (a policy loops)")
        side = state.to_act
        order = _recorded_fits(state, queue[0]) if queue else None
        if order is not None:
            by = queue.pop(0).get("by")
            from_log += 1
        else:
            queue = []  # the log no longer applies: bots from here on
            order = players[side].choose(state, SplitMix64(mix(seed, state.seq)))
            by = policies[side]
        for event in decide(state, order, dice, by=by):
            evolve(state, event, check=False)
        given += 1
    end = _strength_lost(state)
    return PlayoutResult(winner=state.winner, end_reason=state.end_reason, end_turn=state.turn,
                         orders=given, recorded=from_log,
                         lost={s: end[s] - start[s] for s in SIDES},
                         exhausted=dict(sorted(state.exhausted.items())))


def playout(events_prefix: Sequence[Event], *, seed: int, mode: str = "bots",
            policies: Mapping[str, str] | None = None,
            recorded_orders: Sequence[Event] = ()) -> PlayoutResult:
    """Play the game whose log so far is ``events_prefix`` to its end: fresh dice from
    ``seed``, bots for both sides (``policies``: side -> policy name; default: the game's own
    bots, else DEFAULT_POLICY), or in mode "recorded" the ``recorded_orders`` (the log's later
    order_given events) while each stays legal. A finished game returns its own result."""
    state = replay(events_prefix, check=False)
    asked = policies or {}
    chosen = default_policies(state, asked.get("red"), asked.get("blue"))
    return playout_from(state, seed=seed, mode=mode, policies=chosen, recorded=recorded_orders)


# -- summing up ------------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = Z95) -> Share:
    """k successes in n trials: the share and its Wilson score interval (good near 0 and 1,
    where the normal interval runs outside [0, 1])."""
    if n <= 0:
        return Share(0.0, 0.0, 1.0)
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact at the ends, not 0.99999...
    high = 1.0 if k == n else min(1.0, centre + half)
    return Share(p, low, high)


def mean_interval(values: Sequence[float], z: float = Z95) -> Mean:
    """The mean and mean +- z standard errors (sample standard deviation, n - 1)."""
    n = len(values)
    if n == 0:
        return Mean(0.0, 0.0, 0.0)
    m = sum(values) / n
    if n == 1:
        return Mean(m, m, m)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return Mean(m, m - half, m + half)


def estimate(results: Sequence[PlayoutResult]) -> WinEstimate:
    n = len(results)
    wins = {side: sum(r.winner == side for r in results) for side in SIDES}
    return WinEstimate(
        n=n, red=wilson(wins["red"], n), blue=wilson(wins["blue"], n),
        draw=wilson(n - wins["red"] - wins["blue"], n),
        lost={side: mean_interval([r.lost[side] for r in results]) for side in SIDES},
        exhausted={side: wilson(sum(side in r.exhausted for r in results), n) for side in SIDES},
        mean_end_turn=sum(r.end_turn for r in results) / n if n else 0.0,
    )
