"""A fork reseated (`warlog fork --players`), a side conceding (`warlog record --concede`), and
the Recorder's methods for both and for a bot's order, end to end on real SQLite databases."""

from __future__ import annotations

import pytest

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.engine.bots import next_order
from warlog.engine.fold import replay
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError
from warlog.app.errors import PlayError
from warlog.app.recorder import Pending, Recorder

SCENARIO = "ancients-river-crossing"
BOTS = f"{SCENARIO}-aggressive-cautious-s7"


def stored(db, game):
    with SQLiteEventStore(db) as store:
        return store.read(game)


@pytest.fixture
def bot_db(tmp_path):
    """A database holding one finished game two bots played."""
    db = tmp_path / "bots.db"
    run("simulate", SCENARIO, "--seed", "7", "--db", str(db))
    assert stored(db, BOTS)[-1]["kind"] == "game_ended"
    return db


@pytest.fixture
def people_db(tmp_path):
    """A database holding a game Ann (red) and Bo (blue) play with seeded dice, just begun."""
    db = tmp_path / "people.db"
    run("new", SCENARIO, "--game", "p", "--red", "Ann", "--blue", "Bo", "--dice", "seeded",
        "--seed", "3", "--db", str(db))
    return db


def _one_line_error(result, problem):
    assert problem in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


# -- warlog fork --players ----------------------------------------------------------------------


def test_a_bot_game_forked_and_reseated_is_carried_on_by_a_person(bot_db):
    out = run("fork", BOTS, "--at", "200", "--new-id", "f", "--players", "red=Ann", "--by",
              "Ann", "--db", str(bot_db)).output
    assert "seats changed: red: Ann v blue: cautious" in out and "red (Ann)" in out
    events = stored(bot_db, "f")
    assert events[-1]["kind"] == "seats_changed" and events[-1]["by"] == "Ann"
    assert events[-1]["players"] == {"red": "Ann", "blue": "cautious"}
    assert [{**e, "game": BOTS} for e in events[:-1]] == stored(bot_db, BOTS)[:len(events) - 1]
    # Ann's order is recorded as hers (the bot held red before the change).
    legal = run("orders", "f", "--db", str(bot_db)).output.splitlines()[1].strip()
    run("order", "f", *legal.split(), "--db", str(bot_db))
    events = stored(bot_db, "f")
    assert any(e["kind"] == "order_given" and e["by"] == "Ann" for e in events)
    assert verify(events).ok
    assert "OK f" in run("verify", "f", "--db", str(bot_db)).output


def test_a_person_game_forked_to_a_bot_lets_the_bot_play(people_db):
    with SQLiteEventStore(people_db) as store:
        at = len(store.read("p"))
        run("fork", "p", "--at", str(at), "--new-id", "q", "--players", "blue=cautious",
            "--db", str(people_db))
        rec = Recorder(store, "q")
        assert rec.state.players == {"red": "Ann", "blue": "cautious"}
        for _ in range(40):
            if rec.state.ended:
                break
            if rec.who == "cautious":
                rec.append_bot_order()
            else:
                rec.give(rec.legal()[-1])
        events = store.read("q")
    assert any(e["kind"] == "order_given" and e["by"] == "cautious" for e in events)
    assert verify(events).ok


@pytest.mark.parametrize("players,problem", [
    ("green=Cy", "--players takes red=NAME,blue=NAME"),
    ("red=", "--players takes red=NAME,blue=NAME"),
    ("red=Ann\u200bBo", "player name"),
])
def test_fork_refuses_bad_seats_in_one_line(bot_db, players, problem):
    result = run("fork", BOTS, "--at", "200", "--new-id", "f", "--players", players, "--db",
                 str(bot_db), ok=False)
    _one_line_error(result, problem)
    with SQLiteEventStore(bot_db) as store:
        assert not store.has_game("f")


def test_fork_refuses_a_bot_in_a_manual_dice_game(tmp_path):
    db = tmp_path / "m.db"
    run("new", SCENARIO, "--game", "m", "--red", "Ann", "--blue", "Bo", "--db", str(db))
    result = run("fork", "m", "--at", "2", "--new-id", "n", "--players", "red=aggressive",
                 "--db", str(db), ok=False)
    _one_line_error(result, "bots play only with seeded dice")
    result = run("fork", "m", "--at", "2", "--new-id", "n", "--by", "Ann", "--db", str(db),
                 ok=False)
    _one_line_error(result, "--by says who changed the seats: give it with --players")


def test_fork_refuses_to_reseat_a_game_that_is_over(bot_db):
    result = run("fork", BOTS, "--at", str(len(stored(bot_db, BOTS))), "--new-id", "f",
                 "--players", "red=Ann", "--db", str(bot_db), ok=False)
    _one_line_error(result, "the game is over")


# -- warlog record --concede ----------------------------------------------------------------------


def test_a_side_concedes_and_the_other_wins(people_db):
    out = run("record", "--game", "p", "--concede", "blue", "--db", str(people_db)).output
    assert "blue concedes (Bo): the battle is given up." in out
    assert "Game over: red wins (blue conceded)." in out
    assert "game over — red (blue conceded)" in out
    events = stored(people_db, "p")
    assert [e["kind"] for e in events[-2:]] == ["side_conceded", "game_ended"]
    report = verify(events)
    assert report.ok and report.finished
    result = run("record", "--game", "p", "--concede", "red", "--db", str(people_db), ok=False)
    _one_line_error(result, "the game is over (blue conceded)")
    assert stored(people_db, "p") == events


@pytest.mark.parametrize("args,problem", [
    (["--game", "p", "--concede", "purple"], "field 'side': 'purple' is not a side"),
    (["--concede", "red"], "--concede needs --game"),
    (["--game", "p", "--concede", "red", "--dice", "auto"], "--dice cannot go with it"),
    (["--game", "nope", "--concede", "red"], "no game 'nope'"),
])
def test_record_concede_refuses_in_one_line(people_db, args, problem):
    before = stored(people_db, "p")
    result = run("record", *args, "--db", str(people_db), ok=False)
    _one_line_error(result, problem)
    assert stored(people_db, "p") == before


def test_a_bots_side_does_not_concede(bot_db):
    run("fork", BOTS, "--at", "200", "--new-id", "f", "--db", str(bot_db))
    result = run("record", "--game", "f", "--concede", "red", "--db", str(bot_db), ok=False)
    _one_line_error(result, "a bot does not concede")


# -- the Recorder ---------------------------------------------------------------------------------


def test_the_recorders_seats_and_concession_append_with_expected_seq(people_db):
    with SQLiteEventStore(people_db) as store:
        rec = Recorder(store, "p")
        other = Recorder(store, "p")
        seated = rec.change_seats({"red": "Cy", "blue": "Bo"}, by="Cy")
        assert seated["seq"] == other.events[-1]["seq"] + 1 and rec.who in ("Cy", "Bo")
        with pytest.raises(ConcurrencyError):  # the other recorder read the game before
            other.change_seats({"red": "Ann", "blue": "Bo"})
        with pytest.raises(PlayError, match="no player for blue"):
            rec.change_seats({"red": "Ann"})
        with pytest.raises(PlayError, match="not a bot"):
            rec.append_bot_order()
        ended = rec.concede("red", by="Cy")
        assert replay(store.read("p")).winner == "blue" and ended[-1]["reason"] == "red conceded"
        with pytest.raises(PlayError, match="the game is over"):
            rec.concede("blue")
        with pytest.raises(PlayError, match="the game is over"):
            rec.change_seats({"red": "Ann", "blue": "Bo"})
        with pytest.raises(PlayError, match="the game is over"):
            rec.append_bot_order()
        assert verify(store.read("p")).ok


def test_the_recorder_refuses_a_seats_change_inside_an_order(tmp_path):
    db = tmp_path / "m.db"
    run("new", SCENARIO, "--game", "m", "--red", "Ann", "--blue", "Bo", "--db", str(db))
    with SQLiteEventStore(db) as store:
        rec = Recorder(store, "m")
        with pytest.raises(PlayError, match="bots play only with seeded dice"):
            rec.change_seats({"red": "Ann", "blue": "random"})
        rec.pending = Pending(rec.legal()[0])  # an order waiting for its dice, as give leaves
        for attempt in (lambda: rec.change_seats({"red": "Cy", "blue": "Bo"}),
                        lambda: rec.concede("red")):
            with pytest.raises(PlayError, match="waits for its dice: give them or undo it"):
                attempt()
        assert len(store.read("m")) == len(rec.events)


def test_a_bot_order_is_the_bots_own_choice_by_default(bot_db):
    run("fork", BOTS, "--at", "200", "--new-id", "f", "--db", str(bot_db))
    with SQLiteEventStore(bot_db) as store:
        rec = Recorder(store, "f")
        chosen = next_order(rec.state)
        new = rec.append_bot_order()
        assert new[0]["order"] == chosen.model_dump(mode="json")
        assert new[0]["by"] == rec.events[0]["players"][new[0]["side"]]
        rec.append_bot_order(next_order(rec.state))  # chosen elsewhere, given here
        assert verify(store.read("f")).ok
