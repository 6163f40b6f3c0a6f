"""Unit counters on the board: what a wargamer reads off the table without asking.

Each live unit is a rectangle in its side's colour, drawn in data units so it scales with the
cell, holding its short label, the military map symbol of its type in a frame (NATO-style frame
contents: crossed diagonals for infantry, one diagonal for cavalry, a dot for artillery, ...),
a two- or three-letter code where the symbols have no sign for the type, and what it has left
of its starting strength (pips up to six, a bar beyond), the same way in every rule system.
A pointer at the counter's edge shows its facing; period state (square, limbered, out of
ammunition, ...) sits as small badges up its left edge, where they hide nothing.

Which symbol each type takes is data (dashboard/unit_symbols.toml, read once); how each part
of a symbol is drawn is here. Every kind of mark is one trace for the whole board (or one a
side, where the colour is the side's), never one a unit: the board is redrawn on every click.
"""

from __future__ import annotations

import html
import math
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from warlog.engine.state import SIDES, GameState

SIDE_COLOURS = {"red": "#c62828", "blue": "#1565c0"}
FACING_COLOURS = {"red": "#7f0000", "blue": "#0d2b6b"}
INK = "white"  # symbols, labels and pips, on either side's colour

# The counter's layout, in cell units from the cell's centre (y points down, as drawn). The
# counter fits inside a hex of the board's cells (pointy-top, one unit across the flats).
HALF_W, HALF_H = 0.44, 0.31
# Three rows, each sized for a board read at arm's length (ids >= 10 px and pips >= 6 px high
# with cells of about 44 px, the Play page's board column at 1280 px): the id along the top,
# the symbol's frame (and its code) in the middle, the strength along the foot.
LABEL_Y = -0.165
LABEL_SIZE = 0.26  # the id's font size, in cells
FRAME_HALF = (0.14, 0.075)  # the symbol's frame
FRAME_Y = 0.06
FRAME_X_WITH_CODE = -0.16  # the frame moves left to leave the code room on its right
CODE_X = 0.19
CODE_SIZE = 0.15  # the code's font size, in cells
STRENGTH_Y = 0.228
PIP_SIZE = 0.15  # a pip's diameter, in cells
PIP_STEP = 0.17  # between pips' centres; six share the counter's width, touching
PIP_ROW = 0.86  # cells of the counter's width the pips may take
MAX_PIPS = 6  # more than this to start with: a bar
BAR_HALF = 0.36
BAR_WIDTH = 0.1  # the bar's thickness, in cells
BADGE_STEP = 0.2
LABEL_FIT = 2 * HALF_W - 0.04  # cells of the counter's width an id may take
SQUEEZE = 1.5  # an id up to this much wider than LABEL_FIT is drawn narrower, not shortened
# Advance widths (in ems) of the widest common sans-serif (DejaVu Sans): a label measured with
# them fits in any browser's sans-serif; a character not listed counts as an "m".
_EMS = {**dict.fromkeys("ijl'|", 0.28), **dict.fromkeys("frt-()[] .,:;", 0.4),
        **dict.fromkeys("sczJI", 0.53), **dict.fromkeys("abdeghknopquvxy0123456789_", 0.62),
        **dict.fromkeys("ABCDEFGHKLNOPQRSTUVXYZ&", 0.72), **dict.fromkeys("wMW", 0.9),
        "m": 0.97, "…": 1.0}

STATUS_BADGES = {  # period state (analysis.unit_status) as a badge: plotly marker, colour
    "out of ammunition": ("circle-x", "#5d4037"),
    "square": ("square", "#212121"),
    "column": ("diamond-tall", "#37474f"),
    "limbered": ("hourglass", "#6d4c41"),
    "out of formation": ("star-triangle-up", "#ad1457"),
    "in a trench": ("line-ew", "#4e342e"),
    "hull-down": ("triangle-down", "#33691e"),
    "spotted": ("circle-dot", "#f9a825"),
    "army exhausted": ("hexagon", "#757575"),
    "destroyed by artillery": ("x", "#b71c1c"),
}
_LINE_BADGES = frozenset({"line-ew"})  # drawn by their outline alone: it takes the colour

Point = tuple[float, float]
Drawing = tuple[list[list[Point]], list[list[Point]]]  # (polylines, filled polygons)


@dataclass(frozen=True)
class Symbol:
    """What a counter of one unit type shows: the parts drawn in its frame, and a short code
    ("" for none)."""

    parts: tuple[str, ...]
    code: str


def _ellipse(cx: float, cy: float, rx: float, ry: float, start: float = 0.0,
             end: float = 360.0, n: int = 16) -> list[Point]:
    return [(cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in (start + (end - start) * i / n for i in range(n + 1))]


def _dashed(line: list[Point], pieces: int = 5) -> list[list[Point]]:
    """A straight line broken into dashes (drawn as short lines, so one trace holds them all)."""
    (x0, y0), (x1, y1) = line
    at = [(x0 + (x1 - x0) * i / pieces, y0 + (y1 - y0) * i / pieces) for i in range(pieces + 1)]
    return [[at[i], at[i + 1]] for i in range(0, pieces, 2)]


def _doubled(line: list[Point], gap: float = 0.28) -> list[list[Point]]:
    """A corner-to-corner diagonal as two parallel lines either side of it (heavy troops):
    each copy starts ``gap`` of the frame's half-size along one edge and ends along the other."""
    (x0, y0), (x1, y1) = line
    dx, dy = gap * (x1 - x0) / 2, gap * (y1 - y0) / 2
    return [[(x0 + dx, y0), (x1, y1 - dy)], [(x0, y0 + dy), (x1 - dx, y1)]]


def _diagonals(base: str, w: float, h: float) -> list[list[Point]]:
    """Infantry's two diagonals ("x"), or cavalry's one, lower left to upper right."""
    up = [(-w, h), (w, -h)]
    return [[(-w, -h), (w, h)], up] if base == "x" else [up]


def _part(name: str, w: float, h: float) -> Drawing:
    """One part of a symbol, in data units from the frame's centre (half-size ``w`` by ``h``)."""
    base, _, style = name.partition("_")
    if base in ("x", "diagonal"):
        lines = _diagonals(base, w, h)
        if style == "dashed":
            return [d for line in lines for d in _dashed(line)], []
        if style == "double":
            return [d for line in lines for d in _doubled(line)], []
        return lines, []
    if name == "dot":
        return [], [_ellipse(0, 0, 0.5 * h, 0.5 * h)]
    if name == "oval":
        return [_ellipse(0, 0, 0.68 * w, 0.6 * h)], []
    if name == "mg":
        return [[(0, 0.8 * h), (0, -0.8 * h)], [(-0.35 * w, -0.25 * h), (0, -0.8 * h),
                                                 (0.35 * w, -0.25 * h)]], []
    if name == "wedge":
        return [[(-w, h), (0, -h), (w, h)]], []
    if name == "bow":
        string = [(-0.35 * w, -0.8 * h), (-0.35 * w, 0.8 * h)]
        arc = _ellipse(-0.35 * w, 0, 0.55 * w, 0.8 * h, -90, 90, 10)
        head = [(0.5 * w, -0.4 * h), (0.78 * w, 0), (0.5 * w, 0.4 * h)]
        return [string, arc, [(-0.8 * w, 0), (0.78 * w, 0)], head], []
    if name == "wheels":
        r = 0.4 * h
        return [_ellipse(-0.5 * w, 0.5 * h, r, r, n=10), _ellipse(0.5 * w, 0.5 * h, r, r, n=10)], []
    if name == "flag":
        staff = [(-0.55 * w, 0.85 * h), (-0.55 * w, -0.85 * h)]
        return [staff], [[(-0.55 * w, -0.85 * h), (0.55 * w, -0.4 * h), (-0.55 * w, 0.05 * h)]]
    raise ValueError(f"unit_symbols.toml: no way to draw a symbol part {name!r}")


PARTS = ("x", "x_dashed", "x_double", "diagonal", "diagonal_dashed", "diagonal_double", "dot",
         "oval", "mg", "wedge", "bow", "wheels", "flag")


@cache
def symbol_table() -> Mapping[str, Mapping[str, Symbol]]:
    """Every rule system's unit types and their symbols, read once from unit_symbols.toml;
    a part no code draws is refused here, at the first board, not in the middle of one."""
    text = files("warlog.app.pictures").joinpath("unit_symbols.toml").read_text("utf-8")
    table: dict[str, dict[str, Symbol]] = {}
    for system, types in tomllib.loads(text).items():
        table[system] = {}
        for unit_type, entry in types.items():
            bad = [p for p in entry["parts"] if p not in PARTS]
            if bad:
                raise ValueError(f"unit_symbols.toml: {system}.{unit_type}: unknown part(s) {bad}")
            table[system][unit_type] = Symbol(tuple(entry["parts"]), entry["code"])
    return table


def unit_symbol(system: str, unit_type: str) -> Symbol:
    """The symbol of ``unit_type`` in ``system``; a type the table does not know (a game
    recorded by another version) gets an empty frame and the first letters of its name."""
    known = symbol_table().get(system, {}).get(unit_type)
    return known or Symbol((), unit_type[:3].upper())


@cache
def _drawing(symbol: Symbol) -> Drawing:
    """A symbol's lines and filled shapes, frame included, in data units from the counter's
    centre: built once a symbol, then only moved to each unit's cell."""
    w, h = FRAME_HALF
    fx = FRAME_X_WITH_CODE if symbol.code and symbol.parts else 0.0
    lines = [[(-w, -h), (w, -h), (w, h), (-w, h), (-w, -h)]] if symbol.parts else []
    fills: list[list[Point]] = []
    for part in symbol.parts:
        more_lines, more_fills = _part(part, w, h)
        lines += more_lines
        fills += more_fills
    def moved(shapes: list[list[Point]]) -> list[list[Point]]:
        return [[(x + fx, y + FRAME_Y) for x, y in shape] for shape in shapes]
    return moved(lines), moved(fills)


def text_em(text: str) -> float:
    """How wide ``text`` is drawn, in ems of its font, at most (see _EMS)."""
    return sum(_EMS.get(ch, 0.97) for ch in text)


def short_label(unit_id: str, fit: float = SQUEEZE * LABEL_FIT / LABEL_SIZE) -> str:
    """The id as printed on the counter: whole when it is at most ``fit`` ems wide, else cut
    in the middle, keeping its head and its tail ("r-skirmishers-1" -> "r-sk…s-1",
    "r-thessalians" -> "r-th…ans"): ids are how every event names a unit, and a unit's number
    is at the end. The whole id is in the unit's tooltip."""
    if text_em(unit_id) <= fit:
        return unit_id
    cut = unit_id.rfind("-")
    number = unit_id[cut:] if 0 < cut and len(unit_id) - cut <= 4 else ""
    for keep in range(len(unit_id) - 1, 1, -1):  # characters kept: as many as fit,
        balanced = max(keep // 2, len(number))  # the tail half of them (or the number) ...
        for ends in (balanced, balanced - 1, balanced + 1):  # ... or one off the half
            shown = unit_id[: keep - ends] + "…" + unit_id[len(unit_id) - ends:]
            if keep > ends >= max(len(number), 1) and text_em(shown) <= fit:
                return shown
    return unit_id[0] + "…" + number


def _path(shapes: Iterable[list[Point]], x: float, y: float, xs: list, ys: list) -> None:
    for shape in shapes:
        xs += [x + dx for dx, _ in shape] + [None]
        ys += [y + dy for _, dy in shape] + [None]


def _scatter(**props: Any) -> dict:
    return {"type": "scatter", "hoverinfo": "skip", "showlegend": False, **props}


def side_name(state: GameState, side: str) -> str:
    """The side's name from the scenario, escaped: plotly reads legend text as HTML."""
    spec = state.scenario.sides.get(side)
    return html.escape(spec.name) if spec is not None and spec.name else side


def _bodies(traces: list[dict], state: GameState, side: str, units: Sequence,
            centres: Mapping[str, Point]) -> None:
    """The counters themselves, one filled trace a side (in the legend as the side)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    box = [[(-HALF_W, -HALF_H), (HALF_W, -HALF_H), (HALF_W, HALF_H), (-HALF_W, HALF_H),
            (-HALF_W, -HALF_H)]]
    for u in units:
        _path(box, *centres[u.id], xs, ys)
    traces.append(_scatter(
        x=xs, y=ys, mode="lines", fill="toself", fillcolor=SIDE_COLOURS[side],
        line={"color": FACING_COLOURS[side], "width": 1}, showlegend=True,
        name=f"{side_name(state, side)} ({side})", legendgroup=side,
        meta={"role": "counters", "side": side, "units": [u.id for u in units]}))


def _symbols(traces: list[dict], state: GameState, side: str, units: Sequence,
             centres: Mapping[str, Point], cell_px: float) -> None:
    """The map symbols (lines, then filled dots and pennants), codes and labels of a side's
    units: one trace of each a side, grouped with the side's counters in the legend."""
    symbols = [unit_symbol(state.rule_system, u.type) for u in units]
    xs: list[float | None] = []
    ys: list[float | None] = []
    fx: list[float | None] = []
    fy: list[float | None] = []
    spans = []
    for u, symbol in zip(units, symbols):
        lines, fills = _drawing(symbol)
        start = len(xs)
        _path(lines, *centres[u.id], xs, ys)
        spans.append([start, len(xs)])
        _path(fills, *centres[u.id], fx, fy)
    common = {"legendgroup": side}
    traces.append(_scatter(
        x=xs, y=ys, mode="lines", name=f"{side} map symbols", **common,
        line={"color": INK, "width": max(1.0, cell_px * 0.028)},
        meta={"role": "symbols", "side": side, "units": [u.id for u in units], "spans": spans,
              "parts": [list(s.parts) for s in symbols], "codes": [s.code for s in symbols]}))
    if fx:
        traces.append(_scatter(x=fx, y=fy, mode="lines", fill="toself", fillcolor=INK,
                               line={"color": INK, "width": 1}, **common,
                               name=f"{side} map symbols (filled)",
                               meta={"role": "symbol_fills", "side": side}))
    coded = [(u, s) for u, s in zip(units, symbols) if s.code]
    if coded:
        at = [(centres[u.id][0] + (CODE_X if s.parts else 0.0), centres[u.id][1] + FRAME_Y)
              for u, s in coded]
        traces.append(_scatter(
            x=[p[0] for p in at], y=[p[1] for p in at], mode="text", name=f"{side} type codes",
            text=[s.code for _, s in coded], textposition="middle center", **common,
            textfont={"color": INK, "size": cell_px * CODE_SIZE,
                      "family": "Arial Black, Arial, sans-serif"},
            meta={"role": "codes", "side": side, "units": [u.id for u, _ in coded]}))
    labels = [short_label(u.id) for u in units]
    traces.append(_scatter(
        x=[centres[u.id][0] for u in units], y=[centres[u.id][1] + LABEL_Y for u in units],
        mode="text", text=labels, textposition="middle center",
        # plotly (the PNGs, the report) draws each id as large as fits its counter, never
        # larger than LABEL_SIZE: it cannot squeeze one. The SVG keeps every id LABEL_SIZE high
        # (meta "size") and squeezes the wide ones to "fit" instead (board_svg._text).
        textfont={"color": INK, "size": [cell_px * min(LABEL_SIZE, LABEL_FIT / text_em(label))
                                         for label in labels]}, name=f"{side} labels",
        **common, meta={"role": "labels", "side": side, "units": [u.id for u in units],
                        "fit": LABEL_FIT, "size": cell_px * LABEL_SIZE}))


def _strength(traces: list[dict], side: str, units: Sequence, centres: Mapping[str, Point],
              cell_px: float, strength: Mapping[str, tuple[int, int]]) -> None:
    """What each unit has left of what it started with, the same way in every system: a pip a
    point up to six (filled: left; hollow: lost), a bar beyond (light: left, dark: lost)."""
    pip_x: list[float] = []
    pip_y: list[float] = []
    pip_symbol: list[str] = []
    pip_unit: list[str] = []
    bar: dict[str, tuple[list, list]] = {"full": ([], []), "left": ([], [])}
    pips, bars = [], []
    for u in units:
        x, y = centres[u.id]
        left, full = strength[u.id]
        if full <= MAX_PIPS:
            pips.append(u.id)
            step = min(PIP_STEP, (PIP_ROW - PIP_SIZE) / max(full - 1, 1))
            for i in range(full):
                pip_x.append(x + (i - (full - 1) / 2) * step)
                pip_y.append(y + STRENGTH_Y)
                pip_symbol.append("circle" if i < left else "circle-open")
                pip_unit.append(u.id)
        else:
            bars.append(u.id)
            x0 = x - BAR_HALF
            for key, end in (("full", x0 + 2 * BAR_HALF),
                             ("left", x0 + 2 * BAR_HALF * (left / full if full else 0))):
                bar[key][0].extend([x0, end, None])
                bar[key][1].extend([y + STRENGTH_Y, y + STRENGTH_Y, None])
    if pips:
        traces.append(_scatter(
            x=pip_x, y=pip_y, mode="markers", customdata=pip_unit, name=f"{side} strength",
            marker={"symbol": pip_symbol, "size": cell_px * PIP_SIZE, "color": INK,
                    "line": {"width": 1, "color": INK}}, legendgroup=side,
            meta={"role": "strength_pips", "side": side, "units": pips,
                  "left": [list(strength[uid]) for uid in pips]}))
    for key, colour in (("full", "rgba(0, 0, 0, 0.45)"), ("left", INK)):
        if bars:
            traces.append(_scatter(
                x=bar[key][0], y=bar[key][1], mode="lines", name=f"{side} strength ({key})",
                line={"color": colour, "width": cell_px * BAR_WIDTH}, legendgroup=side,
                meta={"role": "strength_bar", "side": side, "part": key, "units": bars,
                      "left": [list(strength[uid]) for uid in bars]}))


def edge_point(angle: float, beyond: float = 0.05) -> Point:
    """Where a ray from the counter's centre at ``angle`` degrees (anticlockwise from east, as
    the grids give facings) leaves the counter, ``beyond`` further out (y points down)."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    t = min(HALF_W / abs(c) if abs(c) > 1e-9 else math.inf,
            HALF_H / abs(s) if abs(s) > 1e-9 else math.inf) + beyond
    return t * c, -t * s


def _facing(traces: list[dict], state: GameState, side: str, units: Sequence,
            centres: Mapping[str, Point], cell_px: float) -> None:
    """A pointer on the edge of each counter toward its facing (the grid's own facings: four
    on squares, six on hexes and bricks)."""
    tips, turns = [], []
    for u in units:
        a = state.grid.facing_angle(u.facing)
        dx, dy = edge_point(a)
        x, y = centres[u.id]
        tips.append((x + dx, y + dy))
        # plotly turns markers clockwise from "up", in [-180, 180) as its validator writes
        turns.append((90 - a + 180) % 360 - 180)
    traces.append(_scatter(
        x=[t[0] for t in tips], y=[t[1] for t in tips], mode="markers",
        marker={"symbol": "triangle-up", "size": max(6.0, cell_px * 0.2), "angle": turns,
                "color": FACING_COLOURS[side], "line": {"color": INK, "width": 1}},
        customdata=[u.id for u in units], name=f"{side} facing", legendgroup=side,
        meta={"role": "facing", "side": side}))


def _badges(traces: list[dict], state: GameState, centres: Mapping[str, Point], cell_px: float,
            statuses: Mapping[str, Sequence[str]]) -> None:
    """One trace per kind of period state, a badge up the left edge of each counter it applies
    to from its lower corner, clear of the label (in STATUS_BADGES' order, so a unit's badges
    never swap places)."""
    shown = {uid: [s for s in STATUS_BADGES if s in statuses[uid]] for uid in statuses}
    for status, (symbol, colour) in STATUS_BADGES.items():
        units = [u for u in state.alive() if status in shown[u.id]]
        if not units:
            continue
        spots = [(centres[u.id][0] - HALF_W,
                  centres[u.id][1] + HALF_H - BADGE_STEP * shown[u.id].index(status))
                 for u in units]
        edge = colour if symbol in _LINE_BADGES else INK
        traces.append(_scatter(
            x=[p[0] for p in spots], y=[p[1] for p in spots], mode="markers",
            marker={"symbol": symbol, "size": max(7.0, cell_px * 0.22), "color": colour,
                    "line": {"width": 3 if symbol in _LINE_BADGES else 1, "color": edge}},
            customdata=[u.id for u in units], name=status, showlegend=True,
            meta={"role": "status", "status": status, "units": [u.id for u in units]}))


def add_counters(traces: list[dict], state: GameState, cell_px: float,
                 statuses: Mapping[str, Sequence[str]],
                 strength: Mapping[str, tuple[int, int]]) -> None:
    """Every live unit's counter: body, symbol, code, label, strength and facing, one trace of
    each a side (grouped under the side in the legend), then the badges, each over the last. ``statuses`` and ``strength`` (left, started) by unit id:
    worked out once by the caller, which also writes them in the hover text."""
    centres = {u.id: state.grid.centre(u.cell) for u in state.alive()}
    for side in SIDES:
        units = state.alive(side)
        if units:
            _bodies(traces, state, side, units, centres)
            _symbols(traces, state, side, units, centres, cell_px)
            _strength(traces, side, units, centres, cell_px, strength)
            _facing(traces, state, side, units, centres, cell_px)
    _badges(traces, state, centres, cell_px, statuses)
