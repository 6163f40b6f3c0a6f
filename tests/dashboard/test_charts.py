"""The charts over turns (dashboard/charts.py) on real games."""

from __future__ import annotations

import pytest

from figure_traces import games, one, traces  # noqa: F401 (games: a fixture)
from warlog.dashboard import charts
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
