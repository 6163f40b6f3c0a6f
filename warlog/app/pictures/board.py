"""The board as plotly's data (``board_spec``) or figure, a pure function of a game state (no
Streamlit here).

Keeping the drawing out of the page code means it is tested like any other function, and the
CLI, a notebook, the report and the pages' SVG (warlog/app/pictures/board_svg.py) draw the same board.
Every trace has a stable ``name`` and a ``meta`` dict (``{"role": "units", "side": "red"}``) so
tests and the browser can find it without relying on trace order. The units' counters are drawn
by warlog/app/pictures/counters.py; here are the terrain, the marks of a step and of a selected unit, and
each unit's hover text (on a marker the size of its counter).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

import plotly.graph_objects as go

# SIDE_COLOURS: the charts take the sides' colours from here
from warlog.app.pictures.board_svg import note_box
from warlog.app.pictures.counters import HALF_H, HALF_W, SIDE_COLOURS, add_counters, side_name
from warlog.engine.analysis import MELEE_MARK, SHOT_MARK, unit_status
from warlog.engine.reach import UnitReach
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import SIDES, GameState

# Drawing order too (features over the open ground). Every kind is far from every other (at
# least 20 in CIELAB, tests/dashboard/test_board.py): road and hill once were two near tans.
TERRAIN_COLOURS = {
    "open": "#f1f4e6",
    "road": "#b9b4ad",
    "hill": "#e0ad55",
    "woods": "#6f9a5b",
    "village": "#c0705a",
    "marsh": "#a9d394",
    "ford": "#bcdcf5",
    "river": "#7ab4e3",
    "lake": "#4a7fb8",
    "bridge": "#7d5a3c",
    "fortification": "#6f6f7a",
    "stream": "#5cc4c8",
    "field": "#ede48e",
    "hedge": "#3b5e2b",
}
OBJECTIVE_COLOUR = "#f2b705"
ATTACK_COLOURS = {SHOT_MARK: "#ef6c00", MELEE_MARK: "#6a1b9a", "contact": "#6a1b9a",
                  "shell": "#d84315"}
# A mark with ``"variant": "alternative"`` is an order that was not played (the Review page's
# better order found): drawn dashed in its own colour, far from both sides' and the attacks'.
ALTERNATIVE_COLOUR = "#00897b"
ALTERNATIVE_LEGEND = "better order found"
BOARD_PX = 720  # the width the board is sized for: markers are pixels, cells are data units
# The board's width in the pages' board column at 1280x800 (the Play page, navigation on top):
# the figure's pixel sizes (lines, markers, fonts) are for that width. The SVG is drawn as wide
# as the column is (warlog/app/pictures/board_svg.py), so a narrower or wider column scales them all.
PAGE_PX = 660
TOP_PX = 34  # room above the board for its column numbers


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


TRENCH_COLOUR = "#6d4c41"


def strength_left(state: GameState, u) -> tuple[int, int]:
    """(what the unit has left, what it started with), in its rule system's measure: hits it
    may still take, or strength points."""
    full, lost = get_ruleset(state.rule_system).strength(state, u)
    if get_ruleset(state.rule_system).measure == "strength":
        return max(full - u.hits, 0), full
    return max(full - lost, 0), full


def _may_do(state: GameState, u) -> str:
    """How far the unit moves and how it reaches an enemy, from its type's row in the rule
    system's table and the system's own fire zone (the words the rules use for it)."""
    ruleset = get_ruleset(state.rule_system)
    own_words = getattr(ruleset, "move_words", None)  # a system whose allowance is no row's
    move = own_words(state, u) if own_words is not None else None
    if move is None:
        cells = ruleset.row(state, u)["move"]
        move = f"moves up to {cells} cell{'s' * (cells != 1)}" if cells else "does not move"
    zone = ruleset.fire_zone(state, u)
    if zone is None:
        reach = "strikes only in contact"
    elif zone.ahead_only or zone.near == zone.far:
        reach = zone.what if zone.ahead_only else f"{zone.what} {zone.far} cell{'s' * (zone.far != 1)}"
    else:
        reach = f"{zone.what} {zone.near}-{zone.far} cells"
    return f"{html.escape(move)}<br>{html.escape(reach)}"


def _unit_hover(state: GameState, u, statuses: Sequence[str], strength: tuple[int, int]) -> str:
    """Everything a player asks about a unit: plotly reads hover text as HTML, so every string
    from a scenario is escaped."""
    e = html.escape
    name = f" ({e(u.name)})" if u.name else ""
    left, full = strength
    count = f"strength {left}/{full}"
    if get_ruleset(state.rule_system).measure == "hits":
        count += f" ({u.hits} hit{'s' * (u.hits != 1)} taken)"
    state_words = list(statuses)
    state_words += [word for word in u.state_words() if word not in state_words]
    terrain = state.scenario.terrain_at(u.cell)
    return (f"<b>{e(u.id)}</b>{name}<br>{e(u.type)} · {side_name(state, u.side)} ({u.side})"
            f"<br>{count}" + (f"<br><i>{e(', '.join(state_words))}</i>" if state_words else "")
            + f"<br>cell ({u.cell[0]}, {u.cell[1]}) {e(terrain)} · facing {u.facing}"
            + f"<br>{_may_do(state, u)}")


def _add_trenches(traces: list[dict], state: GameState) -> None:
    """The trench cells (under the source's reading a trench is wherever a defender's unit
    stands on open ground); the units in them carry a badge too."""
    trench_cells = getattr(get_ruleset(state.rule_system), "trench_cells", None)
    trenches = trench_cells(state) if trench_cells is not None else []
    if trenches:
        xs, ys = _polygons(state.grid, trenches)
        traces.append(_scatter(x=xs, y=ys, mode="lines", name="trench", hoverinfo="skip",
                                 line={"color": TRENCH_COLOUR, "width": 3, "dash": "dash"},
                                 meta={"role": "trenches"}))


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


LABEL_PX = 12  # a result label's font
LABEL_GAP = 0.03  # cells between a result label and the counter it names


Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def counter_box(x: float, y: float) -> Box:
    """The box of a counter centred on (x, y)."""
    return (x - HALF_W, y - HALF_H, x + HALF_W, y + HALF_H)


def _label_spot(box: tuple[float, float], at: tuple[float, float], taken: Sequence[Box],
                bounds: Box) -> tuple[float, float]:
    """Where the centre of a result label ``box`` (width, height) goes for the counter at
    ``at``: the nearest of the spots above, below and beside it, then a step further out each
    time, whose box is on the board and covers nothing ``taken`` (the live counters, the labels
    placed before it). A board with no such spot (none of the bundled ones) takes the last
    spot on the board tried."""
    (bw, bh), (x, y) = box, at
    up, side = HALF_H + LABEL_GAP + bh / 2, HALF_W + LABEL_GAP + bw / 2
    fallback = (x, y - up)
    for far in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0):
        for dx, dy in ((0, -up - far), (0, up + far), (side + far, 0), (-side - far, 0),
                       (side / 2 + far, -up - far), (-side / 2 - far, -up - far),
                       (side / 2 + far, up + far), (-side / 2 - far, up + far)):
            cx, cy = x + dx, y + dy
            spot = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
            if not (bounds[0] <= spot[0] and spot[2] <= bounds[2] and bounds[1] <= spot[1]
                    and spot[3] <= bounds[3]):
                continue
            fallback = (cx, cy)
            if not any(_overlaps(spot, t) for t in taken):
                return cx, cy
    return fallback


def _add_leaders(traces: list[dict], labels: Sequence[tuple[Box, tuple[float, float]]]) -> None:
    """A thin line from each result label to the counter it names, between their nearest
    edges (none when they touch)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for (x0, y0, x1, y1), (x, y) in labels:
        near = (min(max(x, x0), x1), min(max(y, y0), y1))  # the label's point nearest the unit
        c = counter_box(x, y)
        mid = ((x0 + x1) / 2, (y0 + y1) / 2)
        end = (min(max(mid[0], c[0]), c[2]), min(max(mid[1], c[1]), c[3]))
        if abs(near[0] - end[0]) + abs(near[1] - end[1]) > 2 * LABEL_GAP:
            xs += [near[0], end[0], None]
            ys += [near[1], end[1], None]
    if xs:
        traces.append(_scatter(x=xs, y=ys, mode="lines", name="result labels",
                               line={"color": "#555555", "width": 1.5}, hoverinfo="skip",
                               showlegend=False, meta={"role": "label_leaders"}))


def _add_highlights(traces: list[dict], annotations: list[dict], state: GameState,
                    highlight: Sequence[dict], size: float, px: float) -> None:
    """The step's marks over everything: moves' paths, attacks' lines with their result
    labels (placed off every counter, a leader to the target when not beside it), removals.
    ``px``: pixels a data unit, to size the labels' boxes as they are drawn."""
    grid = state.grid
    counters = [counter_box(*grid.centre(u.cell)) for u in state.alive()]
    bounds = (0.0, 0.0, *_extent(grid))
    labels: list[tuple[Box, tuple[float, float]]] = []
    for i, h in enumerate(highlight):
        kind = h["kind"]
        alt = h.get("variant") == "alternative"
        variant = {"variant": "alternative"} if alt else {}
        if kind == "path":
            pts = [grid.centre(tuple(c)) for c in h["cells"]]
            colour = ALTERNATIVE_COLOUR if alt else SIDE_COLOURS.get(h.get("side"), "#333")
            traces.append(_scatter(
                x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines+markers",
                line={"color": colour, "width": 4, "dash": "dash" if alt else "dot"},
                marker={"symbol": ["circle"] + ["arrow"] * (len(pts) - 1), "angleref": "previous",
                        "size": [size * 0.3] + [size * 0.45] * (len(pts) - 1),
                        "color": colour},
                name=f"move {h['unit']}", hoverinfo="skip", showlegend=False,
                meta={"role": "highlight", "kind": "path", "unit": h["unit"], "index": i,
                      **variant}))
        elif kind in ATTACK_COLOURS:
            (x0, y0), (x1, y1) = grid.centre(tuple(h["from"])), grid.centre(tuple(h["to"]))
            colour = ALTERNATIVE_COLOUR if alt else ATTACK_COLOURS[kind]
            traces.append(_scatter(
                x=[x0, x1], y=[y0, y1], mode="lines+markers",
                line={"color": colour, "width": 7 if kind != SHOT_MARK else 3,
                      "dash": "dash" if kind == SHOT_MARK or alt else "solid"},
                marker={"symbol": ["circle", "arrow"], "angleref": "previous",
                        "size": [0, size * 0.5], "color": colour},
                name=f"{kind} {h['source']}→{h['target']}", hoverinfo="skip", showlegend=False,
                meta={"role": "highlight", "kind": kind, "source": h["source"],
                      "target": h["target"], "index": i, **variant}))
            if h.get("label"):  # beside the target's counter, hiding no counter
                box = note_box(h["label"], LABEL_PX / px)
                cx, cy = _label_spot(box, (x1, y1), counters + [b for b, _ in labels], bounds)
                labels.append(((cx - box[0] / 2, cy - box[1] / 2, cx + box[0] / 2,
                                cy + box[1] / 2), (x1, y1)))
                annotations.append({"x": cx, "y": cy, "text": h["label"],
                                    "showarrow": False, "bgcolor": "rgba(255,255,255,0.85)",
                                    "font": {"color": colour, "size": LABEL_PX},
                                    "bordercolor": colour})
        elif kind == "removed":
            x, y = grid.centre(tuple(h["cell"]))
            traces.append(_scatter(
                x=[x], y=[y], mode="markers", name=f"removed {h['unit']}", showlegend=False,
                marker={"symbol": "x-thin", "size": size, "line": {"width": 4, "color": "#333"}},
                hovertemplate=f"{h['unit']} removed<extra></extra>",
                meta={"role": "highlight", "kind": "removed", "unit": h["unit"], "index": i}))
    _add_leaders(traces, labels)
    if any(h.get("variant") == "alternative" for h in highlight):  # its legend entry, once
        traces.append(_scatter(x=[None], y=[None], mode="lines", name=ALTERNATIVE_LEGEND,
                               line={"color": ALTERNATIVE_COLOUR, "width": 4, "dash": "dash"},
                               hoverinfo="skip", showlegend=True,
                               meta={"role": "legend", "variant": "alternative"}))


def _add_fallen(traces: list[dict], state: GameState, cell_px: float) -> None:
    """Removed units, faded, where they fell."""
    fallen = [u for u in state.units.values() if u.removed]
    if not fallen:
        return
    centres = [state.grid.centre(u.cell) for u in fallen]
    traces.append(_scatter(
        x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
        marker={"symbol": "square", "size": 1.6 * HALF_W * cell_px, "opacity": 0.25,
                "color": [SIDE_COLOURS[u.side] for u in fallen]},
        customdata=[u.id for u in fallen], name="fallen", showlegend=True,
        hovertemplate="%{customdata} (fallen here)<extra></extra>",
        meta={"role": "fallen", "units": [u.id for u in fallen]}))


def _add_units(traces: list[dict], state: GameState, cell_px: float,
               statuses: dict[str, list[str]], strength: dict[str, tuple[int, int]]) -> None:
    """A nearly transparent marker the size of each counter at its centre (its id in
    customdata): what hovering the unit explains, in plotly and in the SVG's tooltips."""
    for side in SIDES:
        units = state.alive(side)
        centres = [state.grid.centre(u.cell) for u in units]
        traces.append(_scatter(
            x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
            marker={"symbol": "square", "size": 2 * HALF_W * cell_px, "opacity": 0.01,
                    "color": SIDE_COLOURS[side]},
            customdata=[u.id for u in units],
            hovertext=[_unit_hover(state, u, statuses[u.id], strength[u.id]) for u in units],
            hovertemplate="%{hovertext}<extra></extra>", showlegend=False,
            name=f"{side} units", legendgroup=side, meta={"role": "units", "side": side}))


REACH_COLOURS = {"zone": "rgba(255, 193, 7, 0.35)", "move": "#2e7d32", "target": "#d50000",
                 "selected": "#ffab00"}


def _add_reach_cells(traces: list[dict], state: GameState, reach: UnitReach,
                     size: float) -> None:
    """Under the counters, the selected unit's fire zone shaded, a dot on every cell a legal
    move ends on and a cross on every cell it may bombard."""
    grid = state.grid
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


def _add_reach_rings(traces: list[dict], state: GameState, reach: UnitReach,
                     cell_px: float) -> None:
    """Over the counters, a ring round the selected unit and one round every enemy it may
    attack (rings a little wider than a counter, so they cross only its corners)."""
    rings = (("selected", [state.units[reach.unit]], 1.15, "selected"),
             ("target", [state.units[t] for t in reach.targets], 1.08,
              f"{reach.unit} may attack"))
    for kind, chosen, scale, name in rings:
        if not chosen:
            continue
        colour = REACH_COLOURS[kind]
        centres = [state.grid.centre(u.cell) for u in chosen]
        traces.append(_scatter(
            x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
            marker={"symbol": "circle-open", "size": cell_px * scale, "color": colour,
                    "line": {"width": 4, "color": colour}},
            name=name, hoverinfo="skip", customdata=[u.id for u in chosen],
            meta={"role": f"reach_{kind}", "unit": reach.unit, "units": [u.id for u in chosen]}))


READY_COLOUR = "#43a047"


def _add_ready(traces: list[dict], state: GameState, ready: Sequence[str],
               cell_px: float) -> None:
    """A frame round each unit that may act now (the Play page: the units a legal order names,
    engine/vocabulary.py), so a player sees whom to click."""
    units = [state.units[uid] for uid in ready if uid in state.units]
    if not units:
        return
    centres = [state.grid.centre(u.cell) for u in units]
    traces.append(_scatter(
        x=[p[0] for p in centres], y=[p[1] for p in centres], mode="markers",
        marker={"symbol": "square-open", "size": cell_px * 0.96, "color": READY_COLOUR,
                "line": {"width": 3, "color": READY_COLOUR}},
        name="may act now", hoverinfo="skip", customdata=[u.id for u in units],
        meta={"role": "ready", "units": [u.id for u in units]}))


def _legend_room(traces: list[dict], width_px: float) -> int:
    """Pixels under the board for its legend, reserved in the layout: a legend that does not
    fit makes plotly draw the whole figure, grow the margin and draw it all again, on every
    redraw (the report's steps; once a page drew its board with plotly, a third of a click's
    repaint). Its rows are counted as plotly lays them out across
    the plot's ``width_px`` (an entry about 42 px and 6 px a letter wide, a row up to 29 px
    high), measured in chromium on every bundled scenario's board; a legend wider than counted still fits, plotly then growing
    the margin itself at the cost of that second drawing."""
    rows, used = 0, 0.0
    for trace in traces:
        if trace.get("showlegend", True) is False:
            continue
        width = 42 + 6 * len(trace.get("name") or "")
        if rows == 0 or used + width > width_px:
            rows, used = rows + 1, 0.0
        used += width
    return 28 + 29 * rows if rows else 10


def board_figure(state: GameState, *, highlight: Sequence[dict[str, Any]] = (),
                 selected: UnitReach | None = None, width_px: int = BOARD_PX,
                 ready: Sequence[str] = ()) -> go.Figure:
    """``board_spec`` as a plotly figure (the PNG pictures, the HTML report)."""
    # built as plain dicts and handed over unvalidated: plotly's validation of every property
    # was most of a step's cost, and tests/dashboard/test_board.py validates every kind of trace
    return go.Figure(board_spec(state, highlight=highlight, selected=selected,
                                width_px=width_px, ready=ready), _validate=False)


def board_spec(state: GameState, *, highlight: Sequence[dict[str, Any]] = (),
               selected: UnitReach | None = None, width_px: int = BOARD_PX,
               ready: Sequence[str] = ()) -> dict[str, Any]:
    """The board at ``state`` as plotly's plain data (``{"data": traces, "layout": ...}``,
    what the SVG board reads with no figure made and copied: warlog/app/pictures/board_svg.py): terrain,
    objectives, the live units' counters (warlog/app/pictures/counters.py), the fallen faded where they
    fell, the reach of the ``selected`` unit and, over everything, the ``highlight`` marks of
    the current step (see analysis.highlights).
    Row 0 is at the top, as on the table. Counters are drawn in data units, markers and text
    in pixels, so the figure's height follows the board's shape for a plot about
    ``width_px`` wide. ``ready``: units to mark as able to act now."""
    grid = state.grid
    w, h = _extent(grid)
    cell_px = width_px / w
    size = max(10.0, cell_px * 0.6)
    traces: list[dict] = []
    annotations: list[dict] = []
    alive = state.alive()
    statuses = {u.id: unit_status(state, u) for u in alive}
    strength = {u.id: strength_left(state, u) for u in alive}
    _add_terrain(traces, state)
    if selected is not None:
        _add_reach_cells(traces, state, selected, size)
    _add_trenches(traces, state)
    _add_fallen(traces, state, cell_px)
    add_counters(traces, state, cell_px, statuses, strength)
    _add_units(traces, state, cell_px, statuses, strength)
    _add_ready(traces, state, ready, cell_px)
    if selected is not None:
        _add_reach_rings(traces, state, selected, cell_px)
    _add_highlights(traces, annotations, state, highlight, size, width_px / (w + 0.1))
    bottom = _legend_room(traces, width_px)
    height = int(cell_px * h) + TOP_PX + bottom + 10
    row0 = [grid.centre((c, 0)) for c in range(grid.width)]
    col0 = [grid.centre((0, r)) for r in range(grid.height)]
    layout = dict(
        height=height, margin={"l": 30, "r": 10, "t": TOP_PX, "b": bottom}, plot_bgcolor="white",
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
    return {"data": traces, "layout": layout}
