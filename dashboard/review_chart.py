"""A review's evaluation graph, decision by decision, as a plotly figure: a pure function of a
review's dict (``Review.as_dict()``, engine/review.py), no Streamlit here.

Why per decision and not per turn: a side gives several orders a turn, and the review grades
each; a turn's point would hide which order gave the game away. Point k (the x axis counts
decisions from 1, as the order table does) is the position decision k was made in, red's
expected score there (``before``); the segment from it to point k + 1 is what that decision did,
its order and its dice together; the last point is the result (or, in an unfinished game, where
it stands). So a graded decision's mark sits where it was made, and the drop after it is its
doing. The hover names the turn, the side and the order.

As charts.py does, every trace has a stable ``name`` and a ``meta`` role (``{"role": "mark",
"grade": "blunder"}``), so tests and the page find a trace without counting on trace order. A
point's ``customdata`` starts with its decision's index (0-based, None for the result): a click
on the graph names a decision (dashboard/review_page.py reads it).

The battle's chapters (engine/review_aar.chapters: deployment, first contact, each turning
point, each exhaustion) are drawn as a dotted line at each chapter's first decision, alternate
chapters lightly shaded, each titled at the top: the graph then reads as the story the
after-action report tells. They are shapes and annotations named "chapter", never traces, so a
click still lands only on a decision's point.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, Protocol

import plotly.graph_objects as go
from warlog.engine.review_score import percent

# lichess's marks, told apart by symbol as well as colour (a reader who cannot tell yellow from
# orange still can a circle from a square): inaccuracy ?!, mistake ?, blunder ??.
GRADE_STYLE: dict[str, dict[str, str]] = {
    "inaccuracy": {"color": "#e0a800", "symbol": "circle", "mark": "?!"},
    "mistake": {"color": "#e8710a", "symbol": "square", "mark": "?"},
    "blunder": {"color": "#c62828", "symbol": "x", "mark": "??"},
}
MARKED = tuple(GRADE_STYLE)
"""The grades marked on the graph (best and good are not: the line already shows them)."""
LINE_COLOUR, EVEN_COLOUR, MOMENT_COLOUR = "#333", "#999", "#555"
CHAPTER_COLOUR, CHAPTER_SHADE = "#8a8a8a", "rgba(120, 120, 160, 0.07)"


class ChapterLike(Protocol):
    """What the graph reads of engine/review_aar.Chapter."""

    kind: str
    title: str
    first: int | None
    last: int | None


def _text(value: Any) -> str:
    """A game's text for plotly's hover and annotations, which read a little HTML (<b>, <br>,
    entities): shown as written, never as a tag."""
    return html.escape(str(value), quote=False)


def line_points(review: dict[str, Any]) -> list[dict[str, Any]]:
    """The graph's points: one per decision (red's expected score before it), then the result
    (after the last decision). Each: x, y, the decision's index (None for the result), hover."""
    orders = review["orders"]
    points = [{"x": o["index"] + 1, "y": o["before"], "index": o["index"],
               "hover": f"decision {o['index'] + 1}, turn {o['turn']}, {_text(o['side'])}: "
                        f"{_text(o['text'])}<br>red {percent(o['before'])} before it"}
              for o in orders]
    if orders:
        last = orders[-1]
        said = "the result" if review.get("ended") else "where the game stands"
        points.append({"x": len(orders) + 1, "y": last["after"], "index": None,
                       "hover": f"{said} (after turn {last['turn']}): red "
                                f"{percent(last['after'])}"})
    return points


def marks(review: dict[str, Any], grade: str) -> list[dict[str, Any]]:
    """The decisions of ``grade``, each at its own point: x, y, index, hover (what it gave away,
    and the better order found)."""
    out = []
    for o in review["orders"]:
        if o["grade"] != grade:
            continue
        better = f"<br>better: {_text(o['best_text'])}" if o.get("best_text") else ""
        out.append({"x": o["index"] + 1, "y": o["before"], "index": o["index"],
                    "hover": f"{grade} {GRADE_STYLE[grade]['mark']} (decision {o['index'] + 1}, "
                             f"turn {o['turn']}, {_text(o['side'])}): {_text(o['text'])}, "
                             f"{o['loss']:.0f} points given away{better}"})
    return out


def moment_notes(review: dict[str, Any]) -> list[dict[str, Any]]:
    """The moments that mattered as annotations: at the decision's point, what moved red's
    expected score (the order or the dice, the larger part) and by how much."""
    orders = review["orders"]
    notes = []
    for m in review.get("moments") or ():
        o = orders[m["index"]]
        cause = "dice" if abs(m["dice"]) > abs(m["decision"]) else "order"
        swing = 100 * (m["after"] - m["before"])
        notes.append({"x": m["index"] + 1, "y": m["before"], "index": m["index"],
                      "text": f"turn {o['turn']}: {cause} {swing:+.0f}"})
    return notes


def _scatter(points: Sequence[dict[str, Any]], **kwargs: Any) -> go.Scatter:
    return go.Scatter(x=[p["x"] for p in points], y=[p["y"] for p in points],
                      customdata=[[p["index"]] for p in points],
                      hovertext=[p["hover"] for p in points], hoverinfo="text", **kwargs)


def chapter_marks(chapters: Sequence[ChapterLike]) -> list[dict[str, Any]]:
    """Each chapter of the battle (the end, a moment rather than a stretch, left out) as the
    graph draws it: x0 where its first decision's point is, x1 past its last one, its title
    (escaped for plotly) and whether it is shaded (every other one)."""
    out = []
    for chapter in chapters:
        if chapter.kind == "end" or chapter.first is None or chapter.last is None:
            continue
        out.append({"x0": chapter.first + 1, "x1": chapter.last + 2, "first": chapter.first,
                    "title": _text(chapter.title), "shaded": len(out) % 2 == 1})
    return out


def _draw_chapters(fig: go.Figure, chapters: Sequence[ChapterLike]) -> None:
    for n, mark in enumerate(chapter_marks(chapters)):
        if mark["shaded"]:
            fig.add_vrect(x0=mark["x0"], x1=mark["x1"], fillcolor=CHAPTER_SHADE, line_width=0,
                          layer="below", name="chapter band")
        fig.add_vline(x=mark["x0"], line={"color": CHAPTER_COLOUR, "width": 1, "dash": "dot"},
                      layer="below", name="chapter")
        fig.add_annotation(x=mark["x0"], y=1, yref="paper", yanchor="bottom", xanchor="left",
                           yshift=2 + 12 * (n % 2), text=mark["title"], showarrow=False,
                           name="chapter", font={"size": 10, "color": CHAPTER_COLOUR})


def review_figure(review: dict[str, Any], *, selected: int | None = None,
                  chapters: Sequence[ChapterLike] = ()) -> go.Figure:
    """The evaluation graph of ``review``: red's expected score decision by decision (0 to 1,
    the 50% line dashed), each inaccuracy, mistake and blunder marked in its grade's colour and
    symbol (one legend entry a grade), the moments annotated. ``selected``: the index of the
    decision on show, marked by a dotted line. ``chapters``: the battle's chapters
    (engine/review_aar.chapters), each a dotted line at its first decision with its title
    above the graph (labels of chapters in a row alternate between two heights)."""
    fig = go.Figure()
    _draw_chapters(fig, chapters)
    fig.add_trace(_scatter(line_points(review), mode="lines+markers", name="red's win %",
                           line={"color": LINE_COLOUR, "width": 2}, marker={"size": 4},
                           meta={"role": "eval"}))
    for grade in MARKED:
        style = GRADE_STYLE[grade]
        fig.add_trace(_scatter(
            marks(review, grade), mode="markers", name=f"{grade} {style['mark']}",
            marker={"color": style["color"], "symbol": style["symbol"], "size": 12,
                    "line": {"color": "#222", "width": 1}},
            meta={"role": "mark", "grade": grade}))
    for note in moment_notes(review):
        fig.add_annotation(x=note["x"], y=note["y"], text=note["text"], name="moment",
                           showarrow=True, arrowhead=2, ax=0, ay=-34 if note["y"] < 0.8 else 34,
                           font={"size": 11, "color": MOMENT_COLOUR},
                           bgcolor="rgba(255,255,255,0.8)")
    fig.add_hline(y=0.5, line={"color": EVEN_COLOUR, "width": 1, "dash": "dash"}, name="even")
    if selected is not None:
        fig.add_vline(x=selected + 1, line={"color": MOMENT_COLOUR, "width": 2, "dash": "dot"},
                      name="selected")
    n = len(review["orders"])
    fig.update_xaxes(range=[0.5, n + 1.5], showgrid=False, title_text="decision (the last "
                     "point: the result)" if review.get("ended") else "decision")
    fig.update_yaxes(range=[0, 1], tickformat=".0%", gridcolor="#eee",
                     title_text="red's expected score")
    top = 40 if chapter_marks(chapters) else 20  # room for the chapters' titles
    fig.update_layout(height=340 + top - 20, margin={"l": 50, "r": 10, "t": top, "b": 40},
                      plot_bgcolor="white", hovermode="closest",
                      legend={"orientation": "h", "y": -0.25})
    return fig
