"""The board (dashboard/board.py) on real games of every grid kind."""

from __future__ import annotations

import math

import pytest

from figure_traces import games, one, sample_states, traces  # noqa: F401 (games: a fixture)
from warlog.dashboard import board
from warlog.engine import analysis
from warlog.engine.fold import Timeline


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_one_marker_per_live_unit_at_its_cell_in_its_colour(games, kind):
    events, tl = games[kind]
    for state in sample_states(events, tl):
        fig = board.board_figure(state)
        for side in ("red", "blue"):
            alive = state.alive(side)
            units = one(fig, "units", side=side)
            assert list(units.customdata) == [u.id for u in alive]
            for u, x, y in zip(alive, units.x, units.y):
                assert (x, y) == pytest.approx(state.grid.centre(u.cell))
            assert units.marker.color == board.SIDE_COLOURS[side]
            assert list(units.text) == [str(u.hits) for u in alive]
            limit = state.options["hits_to_remove"]
            for u, hover in zip(alive, units.hovertext):
                assert u.id in hover and u.type in hover and f"hits {u.hits}/{limit}" in hover
    assert any(u.removed for u in state.units.values()), "the last state has removed units"
    drawn = {uid for t in traces(board.board_figure(state), "units") for uid in t.customdata}
    assert drawn == {u.id for u in state.alive()}


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_facing_triangles_point_the_way_units_face(games, kind):
    events, tl = games[kind]
    state = sample_states(events, tl)[1]
    fig = board.board_figure(state)
    for side in ("red", "blue"):
        facing = one(fig, "facing", side=side)
        for u, x, y, turn in zip(state.alive(side), facing.x, facing.y, facing.marker.angle):
            cx, cy = state.grid.centre(u.cell)
            angle = math.degrees(math.atan2(-(y - cy), x - cx))  # drawing y points down
            expected = state.grid.facing_angle(u.facing)
            assert (angle - expected + 180) % 360 - 180 == pytest.approx(0, abs=1e-6)
            assert (turn - (90 - expected) + 180) % 360 - 180 == pytest.approx(0, abs=1e-6)


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_terrain_fills_every_cell_once_with_a_legend_of_kinds_present(games, kind):
    events, tl = games[kind]
    state = tl.state_at(0)
    fig = board.board_figure(state)
    present = {state.scenario.terrain_at(c) for c in state.grid.cells()}
    terrain = traces(fig, "terrain")
    assert {t.name for t in terrain} == present
    assert all(t.showlegend is not False for t in terrain)
    polygons = sum(list(t.x).count(None) for t in terrain)
    assert polygons == state.grid.width * state.grid.height
    corners = len(state.grid.corners((0, 0)))
    for t in terrain:
        assert t.fillcolor == board.TERRAIN_COLOURS[t.name]
        assert len(t.x) == (corners + 2) * list(t.x).count(None)  # closed ring + the gap
    objectives = state.scenario.victory.objectives
    if objectives:
        assert list(one(fig, "objectives").x).count(None) == len(objectives)


def test_board_axes_put_row_zero_on_top_with_equal_aspect(games):
    events, tl = games["square"]
    layout = board.board_figure(tl.state_at(0)).layout
    assert layout.yaxis.autorange == "reversed"
    assert layout.yaxis.scaleanchor == "x" and layout.yaxis.scaleratio == 1
    assert layout.xaxis.showgrid is False and layout.yaxis.showgrid is False
    assert list(layout.xaxis.ticktext) == [str(c) for c in range(tl.final.grid.width)]


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_highlights_draw_paths_and_attack_lines_between_centres(games, kind):
    events, tl = games[kind]
    seen = set()
    for step in analysis.steps(events):
        state = tl.state_at(step.last)
        marks = analysis.highlights(events[step.first : step.last + 1], state)
        if not {m["kind"] for m in marks} - seen:  # draw only steps that show something new
            continue
        fig = board.board_figure(state, highlight=marks)
        drawn = traces(fig, "highlight")
        assert [t.meta["index"] for t in drawn] == list(range(len(marks)))
        for mark, t in zip(marks, drawn):
            seen.add(mark["kind"])
            if mark["kind"] == "path":
                centres = [state.grid.centre(c) for c in mark["cells"]]
                assert list(t.x) == pytest.approx([c[0] for c in centres])
                assert list(t.y) == pytest.approx([c[1] for c in centres])
            elif mark["kind"] in ("shooting", "melee", "contact"):
                assert (t.x[0], t.y[0]) == pytest.approx(state.grid.centre(mark["from"]))
                assert (t.x[-1], t.y[-1]) == pytest.approx(state.grid.centre(mark["to"]))
            else:
                assert (t.x[0], t.y[0]) == pytest.approx(state.grid.centre(mark["cell"]))
    assert {"path", "melee", "removed"} <= seen


@pytest.mark.parametrize("unit_type,kind", [
    ("Infantry", "infantry"), ("Heavy Infantry", "infantry"), ("Cavalry", "cavalry"),
    ("Knights", "cavalry"), ("Light Cavalry with bows", "cavalry"), ("Archers", "missile"),
    ("Persian Archers", "missile"), ("Field Artillery", "artillery"), ("Howitzers", "artillery"),
    ("Anti-tank guns", "artillery"), ("Tanks", "armour"), ("Machine Guns", "machine_guns"),
    ("Commander", "commander"), ("War Elephants", "cavalry"), ("Legionaries", "infantry"),
])
def test_each_unit_type_takes_its_map_symbol(unit_type, kind):
    assert board.symbol_kind(unit_type) == kind


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_units_carry_their_type_symbol_and_the_fallen_stay_faded_where_they_fell(games, kind):
    events, tl = games[kind]
    state = tl.state_at(len(events) - 1)
    fig = board.board_figure(state)
    symbols = traces(fig, "symbols")
    assert sorted(u for t in symbols for u in t.meta["units"]) == sorted(u.id for u in state.alive())
    for t in symbols:
        assert all(board.symbol_kind(state.units[u].type) == t.meta["kind"] for u in t.meta["units"])
        assert t.showlegend is not False and t.name  # each symbol is in the legend
    fallen = [u for u in state.units.values() if u.removed]
    assert fallen  # the end of a bot game: some units fell
    trace = one(fig, "fallen")
    assert trace.meta["units"] == [u.id for u in fallen]
    assert [(x, y) for x, y in zip(trace.x, trace.y)] == [state.grid.centre(u.cell) for u in fallen]


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_a_strength_bar_under_each_unit_shows_what_it_has_left(games, kind):
    events, tl = games[kind]
    state = sample_states(events, tl)[1]
    fig = board.board_figure(state)
    limit = state.options["hits_to_remove"]
    for side in ("red", "blue"):
        bar = one(fig, "strength", side=side)
        units = [state.units[u] for u in bar.meta["units"]]
        assert [u.id for u in units] == [u.id for u in state.alive(side)]
        assert bar.meta["left"] == [[max(limit - min(u.hits, limit), 0), limit] for u in units]
        xs = [x for x in bar.x if x is not None]
        for u, (start, end) in zip(units, zip(xs[0::2], xs[1::2])):
            left = max(limit - min(u.hits, limit), 0)
            assert abs((end - start) - 0.6 * left / limit) < 1e-9


def test_portable_units_show_strength_points_left():
    from pathlib import Path

    import orjson

    from warlog.engine.fold import replay

    path = Path(__file__).resolve().parents[1] / "golden" / "portable-hit-table-square.events.jsonl"
    state = replay([orjson.loads(line) for line in path.read_bytes().splitlines()])
    hit = state.units["b-b"]  # 4 SP, lost 1
    assert board.strength_left(state, hit) == (3, 4)
    assert board.unit_number(state, hit) == "3"


def test_a_selected_unit_shows_its_zone_moves_and_targets(games):
    from warlog.engine.reach import unit_reach

    events, tl = games["hex"]
    state = next(tl.state_at(s.last) for s in analysis.steps(events)
                 if tl.state_at(s.last).phase == "movement")
    mover = next(u for u in state.alive(state.to_act) if unit_reach(state, u.id).moves)
    reach = unit_reach(state, mover.id)
    fig = board.board_figure(state, selected=reach)
    dots = one(fig, "reach_moves")
    centres = {state.grid.centre(c) for c in reach.moves}
    assert set(zip(dots.x, dots.y)) == centres and dots.meta["cells"] == list(reach.moves)
    ring = one(fig, "reach_selected")
    assert (ring.x[0], ring.y[0]) == state.grid.centre(mover.cell)
    assert not traces(board.board_figure(state), "reach_selected")  # nothing selected: no ring


def test_a_click_on_the_board_picks_the_unit_under_it(games):
    events, tl = games["square"]
    state = tl.state_at(0)
    uid = next(iter(state.units))
    pick = {"selection": {"points": [{"x": 1.5, "y": 2.5, "customdata": uid}]}}
    assert board.clicked_unit(state, pick) == uid
    assert board.clicked_unit(state, {"selection": {"points": [{"x": -5, "y": -5}]}}) is None
    assert board.clicked_unit(state, {"selection": {"points": [{"customdata": "nobody"}]}}) is None
    assert board.clicked_unit(state, None) is None


def test_a_click_on_the_cell_under_a_unit_picks_that_unit(games):
    events, tl = games["brick"]
    state = tl.state_at(0)
    u = state.alive()[0]
    x, y = state.grid.centre(u.cell)
    assert board.clicked_unit(state, {"selection": {"points": [{"x": x, "y": y}]}}) == u.id
    assert board.clicked_unit(state, {"selection": {"points": [{"x": x + 0.5, "y": y}]}}) is None


def test_a_click_does_not_fade_the_board(games):
    events, tl = games["hex"]
    fig = board.board_figure(tl.state_at(0))
    for t in fig.data:
        own = t.marker.opacity if t.marker.opacity is not None else 1
        assert t.unselected.marker.opacity == own == t.selected.marker.opacity, t.name


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_every_property_the_board_draws_is_one_plotly_knows(games, kind):
    """The board is built from plain dicts without plotly's validation (it was most of a step's
    cost), so a misspelt property would reach the browser silently: here every figure of the
    game's steps, with its highlights and a selected unit's reach, goes through the validation
    the dashboard skips (it raises ValueError naming the property)."""
    import plotly.graph_objects as go

    from warlog.engine.reach import unit_reach

    events, tl = games[kind]
    roles = set()
    for step in analysis.steps(events)[::3]:
        state = tl.state_at(step.last)
        marks = analysis.highlights(events[step.first : step.last + 1], state)
        live = state.alive(state.to_act) if state.to_act else []
        reach = unit_reach(state, live[0].id) if live else None
        drawn = board.board_figure(state, highlight=marks, selected=reach).to_dict()
        go.Figure(drawn)
        roles |= {t["meta"]["role"] for t in drawn["data"]}
    assert {"terrain", "cells", "units", "facing", "strength", "symbols", "highlight",
            "reach_selected", "fallen"} <= roles


def test_the_units_that_may_act_now_are_ringed_and_nothing_else_is(games):
    """The Play page marks the units a legal order names (engine/vocabulary.py), so a player
    sees whom to click; the replay board, given none, draws no such ring."""
    import plotly.graph_objects as go

    from warlog.engine import vocabulary

    events, tl = games["square"]
    state = next(s for s in (tl.state_at(i) for i in range(len(events))) if s.to_act)
    ready = vocabulary.units_to_act(state)
    assert ready
    drawn = board.board_figure(state, ready=ready).to_dict()
    go.Figure(drawn)  # every property one plotly knows
    rings = [t for t in drawn["data"] if t["meta"]["role"] == "ready"]
    assert len(rings) == 1 and rings[0]["meta"]["units"] == ready
    assert all(state.units[u].side == state.to_act for u in ready)
    plain = board.board_figure(state).to_dict()
    assert not [t for t in plain["data"] if t["meta"]["role"] == "ready"]
