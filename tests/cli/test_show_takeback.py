"""`warlog show` and `warlog log` on a game holding a take-back (issue 39): the position shown
is the game as it stands (the voided orders undone), and the commentary tells the whole log,
each voided event marked with the take-back that voided it and the take-back in words."""

from __future__ import annotations

import json

import pytest
from cli_run import no_ambient_db, run  # noqa: F401 (the fixture)

from warlog.engine.bots import bot_rng, get_policy
from warlog.engine.fold import replay
from warlog.engine.game import Game, start
from warlog.engine.scenario import load_scenario
from warlog.engine.takeback import orders_to_take_back, voided
from warlog.events.sqlite_store import SQLiteEventStore

PEOPLE = {"red": "ann", "blue": "bob"}
GAME = "tbcli"


def _order(game: Game) -> list[dict]:
    side = game.state.to_act
    chosen = get_policy("aggressive").choose(game.state, bot_rng(game.state))
    return game.play(chosen, by=PEOPLE[side])


@pytest.fixture
def stored(tmp_path) -> tuple[str, list[dict], dict]:
    """(database, log, take-back): at the first order whose dice fall, its side takes back
    every order it may; then six orders more. Stored in a fresh database."""
    game = Game(start(GAME, load_scenario("ancients-river-crossing"), seed=3, players=PEOPLE))
    for _ in range(200):
        if any(e["kind"] == "dice_rolled" for e in _order(game)):
            break
    side = [e for e in game.events if e["kind"] == "order_given"][-1]["side"]
    event = game.take_back(side, len(orders_to_take_back(game.events, side)), by=PEOPLE[side])
    for _ in range(6):
        _order(game)
    db = tmp_path / "tb.db"
    with SQLiteEventStore(db) as store:
        store.append(GAME, game.events, 0)
    return str(db), game.events, event


def test_show_is_the_game_as_it_stands(stored):
    db, events, event = stored
    shown = json.loads(run("show", GAME, "--db", db, "--json").output)
    assert shown == json.loads(json.dumps(replay(events).public()))
    text = run("show", GAME, "--db", db).output
    assert "Exhaustion" in text and all(u["id"] in text for u in shown["units"])
    assert (f"taken back: {event['orders']} of {event['side']}'s orders at event "
            f"{event['seq']} (from event {event['back_to']})") in " ".join(text.split())


def test_log_marks_every_voided_event_and_tells_the_take_back(stored):
    db, events, event = stored
    gone = voided(events)
    rows = json.loads(run("log", GAME, "--db", db, "--json").output)
    assert [r["seq"] for r in rows] == [e["seq"] for e in events]  # the whole log
    mark = f"[taken back at event {event['seq']}]"
    for row in rows:
        assert row["text"].endswith(mark) == (row["seq"] in gone), row
    (told,) = [r for r in rows if r["seq"] == event["seq"]]
    assert told["kind"] == "orders_taken_back"
    assert told["text"].startswith(f"{event['side'].capitalize()} ({PEOPLE[event['side']]}) "
                                   f"takes back {event['orders']} orders (from event "
                                   f"{event['back_to']})")
    text = run("log", GAME, "--db", db).output
    assert "taken back at event" in text and "takes back" in text
