"""The Play page answers every click (AppTest over a real database): a click that gives nothing
says why in one line, a click on a board drawn before the game moved on gives nothing and says
so, a plain click on a cell moves at once, Shift-click offers the alternatives plainest first,
a note is confirmed and signed by the seat's player, and a game played by seat links keeps each
page to its own seat (its address, its links, its bots' pace).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from app_pages import click_board, open_page
from markup_probe import shown

from warlog.dashboard import play_clicks
from warlog.app.seats import Seat
from warlog.app.session import Session, issue_seat_links
from warlog.app.start import start_game
from warlog.engine import vocabulary
from warlog.engine.scenario import load_scenario
from warlog.events.sqlite_store import SQLiteEventStore

SCENARIO = "ancients-river-crossing"


def _stored(db: Path, game: str) -> list[dict]:
    with SQLiteEventStore(db) as store:
        return store.read(game)


@pytest.fixture
def hot_seat(tmp_path, monkeypatch):
    """A two-person game on one page (no seat links), opened in Play: (page, db, game)."""
    db = tmp_path / "answers.db"
    with SQLiteEventStore(db) as store:
        game = start_game(store, load_scenario(SCENARIO), game_id="answers", seed=3,
                          seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    at = open_page(monkeypatch, db, "views/play.py")
    at.session_state["play_game"] = game
    at.run()
    assert not at.exception
    return at, db, game


def _click(at, cell, **kw):
    with_table = at.session_state["play_table"][1]
    x, y = with_table.state.grid.centre(tuple(cell))
    click_board(at, "play_board", x, y, **kw)
    assert not at.exception


def _table(at) -> Session:
    return at.session_state["play_table"][1]


def _lines(at) -> list[str]:
    return [shown(box.value) for kind in (at.info, at.warning, at.error, at.success)
            for box in kind]


def test_a_plain_click_moves_at_once_and_shift_offers_the_rest_plain_first(hot_seat):
    at, db, game = hot_seat
    table = _table(at)
    unit = table.units_to_act()[0]
    _click(at, table.state.units[unit].cell)
    assert at.session_state["play_unit"] == unit
    choices = table.choices(unit)
    cell, orders = next((c, o) for c, o in choices.cells.items() if len(o) > 1)
    _click(at, cell, shift=True)  # Shift: every order there, the plain one first
    offer = at.session_state["play_offer"]
    assert set(offer) == set(orders)
    assert offer[0] == vocabulary.plain_order(table.state, orders)
    offered = [b.label for b in at.button if (b.key or "").startswith("play_offer_")]
    assert len(offered) == len(orders)
    count = len(_stored(db, game))
    _click(at, cell)  # a plain click: the plain move, no question asked
    assert "play_offer" not in at.session_state
    events = _stored(db, game)
    assert len(events) > count and events[count]["kind"] == "order_given"
    given = events[count]["order"]
    assert given["unit"] == unit and given.get("end_facing") in (None, given["facing"])


def test_a_click_that_gives_nothing_says_why(hot_seat):
    at, db, game = hot_seat
    table = _table(at)
    state = table.state
    count = len(_stored(db, game))
    unit = table.units_to_act()[0]
    _click(at, state.units[unit].cell)
    far = next(c for c in state.grid.cells() if state.unit_at(c) is None
               and c not in table.choices(unit).cells)
    _click(at, far)
    assert any(f"{unit} cannot end a move on" in line for line in _lines(at)), _lines(at)
    enemy = next(u for u in state.alive() if u.side != state.to_act
                 and u.id not in table.choices(unit).enemies)
    _click(at, enemy.cell)
    said = play_clicks.resolve(table, enemy.cell, unit).say
    assert said and any(said in line for line in _lines(at)), (said, _lines(at))
    assert len(_stored(db, game)) == count  # nothing given


def test_a_click_on_a_board_drawn_before_the_game_moved_on_gives_nothing(hot_seat):
    at, db, game = hot_seat
    table = _table(at)
    unit = table.units_to_act()[0]
    _click(at, table.state.units[unit].cell)
    drawn = _table(at).last_seq()
    with SQLiteEventStore(db) as store:  # another page orders first
        other = Session(store, game)
        other.give(next(o for o in other.legal() if vocabulary.unit_of(other.state, o) == unit))
    after = _stored(db, game)
    cell = next(iter(table.choices(unit).cells))
    _click(at, cell, seen=drawn)  # the click was made on the board the player saw
    assert any("The game moved on before your click arrived" in line for line in _lines(at)), \
        (_lines(at), [m.value for m in at.markdown])
    assert _stored(db, game) == after  # nothing applied to a board the player had not seen


def test_a_note_is_confirmed_and_a_refused_one_is_one_line(hot_seat):
    at, db, game = hot_seat
    at.text_input(key="play_note").set_value("the ford is the key")
    at.button(key="play_note_go").click().run()
    assert any("Note saved on event" in line and "Ann" in line for line in _lines(at))
    assert _stored(db, game)[-1]["author"] == "Ann"
    count = len(_stored(db, game))
    at.text_input(key="play_note").set_value("reversed \u202e text").run()
    at.button(key="play_note_go").click().run()
    assert not at.exception
    assert any(line.startswith("The note was not saved") for line in _lines(at))
    assert len(_stored(db, game)) == count


@pytest.fixture
def linked(tmp_path):
    """A game for two browsers (seat links) and a bot-vs-bot game beside it: (db, game,
    tokens, bots)."""
    db = tmp_path / "linked.db"
    with SQLiteEventStore(db) as store:
        seats = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}
        game = start_game(store, load_scenario(SCENARIO), game_id="linked", seed=3, seats=seats)
        tokens = issue_seat_links(store, game, seats)
    return db, game, tokens


def _open_link(monkeypatch, db, game, token=None):
    at = open_page(monkeypatch, db, "views/play.py")
    at.query_params["play"] = game
    if token is not None:
        at.query_params["seat"] = token
    at.run()
    assert not at.exception
    return at


def test_a_seat_link_keeps_its_seat_in_the_address_and_a_bad_one_says_so(linked, monkeypatch):
    db, game, tokens = linked
    at = _open_link(monkeypatch, db, game, tokens["red"])
    assert at.query_params["seat"] == tokens["red"]  # a reload reopens the seat
    assert any("holds red's seat" in shown(c.value) for c in at.caption)
    wrong = _open_link(monkeypatch, db, game, tokens["red"][:-2] + "xx")
    assert any("not a seat of this game" in line for line in _lines(wrong)), _lines(wrong)
    assert "seat" not in wrong.query_params
    state = _table(wrong).state
    unit = state.alive(state.to_act)[0]
    _click(wrong, unit.cell)  # a watcher's click: one line, nothing given
    assert any(line.startswith("This page watches") for line in _lines(wrong))


def test_a_watcher_may_not_pause_the_players_bots(tmp_path, monkeypatch):
    db = tmp_path / "bots.db"
    with SQLiteEventStore(db) as store:
        seats = {"red": Seat.person("Ann"), "blue": Seat.of_bot("tactician")}
        game = start_game(store, load_scenario(SCENARIO), game_id="bots", seed=3, seats=seats)
        tokens = issue_seat_links(store, game, seats)
        table = Session(store, game, tokens["red"])
        while not table.seat_to_act.bot:  # red ends its phases until the bot is to act
            table.give(next(o for o in table.legal() if o.type == "end_phase"))
    watcher = open_page(monkeypatch, db, "views/play.py")
    watcher.session_state["play_pace"] = "a step at a time"
    watcher.query_params["play"] = game
    watcher.run()
    assert not watcher.exception
    keys = {b.key for b in watcher.button}
    assert "play_bot" not in keys and "play_bot_stop" not in keys
    assert not [r for r in watcher.radio if r.key == "play_pace"]
    seat = open_page(monkeypatch, db, "views/play.py")
    seat.session_state["play_pace"] = "a step at a time"
    seat.query_params["play"], seat.query_params["seat"] = game, tokens["red"]
    seat.run()
    assert "play_bot" in {b.key for b in seat.button}  # the seat sets the pace


def test_a_pages_seat_links_are_never_shown_for_another_game(linked, monkeypatch):
    db, game, tokens = linked
    at = open_page(monkeypatch, db, "views/play.py")
    at.session_state["play_game"] = game
    at.session_state["play_links"] = (game, tokens)  # this page started the linked game
    at.run()
    assert any(tokens["red"] in m.value for m in at.markdown)
    with SQLiteEventStore(db) as store:
        other = start_game(store, load_scenario(SCENARIO), game_id="another", seed=4,
                           seats={"red": Seat.person("Cy"), "blue": Seat.person("Di")})
    at.session_state["play_game"] = other  # as the Library or a replay's Continue opens one
    at.run()
    assert not at.exception
    assert not any(token in m.value for m in at.markdown for token in tokens.values())


def test_a_choice_forced_by_the_other_sides_attack_shows_the_attack_and_its_die(tmp_path,
                                                                                monkeypatch):
    """The Portable Wargame's retreat-or-lose choice comes in the attacker's activation: the
    page shows which attack (and which die) caused it beside the choice."""
    import orjson

    golden = Path(__file__).resolve().parents[1] / "golden"
    for path in sorted(golden.glob("portable-*.events.jsonl")):
        events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        at_index = next((i for i, e in enumerate(events) if e["kind"] == "order_given"
                         and e["order"]["type"] == "hit_choice"), None)
        if at_index is not None:
            break
    assert at_index is not None, "no golden game holds a hit choice"
    db = tmp_path / "choice.db"
    with SQLiteEventStore(db) as store:
        store.append(events[0]["game"], events[:at_index], 0)
    at = open_page(monkeypatch, db, "views/play.py")
    at.session_state["play_game"] = events[0]["game"]
    at.run()
    assert not at.exception
    unit = events[at_index]["order"]["unit"]
    assert at.session_state["play_unit"] == unit  # the one unit that must act, selected
    cause = [line for line in _lines(at) if line.startswith("Because of")]
    assert cause and unit in cause[0] and "die" in cause[0], _lines(at)
