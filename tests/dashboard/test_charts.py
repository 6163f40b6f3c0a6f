"""Figure builders (dashboard/charts.py) on real games of every grid kind: traces are found by
their ``meta`` role, never by position."""

from __future__ import annotations

import math

import pytest

from warlog.dashboard import charts
from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.scenario import bundled_scenarios


@pytest.fixture(scope="module")
def games() -> dict[str, tuple[list[dict], Timeline]]:
    out = {}
    for sc in bundled_scenarios():  # the Ancients ones: one of each grid kind, all with melee
        if sc.period != "ancients":
            continue
        events = play_out(f"g-{sc.id}", sc, seed=7).events
        out[sc.grid.kind] = (events, Timeline(events))
    assert set(out) == {"square", "hex", "brick"}
    return out


def traces(fig, role, **match):
    return [t for t in fig.data if (t.meta or {}).get("role") == role
            and all(t.meta.get(k) == v for k, v in match.items())]


def one(fig, role, **match):
    found = traces(fig, role, **match)
    assert len(found) == 1, (role, match, [t.name for t in fig.data])
    return found[0]


def sample_states(events, tl):
    """The opening, the middle, and the end of the game (some units removed by then)."""
    steps = analysis.steps(events)
    return [tl.state_at(s.last) for s in (steps[0], steps[len(steps) // 2], steps[-1])]


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_one_marker_per_live_unit_at_its_cell_in_its_colour(games, kind):
    events, tl = games[kind]
    for state in sample_states(events, tl):
        fig = charts.board_figure(state)
        for side in ("red", "blue"):
            alive = state.alive(side)
            units = one(fig, "units", side=side)
            assert list(units.customdata) == [u.id for u in alive]
            for u, x, y in zip(alive, units.x, units.y):
                assert (x, y) == pytest.approx(state.grid.centre(u.cell))
            assert units.marker.color == charts.SIDE_COLOURS[side]
            assert list(units.text) == [str(u.hits) for u in alive]
            limit = state.options["hits_to_remove"]
            for u, hover in zip(alive, units.hovertext):
                assert u.id in hover and u.type in hover and f"hits {u.hits}/{limit}" in hover
    assert any(u.removed for u in state.units.values()), "the last state has removed units"
    drawn = {uid for t in traces(charts.board_figure(state), "units") for uid in t.customdata}
    assert drawn == {u.id for u in state.alive()}


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_facing_triangles_point_the_way_units_face(games, kind):
    events, tl = games[kind]
    state = sample_states(events, tl)[1]
    fig = charts.board_figure(state)
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
    fig = charts.board_figure(state)
    present = {state.scenario.terrain_at(c) for c in state.grid.cells()}
    terrain = traces(fig, "terrain")
    assert {t.name for t in terrain} == present
    assert all(t.showlegend is not False for t in terrain)
    polygons = sum(list(t.x).count(None) for t in terrain)
    assert polygons == state.grid.width * state.grid.height
    corners = len(state.grid.corners((0, 0)))
    for t in terrain:
        assert t.fillcolor == charts.TERRAIN_COLOURS[t.name]
        assert len(t.x) == (corners + 2) * list(t.x).count(None)  # closed ring + the gap
    objectives = state.scenario.victory.objectives
    if objectives:
        assert list(one(fig, "objectives").x).count(None) == len(objectives)


def test_board_axes_put_row_zero_on_top_with_equal_aspect(games):
    events, tl = games["square"]
    layout = charts.board_figure(tl.state_at(0)).layout
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
        fig = charts.board_figure(state, highlight=marks)
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


def test_attrition_figure_plots_rows_and_marks_the_current_turn(games):
    events, _ = games["square"]
    rows = analysis.attrition(events)
    units = analysis.unit_timeline(events)
    fig = charts.attrition_figure(rows, current_turn=3, per_unit_rows=units)
    for side in ("red", "blue"):
        mine = [r for r in rows if r["side"] == side]
        hits = one(fig, "hits", side=side)
        assert hits.name == f"hits taken · {side}"
        assert list(hits.x) == [r["turn"] for r in mine]
        assert list(hits.y) == [r["hits_taken"] for r in mine]
        assert list(one(fig, "lost", side=side).y) == [r["units_lost"] for r in mine]
    per_unit = traces(fig, "unit")
    assert {t.meta["unit"] for t in per_unit} == {r["unit"] for r in units}
    assert all(t.visible == "legendonly" for t in per_unit)
    marks = [s for s in fig.layout.shapes if s.name == "current turn"]
    assert marks and all(s.x0 == 3 and s.x1 == 3 for s in marks)
    assert not [s for s in charts.attrition_figure(rows).layout.shapes if s.name == "current turn"]


def test_exhaustion_chart_draws_lost_strength_against_a_labelled_reference(games):
    events, _ = games["square"]
    rows = analysis.exhaustion(events)
    fig = charts.exhaustion_figure(rows, current_turn=3)
    for side in ("red", "blue"):
        lost = one(fig, "lost", side=side)
        assert list(lost.y) == [r["lost"] for r in rows if r["side"] == side]
        line = one(fig, "threshold", side=side)
        assert line.meta["basis"] == "reference" and "reference" in line.name
        assert line.line.dash == "dash"
        crossed = analysis.exhausted_turns(rows)
        marks = traces(fig, "exhausted", side=side)
        if side in crossed:
            assert len(marks) == 1 and marks[0].meta["turn"] == crossed[side]
            assert "reference" in marks[0].text[0]
        else:
            assert not marks
    assert any(s.x0 == 3 for s in fig.layout.shapes)


def test_exhaustion_chart_marks_the_turn_a_portable_army_became_exhausted():
    from pathlib import Path

    import orjson

    path = Path(__file__).resolve().parents[1] / "golden" / "portable-exhaustion-square.events.jsonl"
    events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    declared = {e["side"]: e["turn"] for e in events if e["kind"] == "army_exhausted"}
    assert declared
    fig = charts.exhaustion_figure(analysis.exhaustion(events))
    for side, turn in declared.items():
        mark = one(fig, "exhausted", side=side)
        assert mark.meta["turn"] == turn and mark.meta["basis"] == "rule"
        line = one(fig, "threshold", side=side)
        assert "portable.exhaustion" in line.name and line.line.dash == "solid"


def test_luck_chart_draws_each_sides_cumulative_luck(games):
    events, _ = games["hex"]
    rows = analysis.luck_by_turn(events)
    fig = charts.luck_figure(rows, current_turn=2)
    for side in ("red", "blue"):
        line = one(fig, "luck", side=side)
        assert list(line.y) == [r["luck"] for r in rows if r["side"] == side]


@pytest.mark.parametrize("unit_type,kind", [
    ("Infantry", "infantry"), ("Heavy Infantry", "infantry"), ("Cavalry", "cavalry"),
    ("Knights", "cavalry"), ("Light Cavalry with bows", "cavalry"), ("Archers", "missile"),
    ("Persian Archers", "missile"), ("Field Artillery", "artillery"), ("Howitzers", "artillery"),
    ("Anti-tank guns", "artillery"), ("Tanks", "armour"), ("Machine Guns", "machine_guns"),
    ("Commander", "commander"), ("War Elephants", "cavalry"), ("Legionaries", "infantry"),
])
def test_each_unit_type_takes_its_map_symbol(unit_type, kind):
    assert charts.symbol_kind(unit_type) == kind


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_units_carry_their_type_symbol_and_the_fallen_stay_faded_where_they_fell(games, kind):
    events, tl = games[kind]
    state = tl.state_at(len(events) - 1)
    fig = charts.board_figure(state)
    symbols = traces(fig, "symbols")
    assert sorted(u for t in symbols for u in t.meta["units"]) == sorted(u.id for u in state.alive())
    for t in symbols:
        assert all(charts.symbol_kind(state.units[u].type) == t.meta["kind"] for u in t.meta["units"])
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
    fig = charts.board_figure(state)
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
    assert charts.strength_left(state, hit) == (3, 4)
    assert charts.unit_number(state, hit) == "3"
