"""The dashboard replays a game of every One Hour Wargames period (AppTest, one per period), shows
the options the game was played with, and draws period state on the board: out of ammunition,
square, trenches, hull-down and spotted units (from golden games where they are certain)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from markup_probe import shown
from app_pages import board_groups
from streamlit.testing.v1 import AppTest
from waits import LIMIT

from warlog.engine.bots import play_out
from warlog.engine import analysis
from warlog.engine.fold import Timeline, replay
from warlog.engine.rulesets.tables import periods, systems
from warlog.engine.scenario import bundled_scenarios
from warlog.events.sqlite_store import SQLiteEventStore

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# Golden games whose final position shows a period's state, and the unit that shows it.
STATE_GAMES = {
    "pike-and-shot-ammo-hex": ("out of ammunition", "r-inf"),
    "horse-and-musket-square-square": ("square", "r-inf-a"),
    "machine-age-trench-cells-hex": ("in a trench", None),
    "ww2-hull-down-hex": ("hull-down", None),
    "ww2-spotting-hex": ("spotted", None),
    "napoleonic-formations-square": ("column", None),
    "napoleonic-artillery-limber-square": ("limbered", None),
    "napoleonic-melee-square": ("square", None),
    "density-friends-turn-reform-hex": ("out of formation", None),
}


def _golden(stem: str) -> list[dict]:
    return [orjson.loads(line) for line in (GOLDEN / f"{stem}.events.jsonl").read_bytes().splitlines()]


@pytest.fixture(scope="module")
def period_db(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A database with one bot game per period (its first bundled scenario) and the golden games
    of STATE_GAMES; returns its path and period -> game id."""
    path = tmp_path_factory.mktemp("periods") / "periods.db"
    games = {}
    with SQLiteEventStore(path) as store:
        for scenario in bundled_scenarios():
            if scenario.period in games:
                continue
            game = play_out(f"p-{scenario.id}", scenario, seed=5, red="aggressive", blue="cautious")
            store.append(game.state.game, game.events, 0)
            games[scenario.period] = game.state.game
        for stem in STATE_GAMES:
            store.append(stem, _golden(stem), 0)
    return path, games


def _open(path: Path, game: str, monkeypatch) -> AppTest:
    monkeypatch.setenv("WARLOG_DB", str(path))
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    at.session_state["game"] = game
    at.run()
    assert not at.exception
    assert at.selectbox(key="game").value == game
    return at


def _board(at: AppTest) -> list[dict]:
    groups = board_groups(at, "board")
    assert any(g["role"] == "cells" for g in groups), "no board on the page"
    return groups


EVERY_PERIOD = [period for system in systems() for period in periods(system)]


def test_every_period_has_a_bundled_scenario(period_db):
    assert sorted(period_db[1]) == sorted(EVERY_PERIOD)


@pytest.mark.parametrize("period", EVERY_PERIOD)
def test_the_dashboard_replays_a_game_of_every_period(period, period_db, monkeypatch):
    path, games = period_db
    at = _open(path, games[period], monkeypatch)
    header = shown(" ".join(m.value for m in at.markdown))  # the page escapes a game's text
    assert f" {period}" in header
    options = shown(" ".join(c.value for c in at.caption
                             if c.value.startswith("Options in force")))
    for name, value in replay(SQLiteEventStore(path).read(games[period])).options.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        assert f"`{name}` = {text}" in options
    last = int(at.slider(key="step").max)
    for step in (last // 2, last):  # the middle of the battle, then its end
        at.slider(key="step").set_value(step).run()
        assert not at.exception, (period, step)
        assert _board(at)
    assert any("won" in s.value for s in at.success) or any("draw" in i.value for i in at.info)


@pytest.mark.parametrize("stem", sorted(STATE_GAMES))
def test_period_state_is_drawn_on_the_unit(stem, period_db, monkeypatch):
    status, unit = STATE_GAMES[stem]
    events = _golden(stem)
    timeline = Timeline(events)
    shown = [(s, timeline.state_at(s.last)) for s in analysis.steps(events)]
    shown = [(s, st) for s, st in shown if any(status in analysis.unit_status(st, u) for u in st.alive())]
    assert shown, f"no step of {stem} shows {status}"
    step, state = shown[-1]  # the last step that shows it
    marked = [u.id for u in state.alive() if status in analysis.unit_status(state, u)]
    assert unit is None or unit in marked
    at = _open(period_db[0], stem, monkeypatch)
    at.slider(key="step").set_value(step.index + 1).run()
    assert not at.exception
    groups = [g for g in _board(at) if g["role"] == "status" and g["status"] == status]
    assert len(groups) == 1 and groups[0]["units"] == marked
    if status == "in a trench":
        assert any(g["role"] == "trenches" for g in _board(at))
