"""The board as a still SVG picture (warlog/app/pictures/board_svg.py): a translation of the plotly board,
so each test reads the figure the pages draw and requires the same things in the picture:
every cell, every live unit's counter, label, code and hover text, the column and row numbers,
on every grid kind and rule system; and a scenario's text never becomes markup."""

from __future__ import annotations

import html
import json
import math
import re
import xml.etree.ElementTree as ET

import plotly.graph_objects as go
import pytest

from figure_traces import games  # noqa: F401 - the fixture
from warlog.app.pictures import board
from warlog.app.pictures.board_svg import board_legend, board_svg
from warlog.engine import analysis, reach
from warlog.engine.fold import Timeline

NS = "{http://www.w3.org/2000/svg}"
SYSTEMS = ["portable-issus", "frontier-ulundi", "napoleonic-hougoumont", "density-granicus",
           "machine-age-flesquieres-ridge"]


def _picture(state) -> tuple[dict, ET.Element]:
    fig = board.board_figure(state, width_px=board.PAGE_PX)
    return fig.to_dict(), ET.fromstring(board_svg(fig, board.PAGE_PX, title="a board"))


def _traces(spec: dict, role: str) -> list[dict]:
    return [t for t in spec["data"] if (t.get("meta") or {}).get("role") == role]


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<br\s*/?>", "\n", text)))


def _check(state) -> None:
    spec, svg = _picture(state)
    titles = [t.text for t in svg.iter(f"{NS}title")]
    assert titles[0] == "a board"
    cells = [_plain(h) for t in _traces(spec, "cells") for h in t["text"]]
    hovers = [_plain(h) for t in _traces(spec, "units") for h in t["hovertext"]]
    assert titles[1:] == cells + hovers  # each cell names itself, each unit after
    assert len(hovers) == len(state.alive()) and len(cells) == len(state.grid.cells())
    texts = [t.text for t in svg.iter(f"{NS}text")]
    for role in ("labels", "codes"):
        for trace in _traces(spec, role):
            for word in trace["text"]:
                assert _plain(word) in texts, (role, word)
    numbers = {str(n) for n in range(max(state.grid.width, state.grid.height))}
    assert numbers <= set(texts)  # the column and row numbers
    cells = [p for t in _traces(spec, "terrain") for p in t["x"] if p is None]
    drawn = [p for p in svg.iter(f"{NS}path") if p.get("fill") in
             {t.get("fillcolor") for t in _traces(spec, "terrain")}]
    assert len(cells) == state.grid.width * state.grid.height
    assert len(drawn) >= len(cells)  # every cell's polygon (other shapes may share a colour)
    counters = sum(len([p for p in t["x"] if p is None]) for t in _traces(spec, "counters"))
    assert counters == len(state.alive())


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_every_grid_kind_at_its_start_middle_and_end(games, kind):  # noqa: F811
    events, tl = games[kind]
    for index in (0, len(events) // 2, len(events) - 1):
        _check(tl.state_at(index))


@pytest.mark.parametrize("scenario", SYSTEMS)
def test_every_rule_system_mid_game(bundled_games, scenario):
    events = bundled_games[scenario]
    _check(Timeline(events).state_at(len(events) // 2))


def test_a_scenarios_text_stays_text(games):  # noqa: F811
    """Names and types come from scenario files anyone writes: in the picture they are text,
    never elements, and read as written (the board escapes them once for plotly)."""
    events, tl = games["hex"]
    state = tl.state_at(0)
    unit = state.alive()[0]
    unit.name = 'Bob\'s <script>alert("x")</script> & co'
    spec, svg = _picture(state)
    assert not [e for e in svg.iter() if e.tag in (f"{NS}script", "script")]
    tips = [t.text for t in svg.iter(f"{NS}title")]
    assert any(unit.name in tip for tip in tips), tips
    source = board_svg(board.board_figure(state, width_px=board.PAGE_PX), board.PAGE_PX)
    assert "<script" not in source and "&lt;script&gt;" in source


def _at(group: ET.Element) -> list[float]:
    """A group's points, flat: x, y, x, y..."""
    return [float(v) for p in group.get("data-at", "").split() for v in p.split(",")]


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_each_trace_with_a_role_is_a_group_naming_its_role_side_and_points(games, kind):  # noqa: F811
    """What a page script or a browser test reads to find a unit or a cell on the board (as
    plotly's traces are found by their meta): every drawn trace with a role is one group with
    that role, its side and its points in the figure's units, in the figure's order."""
    events, tl = games[kind]
    state = tl.state_at(len(events) // 2)
    fig = board.board_figure(state, selected=reach.unit_reach(state, state.alive()[0].id),
                             ready=[u.id for u in state.alive()], width_px=board.PAGE_PX)
    spec, svg = fig.to_dict(), ET.fromstring(board_svg(fig, board.PAGE_PX))
    groups = [g for g in svg.iter(f"{NS}g") if g.get("data-role")]
    named = [t for t in spec["data"] if (t.get("meta") or {}).get("role")
             and t.get("visible", True) is True]
    drawn = [t for t in named if [g for g in groups if g.get("data-role") == t["meta"]["role"]]]
    assert {t["meta"]["role"] for t in drawn} >= {"units", "cells", "counters", "labels",
                                                  "ready", "reach_selected"}
    for role in {t["meta"]["role"] for t in drawn}:
        traces = [t for t in drawn if t["meta"]["role"] == role]
        mine = [g for g in groups if g.get("data-role") == role]
        for group, trace in zip(mine, traces):  # the whole meta: text as it is, else JSON
            assert {k[5:]: v for k, v in group.attrib.items() if k.startswith("data-")
                    and k != "data-at"} == {k: v if isinstance(v, str) else json.dumps(v)
                                            for k, v in trace["meta"].items()}
        for group, trace in zip(mine, traces):
            points = [v for x, y in zip(trace["x"], trace["y"]) if x is not None for v in (x, y)]
            assert _at(group) == pytest.approx(points, abs=1e-3)
    units = [g for g in groups if g.get("data-role") == "units"]
    drawn_at = sorted(zip(*[iter([v for g in units for v in _at(g)])] * 2))
    centres = sorted(state.grid.centre(u.cell) for u in state.alive())
    assert len(drawn_at) == len(centres)
    for a, b in zip(drawn_at, centres):
        assert a == pytest.approx(b, abs=1e-3)


def test_the_legend_lists_what_plotly_would_list(games):  # noqa: F811
    """The board's legend (under the SVG, which leaves plotly's legend out): one entry a trace
    plotly lists, in its order, each a small picture and its name."""
    events, tl = games["square"]
    state = tl.state_at(len(events) // 2)
    unit = state.alive()[0]
    fig = board.board_figure(state, selected=reach.unit_reach(state, unit.id),
                             ready=[unit.id], width_px=board.PAGE_PX)
    listed = [t.name for t in fig.data if t.showlegend is not False and t.name]
    assert "selected" in listed and "may act now" in listed
    legend = ET.fromstring(board_legend(fig))
    entries = [e for e in legend if e.get("role") == "listitem"]
    assert ["".join(e.itertext()).strip() for e in entries] == [_plain(n) for n in listed]
    assert all(e.find("svg") is not None for e in entries)  # each with its small picture


def test_a_legend_name_stays_text():
    """Trace names hold scenario text (a side's name): read as plotly reads it, never markup."""
    fig = go.Figure([go.Scatter(x=[0], y=[0], mode="markers",
                                name='Rome &amp; <img src=x onerror="alert(1)"> co')])
    legend = ET.fromstring(board_legend(fig))
    assert not [e for e in legend.iter() if e.tag == "img"]
    assert "".join(legend.itertext()).strip() == "Rome &  co"  # the tag dropped, as plotly does


@pytest.mark.parametrize("scenario", SYSTEMS)
def test_the_plain_spec_draws_the_same_board_as_the_figure(bundled_games, scenario):
    """The Play page draws from ``board_spec`` (no figure made and copied): the very SVG and
    legend the figure gives, a unit selected and units ready."""
    events = bundled_games[scenario]
    state = Timeline(events).state_at(len(events) // 2)
    unit = state.alive()[0].id
    drawn = {"selected": reach.unit_reach(state, unit), "ready": [unit], "width_px": 516}
    fig, spec = board.board_figure(state, **drawn), board.board_spec(state, **drawn)
    assert board_svg(spec, 516, kind="live") == board_svg(fig, 516, kind="live")
    assert board_legend(spec) == board_legend(fig)


# Marker symbols: plotly.js's shapes (src/components/drawing/symbol_defs.js), written out here
# independently of warlog/app/pictures/svg_markers.py: each symbol's corner points in units of the
# marker's radius (half its size, x right, y down, turned by no angle) and its arcs' radii.
# (A circle: the two points plotly's circle path goes through; "-dot" adds plotly's dot, a
# diamond half a pixel from the centre.)
S2, S3 = math.sqrt(2), math.sqrt(3)
RX = 0.8 / S2  # plotly's "x": a cross of arms RX wide
ARROW = (2 * math.cos(math.pi / 2.5), 2 * math.sin(math.pi / 2.5))
SHAPES: dict[str, tuple[tuple[tuple[float, float], ...], tuple[float, ...]]] = {
    "circle": (((1, 0), (0, -1)), (1.0,)),
    "square": (((1, 1), (-1, 1), (-1, -1), (1, -1)), ()),
    "triangle-up": (((-2 / S3, 0.5), (2 / S3, 0.5), (0, -1)), ()),
    "triangle-down": (((-2 / S3, -0.5), (2 / S3, -0.5), (0, 1)), ()),
    "diamond": (((1.3, 0), (0, 1.3), (-1.3, 0), (0, -1.3)), ()),
    "diamond-tall": (((0, 1.4), (0.7, 0), (0, -1.4), (-0.7, 0)), ()),
    "hourglass": (((1, 1), (-1, 1), (1, -1), (-1, -1)), ()),
    "hexagon": (((S3 / 2, -0.5), (S3 / 2, 0.5), (0, 1), (-S3 / 2, 0.5), (-S3 / 2, -0.5),
                 (0, -1)), ()),
    "star-triangle-up": (((-0.8 * S3, 0.8), (0.8 * S3, 0.8), (0, -1.6)), (4.0,)),
    "circle-x": (((1 / S2, 1 / S2), (-1 / S2, -1 / S2), (1 / S2, -1 / S2), (-1 / S2, 1 / S2),
                  (1, 0), (0, -1)), (1.0,)),
    "x": (tuple((a * RX, b * RX) for a, b in ((0, 1), (1, 2), (2, 1), (1, 0), (2, -1), (1, -2),
                                               (0, -1), (-1, -2), (-2, -1), (-1, 0), (-2, 1),
                                               (-1, 2))), ()),
    "x-thin": (((1, 1), (-1, -1), (1, -1), (-1, 1)), ()),
    "line-ew": (((1.4, 0), (-1.4, 0)), ()),
    "arrow": (((0, 0), (-ARROW[0], ARROW[1]), (ARROW[0], ARROW[1])), ()),
}
LINE_ONLY = {"x-thin", "line-ew", "line-ns", "line-ne", "line-nw", "cross-thin", "asterisk",
             "hash", "y-up", "y-down", "y-left", "y-right"}  # plotly's noFill symbols
R_PX = 50.0  # the radius the single markers are drawn at, in pixels
PX = 100.0  # pixels a data unit, for a board 200 px wide over x in [-1, 1]


def _base(symbol: str) -> str:
    return symbol.removesuffix("-dot").removesuffix("-open")


def _lone(symbol: str, angle: float = 0.0) -> ET.Element:
    """One marker at (0, 0), R_PX pixels in radius, drawn by board_svg: its element."""
    spec = {"data": [{"type": "scatter", "mode": "markers", "x": [0.0], "y": [0.0],
                      "marker": {"symbol": symbol, "size": 2 * R_PX, "angle": angle,
                                 "color": "#123456", "line": {"width": 2, "color": "#abcdef"}}}],
            "layout": {"xaxis": {"range": [-1.0, 1.0]}}}
    svg = ET.fromstring(board_svg(spec, int(2 * PX)))
    (group,) = [g for g in svg if g.tag == f"{NS}g"]
    (element,) = list(group)
    return element


def _geometry(element: ET.Element, x: float, y: float, r: float):
    """What a marker element draws, from (x, y) in radii ``r``: its corner points (the ends of
    its lines and arcs) and its arcs' radii (a circle: its radius)."""
    tag = element.tag.removeprefix(NS)
    if tag == "circle":
        assert (float(element.get("cx")), float(element.get("cy"))) == pytest.approx((x, y),
                                                                                    abs=1e-3)
        return [(1.0, 0.0), (0.0, -1.0)], [float(element.get("r")) / r]
    if tag == "rect":
        x0, y0 = float(element.get("x")), float(element.get("y"))
        w, h = float(element.get("width")), float(element.get("height"))
        corners = [(x0 + w, y0 + h), (x0, y0 + h), (x0, y0), (x0 + w, y0)]
        return [((a - x) / r, (b - y) / r) for a, b in corners], []
    assert tag == "path", tag
    points, radii = [], []
    for op, args in re.findall(r"([MLAZ])([^MLAZ]*)", element.get("d")):
        values = [float(v) for v in re.split(r"[ ,]+", args.strip()) if v]
        if op == "A":
            radii.append(values[0] / r)
            values = values[5:]
        if values:
            points.append(((values[0] - x) / r, (values[1] - y) / r))
    return points, radii


def _same(drawn, expected, tol: float = 0.015) -> bool:
    """Whether two lists of points (or of numbers) hold the same places, each near one of the
    other's (plotly's dot: four points half a pixel from the centre, all near (0, 0))."""
    def near(a, b):
        return math.dist(a, b) <= tol if isinstance(a, tuple) else abs(a - b) <= tol
    return (all(any(near(d, e) for e in expected) for d in drawn)
            and all(any(near(d, e) for d in drawn) for e in expected))


def _matches(element: ET.Element, symbol: str, x: float, y: float, r: float, px: float) -> None:
    """Whether ``element`` is ``symbol``'s shape at (x, y), ``r`` in radius, ``px`` pixels a
    unit of the picture."""
    points, radii = _geometry(element, x, y, r)
    corners, arcs = SHAPES[_base(symbol)]
    if symbol.endswith("-dot"):
        d = 0.5 / (r * px)
        corners = (*corners, (0, d), (d, 0), (0, -d), (-d, 0))
    assert _same(points, list(corners)) and _same(radii, list(arcs)), (symbol, points, radii)


def _paint(element: ET.Element, symbol: str, colour: str, edge: str) -> None:
    """Plotly's paint: "-open" only an outline in the marker's colour; a line-only symbol
    (x-thin, line-ew ...) its lines in the edge's colour; any other filled with the colour."""
    if "-open" in symbol:
        assert (element.get("fill"), element.get("stroke")) == ("none", colour), symbol
    elif _base(symbol) in LINE_ONLY:
        assert (element.get("fill"), element.get("stroke")) == ("none", edge), symbol
    else:
        assert (element.get("fill"), element.get("stroke")) == (colour, edge), symbol


def _symbols(spec: dict) -> set[str]:
    out = set()
    for trace in spec["data"]:
        if "markers" in (trace.get("mode") or ""):
            symbol = (trace.get("marker") or {}).get("symbol", "circle")
            out |= set(symbol) if isinstance(symbol, list) else {symbol}
    return out


def _every_badge(monkeypatch, state) -> dict:
    """The board of ``state`` with every unit showing every badge counters.py has."""
    from warlog.app.pictures import counters

    monkeypatch.setattr(board, "unit_status", lambda state, unit: list(counters.STATUS_BADGES))
    return board.board_spec(state, width_px=board.PAGE_PX)


def test_every_marker_symbol_a_board_uses_is_drawn_as_that_symbol(bundled_games, monkeypatch):
    """Every symbol on any board: every counters.py badge, and whatever board_spec draws for
    every bundled scenario (a game's every highlight, every live unit's reach selected, the
    units ready), each drawn as plotly draws it: its own shape and proportions, not a circle,
    and filled, outlined or drawn as lines as plotly paints it."""
    from warlog.app.pictures import counters
    from warlog.engine.scenario import bundled_scenarios

    used = {symbol for symbol, _ in counters.STATUS_BADGES.values()}
    for scenario in bundled_scenarios():
        events = bundled_games[scenario.id]
        timeline = Timeline(events)
        steps = analysis.steps(events)
        marks = [m for s in steps for m in analysis.highlights(events[s.first: s.last + 1],
                                                                timeline.state_at(s.last))]
        for state in (timeline.state_at(0), timeline.state_at(len(events) // 2)):
            alive = [u.id for u in state.alive()]
            used |= _symbols(board.board_spec(state, highlight=marks, ready=alive))
            for unit in alive:
                used |= _symbols(board.board_spec(state, selected=reach.unit_reach(state, unit)))
    assert {"triangle-up", "arrow", "x-thin", "circle-open", "square-open"} <= used
    unknown = {s for s in used if _base(s) not in SHAPES}
    assert not unknown, f"symbols the board uses with no expected shape here: {unknown}"
    circle = _lone("circle")
    for symbol in sorted(used):
        element = _lone(symbol)
        _matches(element, symbol, 0.0, 0.0, R_PX / PX, PX)
        _paint(element, symbol, "#123456", "#abcdef")
        if _base(symbol) != "circle":
            assert element.tag != circle.tag, symbol


def test_every_badge_on_a_board_is_its_symbol_where_it_sits(bundled_games, monkeypatch):
    """The badges through the whole board: a state where every unit shows every badge, each
    badge's group holding one shape a unit, its symbol's, centred on the badge's point."""
    from warlog.app.pictures import counters

    events = bundled_games["napoleonic-hougoumont"]
    state = Timeline(events).state_at(len(events) // 2)
    spec = _every_badge(monkeypatch, state)
    x0, x1 = spec["layout"]["xaxis"]["range"]
    px = board.PAGE_PX / (x1 - x0)
    svg = ET.fromstring(board_svg(spec, board.PAGE_PX))
    groups = {g.get("data-status"): g for g in svg.iter(f"{NS}g")
              if g.get("data-role") == "status"}
    assert set(groups) == set(counters.STATUS_BADGES)
    for trace in _traces(spec, "status"):
        symbol = trace["marker"]["symbol"]
        assert symbol == counters.STATUS_BADGES[trace["meta"]["status"]][0]
        r = trace["marker"]["size"] / 2 / px
        shapes = list(groups[trace["meta"]["status"]])
        assert len(shapes) == len(trace["x"]) == len(state.alive())
        for element, x, y in zip(shapes, trace["x"], trace["y"]):
            _matches(element, symbol, x, y, r, px)
            assert element.get("fill") == ("none" if _base(symbol) in LINE_ONLY else
                                            trace["marker"]["color"]), symbol


def test_every_symbol_plotly_knows_is_a_shape_of_its_own():
    """Not only the board's: every symbol name plotly accepts is drawn (none falls back to a
    circle), every base shape differs from every other, "-open" is an outline in the marker's
    colour, "-dot" adds plotly's dot to the same shape."""
    from plotly.validator_cache import ValidatorCache

    names = [v for v in ValidatorCache.get_validator("scatter.marker", "symbol").values
             if isinstance(v, str) and not v.isdigit()]
    assert len(names) > 100
    drawn = {name: _lone(name) for name in names}
    bases = [n for n in names if _base(n) == n]
    outlines = {ET.tostring(drawn[n]) for n in bases}
    assert len(outlines) == len(bases)  # 55 shapes, none the same as another
    for name in names:
        _paint(drawn[name], name, "#123456", "#abcdef")
        if _base(name) != "circle":
            assert drawn[name].tag == f"{NS}path" or _base(name) == "square", name
        if name.endswith("-dot"):  # the same corners and arcs, and the dot
            points, radii = _geometry(drawn[name], 0, 0, R_PX / PX)
            plain, arcs = _geometry(drawn[name.removesuffix("-dot")], 0, 0, R_PX / PX)
            assert _same(points, plain + [(0.0, 0.0)]) and _same(radii, arcs), name
            assert not _same(plain, plain + [(0.0, 0.0)]), name  # (no shape has a corner there)


def test_a_marker_turns_by_its_angle_as_plotly_turns_it():
    """Clockwise from up, on a y axis that runs down the screen: a triangle turned 90 degrees
    points right; an arrow's tip is its point, its body behind it."""
    r = R_PX / PX
    points, _ = _geometry(_lone("triangle-up", angle=90), 0, 0, r)
    assert _same(points, [(-0.5, -2 / S3), (-0.5, 2 / S3), (1, 0)])
    points, _ = _geometry(_lone("arrow", angle=180), 0, 0, r)
    assert _same(points, [(0, 0), (ARROW[0], -ARROW[1]), (-ARROW[0], -ARROW[1])])


@pytest.mark.parametrize("symbol", ["no-such-shape", "hourglass-dot", "circle-closed"])
def test_a_symbol_plotly_does_not_know_is_refused(symbol):
    """A name plotly would refuse (hourglass has no dotted form) is refused by name, not
    drawn as a circle that hides the mistake."""
    with pytest.raises(ValueError, match=symbol):
        _lone(symbol)
