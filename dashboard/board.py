"""The board as a plotly figure, a pure function of a game state (no Streamlit here).

Keeping the figures out of the page code means they are tested like any other function, and the
CLI or a notebook can draw the same board. Every trace has a stable ``name`` and a ``meta`` dict
(``{"role": "units", "side": "red"}``) so tests and the browser can find it without relying on
trace order.
"""

from __future__ import annotations

import html

import math
from collections.abc import Iterable, Sequence
from typing import Any

import plotly.graph_objects as go

from warlog.engine.analysis import unit_status
from warlog.engine.reach import UnitReach
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.ohw_combat import trench_cells
from warlog.engine.state import SIDES, GameState

SIDE_COLOURS = {"red": "#c62828", "blue": "#1565c0"}
FACING_COLOURS = {"red": "#7f0000", "blue": "#0d2b6b"}
TERRAIN_COLOURS = {  # drawing order too: features over the open ground
    "open": "#f1f4e6",
    "road": "#cdbb99",
    "hill": "#dcc48a",
    "woods": "#6f9a5b",
    "village": "#b98b6a",
    "marsh": "#a3bfa6",
    "ford": "#9fcbe8",
    "river": "#5b9bd5",
    "lake": "#4a86c5",
    "bridge": "#8d6e52",
    "fortification": "#8e8e8e",
    "stream": "#b3d9f2",
    "field": "#e6dca0",
    "hedge": "#4f7a3a",
}
OBJECTIVE_COLOUR = "#f2b705"
ATTACK_COLOURS = {"shooting": "#ef6c00", "melee": "#6a1b9a", "contact": "#6a1b9a",
                  "shell": "#d84315"}
BOARD_PX = 720  # the width the board is sized for: markers are pixels, cells are data units


def _scatter(**props: Any) -> dict:
    """A scatter trace as the dict plotly would serialise it."""
    return {"type": "scatter", **props}


def _polygons(grid, cells: Iterable[tuple[int, int]]) -> tuple[list, list]:
    """x and y of closed polygons separated by None (one trace can then draw many cells)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for cell in cells:
        pts = grid.corners(cell)
        pts.append(pts[0])
        xs += [p[0] for p in pts] + [None]
        ys += [p[1] for p in pts] + [None]
    return xs, ys


def _extent(grid) -> tuple[float, float]:
    """Width and height of the board in drawing units."""
    pts = [p for cell in grid.cells() for p in grid.corners(cell)]
    return max(p[0] for p in pts), max(p[1] for p in pts)


STATUS_SYMBOLS = {  # how period state shows on a unit (a ring or mark around its circle)
    "out of ammunition": ("x-thin-open", "#5d4037"),
    "square": ("square-open", "#212121"),
    "column": ("diamond-tall-open", "#37474f"),
    "limbered": ("hourglass-open", "#6d4c41"),
    "out of formation": ("star-triangle-up-open", "#ad1457"),
    "in a trench": ("line-ew-open", "#4e342e"),
    "hull-down": ("triangle-down-open", "#33691e"),
    "spotted": ("circle-open", "#f9a825"),
    "army exhausted": ("hexagon-open", "#757575"),
    "destroyed by artillery": ("x-open", "#b71c1c"),
}
TRENCH_COLOUR = "#6d4c41"


def unit_number(state: GameState, u) -> str:
    """The number on a unit: hits taken (One Hour Wargames), or strength points left."""
    ruleset = get_ruleset(state.rule_system)
    if ruleset.measure == "strength":
        return str(ruleset.strength(state, u)[0] - u.hits)
    return str(u.hits)


def _unit_hover(state: GameState, u) -> str:
    ruleset = get_ruleset(state.rule_system)
    name = f" ({html.escape(u.name)})" if u.name else ""  # plotly reads hover text as HTML
    terrain = state.scenario.terrain_at(u.cell)
    status = ", ".join(unit_status(state, u))
    if ruleset.measure == "strength":
        count = f"strength {unit_number(state, u)}/{ruleset.strength(state, u)[0]} SP"
    else:
        count = f"hits {u.hits}/{state.options.get('hits_to_remove', '?')}"
    if u.formation is not None:
        count += f" · {u.formation}"
    if u.density is not None:
        count += f"<br>density {u.density}, {u.disordered} figures out of formation"
    return (f"<b>{u.id}</b>{name}<br>{u.type} · {u.side}<br>{count}"
            f"<br>facing {u.facing} · cell ({u.cell[0]}, {u.cell[1]}) {terrain}"
            + (f"<br><i>{status}</i>" if status else ""))


def _add_status(traces: list[dict], state: GameState, size: float) -> None:
    """One trace per kind of period state (out of ammunition, square, trench, hull-down,
    spotted), marking the units it applies to, and the trench cells themselves (under the
    source's reading a trench is wherever a defender's unit stands on open ground)."""
    trenches = trench_cells(state)
    if trenches:
        xs, ys = _polygons(state.grid, trenches)
        traces.append(_scatter(x=xs, y=ys, mode="lines", name="trench", hoverinfo="skip",
                                 line={"color": TRENCH_COLOUR, "width": 3, "dash": "dash"},
                                 meta={"role": "trenches"}))
    marked: dict[str, list] = {}
    for u in state.alive():
        for status in unit_status(state, u):
            marked.setdefault(status, []).append(u)
    for status, (symbol, colour) in STATUS_SYMBOLS.items():
        units = marked.get(status)
        if not units:
            continue
        centres = [state.grid.centre(u.cell) for u in units]
        traces.append(_scatter(
            x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
            marker={"symbol": symbol, "size": size * 1.35, "color": colour,
                    "line": {"width": 3, "color": colour}},
            customdata=[u.id for u in units], name=status, hoverinfo="skip",
            meta={"role": "status", "status": status, "units": [u.id for u in units]}))


def _add_terrain(traces: list[dict], state: GameState) -> None:
    grid, scenario = state.grid, state.scenario
    by_kind: dict[str, list] = {}
    for cell in grid.cells():
        by_kind.setdefault(scenario.terrain_at(cell), []).append(cell)
    kinds = [k for k in TERRAIN_COLOURS if k in by_kind]
    kinds += sorted(set(by_kind) - set(TERRAIN_COLOURS))  # a kind without a colour yet: grey
    for kind in kinds:
        xs, ys = _polygons(grid, by_kind[kind])
        traces.append(_scatter(
            x=xs, y=ys, mode="lines", fill="toself", fillcolor=TERRAIN_COLOURS.get(kind, "#dddddd"),
            line={"color": "rgba(90,90,90,0.35)", "width": 1}, hoverinfo="skip", name=kind,
            meta={"role": "terrain", "terrain": kind}))
    cells = grid.cells()
    centres = [grid.centre(c) for c in cells]
    traces.append(_scatter(  # invisible points so hovering a cell names it
        x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
        marker={"size": 18, "opacity": 0}, showlegend=False, name="cells", meta={"role": "cells"},
        hovertemplate="%{text}<extra></extra>",
        text=[f"({c[0]}, {c[1]}) {scenario.terrain_at(c)}" for c in cells]))
    objectives = [tuple(c) for c in scenario.victory.objectives]
    if objectives:
        xs, ys = _polygons(grid, objectives)
        traces.append(_scatter(x=xs, y=ys, mode="lines", name="objective", hoverinfo="skip",
                                 line={"color": OBJECTIVE_COLOUR, "width": 4},
                                 meta={"role": "objectives"}))


def _add_highlights(traces: list[dict], annotations: list[dict], state: GameState,
                    highlight: Sequence[dict], size: float) -> None:
    grid = state.grid
    for i, h in enumerate(highlight):
        kind = h["kind"]
        if kind == "path":
            pts = [grid.centre(tuple(c)) for c in h["cells"]]
            traces.append(_scatter(
                x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines+markers",
                line={"color": SIDE_COLOURS.get(h.get("side"), "#333"), "width": 4, "dash": "dot"},
                marker={"symbol": ["circle"] + ["arrow"] * (len(pts) - 1), "angleref": "previous",
                        "size": [size * 0.3] + [size * 0.45] * (len(pts) - 1),
                        "color": SIDE_COLOURS.get(h.get("side"), "#333")},
                name=f"move {h['unit']}", hoverinfo="skip", showlegend=False,
                meta={"role": "highlight", "kind": "path", "unit": h["unit"], "index": i}))
        elif kind in ATTACK_COLOURS:
            (x0, y0), (x1, y1) = grid.centre(tuple(h["from"])), grid.centre(tuple(h["to"]))
            traces.append(_scatter(
                x=[x0, x1], y=[y0, y1], mode="lines+markers",
                line={"color": ATTACK_COLOURS[kind], "width": 7 if kind != "shooting" else 3,
                      "dash": "dash" if kind == "shooting" else "solid"},
                marker={"symbol": ["circle", "arrow"], "angleref": "previous",
                        "size": [0, size * 0.5], "color": ATTACK_COLOURS[kind]},
                name=f"{kind} {h['source']}→{h['target']}", hoverinfo="skip", showlegend=False,
                meta={"role": "highlight", "kind": kind, "source": h["source"],
                      "target": h["target"], "index": i}))
            if h.get("label"):  # above the target, where the units' circles do not hide it
                annotations.append({"x": x1, "y": y1 - 0.5, "text": h["label"],
                                    "showarrow": False, "bgcolor": "rgba(255,255,255,0.85)",
                                    "font": {"color": ATTACK_COLOURS[kind], "size": 13},
                                    "bordercolor": ATTACK_COLOURS[kind]})
        elif kind == "removed":
            x, y = grid.centre(tuple(h["cell"]))
            traces.append(_scatter(
                x=[x], y=[y], mode="markers", name=f"removed {h['unit']}", showlegend=False,
                marker={"symbol": "x-thin", "size": size, "line": {"width": 4, "color": "#333"}},
                hovertemplate=f"{h['unit']} removed<extra></extra>",
                meta={"role": "highlight", "kind": "removed", "unit": h["unit"], "index": i}))


# The military map symbols wargamers know, one per kind of unit: (plotly marker, legend name).
TYPE_SYMBOLS = {
    "infantry": ("x-thin", "infantry (crossed lines)"),
    "missile": ("asterisk", "archers, skirmishers (missile foot)"),
    "cavalry": ("line-ne", "cavalry (a diagonal)"),
    "artillery": ("circle", "artillery (a dot)"),
    "machine_guns": ("line-ns", "machine guns"),
    "armour": ("circle-open", "tanks (an oval)"),
    "commander": ("star", "commander"),
}
_KIND_WORDS = (  # the first group whose word appears in a type's name decides its symbol
    ("commander", ("Commander",)),
    ("armour", ("Tanks",)),
    ("machine_guns", ("Machine",)),
    ("artillery", ("Artillery", "Howitzers", "Missile Machines", "Anti-tank")),
    ("cavalry", ("Cavalry", "Knights", "Cuirassiers", "Dragoons", "Cataphracts", "Chariots",
                 "Elephants")),
    ("missile", ("Archers", "Skirmishers")),
)


def symbol_kind(unit_type: str) -> str:
    """Which map symbol a unit type takes (infantry unless its name says otherwise)."""
    return next((kind for kind, words in _KIND_WORDS if any(w in unit_type for w in words)),
                "infantry")


def _add_fallen(traces: list[dict], state: GameState, size: float) -> None:
    """Removed units, faded, where they fell."""
    fallen = [u for u in state.units.values() if u.removed]
    if not fallen:
        return
    centres = [state.grid.centre(u.cell) for u in fallen]
    traces.append(_scatter(
        x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
        marker={"symbol": "circle", "size": size * 0.8, "opacity": 0.25,
                "color": [SIDE_COLOURS[u.side] for u in fallen]},
        customdata=[u.id for u in fallen], name="fallen", showlegend=True,
        hovertemplate="%{customdata} (fallen here)<extra></extra>",
        meta={"role": "fallen", "units": [u.id for u in fallen]}))


def strength_left(state: GameState, u) -> tuple[int, int]:
    """(what the unit has left, what it started with), in its rule system's measure: hits it
    may still take, or strength points."""
    full, lost = get_ruleset(state.rule_system).strength(state, u)
    if get_ruleset(state.rule_system).measure == "strength":
        return max(full - u.hits, 0), full
    return max(full - lost, 0), full


def _add_strength(traces: list[dict], state: GameState) -> None:
    """A bar under each live unit: grey for what it started with, its side's colour for what
    is left."""
    for side in SIDES:
        units = state.alive(side)
        if not units:
            continue
        xs_full: list[float | None] = []
        ys_full: list[float | None] = []
        xs_left: list[float | None] = []
        ys_left: list[float | None] = []
        lefts = []
        for u in units:
            x, y = state.grid.centre(u.cell)
            left, full = strength_left(state, u)
            lefts.append([left, full])
            x0, y0 = x - 0.3, y + 0.36
            xs_full += [x0, x0 + 0.6, None]
            ys_full += [y0, y0, None]
            xs_left += [x0, x0 + 0.6 * (left / full if full else 0), None]
            ys_left += [y0, y0, None]
        traces.append(_scatter(x=xs_full, y=ys_full, mode="lines", hoverinfo="skip",
                                 line={"color": "#bdbdbd", "width": 5}, showlegend=False,
                                 name=f"{side} strength (full)",
                                 meta={"role": "strength_full", "side": side}))
        traces.append(_scatter(x=xs_left, y=ys_left, mode="lines", hoverinfo="skip",
                                 line={"color": SIDE_COLOURS[side], "width": 5}, showlegend=False,
                                 name=f"{side} strength",
                                 meta={"role": "strength", "side": side,
                                       "units": [u.id for u in units], "left": lefts}))


def _add_symbols(traces: list[dict], state: GameState, size: float) -> None:
    """A type symbol beside each live unit's circle, one legend entry per symbol in play."""
    by_kind: dict[str, list] = {}
    for u in state.alive():
        by_kind.setdefault(symbol_kind(u.type), []).append(u)
    for kind, (symbol, name) in TYPE_SYMBOLS.items():
        units = by_kind.get(kind)
        if not units:
            continue
        spots = [state.grid.centre(u.cell) for u in units]
        traces.append(_scatter(
            x=[x - 0.3 for x, _ in spots], y=[y - 0.3 for _, y in spots], mode="markers",
            marker={"symbol": symbol, "size": size * 0.38, "color": "#212121",
                    "line": {"width": 2, "color": "#212121"}},
            customdata=[u.id for u in units], name=name, hoverinfo="skip",
            meta={"role": "symbols", "kind": kind, "units": [u.id for u in units]}))


def _add_units(traces: list[dict], state: GameState, size: float) -> None:
    grid = state.grid
    for side in SIDES:
        units = state.alive(side)
        centres = [grid.centre(u.cell) for u in units]
        traces.append(_scatter(
            x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers+text",
            marker={"symbol": "circle", "size": size, "color": SIDE_COLOURS[side],
                    "line": {"color": "white", "width": 2}},
            text=[unit_number(state, u) for u in units], textfont={"color": "white", "size": 13},
            textposition="middle center", customdata=[u.id for u in units],
            hovertext=[_unit_hover(state, u) for u in units],
            hovertemplate="%{hovertext}<extra></extra>",
            name=f"{side} units", legendgroup=side, meta={"role": "units", "side": side}))
        tips, angles = [], []
        for u, (x, y) in zip(units, centres):
            a = grid.facing_angle(u.facing)
            rad = math.radians(a)
            tips.append((x + 0.38 * math.cos(rad), y - 0.38 * math.sin(rad)))
            # plotly turns markers clockwise from "up", in [-180, 180) as its validator writes
            angles.append((90 - a + 180) % 360 - 180)
        traces.append(_scatter(
            x=[t[0] for t in tips], y=[t[1] for t in tips], mode="markers", hoverinfo="skip",
            marker={"symbol": "triangle-up", "size": size * 0.45, "angle": angles,
                    "color": FACING_COLOURS[side], "line": {"color": "white", "width": 1}},
            customdata=[u.id for u in units], name=f"{side} facing", legendgroup=side,
            showlegend=False, meta={"role": "facing", "side": side}))


REACH_COLOURS = {"zone": "rgba(255, 193, 7, 0.35)", "move": "#2e7d32", "target": "#d50000",
                 "selected": "#ffab00"}


def _add_reach(traces: list[dict], state: GameState, reach: UnitReach, size: float) -> None:
    """The selected unit: a ring around it, its fire zone shaded, a dot on every cell a legal
    move ends on, a ring on every enemy it may attack and a cross on every cell it may bombard."""
    grid, unit = state.grid, state.units[reach.unit]
    if reach.zone_cells:
        xs, ys = _polygons(grid, reach.zone_cells)
        traces.append(_scatter(
            x=xs, y=ys, mode="lines", fill="toself", fillcolor=REACH_COLOURS["zone"],
            line={"color": "rgba(255, 143, 0, 0.8)", "width": 1}, hoverinfo="skip",
            name=f"{reach.unit}: {reach.zone.what}",
            meta={"role": "reach_zone", "unit": reach.unit, "cells": list(reach.zone_cells)}))
    marks = (("moves", reach.moves, "circle", REACH_COLOURS["move"], 0.3, "may move here"),
             ("aimed", reach.aimed_cells, "x-thin-open", REACH_COLOURS["target"], 0.6,
              "may fire at this cell"))
    for role, cells, symbol, colour, scale, words in marks:
        if not cells:
            continue
        centres = [grid.centre(c) for c in cells]
        traces.append(_scatter(
            x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
            marker={"symbol": symbol, "size": size * scale, "color": colour,
                    "line": {"width": 3, "color": colour}},
            name=f"{reach.unit} {words}", hovertemplate=f"{reach.unit} {words}<extra></extra>",
            meta={"role": f"reach_{role}", "unit": reach.unit, "cells": list(cells)}))
    rings = (("selected", [unit], 1.6, "selected"),
             ("target", [state.units[t] for t in reach.targets], 1.5, f"{reach.unit} may attack"))
    for kind, chosen, scale, name in rings:
        if not chosen:
            continue
        colour = REACH_COLOURS[kind]
        centres = [grid.centre(u.cell) for u in chosen]
        traces.append(_scatter(
            x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
            marker={"symbol": "circle-open", "size": size * scale, "color": colour,
                    "line": {"width": 4, "color": colour}},
            name=name, hoverinfo="skip", customdata=[u.id for u in chosen],
            meta={"role": f"reach_{kind}", "unit": reach.unit, "units": [u.id for u in chosen]}))


def clicked_unit(state: GameState, selection: Any) -> str | None:
    """The unit a click on the board picked, or None for a click on no unit. Streamlit reports
    a plotly selection as points with their x, y and customdata: a unit's own marks carry its
    id; a click that lands on the cell under it (the cells' hover points sit at the same
    centres) is matched by position to the live unit there."""
    points = ((selection or {}).get("selection") or {}).get("points") or []
    centres = {state.grid.centre(u.cell): u.id for u in state.alive()}
    for point in points:
        uid = point.get("customdata")
        if isinstance(uid, list) and uid:
            uid = uid[0]
        if isinstance(uid, str) and uid in state.units:
            return uid
        x, y = point.get("x"), point.get("y")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            near = [c for c in centres if abs(c[0] - x) < 1e-6 and abs(c[1] - y) < 1e-6]
            if near:
                return centres[near[0]]
    return None


READY_COLOUR = "#43a047"


def _add_ready(traces: list[dict], state: GameState, ready: Sequence[str], size: float) -> None:
    """A dashed ring on each unit that may act now (the Play page: the units a legal order
    names, engine/vocabulary.py), so a player sees whom to click."""
    units = [state.units[uid] for uid in ready if uid in state.units]
    if not units:
        return
    centres = [state.grid.centre(u.cell) for u in units]
    traces.append(_scatter(
        x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
        marker={"symbol": "circle-open-dot", "size": size * 1.3, "color": READY_COLOUR,
                "line": {"width": 2, "color": READY_COLOUR}},
        name="may act now", hoverinfo="skip", customdata=[u.id for u in units],
        meta={"role": "ready", "units": [u.id for u in units]}))


def board_figure(state: GameState, *, highlight: Sequence[dict[str, Any]] = (),
                 selected: UnitReach | None = None, width_px: int = BOARD_PX,
                 ready: Sequence[str] = ()) -> go.Figure:
    """The board at ``state``: terrain, objectives, live units (circle with their hit count, a
    triangle pointing where they face) and the ``highlight`` marks of the current step (see
    analysis.highlights), and the reach of the ``selected`` unit. Row 0 is at the top, as on
    the table. Markers are sized in pixels, so the figure's height follows the board's shape
    for a plot about ``width_px`` wide. ``ready``: units to mark as able to act now."""
    grid = state.grid
    w, h = _extent(grid)
    cell_px = width_px / w
    height = int(cell_px * h) + 120  # + the column numbers above and the legend below
    size = max(10.0, cell_px * 0.6)
    traces: list[dict] = []
    annotations: list[dict] = []
    _add_terrain(traces, state)
    if selected is not None:
        _add_reach(traces, state, selected, size)
    _add_ready(traces, state, ready, size)
    _add_highlights(traces, annotations, state, highlight, size)
    _add_status(traces, state, size)
    _add_fallen(traces, state, size)
    _add_units(traces, state, size)
    _add_strength(traces, state)
    _add_symbols(traces, state, size)
    for trace in traces:  # a click selects a unit: plotly must not fade the rest of the board
        opacity = trace.get("marker", {}).get("opacity", 1)
        trace["selected"] = trace["unselected"] = {"marker": {"opacity": opacity}}
    row0 = [grid.centre((c, 0)) for c in range(grid.width)]
    col0 = [grid.centre((0, r)) for r in range(grid.height)]
    layout = dict(
        height=height, margin={"l": 30, "r": 10, "t": 10, "b": 10}, plot_bgcolor="white",
        paper_bgcolor="white", hovermode="closest", uirevision=state.game,
        legend={"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0},
        xaxis={"showgrid": False, "zeroline": False, "range": [-0.05, w + 0.05], "side": "top",
               "tickvals": [p[0] for p in row0], "ticktext": [str(c) for c in range(grid.width)]},
        yaxis={"showgrid": False, "zeroline": False, "autorange": "reversed",
               "scaleanchor": "x", "scaleratio": 1,
               "tickvals": [p[1] for p in col0], "ticktext": [str(r) for r in range(grid.height)]},
    )
    if annotations:
        layout["annotations"] = annotations
    # built as plain dicts and handed over unvalidated: plotly's validation of every property
    # was most of a step's cost, and tests/dashboard/test_board.py validates every kind of trace
    return go.Figure({"data": traces, "layout": layout}, _validate=False)
