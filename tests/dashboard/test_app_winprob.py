"""The replay page's win-probability chart through Streamlit's AppTest: a stored curve is drawn
with its values, and a game without one offers a button that computes, stores and draws it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from waits import LIMIT
from whatif_games import bot_game

from warlog.dashboard.data import DASHBOARD_PLAYOUTS
from warlog.events.analysis_store import AnalysisStore
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.whatif_job import run_curve

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@pytest.fixture
def one_game_db(tmp_path, monkeypatch) -> tuple[Path, list[dict]]:
    events = bot_game(seed=5)
    db = tmp_path / "one.db"
    with SQLiteEventStore(db) as store:
        store.append(events[0]["game"], events, 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    return db, events


def _array(value) -> list:
    """A plotly spec array: a list, or plotly 7's {"dtype", "bdata"} for typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    return list(value)


def _winprob_spec(at: AppTest) -> dict | None:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if any((t.get("meta") or {}).get("role") == "winprob" for t in spec["data"]):
            return spec
    return None


def _trace(spec: dict, role: str) -> dict:
    return next(t for t in spec["data"] if (t.get("meta") or {}).get("role") == role)


def test_the_stored_curve_is_drawn_with_its_values_and_turning_points(one_game_db):
    db, events = one_game_db
    curve = run_curve(events, playouts=5, seed=2, scheduler="inprocess")
    curve["turning_points"] = [{"turn": 1, "to_turn": 2, "from": 0.5, "to": 0.9, "change": 0.4,
                                "why": "swing of 0.40"}]  # one we know, to find on the page
    with AnalysisStore(db) as store:
        store.save_curve(curve["game"], curve["params"], curve["last_seq"], curve)
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    spec = _winprob_spec(at)
    assert spec is not None
    line = _trace(spec, "winprob")
    assert _array(line["x"]) == [p["turn"] for p in curve["points"]]
    assert _array(line["y"]) == pytest.approx([p["red"]["p"] for p in curve["points"]])
    star = _trace(spec, "turning")
    assert _array(star["x"]) == [2] and star["text"] == ["turn 1"]
    current = [s for s in spec["layout"]["shapes"] if s.get("name") == "current turn"]
    assert current and current[0]["x0"] == 0  # the opening is on show
    assert "winprob_compute" not in _keys(at)
    assert any("5 playouts a turn" in c.value for c in at.caption)
    at.button(key="last").click().run()
    spec = _winprob_spec(at)
    last_turn = events[-1]["turn"]
    assert [s["x0"] for s in spec["layout"]["shapes"] if s.get("name") == "current turn"] \
        == [last_turn]


def _keys(at: AppTest) -> set[str]:
    return {b.key for b in at.button}


def test_a_game_without_a_curve_offers_to_compute_it_and_stores_it(one_game_db):
    db, events = one_game_db
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    assert _winprob_spec(at) is None and "winprob_compute" in _keys(at)
    at.button(key="winprob_compute").click().run()
    assert not at.exception
    spec = _winprob_spec(at)
    assert spec is not None
    # the offer is gone in the very run that computed it (issue 22: it stayed above the chart)
    assert "winprob_compute" not in _keys(at)
    assert not [c for c in at.caption if c.value.startswith("No curve is stored")]
    with AnalysisStore(db) as store:
        stored = store.latest_curve(events[0]["game"], events[-1]["seq"])
    assert stored["params"]["playouts"] == DASHBOARD_PLAYOUTS
    assert _array(_trace(spec, "winprob")["y"]) == pytest.approx(
        [p["red"]["p"] for p in stored["points"]])
    at.run()  # the next run draws the stored curve: no button any more
    assert "winprob_compute" not in _keys(at) and _winprob_spec(at) is not None
