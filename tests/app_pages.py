"""One dashboard page under AppTest over a given database (the tests of every page start so)."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest
from waits import LIMIT, wait_until

APP = str(Path(__file__).resolve().parents[1] / "dashboard" / "app.py")


def db_holding_a_game(db: Path) -> Path:
    """``db`` with one unfinished game in it, "held" (Cy, red, v Di, blue; played 2026-12-01):
    a database with a game is not seeded with the demo games, and Play offers it to continue."""
    from warlog.engine.scenario import load_scenario
    from warlog.events.sqlite_store import SQLiteEventStore
    from builders import table_game

    with SQLiteEventStore(db) as store:
        table_game(store, load_scenario("ancients-river-crossing"), "held", dice="seeded", seed=1,
                   players={"red": "Cy", "blue": "Di"}, played="2026-12-01")
    return db


def open_page(monkeypatch, db: Path, page: str) -> AppTest:
    """The app run once over ``db`` (WARLOG_DB), then switched to ``page`` ("views/play.py")."""
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    at.switch_page(page).run()
    assert not at.exception
    return at


def _trigger(at: AppTest, key: str, event: str, value) -> AppTest:
    """What the board component's script sends (dashboard/board_click.js): one ``event`` on the
    component's trigger, with the other widgets' values; the page then reruns as in a browser."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    (board,) = [e for e in at.get("bidi_component") if e.key == key]
    state = WidgetState(id=_make_trigger_id(board.proto.id, "events"))
    state.json_trigger_value = json.dumps([{"event": event, "value": value}])
    states = at._tree.get_widget_states()
    states.widgets.append(state)
    return at._run(states)


def click_board(at: AppTest, key: str, x: float, y: float, *, shift: bool = False,
                seen: int | None | str = "drawn") -> AppTest:
    """Click the board a player clicks (dashboard/board_click.py) at the board position (x, y),
    with Shift held if ``shift``. The script sends back the board's ``seen`` mark (what the page
    drew it at): "drawn" sends the one the page sent, as a browser does; a number sends that."""
    if seen == "drawn":
        (board,) = [e for e in at.get("bidi_component") if e.key == key]
        seen = json.loads(board.proto.json).get("seen")
    return _trigger(at, key, "click", {"x": x, "y": y, "n": 1, "shift": shift, "seen": seen})


def board_drawn(at: AppTest, key: str = "board") -> AppTest:
    """The browser's word that it has drawn the board ``key`` (once a page load): what the
    Replay page waits for before its charts."""
    return _trigger(at, key, "drawn", True)


def board_groups(at: AppTest, key: str) -> list[dict]:
    """The groups of the board ``key`` the page sent to its component (warlog/app/pictures/board_svg.py
    names each trace's group by its ``meta``): each group's meta (text as it is, other values
    read as JSON) and its points as ``at`` [(x, y), ...], in the figure's order."""
    import xml.etree.ElementTree as ET

    (board,) = [e for e in at.get("bidi_component") if e.key == key]
    html = json.loads(board.proto.json)["html"]
    groups = []
    for g in ET.fromstring(f"<page>{html}</page>").iter("{http://www.w3.org/2000/svg}g"):
        if not g.get("data-role"):
            continue
        meta = {name[5:]: _value(text) for name, text in g.attrib.items()
                if name.startswith("data-") and name != "data-at"}
        numbers = [float(v) for p in g.get("data-at", "").split() for v in p.split(",")]
        groups.append({**meta, "at": list(zip(numbers[::2], numbers[1::2]))})
    return groups


def _value(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def rerun_until(at: AppTest, done, what: str) -> AppTest:
    """Rerun the page until ``done(at)`` (a background job's result on show), failing on the
    first exception a run raises, or with ``what`` if it never comes (tests/waits.py's limit)."""
    def finished() -> bool:
        if done(at):
            return True
        at.run()
        assert not at.exception, at.exception
        return False

    wait_until(finished, what)
    return at
