"""Taking orders back on the Play page (AppTest over a real database, issue 39): in a hot-seat
game an `end` and a move are taken back from the page at once, the game back where it stood;
a take-back that comes too late is the page's one line; between two browsers (seat links) the
asking page's click is a question the other seat's page answers, Refuse or Agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_pages import open_page
from markup_probe import shown

from warlog.app.seats import Seat
from warlog.app.session import Session, issue_seat_links
from warlog.app.start import start_game
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.orders import EndPhaseOrder
from warlog.events.sqlite_store import SQLiteEventStore

SCENARIO = "ancients-river-crossing"
PEOPLE = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}


def _says_taken_back(line: str, side: str, orders: str) -> bool:
    """The page's line for a take-back, in the replay's words (narration.takeback_text)."""
    return line.startswith(side.capitalize()) and f"takes back {orders} (from event" in line \
        and "the game goes back to turn" in line


def _stored(db: Path, game: str) -> list[dict]:
    with SQLiteEventStore(db) as store:
        return store.read(game)


def _lines(at) -> list[str]:
    return [shown(box.value) for kind in (at.info, at.warning, at.error, at.success)
            for box in kind]


def _where(events: list[dict]) -> tuple:
    from warlog.engine.fold import replay

    state = replay(events)
    return state.turn, state.phase, state.to_act, {u.id: u.cell for u in state.alive()}


def _button(at, key: str):
    found = [b for b in at.button if b.key == key]
    assert found, (key, [b.key for b in at.button])
    return found[0]


def _end_button(at):
    """The side's "end phase" button."""
    (end,) = [b for b in at.button if (b.key or "").startswith("play_side_")
              and "end" in (b.label or "").lower()]
    return end


@pytest.fixture
def hot_seat(tmp_path, monkeypatch):
    """A two-person game on one page (no seat links), opened in Play: (page, db, game)."""
    db = tmp_path / "takeback.db"
    with SQLiteEventStore(db) as store:
        game = start_game(store, load_scenario(SCENARIO), game_id="tb", seed=3, seats=PEOPLE)
    at = open_page(monkeypatch, db, "views/play.py")
    at.session_state["play_game"] = game
    at.run()
    assert not at.exception
    return at, db, game


def test_an_end_is_taken_back_from_the_page(hot_seat):
    at, db, game = hot_seat
    side = at.session_state["play_table"][1].state.to_act
    assert not [b for b in at.button if (b.key or "").startswith("play_takeback")]
    before = _where(_stored(db, game))
    _end_button(at).click().run()
    assert _where(_stored(db, game)) != before
    take = _button(at, f"play_takeback_{side}")
    assert take.label == f"Take back {side}'s last order"
    assert "nothing else has decided the game" in take.help
    take.click().run()
    assert not at.exception
    events = _stored(db, game)
    assert events[-1]["kind"] == "orders_taken_back" and events[-1]["by"] == "Ann"
    assert _where(events) == before
    assert any(_says_taken_back(line, side, "1 order") for line in _lines(at))
    assert verify(events).ok


def test_a_move_is_taken_back_and_the_selection_is_forgotten(hot_seat):
    at, db, game = hot_seat
    table = at.session_state["play_table"][1]
    side = table.state.to_act
    before = _where(_stored(db, game))
    for _ in range(2):  # two moves from the list of every legal order
        fallback = at.selectbox(key="play_fallback")
        moves = [o for o in fallback.options if "end" not in o.lower()]
        fallback.set_value(moves[0]).run()
        at.button(key="play_fallback_go").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    unit = at.session_state["play_table"][1].units_to_act()[0]
    at.session_state["play_unit"] = unit
    at.run()
    (count,) = [n for n in at.number_input if (n.key or "").startswith("play_takeback_n_")]
    assert (count.value, count.max) == (1, 2)
    count.set_value(2).run()
    _button(at, f"play_takeback_{side}").click().run()
    assert not at.exception
    events = _stored(db, game)
    assert events[-1]["kind"] == "orders_taken_back" and events[-1]["orders"] == 2
    assert _where(events) == before
    assert any(_says_taken_back(line, side, "2 orders") for line in _lines(at))
    # the unit selected in the position that is gone is no longer selected
    assert len(at.session_state["play_table"][1].units_to_act()) > 1
    assert at.session_state["play_unit"] is None


def test_a_take_back_after_the_game_moved_on_is_one_line(hot_seat):
    at, db, game = hot_seat
    side = at.session_state["play_table"][1].state.to_act
    _end_button(at).click().run()
    take = _button(at, f"play_takeback_{side}")
    with SQLiteEventStore(db) as store:  # another page gives an order first
        other = Session(store, game)
        other.give(other.legal()[0])
    moved = _stored(db, game)
    take.click().run()
    assert not at.exception
    assert any("moved on" in line for line in _lines(at)), _lines(at)
    assert _stored(db, game) == moved  # nothing taken back


@pytest.fixture
def two_seats(tmp_path, monkeypatch):
    """A game for two browsers: (the page of the side to act, the other seat's page, db, game,
    the side to act)."""
    db = tmp_path / "seats.db"
    with SQLiteEventStore(db) as store:
        game = start_game(store, load_scenario(SCENARIO), game_id="seats", seed=3, seats=PEOPLE)
        tokens = issue_seat_links(store, game, PEOPLE)
        side = Session(store, game).state.to_act
    other = "blue" if side == "red" else "red"
    pages = []
    for who in (side, other):
        page = open_page(monkeypatch, db, "views/play.py")
        page.query_params["play"], page.query_params["seat"] = game, tokens[who]
        page.run()
        assert not page.exception
        pages.append(page)
    return pages[0], pages[1], db, game, side


def test_between_two_seats_a_take_back_is_asked_then_refused_or_agreed(two_seats):
    asker, answerer, db, game, side = two_seats
    before = _where(_stored(db, game))
    _end_button(asker).click().run()
    ask = _button(asker, f"play_takeback_{side}")
    assert ask.label == f"Ask to take back {side}'s last order"
    count = len(_stored(db, game))
    ask.click().run()
    assert any("Asked the other seat" in line for line in _lines(asker))
    assert any("Waiting for the other seat" in line for line in _lines(asker.run()))
    assert len(_stored(db, game)) == count
    answerer.run()  # its watcher reruns it when the request is made
    assert any(f"{side} asks to take back its last 1 order" in line
               for line in _lines(answerer)), _lines(answerer)
    assert not [b for b in answerer.button if (b.key or "").startswith("play_takeback_")
                and b.key not in ("play_takeback_agree", "play_takeback_refuse")]
    _button(answerer, "play_takeback_refuse").click().run()
    assert not answerer.exception
    assert len(_stored(db, game)) == count
    asker.run()
    assert any("refused to take back your orders" in line for line in _lines(asker))

    _button(asker, f"play_takeback_{side}").click().run()
    answerer.run()
    _button(answerer, "play_takeback_agree").click().run()
    assert not answerer.exception
    events = _stored(db, game)
    assert events[-1]["kind"] == "orders_taken_back" and events[-1]["by"] == PEOPLE[side].name
    assert _where(events) == before
    assert any(_says_taken_back(line, side, "1 order") for line in
               _lines(answerer))
    asker.run()
    assert not [b for b in asker.button if (b.key or "").startswith("play_takeback_")]
    assert not any("refused" in line or "Waiting" in line for line in _lines(asker))
    assert verify(events).ok
