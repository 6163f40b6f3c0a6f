"""The board as a still SVG picture (dashboard/board_svg.py): a translation of the plotly board,
so each test reads the figure the pages draw and requires the same things in the picture:
every cell, every live unit's counter, label, code and hover text, the column and row numbers,
on every grid kind and rule system; and a scenario's text never becomes markup."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET

import plotly.graph_objects as go
import pytest

from figure_traces import games  # noqa: F401 - the fixture
from warlog.dashboard import board
from warlog.dashboard.board_svg import board_legend, board_svg
from warlog.engine import reach
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
