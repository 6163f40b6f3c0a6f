"""The board (warlog/app/pictures/board.py, its counters warlog/app/pictures/counters.py) on real games of every
grid kind, and on golden games of every rule system's period state."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from figure_traces import games, one, sample_states, traces  # noqa: F401 (games: a fixture)
from warlog.app.pictures import board
from warlog.app.pictures import counters
from warlog.app.pictures.board_svg import board_svg
from warlog.engine import analysis
from warlog.engine.fold import Timeline, replay
from warlog.engine.rulesets import get_ruleset

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# golden games that show each kind of period state, and one of strength points (pips) too
STATUS_GAMES = ("pike-and-shot-ammo-hex", "horse-and-musket-square-square",
               "machine-age-trench-cells-hex", "ww2-hull-down-hex", "ww2-spotting-hex",
               "napoleonic-formations-square", "napoleonic-artillery-limber-square",
               "density-friends-turn-reform-hex")
STATE_GAMES = STATUS_GAMES + ("portable-hit-table-square",)
SVG = "{http://www.w3.org/2000/svg}"


def _golden(stem: str) -> list[dict]:
    return [orjson.loads(line) for line in (GOLDEN / f"{stem}.events.jsonl").read_bytes().splitlines()]


def _inside(point, polygon) -> bool:
    """Whether ``point`` lies inside (or on) a convex polygon, whichever way it winds."""
    signs = set()
    for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1]):
        cross = (x1 - x0) * (point[1] - y0) - (y1 - y0) * (point[0] - x0)
        if abs(cross) > 1e-9:
            signs.add(cross > 0)
    return len(signs) <= 1


def _shapes(xs, ys) -> list[list[tuple[float, float]]]:
    """The None-separated shapes of a lines trace."""
    out, shape = [], []
    for x, y in zip(xs, ys):
        if x is None:
            out.append(shape)
            shape = []
        else:
            shape.append((x, y))
    return out + ([shape] if shape else [])


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_one_clickable_marker_per_live_unit_at_its_cell_explains_it(games, kind):
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
            assert units.marker.opacity < 0.05  # the counter under it shows through
            limit = state.options["hits_to_remove"]
            for u, hover in zip(alive, units.hovertext):
                row = get_ruleset(state.rule_system).row(state, u)
                assert u.id in hover and u.type in hover
                assert f"strength {limit - min(u.hits, limit)}/{limit} ({u.hits} hit" in hover
                assert f"cell ({u.cell[0]}, {u.cell[1]}) {state.scenario.terrain_at(u.cell)}" in hover
                assert f"moves up to {row['move']} cells" in hover
                assert ("shooting range" in hover) == (row["shoot_range"] > 0)
    assert any(u.removed for u in state.units.values()), "the last state has removed units"
    drawn = {uid for t in traces(board.board_figure(state), "units") for uid in t.customdata}
    assert drawn == {u.id for u in state.alive()}


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_each_live_unit_is_a_counter_in_its_cell_in_its_colour(games, kind):
    events, tl = games[kind]
    state = sample_states(events, tl)[1]
    fig = board.board_figure(state)
    for side in ("red", "blue"):
        body = one(fig, "counters", side=side)
        assert body.fill == "toself" and body.fillcolor == board.SIDE_COLOURS[side]
        alive = state.alive(side)
        assert body.meta["units"] == [u.id for u in alive]
        shapes = _shapes(body.x, body.y)
        assert len(shapes) == len(alive)
        for u, shape in zip(alive, shapes):
            centre = state.grid.centre(u.cell)
            assert _inside(centre, shape[:-1])
            cell = state.grid.corners(u.cell)
            assert all(_inside(corner, cell) for corner in shape), (u.id, shape, cell)


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_each_counter_carries_its_id_and_its_types_symbol_inside_it(games, kind):
    events, tl = games[kind]
    state = sample_states(events, tl)[1]
    fig = board.board_figure(state)
    for side in ("red", "blue"):
        alive = state.alive(side)
        labels = one(fig, "labels", side=side)
        assert list(labels.text) == [u.id for u in alive]  # the ids of these games are short
        symbols = one(fig, "symbols", side=side)
        assert symbols.meta["units"] == [u.id for u in alive]
        for u, parts, code, (start, stop), lx, ly in zip(
                alive, symbols.meta["parts"], symbols.meta["codes"], symbols.meta["spans"],
                labels.x, labels.y):
            expected = counters.unit_symbol(state.rule_system, u.type)
            assert (tuple(parts), code) == (expected.parts, expected.code)
            x, y = state.grid.centre(u.cell)
            box = [(x - counters.HALF_W, y - counters.HALF_H), (x + counters.HALF_W, y - counters.HALF_H),
                   (x + counters.HALF_W, y + counters.HALF_H), (x - counters.HALF_W, y + counters.HALF_H)]
            points = [(px, py) for px, py in zip(symbols.x[start:stop], symbols.y[start:stop])
                      if px is not None]
            assert len(points) >= 5 + 2  # the frame, and a symbol in it
            assert all(_inside(p, box) for p in points)
            assert _inside((lx, ly), box) and ly < y  # the label along the counter's top
    kinds = {u.type for u in state.alive()}
    assert {"Infantry", "Cavalry"} <= kinds  # X and a diagonal are both drawn


def test_long_ids_are_shortened_in_the_middle_keeping_their_number():
    """A long id is cut in the middle (its head and its tail kept, the number whole) to what
    fits across the counter, measured in the widest sans-serif's ems; a short one is whole."""
    fit = counters.SQUEEZE * counters.LABEL_FIT / counters.LABEL_SIZE
    for uid in ("r-inf-1", "r-hcav-1", "b-inf-10", "b-fort-1"):  # the bundled ids' usual size
        assert counters.short_label(uid) == uid
    assert counters.short_label("r-skirmishers-2") == "r-ski…s-2"
    assert counters.short_label("r-thessalians") == "r-t…lians"
    for uid in ("r-skirmishers-2", "b-mercenaries", "r-thessalians", "x" * 40,
                "b-skirmishers-12"):
        short = counters.short_label(uid)
        head, tail = short.split("…")
        assert uid.startswith(head) and uid.endswith(tail) and head and tail, short
        assert counters.text_em(short) <= fit
        assert counters.text_em(head + uid[len(head)] + "…" + tail) > fit  # no more room,
        assert counters.text_em(head + "…" + uid[-len(tail) - 1:]) > fit  # at either end
    assert counters.short_label("b-skirmishers-12").endswith("-12")


def test_an_id_wider_than_the_counter_is_squeezed_to_its_width_in_the_svg():
    """In the SVG an id wider than the counter (by the widest font's measure) is drawn
    narrower, to the counter's width (textLength); one that fits is drawn as it is."""
    state = replay(_golden("portable-hit-table-square"))
    spec = board.board_spec(state, width_px=board.PAGE_PX)
    labels = next(t for t in spec["data"] if t["meta"].get("role") == "labels")
    fits = labels["text"][1]
    labels["text"] = [counters.short_label("r-thessalians")] + labels["text"][1:]
    texts = {t.text: t for t in ET.fromstring(board_svg(spec, board.PAGE_PX)).iter(f"{SVG}text")}
    wide = texts["r-t…lians"]
    assert float(wide.get("textLength")) == pytest.approx(counters.LABEL_FIT, abs=1e-3)
    assert wide.get("lengthAdjust") == "spacingAndGlyphs"
    assert fits and "textLength" not in texts[fits].attrib


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_facing_pointers_sit_at_the_counters_edge_the_way_units_face(games, kind):
    events, tl = games[kind]
    state = sample_states(events, tl)[1]
    fig = board.board_figure(state)
    for side in ("red", "blue"):
        facing = one(fig, "facing", side=side)
        for u, x, y, turn in zip(state.alive(side), facing.x, facing.y, facing.marker.angle):
            cx, cy = state.grid.centre(u.cell)
            assert abs(x - cx) > counters.HALF_W or abs(y - cy) > counters.HALF_H  # outside it
            assert abs(x - cx) < counters.HALF_W + 0.1 and abs(y - cy) < counters.HALF_H + 0.1
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
        last_counter = max(i for i, t in enumerate(fig.data) if t.meta["role"] in
                           ("counters", "symbols", "labels", "facing", "units"))
        assert all(fig.data.index(t) > last_counter for t in drawn)  # seen over the counters
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


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_the_fallen_stay_faded_where_they_fell(games, kind):
    events, tl = games[kind]
    state = tl.state_at(len(events) - 1)
    fig = board.board_figure(state)
    fallen = [u for u in state.units.values() if u.removed]
    assert fallen  # the end of a bot game: some units fell
    trace = one(fig, "fallen")
    assert trace.meta["units"] == [u.id for u in fallen] == list(trace.customdata)
    assert [(x, y) for x, y in zip(trace.x, trace.y)] == [state.grid.centre(u.cell) for u in fallen]
    assert trace.marker.opacity <= 0.3
    assert list(trace.marker.color) == [board.SIDE_COLOURS[u.side] for u in fallen]
    live = {uid for t in traces(fig, "counters") for uid in t.meta["units"]}
    assert not live & {u.id for u in fallen}  # no counter for them


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_a_bar_on_each_counter_shows_the_hits_it_may_still_take(games, kind):
    """One Hour Wargames units take 15 hits (more than six): a bar, not pips."""
    events, tl = games[kind]
    short = 0
    for state in sample_states(events, tl):
        fig = board.board_figure(state)
        limit = state.options["hits_to_remove"]
        assert limit > counters.MAX_PIPS
        for side in ("red", "blue"):
            assert not traces(fig, "strength_pips", side=side)
            if not state.alive(side):
                continue
            full, left = (one(fig, "strength_bar", side=side, part=p) for p in ("full", "left"))
            units = [state.units[u] for u in left.meta["units"]]
            assert [u.id for u in units] == [u.id for u in state.alive(side)]
            assert left.meta["left"] == [[limit - min(u.hits, limit), limit] for u in units]
            xs = [x for x in left.x if x is not None]
            whole = [x for x in full.x if x is not None]
            for u, (start, end), (s0, s1) in zip(units, zip(xs[0::2], xs[1::2]),
                                                  zip(whole[0::2], whole[1::2])):
                kept = (limit - min(u.hits, limit)) / limit
                assert (end - start) / (s1 - s0) == pytest.approx(kept)
                short += kept < 1
    assert short, "some bar is short"


def test_pips_count_the_strength_points_left_and_lost():
    state = replay(_golden("portable-hit-table-square"))
    hit = state.units["b-b"]  # 4 SP, lost 1
    assert board.strength_left(state, hit) == (3, 4)
    fig = board.board_figure(state)
    for side in ("red", "blue"):
        pips = one(fig, "strength_pips", side=side)
        assert pips.meta["units"] == [u.id for u in state.alive(side)]
        for u in state.alive(side):
            left, full = board.strength_left(state, u)
            mine = [s for s, uid in zip(pips.marker.symbol, pips.customdata) if uid == u.id]
            assert mine == ["circle"] * left + ["circle-open"] * (full - left)
    hover = next(h for t in traces(fig, "units") for uid, h in zip(t.customdata, t.hovertext)
                 if uid == "b-b")
    assert "strength 3/4<br>" in hover and "hit" not in hover.split("strength")[1][:8]


@pytest.mark.parametrize("stem", STATUS_GAMES)
def test_period_state_is_a_badge_at_the_counters_lower_corner(stem):
    """Each kind of state a unit shows (square, limbered, out of ammunition, ...) is a badge
    on the counter's left edge, one trace a kind, in unit_status's words."""
    events = _golden(stem)
    tl = Timeline(events)
    seen = set()
    for step in analysis.steps(events):
        state = tl.state_at(step.last)
        fig = board.board_figure(state)
        for t in traces(fig, "status"):
            marked = [u.id for u in state.alive() if t.meta["status"] in analysis.unit_status(state, u)]
            assert t.meta["units"] == marked == list(t.customdata)
            for uid, x, y in zip(marked, t.x, t.y):
                cx, cy = state.grid.centre(state.units[uid].cell)
                assert x == pytest.approx(cx - counters.HALF_W)
                assert cy <= y <= cy + counters.HALF_H + 1e-9  # the lower half, clear of the label
            seen.add(t.meta["status"])
    assert seen, f"no state of {stem} shows a badge"


def test_a_selected_unit_shows_its_zone_and_moves_under_the_counters_and_a_ring_over_them(games):
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
    order = [t.meta["role"] for t in fig.data]
    assert order.index("reach_moves") < order.index("counters") < order.index("reach_selected")
    assert not traces(board.board_figure(state), "reach_selected")  # nothing selected: no ring


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
    assert {"terrain", "cells", "units", "counters", "symbols", "labels", "facing",
            "strength_bar", "highlight", "reach_selected", "fallen"} <= roles


def test_every_kind_of_counter_mark_is_one_plotly_knows():
    """The same check over golden games of every rule system's state: badges, trenches, pips,
    filled symbols (artillery's dot) and type codes."""
    import plotly.graph_objects as go

    roles = set()
    for stem in STATE_GAMES:
        events = _golden(stem)
        tl = Timeline(events)
        for step in analysis.steps(events)[::2]:
            state = tl.state_at(step.last)
            marks = analysis.highlights(events[step.first : step.last + 1], state)
            drawn = board.board_figure(state, highlight=marks,
                                       ready=[u.id for u in state.alive()][:2]).to_dict()
            go.Figure(drawn)
            roles |= {t["meta"]["role"] for t in drawn["data"]}
    assert {"status", "trenches", "strength_pips", "strength_bar", "symbol_fills", "codes",
            "ready", "counters", "symbols", "labels"} <= roles


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


def _label_boxes(spec: dict) -> list[tuple[float, float, float, float]]:
    """The result labels' boxes as the SVG draws them (x0, y0, x1, y1, in board units)."""
    root = ET.fromstring(board_svg(spec, board.PAGE_PX))
    boxes = []
    for group in root.iter(f"{SVG}g"):
        if group.get("data-role") == "label":
            r = group.find(f"{SVG}rect")
            x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
            boxes.append((x, y, x + w, y + h))
    return boxes


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.slow
def test_no_result_label_covers_a_counter_on_any_bundled_scenarios_board(bundled_games):
    """Every step of every bundled scenario's bot game whose board shows a result (hit, miss,
    2 hits, shot ...): no label's box overlaps a live unit's counter or another label, and each
    stays on the board; a label not beside its counter has a leader line to it."""
    from warlog.engine.scenario import bundled_scenarios

    shown = 0
    for sc in bundled_scenarios():
        events = bundled_games[sc.id]
        tl = Timeline(events)
        for step in analysis.steps(events):
            state = tl.state_at(step.last)
            marks = analysis.highlights(events[step.first: step.last + 1], state)
            if not any(m.get("label") and m["kind"] in board.ATTACK_COLOURS for m in marks):
                continue
            spec = board.board_spec(state, highlight=marks, width_px=board.PAGE_PX)
            labels = _label_boxes(spec)
            assert labels and len(labels) == len(spec["layout"]["annotations"])
            counters_ = [board.counter_box(*state.grid.centre(u.cell)) for u in state.alive()]
            w, h = board._extent(state.grid)
            for i, box in enumerate(labels):
                where = f"{sc.id} step {step.first}: label {i} {box}"
                assert not any(_overlap(box, c) for c in counters_), where
                assert not any(_overlap(box, other) for other in labels[:i]), where
                assert 0 <= box[0] and box[2] <= w and 0 <= box[1] and box[3] <= h, where
            shown += len(labels)
    assert shown > 100  # results of every kind were placed


def _lab(colour: str) -> tuple[float, float, float]:
    """An sRGB colour ("#rrggbb") in CIELAB (D65)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_every_terrain_kind_has_a_colour_far_from_every_other():
    """Road and hill were two near tans: every pair of terrain colours is now at least 20
    apart in CIELAB (a difference seen at a glance; 2.3 is the least noticeable)."""
    colours = board.TERRAIN_COLOURS
    near = [(a, b, round(math.dist(_lab(colours[a]), _lab(colours[b])), 1))
            for i, a in enumerate(colours) for b in list(colours)[i + 1:]
            if math.dist(_lab(colours[a]), _lab(colours[b])) < 20]
    assert not near, near
    assert math.dist(_lab(colours["road"]), _lab(colours["hill"])) >= 20
    assert math.dist(_lab("#cdbb99"), _lab("#dcc48a")) < 20  # the old road and hill fail it
