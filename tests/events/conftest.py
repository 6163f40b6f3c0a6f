"""Builders shared by the event tests: realistic event dicts made through the models, whole
games, database dumps for before/after comparisons, and hand-made replay files; and the
fixtures the hostile-input tests and the store fault tests share (their helpers are in
hostile_helpers.py and store_helpers.py)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify as rederive
from warlog.events.chain import GENESIS, canonical, link
from warlog.engine.rulesets.common.events import HitsInflicted
from warlog.events.model import DiceRolled, GameEnded, GameStarted, to_dict
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore

from hostile_helpers import SCENARIO, run
from store_helpers import Events, opening_length


def started(game: str = "g1", *, seed: int | None = 7, **extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = dict(
        game=game,
        seq=1,
        turn=0,
        rule_system="ohw",
        period="ancients",
        options={"grid": "square"},
        scenario={"id": "s1", "title": "Pitched battle", "size": [12, 12]},
        dice="seeded",
        seed=seed,
        players={"red": "Ann", "blue": "Bob"},
    )
    fields.update(extra)
    return to_dict(GameStarted(**fields))


def dice(game: str, seq: int, faces: tuple[int, ...] = (4,), **extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = dict(
        game=game,
        seq=seq,
        turn=1 + seq // 10,
        side="red",
        phase="shooting",
        purpose="shoot",
        faces=faces,
        unit="r1",
        rules=("ohw.shoot.roll",),
        cause=seq - 1,
    )
    fields.update(extra)
    return to_dict(DiceRolled(**fields))


def hits(game: str, seq: int, die: int = 4, **extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = dict(
        game=game,
        seq=seq,
        turn=1 + seq // 10,
        side="red",
        phase="shooting",
        attack="shooting",
        source="r1",
        target="b2",
        die=die,
        modifier=-2,
        base=die - 2,
        halvings=("cover",),
        hits=(die - 2) // 2,
        total=seq,
        rules=("ohw.shoot.hits", "ohw.cover"),
        cause=seq - 1,
    )
    fields.update(extra)
    return to_dict(HitsInflicted(**fields))


def ended(game: str, seq: int, winner: str | None = "blue") -> dict[str, Any]:
    return to_dict(
        GameEnded(game=game, seq=seq, turn=15, winner=winner, reason="objective held",
                  objectives={"hill": 3})
    )


def make_game(game: str = "g1", n: int = 20, *, finished: bool = False) -> list[dict[str, Any]]:
    """A game of ``n`` events: game_started, then dice/hits pairs (and game_ended if finished)."""
    events = [started(game)]
    for seq in range(2, n + 1):
        if finished and seq == n:
            events.append(ended(game, seq))
        elif seq % 2 == 0:
            events.append(dice(game, seq, faces=(1 + seq % 6,)))
        else:
            events.append(hits(game, seq, die=1 + (seq - 1) % 6))
    return events


def dump(path: Path) -> str:
    """Every table, row, index and trigger of the database at ``path``, as SQL text."""
    conn = sqlite3.connect(path)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


def chained_lines(header: dict[str, Any], events: list[dict[str, Any]]) -> bytes:
    """A replay file body with a valid hash chain around whatever header and events are given,
    so tests can make files that are well-chained but wrong in some other way."""
    header = {k: v for k, v in header.items() if k != "chain"}
    prev = link(GENESIS, canonical(header))
    lines = [canonical({**header, "chain": prev})]
    for event in events:
        prev = link(prev, canonical(event))
        lines.append(canonical({**event, "chain": prev}))
    closing = {"end": "warlog-replay", "events": len(events)}
    lines.append(canonical({**closing, "chain": link(prev, canonical(closing))}))
    return b"\n".join(lines) + b"\n"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def store(db_path: Path):
    with SQLiteEventStore(db_path) as s:
        yield s


# -- for the hostile-input tests (test_hostile_*.py; helpers in hostile_helpers.py) ---------


@pytest.fixture
def no_ambient_db(monkeypatch, tmp_path):
    """No database from the environment, and a fresh working folder (each test_hostile_*.py
    module uses it for every test)."""
    monkeypatch.delenv("WARLOG_DB", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def game() -> list[dict[str, Any]]:
    return play_out("hostile", load_scenario(SCENARIO), seed=7).events


@pytest.fixture
def records(game) -> list[dict[str, Any]]:
    """The replay file of ``game`` as a list of parsed lines (header, events, closing)."""
    return [orjson.loads(line) for line in encode_replay(game).splitlines()]


@pytest.fixture
def stored(tmp_path) -> tuple[Path, str]:
    db = tmp_path / "s.db"
    run("simulate", SCENARIO, "--seed", "7", "--db", str(db))
    return db, f"{SCENARIO}-aggressive-cautious-s7"


# -- for the store fault tests (test_store_*.py; helpers in store_helpers.py) ------------------


@pytest.fixture(scope="module")
def real_games() -> list[Events]:
    """Three real engine games (two bots on a bundled scenario), each re-derived by verify, and
    so is each one's opening (the prefix a first append of a new game stores)."""
    scenario = load_scenario("ancients-river-crossing")
    games = [play_out("real", scenario, seed=seed).events for seed in (1, 2, 3)]
    for events in games:
        assert rederive(events).ok and rederive(events).finished
        assert rederive(events[: opening_length(events)]).ok
    return games


@pytest.fixture
def build():
    """This module, so tests call ``build.make_game(...)`` without importing conftest by name
    (several test folders have a conftest.py, and pytest names each ``conftest`` in turn:
    importing one by name, or looking it up by name later, is fragile)."""
    return _THIS


_THIS = sys.modules[__name__]  # this module, taken while the name is still ours
