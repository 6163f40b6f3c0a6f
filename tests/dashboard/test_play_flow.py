"""What the Play page's inputs leave in its session state (dashboard/play_flow.py), without
Streamlit: plain dicts stand for ``st.session_state`` and ``st.query_params``, and the games are
real ones on a SQLite file. A click on an older board gives nothing and says so; a refusal, the
dice an order waits for, a note and a plan each leave their one line; the bots start once per
position; the watcher reruns only when it should; a link opens its game once."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pytest

from warlog.app.seats import Seat
from warlog.app.session import Session, issue_seat_links
from warlog.app.start import start_game
from warlog.app.table_dice import DiceNeeded
from warlog.dashboard import play_flow
from warlog.dashboard.play_clicks import Outcome
from warlog.engine.scenario import load_scenario
from warlog.events.orders import EndPhaseOrder
from warlog.events.sqlite_store import SQLiteEventStore

PEOPLE = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "flow.db")


@pytest.fixture
def store(path):
    with SQLiteEventStore(path) as s:
        yield s


def new_game(store, game_id: str, seats=None, **kw) -> str:
    return start_game(store, load_scenario("ancients-river-crossing"), game_id=game_id,
                      seats=seats or PEOPLE, played="2026-12-03", **({"seed": 4} | kw))


def a_move(table: Session):
    """The first order of the first unit that may act, else the end of the phase."""
    units = table.units_to_act()
    return table.choices(units[0]).orders()[0] if units else EndPhaseOrder()


def test_the_table_is_kept_across_runs_and_replaced_for_another_seat(store, path):
    gid = new_game(store, "kept")
    session: dict = {}
    held: list = []
    table = play_flow.table_of(session, path, gid, SQLiteEventStore, held.append)
    assert play_flow.table_of(session, path, gid, SQLiteEventStore, held.append) is table
    assert held == [table.recorder.store] * 2  # held by the browser session on every run
    session["play_offer"] = ["an order"]
    Session(store, gid).give(EndPhaseOrder())  # another page moves
    assert play_flow.table_of(session, path, gid, SQLiteEventStore, held.append) is table
    assert "play_offer" not in session and table.events == store.read(gid)
    session["play_seat_token"] = "another"
    other = play_flow.table_of(session, path, gid, SQLiteEventStore, held.append)
    assert other is not table and other.holds is None
    with pytest.raises(sqlite3.ProgrammingError):  # the table it replaced was closed
        table.recorder.store.last_seq(gid)


def test_an_order_from_an_older_board_gives_nothing_and_says_so(store):
    gid = new_game(store, "late")
    table, other = Session(store, gid), Session(store, gid)
    seen = table.last_seq()
    order = a_move(table)
    other.give(a_move(other))
    count = len(store.read(gid))
    session: dict = {"play_offer": [order]}
    play_flow.give(session, table, order, seen)
    assert session["play_message"] == ("warning", play_flow.MOVED_ON)
    assert "play_offer" not in session and len(store.read(gid)) == count
    session.clear()
    play_flow.give(session, table, a_move(table), table.last_seq())  # on the board as it stands
    assert "play_message" not in session and session["play_dice"] is None
    assert len(store.read(gid)) > count


def test_a_refusal_is_an_error_line_and_dice_waited_for_are_kept_until_given(store):
    gid = new_game(store, "dice", dice="manual", seed=None)
    table = Session(store, gid)
    session: dict = {}
    for _ in range(500):  # the first orders, until one asks for its dice
        play_flow.give(session, table, a_move(table), table.last_seq())
        if session.get("play_dice") is not None:
            break
    needed = session["play_dice"]
    assert isinstance(needed, DiceNeeded) and table.pending is not None
    assert play_flow.dice_waited(session, table) is needed
    assert play_flow.side_panel(table, needed) == "dice"
    play_flow.act(session, table, lambda: table.give(EndPhaseOrder()))  # refused: it waits
    assert session["play_message"][0] == "error" and "waits for its dice" in \
        session["play_message"][1]
    table.undo()  # taken back (here: as another input would)
    assert play_flow.dice_waited(session, table) is None and session["play_dice"] is None
    assert play_flow.side_panel(table, None) == "orders"


def test_what_a_click_leaves(store):
    gid = new_game(store, "click")
    table = Session(store, gid)
    session: dict = {"play_offer": ["old"]}
    play_flow.clicked(session, table, Outcome(select="r-inf-1"))
    assert session == {"play_unit": "r-inf-1"}
    order = a_move(table)
    play_flow.clicked(session, table, Outcome(offer=(order, EndPhaseOrder())))
    assert session["play_offer"] == [order, EndPhaseOrder()]
    play_flow.clicked(session, table, Outcome(say="why not"))
    assert "play_offer" not in session and session["play_message"] == ("info", "why not")
    count = len(store.read(gid))
    play_flow.clicked(session, table, Outcome(give=order))
    assert len(store.read(gid)) > count
    session["play_offer"] = [order]
    play_flow.pick_unit(session, "r-arc-1")
    assert session["play_unit"] == "r-arc-1" and "play_offer" not in session
    session["play_unit"] = "b-inf-1"  # an enemy: not kept selected
    assert play_flow.settle_selection(session, table) is None and session["play_unit"] is None


def test_a_note_and_a_plan_leave_their_line_and_an_empty_box(store):
    gid = new_game(store, "notes")
    table = Session(store, gid)
    side = table.state.to_act
    session: dict = {"play_note": "   "}
    play_flow.note(session, table)
    assert session["play_message"] == ("info", "The note is empty: write something first")
    session["play_note"] = "hold the ford"
    play_flow.note(session, table)
    kind, line = session["play_message"]
    assert kind == "success" and f"signed {table.state.players[side]}" in line
    assert session["play_note"] == "" and store.read(gid)[-1]["text"] == "hold the ford"
    session[f"play_plan_{side}"] = "take the hill"
    play_flow.plan(session, table, side)
    assert session["play_message"] == ("success", f"{side}'s plan is saved: the review's "
                                       "after-action report sets the battle against it.")
    assert session[f"play_plan_{side}"] == ""
    table.give(a_move(table))
    session[f"play_plan_{side}"] = "too late"
    play_flow.plan(session, table, side)  # a plan comes before the side's first order
    kind, line = session["play_message"]
    assert kind == "error" and line.startswith("The plan was not saved: ")
    assert session[f"play_plan_{side}"] == "too late"  # kept, not emptied


def test_the_reseat_form_closes_on_its_result_or_stays_open_with_the_refusal(store):
    gid = new_game(store, "reseat")
    table = Session(store, gid)
    session: dict = {"play_reseat": True}
    refused = play_flow.reseat(session, table, {"red": Seat.person("tactician"),
                                                "blue": Seat.person("Bo")})
    assert refused and "tactician" in refused and session["play_reseat"] is True
    assert play_flow.reseat(session, table, {"red": Seat.of_bot("random"),
                                             "blue": Seat.person("Bo")}) is None
    assert "play_reseat" not in session and store.read(gid)[-1]["kind"] == "seats_changed"
    session["play_reseat"] = True
    count = len(store.read(gid))
    assert play_flow.reseat(session, table, None) is None  # kept as they were
    assert "play_reseat" not in session and len(store.read(gid)) == count


def test_a_link_opens_its_game_once_and_the_address_follows_the_seat(store):
    gid = new_game(store, "linked")
    links = issue_seat_links(store, gid, PEOPLE)
    session: dict = {}
    params: dict = {}
    play_flow.open_game(session, params, gid, links)
    assert session["play_game"] == gid and params == {"play": gid}
    assert play_flow.links_of(session, gid) == links and play_flow.links_of(session, "x") is None
    params["seat"] = links["red"]
    play_flow.read_link(session, params)  # the starter opens one of its own links
    assert session["play_seat_token"] == links["red"] and play_flow.links_of(session, gid) == links
    session["play_unit"] = "r-inf-1"
    play_flow.read_link(session, params)  # the same link again: nothing is reset
    assert session["play_unit"] == "r-inf-1"
    table = Session(store, gid, links["red"])
    play_flow.keep_address(session, params, table, gid)
    assert params == {"play": gid, "seat": links["red"]}
    session["play_seat_token"] = "mistyped"
    play_flow.keep_address(session, params, Session(store, gid, "mistyped"), gid)
    assert params == {"play": gid}  # no seat of this game: dropped from the address
    session["play_table"] = (None, table)
    play_flow.leave(session, params)
    assert params == {} and not any(k in session for k in ("play_game", "play_table",
                                                              "play_unit", "play_links"))


def test_a_watcher_never_paces_the_bots_but_their_starter_does(store):
    seats = {"red": Seat.of_bot("random"), "blue": Seat.person("Bo")}
    gid = new_game(store, "paced", seats=seats)
    links = issue_seat_links(store, gid, seats)
    watcher = Session(store, gid)
    assert not play_flow.paces_here({}, watcher)
    assert play_flow.paces_here({"play_links": (gid, links)}, watcher)
    assert play_flow.paces_here({}, Session(store, gid, links["blue"]))


@dataclass
class Run:
    """A bots' run as the page reads it (bot_runner.BotRun's fields)."""

    done: bool = False
    error: str | None = None
    paused: bool = False
    pace: str = "at once"
    thinking: float = 0.0

    def thinking_for(self) -> float:
        return self.thinking


def test_the_bots_start_once_per_position_and_wait_for_a_click_when_held_back(store):
    gid = new_game(store, "bots", seats={"red": Seat.of_bot("random"), "blue": Seat.person("Bo")})
    table = Session(store, gid)
    session: dict = {}
    assert play_flow.bots_next(session, table, Run(), "at once") == "pause"
    assert play_flow.bots_next(session, table, None, "at once") == "start"
    assert session["play_bots_started_at"] == (gid, len(table.events))
    # the same position again (their run ended there): a click, not another start
    assert play_flow.bots_next(session, table, Run(done=True), "at once") == "bot moves"
    assert play_flow.bots_next({}, table, None, "a step at a time") == "bot moves"
    assert play_flow.bots_next({}, table, Run(done=True, paused=True), "at once") == "play on"
    assert play_flow.bots_next({}, table, Run(done=True, error="x"), "one a second") == "play on"
    assert play_flow.bots_next({}, table, Run(done=True), "one a second") == "start"


def test_the_watcher_reruns_when_the_game_moved_unless_a_turn_is_played_at_once():
    just_began = 0.4  # seconds of thinking: below it, a turn at once is not shown order by order
    assert not play_flow.rerun_now(None, False, False, just_began)
    assert play_flow.rerun_now(None, True, False, just_began)
    assert not play_flow.rerun_now(Run(thinking=0.1), True, True, just_began)  # a fast bot's turn
    assert play_flow.rerun_now(Run(thinking=2.0), True, True, just_began)  # a slow bot's progress
    assert play_flow.rerun_now(Run(pace="one a second"), True, True, just_began)
    assert play_flow.rerun_now(Run(done=True), False, True, just_began)  # the run seen has ended
    assert not play_flow.rerun_now(Run(done=True), False, False, just_began)


# -- taking orders back --------------------------------------------------------------------------


def test_a_take_back_forgets_the_gone_position_and_says_what_was_taken_back(store):
    gid = new_game(store, "tb-flow")
    table = Session(store, gid)
    side = table.state.to_act
    before = (table.state.turn, table.state.phase, side)
    table.give(EndPhaseOrder())
    assert (table.state.turn, table.state.phase, table.state.to_act) != before
    session: dict = {"play_unit": "r-inf-1", "play_offer": ["an order"], "play_dice": "waits"}
    play_flow.take_back(session, table, side, 1)
    assert session == {"play_message": ("success", session["play_message"][1])}
    assert session["play_message"][1].startswith(f"{side.capitalize()}")
    assert "takes back 1 order (from event" in session["play_message"][1]
    assert (table.state.turn, table.state.phase, table.state.to_act) == before
    assert store.read(gid)[-1]["kind"] == "orders_taken_back"


def test_a_refused_take_back_is_the_line_and_keeps_the_selection(store):
    gid = new_game(store, "tb-refused")
    table = Session(store, gid)
    side = table.state.to_act
    table.give(EndPhaseOrder())
    count = len(store.read(gid))
    session: dict = {"play_unit": "u"}
    play_flow.take_back(session, table, side, 2)  # it has given one order only
    kind, line = session["play_message"]
    assert kind == "error" and line.startswith("cannot take back") and "not 2" in line
    assert session["play_unit"] == "u" and len(store.read(gid)) == count
    Session(store, gid).give(EndPhaseOrder())  # another page moves meanwhile
    moved = store.read(gid)
    play_flow.take_back(session, table, side, 1)
    assert session["play_message"][0] == "warning" and store.read(gid) == moved


def test_between_two_browsers_the_click_asks_and_the_answer_is_the_other_pages_line(store):
    gid = new_game(store, "tb-ask")
    tokens = issue_seat_links(store, gid, PEOPLE)
    side = Session(store, gid).state.to_act
    other = "blue" if side == "red" else "red"
    mine, theirs = Session(store, gid, tokens[side]), Session(store, gid, tokens[other])
    mine.give(EndPhaseOrder())
    count = len(store.read(gid))
    asker: dict = {}
    play_flow.take_back(asker, mine, side, 1)
    assert asker["play_message"][0] == "info" and "Asked the other seat" in \
        asker["play_message"][1]
    assert len(store.read(gid)) == count  # nothing taken back yet
    answerer: dict = {"play_unit": "u"}
    play_flow.answer_take_back(answerer, theirs, False)
    assert answerer["play_message"][0] == "info" and answerer["play_unit"] == "u"
    play_flow.answer_take_back(answerer, theirs, False)  # answered already: nothing stands
    assert answerer["play_message"][0] == "error"
    play_flow.take_back(asker, mine, side, 1)
    play_flow.answer_take_back(answerer, theirs, True)
    assert answerer["play_message"][0] == "success" and "play_unit" not in answerer
    assert store.read(gid)[-1]["kind"] == "orders_taken_back"
