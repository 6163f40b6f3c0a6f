"""The after-action report (issue 38): a reviewed battle told in the army's four questions.

* **What was planned**: each side's plan notes (``warlog note GAME 1 TEXT --plan SIDE``, or the
  Play page before the side's first order), as written, or that it wrote none;
* **what happened**: the battle in chapters (deployment and approach, first contact, each
  turning point, each army's exhaustion, the end), each with its turns, its decisions, how
  red's expected score moved through it and the moments that mattered in it;
* **why**: the split of the result into the orders' part and the dice's part (the review's
  headline, which adds up), which of the two moved the battle more, and the costliest orders
  of the battle with the better order found at each;
* **what to keep and what to change**, for each side, from its grades: the decisions that
  gained it most, and the ones that cost it most with what would have served better.

Built from a review (``Review.as_dict()``, fresh or stored) and its game's log, never searching
again: a second reading costs a fold of the log. Chapters begin at decisions, so each
chapter's numbers are the review's own and the chapters' changes add up to the whole game's:
a break that happens inside a decision's resolution (the first strike, an army's exhaustion)
starts its chapter at the decision that led to it. No rule system is named here: first contact
is the first strike at the enemy (engine/analysis.STRIKES), exhaustion is what
engine/analysis.exhaustion reads from each system's own rule, or its yardstick where the system
has none.

The text is plain (the game's names as written): each face (Markdown, HTML, the dashboard)
escapes it as it escapes everything else from a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from warlog.engine import analysis
from warlog.engine.fold import live
from warlog.engine.review_score import GRADES, SIDES, moved_by, mover, percent

Event = dict[str, Any]
LESSONS = 3  # decisions named per side under "keep" and "change", and under "why"
FLAWED = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Plan:
    """A side's plan note, as written."""

    side: str
    seq: int
    about: int
    text: str
    author: str | None


@dataclass(frozen=True)
class Chapter:
    """A stretch of the battle between two breaks, from decision ``first`` to ``last`` (the
    review's indexes; both None for the end, which is a moment rather than a stretch)."""

    kind: str  # "deployment", "contact", "turning point", "exhaustion" or "end"
    title: str
    seq: int  # the event it begins at
    turn: int
    last_turn: int
    first: int | None
    last: int | None
    start: float  # red's expected score as it begins
    end: float  # ... and as it ends
    moments: tuple[int, ...] = ()  # the review's moments in it (decision indexes)


@dataclass(frozen=True)
class Lesson:
    """One decision named in the report, from its side's view."""

    index: int
    seq: int
    turn: int
    side: str
    text: str
    grade: str
    gain: float  # win-% points its order moved its side's expected score (dice averaged out)
    loss: float  # win-% points it gave away against the best order found
    best_text: str | None


@dataclass(frozen=True)
class AfterAction:
    game: str
    plans: dict[str, list[Plan]]
    chapters: list[Chapter]
    headline: dict[str, str]
    swayed_by: str  # "the orders", "the dice" or "" (no decision)
    orders_points: float  # red's view, win-% points
    dice_points: float
    costliest: list[Lesson]
    keep: dict[str, list[Lesson]]
    change: dict[str, list[Lesson]]
    grades: dict[str, dict[str, int]] = field(default_factory=dict)
    accuracy: dict[str, float | None] = field(default_factory=dict)
    ended: bool = False
    winner: str | None = None


def plans(events: Sequence[Event]) -> dict[str, list[Plan]]:
    """Each side's plan notes, in the order written."""
    out: dict[str, list[Plan]] = {side: [] for side in SIDES}
    for e in events:
        if e.get("kind") == "note" and e.get("plan") is True and e.get("side") in out:
            out[e["side"]].append(Plan(e["side"], e["seq"], e["about"], e["text"],
                                       e.get("author")))
    return out


def _decision_at(orders: Sequence[dict[str, Any]], seq: int) -> int:
    """The decision whose resolution holds event ``seq``: the last one at or before it (the
    first decision for anything before any)."""
    found = 0
    for o in orders:
        if o["seq"] > seq:
            break
        found = o["index"]
    return found


def _breaks(review: dict[str, Any], events: Sequence[Event]) -> list[tuple[int, str, str]]:
    """(decision index, kind, title) of every break of the battle, in game order."""
    orders = review["orders"]
    out: list[tuple[int, str, str]] = [(0, "deployment", "Deployment and approach")]
    contact = analysis.first_contact(events)
    if contact is not None:
        out.append((_decision_at(orders, events[contact]["seq"]), "contact", "First contact"))
    for t in review["turning_points"]:
        out.append((t["index"], "turning point", f"{t['ahead_after'].capitalize()} takes the lead"))
    for seq, side, title in _exhaustion(events):
        out.append((_decision_at(orders, seq), "exhaustion", title))
    return sorted(out, key=lambda b: b[0])  # stable: a tie keeps the order above


def _exhaustion(events: Sequence[Event]) -> list[tuple[int, str, str]]:
    """(seq, side, title) where each side's army was exhausted: its rule's event where the
    system has the rule, else the first event after the turn it passed the yardstick."""
    if not events or events[0].get("kind") != "game_started":
        return []
    events = live(events)  # an army exhausted in a stretch taken back never was
    rows = analysis.exhaustion(events)
    out = []
    for side, turn in sorted(analysis.exhausted_turns(rows).items(), key=lambda kv: kv[1]):
        basis = next(r["basis"] for r in rows if r["side"] == side and r["turn"] == turn)
        if basis == "rule":
            seq = next((e["seq"] for e in events if e.get("kind") == "army_exhausted"
                        and e.get("side") == side), None)
            title = f"{side.capitalize()}'s army exhausted"
        else:
            seq = next((e["seq"] for e in events if e.get("kind") not in analysis.TABLE_TALK
                        and e.get("turn", 0) > turn), None)
            title = f"{side.capitalize()} past a third of its strength lost"
        if seq is not None:
            out.append((seq, side, title))
    return out


def chapters(review: dict[str, Any], events: Sequence[Event]) -> list[Chapter]:
    """The battle in chapters: a stretch from each break to the next (breaks falling on the
    same decision share one chapter, their titles joined), then the end."""
    orders = review["orders"]
    if not orders:
        return []
    merged: list[tuple[int, list[str], list[str]]] = []
    for index, kind, title in _breaks(review, events):
        if merged and merged[-1][0] == index:
            merged[-1][1].append(kind)
            merged[-1][2].append(title)
        else:
            merged.append((index, [kind], [title]))
    if "contact" in merged[0][1]:  # the first decision already struck: no approach to tell
        del merged[0][1][0], merged[0][2][0]
    moments = [m["index"] for m in review["moments"]]
    out = []
    for n, (first, kinds, titles) in enumerate(merged):
        last = merged[n + 1][0] - 1 if n + 1 < len(merged) else len(orders) - 1
        if last < first:
            continue
        out.append(Chapter(
            kind=kinds[0], title="; ".join(titles), seq=orders[first]["seq"],
            turn=orders[first]["turn"], last_turn=orders[last]["turn"], first=first, last=last,
            start=orders[first]["before"], end=orders[last]["after"],
            moments=tuple(i for i in moments if first <= i <= last)))
    out.append(_end(review, events, orders))
    return out


def _end(review: dict[str, Any], events: Sequence[Event], orders: Sequence[dict[str, Any]]
         ) -> Chapter:
    result = orders[-1]["after"]
    if review["ended"]:
        title = ("A draw" if review["winner"] is None
                 else f"The end: {review['winner']} wins")
    else:
        title = "Where the log stops (the battle is not over)"
    seq = review["upto"]
    turn = next((e.get("turn", 0) for e in reversed(events)
                 if e.get("kind") not in analysis.TABLE_TALK), orders[-1]["turn"])
    return Chapter(kind="end", title=title, seq=seq, turn=turn, last_turn=turn, first=None,
                   last=None, start=result, end=result)


def _lesson(o: dict[str, Any]) -> Lesson:
    side = o["side"]
    gain = 100.0 * (mover(o["expected"], side) - mover(o["before"], side))
    return Lesson(index=o["index"], seq=o["seq"], turn=o["turn"], side=side, text=o["text"],
                  grade=o["grade"], gain=gain, loss=o["loss"],
                  best_text=o["best_text"] if o["grade"] in FLAWED else None)


def after_action(review: dict[str, Any], events: Sequence[Event]) -> AfterAction:
    """The report of ``review`` (``Review.as_dict()``) on the game ``events`` (the log it was
    made from, or a longer one: only what the review covers is told)."""
    events = [e for e in events if e.get("seq", 0) <= review["upto"]] or list(events)
    orders = review["orders"]
    split = review["split"] or {}
    orders_points = 100.0 * split.get("decisions", 0.0)
    dice_points = 100.0 * split.get("dice", 0.0)
    if not orders:
        swayed = ""
    else:
        swayed = "the orders" if abs(orders_points) >= abs(dice_points) else "the dice"
    lessons = [_lesson(o) for o in orders]
    flawed = [x for x in lessons if x.grade in FLAWED]
    costliest = sorted(flawed, key=lambda x: (-x.loss, x.index))[:LESSONS]
    keep, change = {}, {}
    for side in SIDES:
        mine = [x for x in lessons if x.side == side]
        keep[side] = sorted((x for x in mine if x.grade in ("best", "good") and x.gain > 0),
                            key=lambda x: (-x.gain, x.index))[:LESSONS]
        change[side] = sorted((x for x in mine if x.grade in FLAWED),
                              key=lambda x: (-x.loss, x.index))[:LESSONS]
    grades = {side: {g: sum(o["side"] == side and o["grade"] == g for o in orders)
                     for g in GRADES} for side in SIDES}
    return AfterAction(
        game=review["game"], plans=plans(events), chapters=chapters(review, events),
        headline=dict(review["headline"]), swayed_by=swayed, orders_points=orders_points,
        dice_points=dice_points, costliest=sorted(costliest, key=lambda x: x.index),
        keep=keep, change=change, grades=grades, accuracy=dict(review["accuracy"]),
        ended=review["ended"], winner=review["winner"])


# --- the report in words (plain text: each face escapes it) ---------------------------------

@dataclass(frozen=True)
class Item:
    """A line of the report; ``under`` are the lines that belong to it (a chapter's moments),
    ``decision`` the review's decision it names, if it is a moment (a face may put the
    moment's picture or link under it)."""

    text: str
    under: tuple[Item, ...] = ()
    decision: int | None = None


@dataclass(frozen=True)
class Section:
    """One of the four questions: its heading, a line saying what it holds, and its lines."""

    heading: str
    intro: str
    items: tuple[Item, ...]


QUESTIONS = ("What was planned", "What happened", "Why", "What to keep and what to change")


def _points(value: float) -> str:
    """Signed whole points, never "-0"."""
    return f"{round(value) + 0:+d}"


def _turns(c: Chapter) -> str:
    return f"turn {c.turn}" if c.turn == c.last_turn else f"turns {c.turn}-{c.last_turn}"


def _decisions(c: Chapter) -> str:
    if c.first == c.last:
        return f"decision {c.first + 1}"
    return f"decisions {c.first + 1}-{c.last + 1}"


def _lesson_line(x: Lesson, with_better: bool) -> str:
    line = (f"turn {x.turn}, decision {x.index + 1}: {x.text} ({x.grade}, "
            f"{_points(x.gain)} points for {x.side}")
    if with_better and x.best_text:
        line += f"; {round(x.loss)} points better: {x.best_text}"
    return line + ")"


def _planned(report: AfterAction) -> list[Item]:
    out = []
    for side in SIDES:
        written = report.plans[side]
        if not written:
            out.append(Item(f"{side}: no plan written (a plan note, before the side's first "
                            f"order: warlog note GAME 1 TEXT --plan {side})"))
        for p in written:
            by = f" ({p.author})" if p.author else ""
            out.append(Item(f"{side}{by}, as of event {p.about}: {p.text}"))
    return out


def _happened(report: AfterAction, review: dict[str, Any]) -> list[Item]:
    orders = review["orders"]
    by_index = {m["index"]: m for m in review["moments"]}
    out = []
    for c in report.chapters:
        if c.kind == "end":
            out.append(Item(f"{c.title} (turn {c.turn}, event {c.seq}): red's expected score "
                            f"{percent(c.end)}"))
            continue
        moments = []
        for i in c.moments:
            m, o = by_index[i], orders[i]
            cause = moved_by(m)
            moments.append(Item(f"Turn {o['turn']}, {o['side']}: {o['text']}: red "
                                f"{percent(m['before'])} → {percent(m['after'])} ({cause})",
                                decision=i))
        out.append(Item(f"{c.title} ({_turns(c)}, {_decisions(c)}): red {percent(c.start)} → "
                        f"{percent(c.end)}", tuple(moments)))
    return out


def _why(report: AfterAction) -> list[Item]:
    out = [Item(report.headline[side]) for side in SIDES if side in report.headline]
    if report.swayed_by:
        out.append(Item(f"The orders moved red's expected score {_points(report.orders_points)} "
                        f"points and the dice {_points(report.dice_points)}: {report.swayed_by} "
                        "moved the battle more."))
    out += [Item(f"Costly, {x.side}: {_lesson_line(x, True)}") for x in report.costliest]
    return out


def _keep_and_change(report: AfterAction, decided: bool) -> list[Item]:
    out = []
    for side in SIDES:
        acc = report.accuracy.get(side)
        counts = ", ".join(f"{n} {g}" for g, n in report.grades.get(side, {}).items() if n)
        lines = [Item(f"Keep: {_lesson_line(x, False)}") for x in report.keep[side]]
        lines += [Item(f"Change: {_lesson_line(x, True)}") for x in report.change[side]]
        if decided and not report.change[side]:
            lines.append(Item("Change: no order gave away 5 points or more."))
        out.append(Item(f"{side}: accuracy {'-' if acc is None else f'{acc:.1f}'}"
                        + (f" ({counts})" if counts else ""), tuple(lines)))
    return out


def sections(report: AfterAction, review: dict[str, Any]) -> list[Section]:
    """The four questions, in words (plain text: the game's names as written)."""
    return [
        Section(QUESTIONS[0], "Each side's plan, written before its first order.",
                tuple(_planned(report))),
        Section(QUESTIONS[1], "The battle in chapters, with the moments that mattered in each.",
                tuple(_happened(report, review))),
        Section(QUESTIONS[2], "Start + orders + dice = the result; the orders that cost most, "
                "with the better order found.", tuple(_why(report))),
        Section(QUESTIONS[3], "From the grades: the decisions that gained most, and those that "
                "cost most.", tuple(_keep_and_change(report, bool(review["orders"])))),
    ]
