"""What the Review page shows, computed without drawing it: which game opens, the review run in
the background, the grade counts, the order table's rows, which decision a click on the graph or
a row names, the position it was made in and the link to it on the Replay page. The page
(dashboard/views/review.py) only lays these out.

The review runs in process (scheduler "inprocess": a page must not start a cluster) in a
background thread (dashboard/background.py), one job per game and length per server: every
session and rerun asking for the same game finds the same job, so the page stays responsive
while it runs and a second open is instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any
from urllib.parse import urlencode

from warlog.dashboard import background, data
from warlog.dashboard.review_chart import MARKED
from warlog.engine.fold import Timeline
from warlog.engine.review_score import GRADES, mover, percent
from warlog.engine.state import GameState
from warlog.jobs import run_tasks
from warlog.review_job import run_review

Event = dict[str, Any]
SIDES = ("red", "blue")
REVIEW_SEED = 0  # as `warlog review` without --seed: the page's review is the command's
COLUMNS = ("#", "turn", "side", "order", "win % (mover)", "grade", "better order found")


def chosen_game(ids: Sequence[str], linked: str | None, current: str | None,
                elsewhere: str | None) -> str:
    """The game the page opens: the one the address names (``?game=ID``, read once a
    session), else the one already chosen here, else the one the Replay page shows, else the
    newest. Only a game the database holds is ever chosen."""
    for wanted in (linked, current, elsewhere):
        if wanted in ids:
            return wanted
    return ids[0]


def game_label(info: dict[str, Any]) -> str:
    """A game as the picker names it (plain text: a select box's options are not Markdown),
    with its result: a review tells it at the top anyway."""
    result = ""
    if info["ended"]:
        result = f" · {info['winner']} won" if info["winner"] else " · draw"
    return f"{info['title'] or info['scenario_id']}{result} ({info['id']})"


def review_key(identity: str, events: Sequence[Event]) -> str:
    """The background job's key: the game's identity and length (a game that grows is
    reviewed again) and what the review depends on."""
    return data.source_key("review", identity, len(events), events[-1]["seq"], REVIEW_SEED)


def review_now(game: str, events: Sequence[Event],
               progress: background.Progress | None = None) -> dict[str, Any]:
    """The review of ``events`` as its dict (``Review.as_dict()``), in process, one task a
    chunk so that ``progress(done, total)`` moves decision by decision."""
    runner = partial(run_tasks, progress=progress, chunk=1)
    return run_review(game, events, seed=REVIEW_SEED, scheduler="inprocess",
                      runner=runner).as_dict()


def review_job(identity: str, game: str, events: Sequence[Event]) -> background.Job:
    """The game's review under way or done, started on the first call (a Streamlit cache
    resource: needs a running page or AppTest)."""
    events = list(events)
    return background.job(review_key(identity, events), partial(review_now, game, events))


def progress_text(done: int, total: int) -> str:
    if not total:
        return "Reviewing the game: weighing the first decisions…"
    return (f"Reviewing the game: {done:,} of {total:,} decisions weighed against the best "
            "orders found there, in the background.")


def grade_counts(review: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Each side's decisions by grade, every grade present (0 where none), best to worst."""
    counts = {side: dict.fromkeys(GRADES, 0) for side in SIDES}
    for o in review["orders"]:
        counts.setdefault(o["side"], dict.fromkeys(GRADES, 0))[o["grade"]] += 1
    return counts


def summary_rows(review: dict[str, Any]) -> list[dict[str, Any]]:
    """One row a side: its accuracy (lichess's, None when it made no decision) and how many of
    its decisions had each grade."""
    counts = grade_counts(review)
    rows = []
    for side in SIDES:
        acc = review["accuracy"].get(side)
        rows.append({"side": side, "accuracy": None if acc is None else round(acc, 1),
                     **{str(g): counts[side][g] for g in GRADES}})
    return rows


def flawed(order: dict[str, Any]) -> bool:
    """An inaccuracy, a mistake or a blunder: the decisions the filter keeps and the graph
    marks."""
    return order["grade"] in MARKED


def order_rows(review: dict[str, Any], only_flawed: bool = False
               ) -> tuple[list[dict[str, Any]], list[int]]:
    """The order table's rows (COLUMNS: the number counted from 1, the win % of the side that
    gave it before and with the order's dice averaged out, the better order found for an
    inaccuracy or worse) and, row by row, the decision's index (a selected row names it)."""
    rows, indices = [], []
    for o in review["orders"]:
        if only_flawed and not flawed(o):
            continue
        better = ""
        if o.get("best_text") and flawed(o):
            better = f"{o['best_text']} ({percent(mover(o['best'], o['side']))})"
        rows.append(dict(zip(COLUMNS, (
            o["index"] + 1, o["turn"], o["side"], o["text"],
            f"{percent(mover(o['before'], o['side']))} → "
            f"{percent(mover(o['expected'], o['side']))}",
            o["grade"], better))))
        indices.append(o["index"])
    return rows, indices


def clicked_decision(selection: Any, count: int) -> int | None:
    """The decision a click on the graph picked (the ``customdata`` of its first point, as
    Streamlit reports a plotly selection; the line's point and a grade's mark alike), or None
    (nothing picked, the result's point, or a value the graph does not send)."""
    points = ((selection or {}).get("selection") or {}).get("points") or []
    if not points:
        return None
    custom = points[0].get("customdata")
    index = custom[0] if isinstance(custom, (list, tuple)) and custom else None
    if index is None:  # plotly.js sends no customdata for some traces: the x says it as well
        x = points[0].get("x")
        index = x - 1 if isinstance(x, (int, float)) and not isinstance(x, bool) else None
    if isinstance(index, bool) or not isinstance(index, (int, float)) or index != int(index):
        return None
    return int(index) if 0 <= index < count else None


def selected_row(selection: Any, indices: Sequence[int]) -> int | None:
    """The decision of the row picked in the order table (Streamlit's dataframe selection), or
    None."""
    rows = ((selection or {}).get("selection") or {}).get("rows") or []
    if not rows or not isinstance(rows[0], int) or not 0 <= rows[0] < len(indices):
        return None
    return indices[rows[0]]


def event_index(events: Sequence[Event], seq: int) -> int:
    """Where the event numbered ``seq`` is in the log."""
    return next(i for i, e in enumerate(events) if e["seq"] == seq)


def position_before(timeline: Timeline, events: Sequence[Event], order: dict[str, Any]
                    ) -> GameState:
    """The position the decision was made in: the state before its event, as
    ``replay(events[:i])`` folds it (the Timeline's snapshots make it a few events' work)."""
    return timeline.state_at(event_index(events, order["seq"]) - 1)


def replay_link(game: str, seq: int) -> str:
    """The Replay page's address at the step holding event ``seq`` (the page opens a game by
    ``?game=ID`` and a step by ``?event=N``); the id encoded, whatever it holds."""
    return "/?" + urlencode({"game": game, "event": seq})


def decision_caption(order: dict[str, Any]) -> str:
    """One line for the selected decision, as Markdown: the game's text escaped."""
    md = data.markdown_text
    said = (f"Decision {order['index'] + 1}, turn {order['turn']}, {md(order['side'])}: "
            f"{md(order['text'])} · {md(order['grade'])}, win % "
            f"{percent(mover(order['before'], order['side']))} → "
            f"{percent(mover(order['expected'], order['side']))} with its dice averaged out")
    if order.get("best_text") and flawed(order):
        said += (f" · better: {md(order['best_text'])} "
                 f"({percent(mover(order['best'], order['side']))})")
    return said + ". The board shows the position the order was given in."
