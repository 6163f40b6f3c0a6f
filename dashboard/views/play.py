"""The Play page (issue 22, "the dashboard becomes the table"): start a game or continue one,
then play it by clicking the board, the buttons beside it or the list of every legal order, and
let the bots move. Every order is recorded in the database as it is given.

The page only parses, calls and shows (issue 39): what an input means for the game and its seats
is the Session's (warlog/app/session.py: who may order, which panel the turn wants, what stays
selected, whether a click came too late), what it means for the page's session state is
dashboard/play_flow.py's, what a click on the board means is dashboard/play_clicks.py's, and the
widgets are dashboard/play_widgets.py's, play_bots.py's, play_panels.py's and play_start.py's.
"""

from __future__ import annotations

import sqlite3

import streamlit as st

from warlog.app.pictures import board
from warlog.app.session import Session
from warlog.dashboard import (board_click, data, play_bots, play_clicks, play_flow, play_panels,
                              play_start, play_widgets, review_try, table_registry)
from warlog.dashboard.data import markdown_text as md
from warlog.engine import reach
from warlog.events.ids import check_id
from warlog.events.replay_input import short_repr
from warlog.events.store import StoreError

CLICK_HINT = ("Click one of your marked units to select it, then a cell or an enemy: a click "
              "gives the plain order at once. Shift-click (or Alt-click) a cell to choose another "
              "facing or an attack on arrival.")


def _leave() -> None:
    play_flow.leave(st.session_state, st.query_params)


def _open(game: str, links: dict[str, str] | None = None) -> None:
    play_flow.open_game(st.session_state, st.query_params, game, links)


def _board_clicked(table: Session) -> None:
    """A click on the board: what it means is play_clicks.resolve's (select a unit, give the
    plain order, offer the alternatives, or say why nothing was given); a click on a board
    drawn before the game moved on gives nothing and says so."""
    if play_flow.stale(st.session_state, table, board_click.clicked_seen("play_board")):
        return
    cell = board_click.clicked_cell("play_board", table.state.grid)
    ask = board_click.clicked_shift("play_board") or st.session_state.get("play_ask", False)
    outcome = play_clicks.resolve(table, cell, st.session_state.get("play_unit"), ask=ask)
    play_flow.clicked(st.session_state, table, outcome)


def _opened(path: str, game: str) -> Session | None:
    """The game's table, or None with the line why it cannot be opened (and a way back)."""
    try:
        check_id(game)  # the address is anyone's text: a bad one is named short, never echoed
        return play_flow.table_of(st.session_state, path, game, table_registry.SessionStore,
                                  table_registry.hold)
    except (ValueError, StoreError, sqlite3.Error) as exc:
        st.error(md(f"Cannot open the game {short_repr(game, 40)}: {exc}"))
        st.button("Back", on_click=_leave)
        return None


def _ended(table: Session, game: str) -> None:
    state = table.state
    st.success(md(f"The game has ended: {state.winner or 'no winner'} "
                  f"({state.end_reason or 'over'})."))
    if st.button("Replay it", key="play_to_replay", type="primary"):
        play_flow.to_replay(st.session_state, game)
        _leave()
        st.switch_page("views/replay.py")


def _board(table: Session, unit: str | None, ordering: bool, happened) -> None:
    """The board, the units that may act marked for the person ordering, the selected unit's
    reach and the latest step's marks; a click goes to ``_board_clicked``."""
    state = table.state
    selected = None if unit is None else reach.unit_reach(state, unit)
    ready = table.units_to_act() if ordering else ()
    board_click.show(board.board_spec(state, selected=selected, ready=ready,
                                      highlight=play_panels.latest_marks(happened, state),
                                      width_px=board.PAGE_PX),
                     board.PAGE_PX, key="play_board", on_click=lambda: _board_clicked(table),
                     title=f"The board, {state.to_act or 'nobody'} to act",
                     seen=table.last_seq())
    if ordering:
        st.caption(CLICK_HINT)


def _beside(path: str, table: Session, unit: str | None, ordering: bool, happened) -> None:
    """The column beside the board: the review's "Try it", the turn's panel, taking orders
    back (or answering the other seat's request), what happened, the plan and note boxes,
    conceding and leaving."""
    needed = play_flow.dice_waited(st.session_state, table)
    review_try.offer(table, ordering and needed is None, play_widgets.give)
    panel = play_flow.side_panel(table, needed)
    seat, state = table.seat_to_act, table.state
    if panel == "dice":
        play_widgets.dice_panel(table, needed)
    elif panel == "bot":
        play_bots.bot_panel(path, table, seat)
    elif panel == "follow":
        st.info(md(f"{state.to_act} is {seat.name}'s to play, from {state.to_act}'s seat "
                   "link: this page follows the moves as they are made."))
    elif panel == "orders":
        play_widgets.orders_panel(table, unit)
    play_widgets.take_back_box(table)
    play_panels.happened(happened)
    play_widgets.plan_box(table)
    play_widgets.note_box(table)
    play_widgets.concede(table)
    st.button("Leave this game", key="play_leave", on_click=_leave)


def _playing(path: str, game: str) -> None:
    table = _opened(path, game)
    if table is None:
        return
    play_flow.keep_address(st.session_state, st.query_params, table, game)
    play_widgets.message()
    play_widgets.header(table)
    play_panels.seat_line(table, st.session_state.get("play_seat_token"),
                          play_flow.links_of(st.session_state, table.game_id))
    if st.session_state.get("play_reseat") and not table.state.ended:
        play_widgets.reseat_form(table)
        return
    if table.state.ended:
        _ended(table, game)
    unit = play_flow.settle_selection(st.session_state, table)
    ordering = table.person_may_order()
    happened = table.happened()
    board_column, side_column = st.columns([3, 2])
    with board_column:
        _board(table, unit, ordering, happened)
    with side_column:
        _beside(path, table, unit, ordering, happened)
    if not table.state.ended:
        play_bots.watch(path, table)


def main() -> None:
    path = data.db_path()
    try:
        data.ensure_database(path)
    except (StoreError, sqlite3.Error, ValueError) as exc:
        st.error(md(f"Cannot open the database {path}: {exc}"))
        return
    st.title("Play")
    play_flow.read_link(st.session_state, st.query_params)
    game = st.session_state.get("play_game")
    if game is None:
        if play_start.choose_continue(path, _open):
            return
        started = play_start.start_form(path)
        if started is not None:
            _open(started, st.session_state.pop("play_new_links", None))
            st.rerun()
    else:
        _playing(path, game)


main()
