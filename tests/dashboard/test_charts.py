"""The charts over turns (warlog/app/pictures/charts.py) on real games."""

from __future__ import annotations

import itertools

import pytest

from figure_traces import games, one, traces  # noqa: F401 (games: a fixture)
from warlog.app.pictures import charts
from warlog.engine import analysis
from warlog.engine.fold import Timeline


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
            assert "reference" in marks[0].name and f"turn {crossed[side]}" in marks[0].name
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


def _labels_clear_of_lines_and_edges(fig) -> None:
    """Every label of the exhaustion chart sits in the right margin (outside the plot area,
    where the lines are), fits in that margin, stays between the plot's top and bottom, and no
    two are within a line of text of each other at the least plot height."""
    labels = list(fig.layout.annotations)
    assert labels
    right = fig.layout.margin.r
    for a in labels:
        assert (a.xref, a.x, a.xanchor, a.yref) == ("paper", 1, "left", "paper")
        assert a.xshift + charts._label_width(a.text, a.font.size) <= right, a.text
        assert 0 <= a.y <= 1
    for a, b in itertools.combinations(labels, 2):
        apart = abs(a.y - b.y) * charts.MIN_PLOT_HEIGHT
        assert apart >= max(a.font.size, b.font.size), (a.text, b.text, apart)
    assert not [t for t in fig.data if "text" in (t.mode or "")]  # no text among the lines
    top = fig.layout.yaxis.range[1]
    drawn = [y for t in fig.data for y in t.y]
    assert max(drawn) < top  # the stars at the top are not cut off either


def test_exhaustion_labels_never_overlap_the_lines_each_other_or_the_edge(games):
    for name in ("square", "hex", "brick"):
        events, _ = games[name]
        rows = analysis.exhaustion(events)
        _labels_clear_of_lines_and_edges(charts.exhaustion_figure(rows, current_turn=2))
    same = [{"side": s, "turn": t, "lost": 0, "threshold": 8, "basis": "reference",
             "exhausted": False} for s in ("red", "blue") for t in range(3)]
    fig = charts.exhaustion_figure(same)  # equal thresholds: the labels are pulled apart
    _labels_clear_of_lines_and_edges(fig)
    ys = sorted(a.y for a in fig.layout.annotations)
    assert ys[0] == pytest.approx(8 / fig.layout.yaxis.range[1]) and ys[1] > ys[0]  # one stays


@pytest.mark.parametrize("ys", [[0.5, 0.5], [1.0, 1.0, 0.99], [0.0, 0.0], [0.2, 0.9], []])
def test_spread_labels_keeps_the_gap_inside_the_plot(ys):
    gap = 0.07
    out = charts.spread_labels(ys, gap)
    assert len(out) == len(ys) and all(0 <= y <= 1 for y in out)
    ordered = sorted(out)
    assert all(b - a >= gap - 1e-9 for a, b in zip(ordered, ordered[1:]))
    if len(set(ys)) == len(ys) and all(abs(a - b) >= gap for a, b in
                                        itertools.combinations(ys, 2)):
        assert out == ys  # labels already apart stay by their lines


def test_luck_chart_draws_each_sides_cumulative_luck(games):
    events, _ = games["hex"]
    rows = analysis.luck_by_turn(events)
    fig = charts.luck_figure(rows, current_turn=2)
    for side in ("red", "blue"):
        line = one(fig, "luck", side=side)
        assert list(line.y) == [r["luck"] for r in rows if r["side"] == side]


def _curve() -> dict:
    def point(turn, red, blue, final=False):
        low, high = (red, red) if final else (max(0.0, red - 0.1), min(1.0, red + 0.1))
        return {"turn": turn, "seq": 10 * turn, "final": final, "n": 0 if final else 20,
                "red": {"p": red, "low": low, "high": high}, "blue": {"p": blue},
                "draw": {"p": round(1 - red - blue, 2)}}

    return {"game": "g", "last_seq": 99, "params": {"playouts": 20},
            "points": [point(1, 0.55, 0.35), point(2, 0.30, 0.60), point(3, 0.25, 0.65),
                       point(4, 0.0, 1.0, final=True)],
            "turning_points": [{"turn": 1, "to_turn": 2, "from": 0.55, "to": 0.30,
                                "change": -0.25, "why": "leader changed"}]}


def test_winprob_chart_is_an_evaluation_graph_with_its_turning_points():
    fig = charts.winprob_figure(_curve(), current_turn=2)
    line = one(fig, "winprob")
    assert list(line.x) == [1, 2, 3, 4] and list(line.y) == [0.55, 0.30, 0.25, 0.0]
    assert list(one(fig, "lead", side="red").y) == [0.55, 0.5, 0.5, 0.5]  # red's lead, from 0.5
    assert list(one(fig, "lead", side="blue").y) == [0.5, 0.30, 0.25, 0.0]
    bars = line.error_y  # each point's 95% interval, as distances from the point
    assert list(bars.array) == pytest.approx([0.1, 0.1, 0.1, 0.0])
    assert list(bars.arrayminus) == pytest.approx([0.1, 0.1, 0.1, 0.0])
    star = one(fig, "turning")
    assert list(star.x) == [2] and list(star.y) == [0.30] and list(star.text) == ["turn 1"]
    assert list(fig.layout.yaxis.range) == [0, 1]
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "3", "end"]
    assert [s.y0 for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1] == [0.5]
    marks = [s for s in fig.layout.shapes if s.name == "current turn"]
    assert marks and marks[0].x0 == 2
    calm = {**_curve(), "turning_points": []}
    assert not traces(charts.winprob_figure(calm), "turning")
