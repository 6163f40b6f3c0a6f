"""The battle review (issue 38): every order of a game judged with its dice averaged out, the
dice judged apart, and the sum of both equal to the result.

A game's log is walked once. At each decision a side made (an ``order_given``; a concession is
one too) the position it was made at is kept, and:

* ``expected``: red's expected score after the order (engine/evaluator.py: P(red wins) +
  P(draw)/2 of where it leads), over every way its dice fall (engine/review_expect.py: exact
  where the walk is small enough, else seeded samples, said so);
* ``best``: the same for the best order the search finds there, from the mover's view (the
  played order among the candidates: never worse than it); the grade is the difference;
* ``before``: the evaluator's number of the position the decision was made at;
* ``after``: the next decision's ``before`` (the dice have fallen, and whatever the rules
  resolved by themselves in between), or the result once the game is over (the evaluator's
  number where the log stops short of an end).

Because each ``after`` is the next ``before`` (the same position, the same deterministic
search), start + sum(expected - before) + sum(after - expected) = the result exactly
(engine/review_score.split); the first sum is the decisions' (what each order's choice did
to the position, its dice averaged out), the second the dice's (how far they fell from their
expectation: exactly 0 for an order without dice).

A take-back voids decisions: the review grades the live line only (``decisions`` passes over
what a take-back voided, ``positions`` folds as played, through the take-back), while its
indexes stay those of the whole log, so every reader of a review (its pictures, the
after-action report) points at the same events. The position before the first decision after a
take-back is the one it went back to, which is the ``after`` of the decision before the voided
ones: the sum still telescopes.

The heavy part (the search at every decision) is :func:`judge`, on any subset of the decisions
from the log alone, so it can be spread over workers in any grouping and give the same numbers
(warlog/app/review_job.py); :func:`assemble` puts the parts together. No rule system is named here:
the rules are reached through the engine's ruleset interface and the order vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from warlog.engine import review_score as score
from warlog.engine.evaluator import evaluate
from warlog.engine.fold import LiveLine, replay
from warlog.engine.game import legal_orders
from warlog.engine.narration import order_text
from warlog.engine.review_expect import CANDIDATES, EXACT_CAP, SAMPLES, best_order
from warlog.engine.state import GameState
from warlog.engine.takeback import voided
from warlog.events.orders import parse_order

Event = dict[str, Any]
REVIEW_FORMAT = 1
"""The shape of a stored review (``Review.as_dict``): a reader meeting another refuses it."""
DECISIONS = ("order_given", "side_conceded")
"""The events a side decides: what the review grades."""


@dataclass(frozen=True)
class Budget:
    """How much search each decision gets: the candidate orders weighed (the tactician's best
    distinct ones, with the played one and end-phase on top), the most ways for the dice to
    fall walked exactly, and the seeded rolls drawn beyond that."""

    candidates: int = CANDIDATES
    cap: int = EXACT_CAP
    samples: int = SAMPLES

    @classmethod
    def of(cls, n: int | None) -> Budget:
        """``--budget N``: N candidate orders at each decision (the rest as default)."""
        if n is None:
            return cls()
        if not 1 <= n <= 64:
            raise ValueError(f"--budget is the candidate orders weighed at each decision, "
                             f"1 to 64, not {n}")
        return cls(candidates=n)


@dataclass(frozen=True)
class Decision:
    """Where a decision was made: its place in the log and the position before it."""

    index: int  # the decision's number in the game (0-based)
    at: int  # its event's index in the log
    seq: int
    kind: str  # "order_given" or "side_conceded"
    side: str
    turn: int
    phase: str | None


@dataclass(frozen=True)
class Judgement:
    """The search's verdict on one decision (red's expected scores): what the played order was
    worth over its dice, the best order found and its worth, and how each was computed."""

    index: int
    expected: float
    best: float
    best_order: dict[str, Any] | None
    how: str


@dataclass(frozen=True)
class OrderReview:
    """One graded decision, as the review shows and stores it."""

    index: int
    seq: int
    turn: int
    phase: str | None
    side: str
    text: str  # the order in words
    before: float
    expected: float
    after: float
    best: float
    best_text: str | None  # the better order in words (None: the played one was the best found)
    best_order: dict[str, Any] | None
    loss: float  # win-% points given away against the best found
    grade: str
    accuracy: float
    how: str


@dataclass(frozen=True)
class Review:
    """A game's review: its graded decisions, the split of its result into decisions and dice,
    each side's accuracy, the moments that mattered and where the lead changed hands."""

    game: str
    evaluator: str
    upto: int  # the last event seq reviewed
    ended: bool
    winner: str | None
    orders: list[OrderReview]
    split: dict[str, Any]
    accuracy: dict[str, float | None]
    moments: list[dict[str, Any]]
    turning_points: list[dict[str, Any]]
    headline: dict[str, str] = field(default_factory=dict)  # side -> its sentence

    def as_dict(self) -> dict[str, Any]:
        return {"format": REVIEW_FORMAT, **asdict(self)}


def decisions(events: Sequence[Event]) -> list[Decision]:
    """Every decision of the live line, in order (an order a take-back voided was never
    decided); ``at`` indexes the whole log."""
    out: list[Decision] = []
    gone = voided(events)
    for at, e in enumerate(events):
        if e.get("kind") in DECISIONS and e.get("seq") not in gone:
            out.append(Decision(len(out), at, e["seq"], e["kind"], e["side"], e.get("turn", 0),
                                e.get("phase")))
    return out


def positions(events: Sequence[Event], wanted: Sequence[Decision]) -> list[GameState]:
    """The position before each wanted decision (copies), folding the log once as played (a
    LiveLine: through a take-back to the position it goes back to)."""
    out: list[GameState] = []
    if not wanted:
        return out
    todo = iter(sorted(wanted, key=lambda d: d.at))
    nxt = next(todo)
    line = LiveLine(check=False)
    for at, e in enumerate(events):
        while nxt is not None and nxt.at == at:
            out.append(line.state.copy())
            nxt = next(todo, None)
        if nxt is None:
            break
        line.push(e)
    return out


def value(state: GameState) -> float:
    """Red's expected score of a position: what every number of a review is."""
    return evaluate(state).score


def judge(events: Sequence[Event], indices: Sequence[int], budget: Budget = Budget(),
          seed: int = 0) -> list[Judgement]:
    """The search's verdict on the decisions numbered ``indices``, from the log alone (a worker
    needs nothing else; any grouping of the decisions gives the same verdicts)."""
    every = decisions(events)
    wanted = [every[i] for i in indices]
    return [judge_at(events[d.at], d, state, budget, seed)
            for d, state in zip(wanted, positions(events, wanted))]


def judge_at(event: Event, decision: Decision, state: GameState, budget: Budget = Budget(),
             seed: int = 0) -> Judgement:
    """The search's verdict on one decision, made at ``state`` (not changed)."""
    if decision.kind == "side_conceded":  # the alternative was to play on
        on = _playing_on(state, budget, seed)
        result = 0.0 if decision.side == "red" else 1.0
        best = max(on, result) if decision.side == "red" else min(on, result)
        return Judgement(decision.index, result, best, None, "the battle given up: its result")
    played = parse_order(event["order"])
    best, best_exp, mine = best_order(state, played, value, limit=budget.candidates,
                                      cap=budget.cap, samples=budget.samples, seed=seed)
    better = None if best == played else best.model_dump(mode="json")
    return Judgement(decision.index, mine.mean, best_exp.mean, better, mine.how)


def assemble(game: str, events: Sequence[Event], judgements: Sequence[Judgement],
             version: str) -> Review:
    """The review from the verdicts on every decision (in any order)."""
    every = decisions(events)
    by_index = {j.index: j for j in judgements}
    missing = [d.index for d in every if d.index not in by_index]
    if missing:
        raise ValueError(f"no verdict on decision {missing[0]} of {len(every)}")
    # A position's worth is the evaluator's number of it, not its best order's (one ply):
    # then an order without dice leads exactly where its worth says (its dice's part is 0),
    # where the one-ply worth credited the dice with the search's own optimism (the best of
    # several options at each position), and a 115-decision game "won by +137 points of dice".
    before = [value(s) for s in positions(events, every)]
    final = replay(events, check=False)
    end = value(final)
    records, reviews = [], []
    for d in every:
        j = by_index[d.index]
        after = before[d.index + 1] if d.index + 1 < len(every) else end
        record = score.Judged(index=d.index, seq=d.seq, side=d.side, before=before[d.index],
                              expected=j.expected, after=after, best=j.best,
                              best_order=None if j.best_order is None else str(j.best_order))
        records.append(record)
        reviews.append(OrderReview(
            index=d.index, seq=d.seq, turn=d.turn, phase=d.phase, side=d.side,
            text=_text(events[d.at]), before=record.before, expected=record.expected,
            after=after, best=j.best,
            best_text=None if j.best_order is None else order_text(j.best_order, d.side, d.phase),
            best_order=j.best_order, loss=score.loss_points(record),
            grade=str(score.grade(record)), accuracy=score.order_accuracy(record), how=j.how))
    parts = score.split(records) if records else None
    split = {} if parts is None else asdict(parts)
    return Review(
        game=game, evaluator=version, upto=events[-1]["seq"] if events else 0,
        ended=final.ended, winner=final.winner, orders=reviews, split=split,
        accuracy=score.game_accuracy(records) if records else {"red": None, "blue": None},
        moments=[asdict(m) for m in score.moments(records)],
        turning_points=[asdict(t) for t in score.turning_points(records)],
        headline={} if parts is None else {side: score.headline(parts, side, final.ended)
                                           for side in score.SIDES})


def _playing_on(state: GameState, budget: Budget, seed: int) -> float:
    """What the position was worth to play on from: its best order's worth (as every other
    position's), or the evaluator's number where no order is legal."""
    legal = legal_orders(state)
    if not legal:
        return value(state)
    _, best, _ = best_order(state, legal[0], value, limit=budget.candidates, cap=budget.cap,
                            samples=budget.samples, seed=seed)
    return best.mean


def _text(event: Event) -> str:
    if event["kind"] == "side_conceded":
        return f"{event['side']} concedes the battle"
    return order_text(event["order"], event.get("side"), event.get("phase"))


def readable(data: Any) -> bool:
    """Whether ``data`` (a stored review, read back from a database that anyone may have
    edited) has the shape of ``Review.as_dict()`` in this format: every field of the right
    type, every moment and turning point about a decision it holds. A review that is not is
    reviewed again rather than shown (it would otherwise break the printing half way)."""
    from pydantic import TypeAdapter, ValidationError

    if not isinstance(data, dict) or data.get("format") != REVIEW_FORMAT:
        return False
    body = {k: v for k, v in data.items() if k != "format"}
    try:
        parsed = TypeAdapter(Review).validate_python(body)
        TypeAdapter(list[score.Moment]).validate_python(parsed.moments)
        TypeAdapter(list[score.TurningPoint]).validate_python(parsed.turning_points)
    except (ValidationError, TypeError):
        return False
    n = len(parsed.orders)
    return (all(o.index == i and o.side in score.SIDES and o.grade in score.GRADES
                for i, o in enumerate(parsed.orders))
            and all(0 <= m["index"] < n for m in parsed.moments)
            and (set(parsed.headline) == set(score.SIDES) if n else not parsed.headline))
