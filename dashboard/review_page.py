"""What the Review page shows, computed without drawing it: which game opens, the review run in
the background, the grade counts, the order table's rows, which decision a click on the graph or
a row names, the position it was made in and the link to it on the Replay page. The page
(dashboard/views/review.py) only lays these out.

A review stored beside the game (events/analysis_store.py, as `warlog review` stores it) is
read first: a review searches every decision, so the page shows a stored one at once rather than
searching again on every server start. Only when none is stored (or it cannot be read) does the
review run in process (scheduler "inprocess": a page must not start a cluster) in a background
thread (warlog/app/background.py), one job per game and length per server: every session and
rerun asking for the same game finds the same job, so the page stays responsive while it runs.
The job stores what it computes under the command's own key (budget, seed, evaluator), so
`warlog review` and `warlog report` find it too; a database that refuses the write costs the
page nothing. A review by an older evaluator is shown, said to be one, and reviewed again only
when the reader asks: its numbers are still an answer, just an older one.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any
from urllib.parse import urlencode

from warlog.app import background
from warlog.dashboard import data
from warlog.dashboard.review_chart import MARKED
from warlog.engine.evaluator import load_weights
from warlog.engine.fold import Timeline
from warlog.engine.review_aar import AfterAction, Item, Section, after_action, sections
from warlog.engine.review_score import GRADES, mover, percent
from warlog.engine.state import GameState
from warlog.events.store import StoreError
from warlog.app.review_job import run_review
from warlog.app.reviews import DEFAULT_SEED, review_params, stored_review
from warlog.app.reviews import store_review as keep_review
from warlog.app.jobs import run_tasks

Event = dict[str, Any]
SIDES = ("red", "blue")
REVIEW_SEED = DEFAULT_SEED  # as `warlog review` without --seed: the page's review is the command's
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


def current_evaluator() -> str:
    """The version of the evaluator this warlog grades with."""
    return load_weights()["version"]


def stored(db: str, events: Sequence[Event]) -> tuple[dict[str, Any], AfterAction] | None:
    """The readable review stored for this game at its present length (the current
    evaluator's first, else the latest by another) with its after-action report, or None: none
    stored, or one edited outside warlog (reviewed again rather than shown half). Readable
    means the report can be told from it: a database anyone may edit can hold a review of the
    right shape whose turning points name decisions it does not hold. The report comes back
    too, so the page does not fold the log a second time to tell it."""
    found = stored_review(db, list(events))
    if found is None:
        return None
    try:
        report = after_action(found, events)
        sections(report, found)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None
    return found, report


def older_evaluator_line(review: dict[str, Any]) -> str | None:
    """One line when ``review`` was made by an evaluator other than this warlog's (plain
    text: the stored version is data), else None."""
    made_by, ours = review.get("evaluator"), current_evaluator()
    if made_by == ours:
        return None
    return f"Reviewed by evaluator {made_by}; this warlog's evaluator is {ours}."


def store_review(db: str, events: Sequence[Event], review: dict[str, Any]) -> bool:
    """Keep ``review`` beside its game as `warlog review` does (one transaction); False when
    the database refuses it (read-only, altered outside warlog): the review is shown anyway."""
    try:
        keep_review(db, review["game"], review_params(), events[-1]["seq"], review)
    except StoreError:
        return False
    return True


def review_and_store(db: str, game: str, events: Sequence[Event],
                     progress: background.Progress | None = None) -> dict[str, Any]:
    """The background job's work: the review, then stored, so the next server start (and the
    command line) finds it."""
    review = review_now(game, events, progress)
    store_review(db, events, review)
    return review


def review_job(identity: str, game: str, events: Sequence[Event],
               db: str | None = None) -> background.Job:
    """The game's review under way or done, started on the first call (a Streamlit cache
    resource: needs a running page or AppTest), stored in ``db`` once done when given (the
    key's identity names the database already)."""
    events = list(events)
    work = (partial(review_now, game, events) if db is None
            else partial(review_and_store, db, game, events))
    return background.job(review_key(identity, events), work)


def report_sections(review: dict[str, Any], events: Sequence[Event]) -> list[Section]:
    """The after-action report's four questions (engine/review_aar.py), from the review shown
    and the log it covers: no search, a fold of the log at most."""
    return sections(after_action(review, events), review)


def item_markdown(item: Item, depth: int = 0) -> str:
    """``item`` and the lines under it as a Markdown list (each level two spaces in), every
    text escaped."""
    lines = [f"{'  ' * depth}- {data.markdown_text(item.text)}"]
    lines += [item_markdown(u, depth + 1) for u in item.under]
    return "\n".join(lines)


def section_blocks(section: Section) -> list[tuple[str, int | None, int]]:
    """How the page lays a question's items out: (Markdown, decision, depth) blocks. Items
    without a moment are gathered into one list; an item with moments under it is its own
    block, each moment its own (with its decision, for its "Show on the board" button) at
    depth 1: a list of one, which the page indents itself (a block's Markdown cannot)."""
    blocks: list[tuple[str, int | None, int]] = []
    plain: list[str] = []
    for item in section.items:
        if not any(u.decision is not None for u in item.under):
            plain.append(item_markdown(item))
            continue
        if plain:
            blocks.append(("\n".join(plain), None, 0))
            plain = []
        blocks.append((item_markdown(Item(item.text)), None, 0))
        blocks += [(item_markdown(u), u.decision, 1) for u in item.under]
    if plain:
        blocks.append(("\n".join(plain), None, 0))
    return blocks


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
