"""One dashboard page under AppTest over a given database (the tests of every page start so)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest
from waits import LIMIT

APP = str(Path(__file__).resolve().parents[1] / "dashboard" / "app.py")


def db_holding_a_game(db: Path) -> Path:
    """``db`` with one unfinished game in it, "held" (Cy, red, v Di, blue; played 2026-12-01):
    a database with a game is not seeded with the demo games, and Play offers it to continue."""
    from warlog.engine.scenario import load_scenario
    from warlog.events.sqlite_store import SQLiteEventStore
    from warlog.tabletop import new_game

    with SQLiteEventStore(db) as store:
        new_game(store, load_scenario("ancients-river-crossing"), "held", dice="seeded", seed=1,
                 players={"red": "Cy", "blue": "Di"}, played="2026-12-01")
    return db


def open_page(monkeypatch, db: Path, page: str) -> AppTest:
    """The app run once over ``db`` (WARLOG_DB), then switched to ``page`` ("views/play.py")."""
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    at.switch_page(page).run()
    assert not at.exception
    return at


class _ChartClick:
    """A plotly chart's selection as the browser sends it (AppTest has no plotly accessor): put
    in the tree's place of the chart, it is serialised with the other widgets' values, so the
    chart's on_select callback runs on the next run exactly as after a real click."""

    def __init__(self, chart: Any, points: list[dict]) -> None:
        self.chart, self.points = chart, points

    @property
    def _widget_state(self):
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        selection = {"selection": {"points": self.points,
                                   "point_indices": [p.get("point_index", 0) for p in self.points],
                                   "box": [], "lasso": []}}
        state = WidgetState(id=self.chart.proto.id)
        state.string_value = json.dumps(selection)
        return state


def click_chart(at: AppTest, key: str, points: list[dict]) -> AppTest:
    """Click the points of the plotly chart with ``key`` (each point a dict as plotly reports
    it: x, y, customdata, curve_number, point_index) and run the page."""
    chart = next(c for c in at.get("plotly_chart") if c.key == key)
    click = _ChartClick(chart, points)
    states = at._tree.get_widget_states()
    states.widgets.append(click._widget_state)  # rides along with the other widgets' values
    return at._run(states)
