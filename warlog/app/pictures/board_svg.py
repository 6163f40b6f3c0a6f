"""The board as a still SVG picture, drawn from the very figure the pages draw with plotly.

Why: plotly.js is about 4.7 MB of script that the browser loads and runs the first time a page
shows a chart (about a second on a slow machine, before anything is drawn). The Play page's
landing shows the board of the game offered to continue as this picture instead, which the
browser draws as soon as it arrives. It is a translation of ``board.board_figure``'s traces (the
one place the board is drawn), not a second drawing of the board: cells, counters, map symbols,
codes, labels, pips, facing and marks come out as plotly would place them, in the figure's data
units, with a unit's hover text as its tooltip. It reads only what the board's traces use
(scatter lines, filled shapes, markers, text); the legend and the axes' grid are left out, the
column and row numbers kept. Markers take plotly's own shapes (warlog/app/pictures/svg_markers.py): a
badge's hourglass or hexagon is that shape here too.
"""

from __future__ import annotations

import json
import math
import re
from html import escape, unescape
from typing import Any

import plotly.graph_objects as go

from warlog.app.pictures.counters import text_em
from warlog.app.pictures.svg_markers import marker as _marker
from warlog.app.pictures.svg_markers import num as _num

PAD = 0.15  # data units of paper around the cells
NUMBERS = 0.45  # data units kept above and left of the board for the column and row numbers
CLEAR = 0.05  # markers fainter than this are hover targets: drawn only as their tooltips


def _points(trace: dict) -> list[tuple[float, float] | None]:
    xs, ys = trace.get("x") or [], trace.get("y") or []
    return [None if x is None or y is None else (float(x), float(y)) for x, y in zip(xs, ys)]


def _each(value: Any, i: int, default: Any = None) -> Any:
    """A marker property that is one value for all points or a list of one per point."""
    if isinstance(value, (list, tuple)):
        return value[i] if i < len(value) else default
    return default if value is None else value


def _runs(points: list[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """The polylines of a lines trace: runs of points between the Nones."""
    runs: list[list[tuple[float, float]]] = [[]]
    for p in points:
        if p is None:
            runs.append([])
        else:
            runs[-1].append(p)
    return [r for r in runs if r]


def _path(run: list[tuple[float, float]], close: bool) -> str:
    head, *rest = run
    d = f"M{_num(head[0])},{_num(head[1])}" + "".join(f"L{_num(x)},{_num(y)}" for x, y in rest)
    return d + ("Z" if close else "")


DASHES = {"dash": "4,3", "dot": "1,2", "dashdot": "4,2,1,2"}


def _lines(trace: dict, px: float) -> list[str]:
    line = trace.get("line") or {}
    colour = line.get("color", "#444")
    width = float(line.get("width", 2)) / px
    filled = trace.get("fill") == "toself"
    fill = trace.get("fillcolor", colour) if filled else "none"
    stroke = "none" if filled and line.get("width") == 0 else colour
    dash = DASHES.get(line.get("dash", "solid"))
    style = (f'fill="{escape(fill)}" stroke="{escape(stroke)}" stroke-width="{_num(width)}"'
             + (f' stroke-dasharray="{",".join(_num(float(d) * width) for d in dash.split(","))}"'
                if dash else "") + ' stroke-linejoin="round"')
    return [f'<path d="{_path(run, filled)}" {style}/>' for run in _runs(_points(trace))]


def _angle(marker: dict, points: list[tuple[float, float] | None], i: int) -> float | None:
    """A marker's turn in degrees clockwise from up: its own angle, plus, with ``angleref``
    "previous" (the arrows of a move or an attack), the direction it came from its previous
    point (the y axis runs down the screen, as the board's does), as plotly works it out:
    a point with no previous point has no angle (plotly draws no marker there) and one on
    the same spot as its previous point turns a quarter."""
    angle = float(_each(marker.get("angle"), i, 0) or 0)
    if marker.get("angleref") != "previous":
        return angle
    before = points[i - 1] if i > 0 else None
    if before is None or points[i] is None:
        return None
    (x0, y0), (x1, y1) = before, points[i]
    return angle + math.degrees(math.atan2(y1 - y0, x1 - x0)) + 90


TAGS = re.compile(r"<[^>]+>")


def _read(text: str) -> str:
    """A text as plotly shows it (its pseudo-HTML: <br> a new line, other tags dropped,
    entities read: the board escapes what a scenario wrote)."""
    return unescape(TAGS.sub("", re.sub(r"<br\s*/?>", "\n", text)))


def _plain(text: str) -> str:
    """A text as plotly shows it, escaped once for the SVG."""
    return escape(_read(text))


def _markers(trace: dict, px: float) -> list[str]:
    marker = trace.get("marker") or {}
    opacity = float(marker.get("opacity", 1) if not isinstance(marker.get("opacity"), list)
                    else 1)
    hover = trace.get("hovertext")
    if hover is None and "%{text}" in str(trace.get("hovertemplate") or ""):
        hover = trace.get("text")  # the cells name themselves so
    points = _points(trace)
    out = []
    for i, p in enumerate(points):
        if p is None:
            continue
        size = float(_each(marker.get("size"), i, 6)) / px
        tip = _each(hover, i) if hover is not None else None
        if opacity < CLEAR:  # a hover target: invisible, but its tooltip is the unit's
            if tip:
                out.append(f'<rect x="{_num(p[0] - size / 2)}" y="{_num(p[1] - size / 2)}" '
                           f'width="{_num(size)}" height="{_num(size)}" fill="transparent">'
                           f"<title>{_plain(str(tip))}</title></rect>")
            continue
        edge = marker.get("line") or {}
        shape = _marker(str(_each(marker.get("symbol"), i, "circle")), p[0], p[1], size,
                        _angle(marker, points, i),
                        str(_each(marker.get("color"), i, "#444")),
                        str(_each(edge.get("color"), i, "none")),
                        float(_each(edge.get("width"), i, 0) or 0) / px, 1 / px)
        if shape:
            out.append(shape if opacity >= 1 else f'<g opacity="{_num(opacity)}">{shape}</g>')
    return out


def _text(x: float, y: float, size: float, colour: str, text: Any, fit: float = 0.0) -> str:
    """One text centred on (x, y), ``size`` high in data units; ``fit``: a width (data units)
    it may not pass, drawn narrower when it would (a counter's id, shortened to what a little
    squeeze fits by counters.short_label)."""
    plain = _read(str(text))
    narrow = (f' textLength="{_num(fit)}" lengthAdjust="spacingAndGlyphs"'
              if fit and text_em(plain) * size > fit else "")
    return (f'<text x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}"{narrow} '
            f'fill="{escape(colour)}" text-anchor="middle" dominant-baseline="central">'
            f"{escape(plain)}</text>")


def _texts(trace: dict, px: float) -> list[str]:
    font = trace.get("textfont") or {}
    colour = str(font.get("color", "#222"))
    texts = trace.get("text") or []
    meta = trace.get("meta") if isinstance(trace.get("meta"), dict) else {}
    fit = float(meta.get("fit") or 0)
    size = meta.get("size") or font.get("size")  # one height for all (ids), else each its own
    return [_text(p[0], p[1], float(_each(size, i, 12)) / px, colour, texts[i], fit)
            for i, p in enumerate(_points(trace))
            if p is not None and i < len(texts) and texts[i] not in (None, "")]


def note_box(text: str, size: float) -> tuple[float, float]:
    """Width and height of a result label's box (a layout annotation, as _annotations draws
    it) whose font is ``size`` high, in the same units: what board.py places it by, so that it
    covers no counter."""
    lines = re.split(r"<br\s*/?>", text)
    longest = max(len(_read(line)) for line in lines)
    return longest * size * 0.6 + size * 0.6, len(lines) * size * 1.25 + size * 0.3


def _annotations(layout: dict, px: float) -> list[str]:
    """The layout's text labels (a shot's or a melee's result over its target): the text in a
    box of its background and border colours, its bottom edge at the point when ``yanchor`` is
    "bottom", else centred on it."""
    out = []
    for note in layout.get("annotations") or []:
        x, y, text = note.get("x"), note.get("y"), str(note.get("text") or "")
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)) or not text:
            continue
        font = note.get("font") or {}
        size = float(font.get("size", 12)) / px
        lines = re.split(r"<br\s*/?>", text)  # each written by _text, read as plotly reads it
        width, height = note_box(text, size)
        top = y - height if note.get("yanchor") == "bottom" else y - height / 2
        colour = str(font.get("color", "#222"))
        box = (f'<rect x="{_num(x - width / 2)}" y="{_num(top)}" width="{_num(width)}" '
               f'height="{_num(height)}" fill="{escape(str(note.get("bgcolor", "none")))}" '
               f'stroke="{escape(str(note.get("bordercolor", "none")))}" '
               f'stroke-width="{_num(1 / px)}"/>')
        words = "".join(_text(x, top + size * (0.15 + 1.25 * k + 0.625), size, colour, line)
                        for k, line in enumerate(lines))
        out.append(f'<g data-role="label">{box}{words}</g>')
    return out


def _extent(traces: list[dict], layout: dict) -> tuple[float, float, float, float]:
    xs = [p[0] for t in traces for p in _points(t) if p is not None]
    ys = [p[1] for t in traces for p in _points(t) if p is not None]
    x0, x1 = (layout.get("xaxis") or {}).get("range") or (min(xs), max(xs))
    return x0, min(ys) - PAD, x1, max(ys) + PAD


def _numbers(layout: dict, box: tuple[float, float, float, float], px: float) -> list[str]:
    """The axes' column numbers above the board and row numbers left of it."""
    x0, y0, _, _ = box
    xaxis, yaxis = layout.get("xaxis") or {}, layout.get("yaxis") or {}
    columns = [(v, y0 - NUMBERS / 2, t) for v, t in zip(xaxis.get("tickvals") or [],
                                                        xaxis.get("ticktext") or [])]
    rows = [(x0 - NUMBERS / 2, v, t) for v, t in zip(yaxis.get("tickvals") or [],
                                                     yaxis.get("ticktext") or [])]
    return [_text(x, y, 11 / px, "#555", t) for x, y, t in columns + rows]


def _named(trace: dict) -> str:
    """A trace's ``meta`` (its role on the board, its side, unit, units, status ...) and its
    points, as the group's attributes: what a page script or a test reads to find a unit, a
    ready frame or a cell the selected unit may move to, as plotly's traces are read by their
    ``meta``. Text and numbers as they are (``data-side="red"``), lists as JSON (ids may hold
    spaces); the points as ``data-at="x,y x,y"``."""
    meta = trace.get("meta") if isinstance(trace.get("meta"), dict) else {}
    if not meta.get("role"):
        return ""
    named = ""
    for key, value in meta.items():
        shown = value if isinstance(value, str) else json.dumps(value)
        named += f' data-{escape(str(key))}="{escape(shown)}"'
    at = " ".join(f"{_num(x)},{_num(y)}" for x, y in filter(None, _points(trace)))
    return f'{named} data-at="{at}"'


def _spec(fig: go.Figure | dict) -> dict:
    """The figure as plain data (a caller that draws the board and its legend converts once)."""
    return fig if isinstance(fig, dict) else fig.to_dict()


def board_svg(fig: go.Figure | dict, width_px: int, title: str = "", kind: str = "still") -> str:
    """``fig`` (a ``board.board_figure``, or its plain ``board_spec``, made for a plot
    ``width_px`` wide) as an SVG document as wide as its container: its viewBox scales the
    whole drawing, so the page's column decides how large a counter is read (``width_px`` only
    turns the figure's pixel sizes into data units); ``title``:
    what a screen reader says it is; ``kind``: "still" for a picture, "live" for the board a
    player clicks (dashboard/board_click.py), written as the svg's ``data-board``."""
    spec = _spec(fig)
    layout = spec.get("layout") or {}
    traces = [t for t in spec.get("data") or [] if t.get("visible", True) is True]
    box = _extent(traces, layout)
    px = width_px / (box[2] - box[0])  # pixels a data unit, as the figure was sized
    parts: list[str] = []
    for trace in traces:
        mode = trace.get("mode") or ""
        body: list[str] = []
        if "lines" in mode:
            body += _lines(trace, px)
        if "markers" in mode:
            body += _markers(trace, px)
        if "text" in mode:
            body += _texts(trace, px)
        if body:
            opacity = trace.get("opacity", 1)
            shade = f' opacity="{_num(opacity)}"' if opacity != 1 else ""
            parts.append(f"<g{shade}{_named(trace)}>")
            parts += body
            parts.append("</g>")
    parts += _annotations(layout, px)
    parts += _numbers(layout, box, px)
    x0, y0, x1, y1 = box[0] - NUMBERS, box[1] - NUMBERS, box[2], box[3]
    view = f"{_num(x0)} {_num(y0)} {_num(x1 - x0)} {_num(y1 - y0)}"
    label = f'<title>{escape(title)}</title>' if title else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view}" width="100%" '
            f'style="height:auto" data-board="{escape(kind)}" role="img" '
            f'font-family="sans-serif">{label}{"".join(parts)}</svg>')


def _swatch(trace: dict) -> str:
    """A legend entry's small picture: a filled shape's colours, a line's, a marker's shape."""
    line = trace.get("line") or {}
    if "markers" in (trace.get("mode") or ""):
        marker = trace.get("marker") or {}
        edge = marker.get("line") or {}
        body = _marker(str(_each(marker.get("symbol"), 0, "circle")), 0.5, 0.5, 0.7, 0,
                       str(_each(marker.get("color"), 0, "#444")),
                       str(_each(edge.get("color"), 0, "none")), 0.08, 1 / 14)
    elif trace.get("fill") == "toself":
        body = (f'<rect x="0.1" y="0.1" width="0.8" height="0.8" '
                f'fill="{escape(str(trace.get("fillcolor", "#ddd")))}" '
                f'stroke="{escape(str(line.get("color", "#444")))}" stroke-width="0.08"/>')
    else:
        body = (f'<path d="M0.05,0.5L0.95,0.5" stroke="{escape(str(line.get("color", "#444")))}" '
                f'stroke-width="0.2"/>')
    return (f'<svg viewBox="0 0 1 1" width="14" height="14" aria-hidden="true" '
            f'style="vertical-align:-2px">{body}</svg>')


def board_legend(fig: go.Figure | dict) -> str:
    """The figure's legend as HTML (plotly draws it under the plot; the SVG leaves it out): one
    entry per trace plotly would list, its small picture and its name, in the figure's order."""
    entries = [t for t in _spec(fig).get("data") or []
               if t.get("showlegend", True) and t.get("name") and t.get("visible", True) is True]
    items = "".join(f'<span role="listitem" style="margin-right:0.9em;white-space:nowrap">'
                    f"{_swatch(t)} {_plain(str(t['name']))}</span>" for t in entries)
    return (f'<div class="board-legend" role="list" aria-label="Legend" '
            f'style="font-size:0.8rem;line-height:1.6;margin-top:0.2rem">{items}</div>')
