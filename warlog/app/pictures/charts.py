"""The charts over a game's turns (attrition, exhaustion, luck, win probability) as plotly
figures, and PNG export; pure functions of analysis rows (no Streamlit here). The board is in
board.py.

Every trace has a stable ``name`` and a ``meta`` dict (``{"role": "lost", "side": "red"}``) so
tests and the browser can find it without relying on trace order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from warlog.app.pictures.board import SIDE_COLOURS
from warlog.engine.state import SIDES


def attrition_figure(rows: Sequence[dict[str, Any]], *, current_turn: int | None = None,
                     per_unit_rows: Sequence[dict[str, Any]] | None = None) -> go.Figure:
    """Hits taken (top) and units lost (bottom) per side over the turns, from
    analysis.attrition rows; per-unit hit lines (from analysis.unit_timeline) start hidden in the
    legend. A dotted line marks ``current_turn``."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.62, 0.38],
                        vertical_spacing=0.1, subplot_titles=("Hits taken", "Units lost"))
    for side in SIDES:
        mine = [r for r in rows if r["side"] == side]
        turns = [r["turn"] for r in mine]
        fig.add_trace(go.Scatter(
            x=turns, y=[r["hits_taken"] for r in mine], mode="lines+markers",
            line={"color": SIDE_COLOURS[side], "width": 3}, name=f"hits taken · {side}",
            legendgroup=side, meta={"role": "hits", "side": side}), row=1, col=1)
        fig.add_trace(go.Scatter(
            x=turns, y=[r["units_lost"] for r in mine], mode="lines+markers", line_shape="hv",
            line={"color": SIDE_COLOURS[side], "width": 3, "dash": "dot"},
            name=f"units lost · {side}", legendgroup=side, meta={"role": "lost", "side": side}),
            row=2, col=1)
    for uid in dict.fromkeys(r["unit"] for r in per_unit_rows or ()):
        mine = [r for r in per_unit_rows if r["unit"] == uid]
        fig.add_trace(go.Scatter(
            x=[r["turn"] for r in mine], y=[r["hits"] for r in mine], mode="lines",
            line={"color": SIDE_COLOURS.get(mine[0]["side"], "#777"), "width": 1},
            opacity=0.6, visible="legendonly", name=uid, legendgroup=f"units-{mine[0]['side']}",
            meta={"role": "unit", "unit": uid, "side": mine[0]["side"]}), row=1, col=1)
    if current_turn is not None:
        fig.add_vline(x=current_turn, line={"color": "#555", "width": 2, "dash": "dot"},
                      row="all", col=1, name="current turn")
    last = max((r["turn"] for r in rows), default=0)
    fig.update_xaxes(dtick=1, range=[-0.2, last + 0.2], showgrid=False)
    fig.update_xaxes(title_text="turn", row=2, col=1)
    fig.update_yaxes(rangemode="tozero", gridcolor="#eee")
    fig.update_yaxes(tickformat="d", row=2, col=1)
    fig.update_layout(height=440, margin={"l": 40, "r": 10, "t": 30, "b": 40},
                      plot_bgcolor="white", legend={"orientation": "v", "x": 1.02, "y": 1,
                                                    "font": {"size": 11}})
    return fig


LABEL_FONT = 11  # px: the threshold lines' labels in the right margin
LABEL_MARGIN = 160  # px kept free at the right of the plot for those labels
MIN_PLOT_HEIGHT = 200  # px: the least height the plot area gets (the legend may take more room)


def _label_width(text: str, size: int = LABEL_FONT) -> float:
    """A generous estimate of a label's width in pixels (0.62 em a character, as wide as
    plotly's default sans-serif font gets for these words), plus the gap from the plot edge."""
    return len(text) * size * 0.62 + 8


def spread_labels(ys: Sequence[float], gap: float) -> list[float]:
    """Label positions (paper units, 0 at the bottom of the plot, 1 at the top) as near to
    ``ys`` as they may be while no two are closer than ``gap`` and all stay within 0..1: two
    sides' thresholds are often the same number, and their labels must not print over each
    other. Same order as ``ys``."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [min(max(ys[i], 0.0), 1.0) for i in order]
    for k in range(1, len(placed)):  # push up what sits too close to the one below
        placed[k] = max(placed[k], placed[k - 1] + gap)
    overflow = placed[-1] - 1.0 if placed else 0.0
    if overflow > 0:  # then back down from the top, keeping the gaps
        placed[-1] = 1.0
        for k in range(len(placed) - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - gap)
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = max(placed[k], 0.0)
    return out


def exhaustion_figure(rows: Sequence[dict[str, Any]], *, current_turn: int | None = None) -> go.Figure:
    """Strength lost per side over the turns (from analysis.exhaustion rows) against each side's
    threshold: the rule's exhaustion point where the system has one, otherwise a dashed
    reference line at one third of the starting strength, labelled as a reference. A star marks
    the turn a side became exhausted (or, for a reference, first lost that much).

    No text is drawn inside the plot, where it collided with the lines: each threshold line is
    labelled in a right margin kept for it (spread so that two labels never overlap, and short
    enough to fit), the stars are named in the legend and their hover."""
    fig = go.Figure()
    labels: list[tuple[str, str, float]] = []  # side, text, the threshold's last value
    for side in SIDES:
        mine = [r for r in rows if r["side"] == side]
        if not mine:
            continue
        turns = [r["turn"] for r in mine]
        fig.add_trace(go.Scatter(
            x=turns, y=[r["lost"] for r in mine], mode="lines+markers",
            line={"color": SIDE_COLOURS[side], "width": 3}, name=f"strength lost · {side}",
            legendgroup=side, meta={"role": "lost", "side": side},
            hovertemplate="turn %{x}: %{y} lost<extra></extra>"))
        last = mine[-1]
        rule = last["basis"] == "rule"
        label = (f"{side} exhaustion point ({last['rule']})" if rule
                 else f"{side} reference: 1/3 of starting strength (no exhaustion rule)")
        fig.add_trace(go.Scatter(
            x=turns, y=[r["threshold"] for r in mine], mode="lines", name=label,
            line={"color": SIDE_COLOURS[side], "width": 2, "dash": "solid" if rule else "dash"},
            opacity=0.7 if rule else 0.45, legendgroup=side,
            meta={"role": "threshold", "side": side, "basis": last["basis"]},
            hovertemplate=f"{label}: %{{y}}<extra></extra>"))
        labels.append((side, f"{side} exhaustion point" if rule else f"{side} 1/3 (reference)",
                       last["threshold"]))
        first = next((r for r in mine if r["exhausted"]), None)
        if first is not None:
            word = "exhausted" if rule else "past 1/3 (reference)"
            fig.add_trace(go.Scatter(
                x=[first["turn"]], y=[first["lost"]], mode="markers",
                marker={"symbol": "star", "size": 18, "color": SIDE_COLOURS[side],
                        "line": {"color": "white", "width": 1}},
                name=f"{side} {word}, turn {first['turn']}", legendgroup=side,
                hovertemplate=f"{side} {word}, turn {first['turn']}<extra></extra>",
                meta={"role": "exhausted", "side": side, "turn": first["turn"],
                      "basis": first["basis"]}))
    top = max([r["lost"] for r in rows] + [r["threshold"] for r in rows] + [1]) * 1.12
    spread = spread_labels([v / top for _, _, v in labels], LABEL_FONT * 1.3 / MIN_PLOT_HEIGHT)
    for (side, text, _), y in zip(labels, spread):
        fig.add_annotation(
            text=text, name=f"threshold label · {side}", xref="paper", x=1, xanchor="left",
            xshift=6, yref="paper", y=y, yanchor="middle", showarrow=False,
            font={"color": SIDE_COLOURS[side], "size": LABEL_FONT})
    if current_turn is not None:
        fig.add_vline(x=current_turn, line={"color": "#555", "width": 2, "dash": "dot"},
                      name="current turn")
    last_turn = max((r["turn"] for r in rows), default=0)
    fig.update_xaxes(dtick=1, range=[-0.2, last_turn + 0.2], showgrid=False, title_text="turn")
    fig.update_yaxes(range=[0, top], gridcolor="#eee", title_text="strength lost")
    fig.update_layout(height=440, margin={"l": 50, "r": LABEL_MARGIN, "t": 30, "b": 40},
                      plot_bgcolor="white", legend={"orientation": "h", "y": -0.25,
                                                    "font": {"size": 11}})
    return fig


def luck_figure(rows: Sequence[dict[str, Any]], *, current_turn: int | None = None) -> go.Figure:
    """Each side's cumulative luck over the turns (hits dealt minus the hits average dice would
    have dealt, from analysis.luck_by_turn): above zero the dice favoured it."""
    fig = go.Figure()
    for side in SIDES:
        mine = [r for r in rows if r["side"] == side]
        fig.add_trace(go.Scatter(
            x=[r["turn"] for r in mine], y=[r["luck"] for r in mine], mode="lines+markers",
            line={"color": SIDE_COLOURS[side], "width": 3}, name=f"luck · {side}",
            meta={"role": "luck", "side": side},
            hovertemplate="turn %{x}: %{y:+.2f} hits over average<extra></extra>"))
    fig.add_hline(y=0, line={"color": "#999", "width": 1})
    if current_turn is not None:
        fig.add_vline(x=current_turn, line={"color": "#555", "width": 2, "dash": "dot"})
    last = max((r["turn"] for r in rows), default=0)
    fig.update_xaxes(dtick=1, range=[-0.2, last + 0.2], showgrid=False, title_text="turn")
    fig.update_yaxes(gridcolor="#eee", title_text="hits over average dice")
    fig.update_layout(height=320, margin={"l": 50, "r": 10, "t": 20, "b": 40},
                      plot_bgcolor="white", legend={"orientation": "h", "y": -0.3})
    return fig


_LEAD_FILL = {"red": "rgba(198,40,40,0.30)", "blue": "rgba(21,101,192,0.30)"}  # SIDE_COLOURS


def winprob_figure(curve: dict[str, Any], *, current_turn: int | None = None) -> go.Figure:
    """P(red wins) over the turns from a stored win-probability curve (warlog/app/whatif_job.py),
    drawn like a chess evaluation graph: 0 to 1, the even line at 0.5, the area above it red
    (red ahead) and below it blue; each point's 95% interval as an error bar and in its hover;
    turning points starred with their turn; the game's result as the last point ("end")."""
    points = curve["points"]
    xs = [p["turn"] for p in points]
    reds = [p["red"]["p"] for p in points]
    labels = ["end" if p["final"] else f"turn {p['turn']}" for p in points]
    fig = go.Figure()
    for side, clip in (("red", max), ("blue", min)):  # each side's lead, shaded from 0.5
        fig.add_trace(go.Scatter(x=xs, y=[0.5] * len(xs), mode="lines", line={"width": 0},
                                 hoverinfo="skip", showlegend=False,
                                 meta={"role": "even", "side": side}))
        fig.add_trace(go.Scatter(
            x=xs, y=[clip(r, 0.5) for r in reds], mode="lines", line={"width": 0},
            fill="tonexty", fillcolor=_LEAD_FILL[side], hoverinfo="skip",
            name=f"{side} ahead", meta={"role": "lead", "side": side}))
    fig.add_trace(go.Scatter(
        x=xs, y=reds, mode="lines+markers", line={"color": "#333", "width": 3},
        marker={"size": 7}, name="P(red wins), 95% interval", meta={"role": "winprob"},
        error_y={"type": "data", "symmetric": False, "color": "#888", "thickness": 1,
                 "width": 3, "array": [p["red"]["high"] - r for p, r in zip(points, reds)],
                 "arrayminus": [r - p["red"]["low"] for p, r in zip(points, reds)]},
        customdata=[[lab, p["red"]["low"], p["red"]["high"], p["blue"]["p"], p["draw"]["p"]]
                    for lab, p in zip(labels, points)],
        hovertemplate="%{customdata[0]}: P(red wins) %{y:.2f} (%{customdata[1]:.2f}–"
                      "%{customdata[2]:.2f}), P(blue) %{customdata[3]:.2f}, "
                      "P(draw) %{customdata[4]:.2f}<extra></extra>"))
    turning = curve.get("turning_points") or []
    at = {p["turn"]: p for p in points}
    if turning:
        fig.add_trace(go.Scatter(
            x=[t["to_turn"] for t in turning], y=[at[t["to_turn"]]["red"]["p"] for t in turning],
            mode="markers+text", marker={"symbol": "star", "size": 16, "color": "#f9a825",
                                         "line": {"color": "#333", "width": 1}},
            text=[f"turn {t['turn']}" for t in turning],
            textposition=["bottom center" if at[t["to_turn"]]["red"]["p"] > 0.8 else "top center"
                          for t in turning],
            name="turning point", cliponaxis=False,
            meta={"role": "turning", "turns": [t["turn"] for t in turning]},
            customdata=[[t["turn"], t["from"], t["to"], t["why"]] for t in turning],
            hovertemplate="turning point in turn %{customdata[0]}: %{customdata[1]:.2f} → "
                          "%{customdata[2]:.2f} (%{customdata[3]})<extra></extra>"))
    fig.add_hline(y=0.5, line={"color": "#999", "width": 1, "dash": "dash"})
    if current_turn is not None:
        fig.add_vline(x=current_turn, line={"color": "#555", "width": 2, "dash": "dot"},
                      name="current turn")
    fig.update_xaxes(dtick=1, range=[min(xs, default=0) - 0.2, max(xs, default=0) + 0.2],
                     showgrid=False, title_text="turn (the last point: the result)",
                     tickvals=xs, ticktext=["end" if p["final"] else str(p["turn"])
                                            for p in points])
    fig.update_yaxes(range=[0, 1], tickformat=".0%", gridcolor="#eee",
                     title_text="P(red wins)")
    fig.update_layout(height=340, margin={"l": 50, "r": 10, "t": 20, "b": 40},
                      plot_bgcolor="white", legend={"orientation": "h", "y": -0.3})
    return fig


def png(fig: go.Figure, *, width: int = 1100, height: int | None = None) -> bytes:
    """The figure as a PNG picture (plotly's kaleido, drawing with the system's chromium; no
    browser is downloaded). About 3 s: build pictures on request, never on every rerun."""
    import plotly.io as pio

    return pio.to_image(fig, format="png", width=width,
                        height=height or int(fig.layout.height or 600), scale=1)
