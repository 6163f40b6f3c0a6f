"""The Play page (issue 22, "the dashboard becomes the table"): start a game or continue one,
then play it by clicking the board, the buttons beside it or the list of every legal order, and
let the bots move. Every order is recorded in the database as it is given.

The page only arranges widgets; dashboard/play_session.py decides (seats, what a click offers,
the bot's move, each failure as one line). Session state: ``play_game`` (the game being played),
``play_unit`` (the selected unit), ``play_offer`` (several orders one click offered, to choose
from), ``play_table`` (the open table: an order waiting
for its dice lives only there until its dice are given).
"""

from __future__ import annotations

import sqlite3

import streamlit as st

from warlog.dashboard import board, board_click, bot_runner, data, play_session, play_start
from warlog.dashboard.play_session import DiceNeeded, GameMovedOn, PlayError, Seat, Table
from warlog.engine import reach
from warlog.engine.flow import phase_name
from warlog.events.ids import check_id
from warlog.events.replay_input import short_repr
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

BOT_POLL = 0.5  # seconds between two looks at a bot's progress
FOLLOW_POLL = 2.0  # seconds between two looks at the store for others' moves


# -- the table ---------------------------------------------------------------------------------


def _table(path: str, game: str) -> Table:
    """The open table of ``game``, kept across reruns (a pending order lives in it), read again
    if anyone appended meanwhile."""
    held = st.session_state.get("play_table")
    token = st.session_state.get("play_seat_token")
    if held is None or held[0] != (path, game, token):
        store = SQLiteEventStore(path, check_same_thread=False)
        held = ((path, game, token), Table(store, game, token))
        st.session_state["play_table"] = held
    table = held[1]
    if table.refresh():
        st.session_state.pop("play_offer", None)
    return table


def _leave() -> None:
    held = st.session_state.pop("play_table", None)
    if held is not None:
        held[1].recorder.store.close()
    for key in ("play_game", "play_unit", "play_offer", "play_dice", "play_bots_started_at",
                "play_seat_token", "play_links", "play_reseat"):
        st.session_state.pop(key, None)
    for param in ("play", "seat"):
        st.query_params.pop(param, None)


def _open(game: str, links: dict[str, str] | None = None) -> None:
    """Open ``game`` at the table (any game held before left), its id in the address; ``links``:
    the seat links of a game this page just started, to show its starter."""
    _leave()
    st.session_state["play_game"] = game
    if links:
        st.session_state["play_links"] = links
    st.query_params["play"] = game
    st.session_state["play_link_read"] = (game, None)


def _say(kind: str, text: str) -> None:
    st.session_state["play_message"] = (kind, text)


def _act(table: Table, action) -> None:
    """Run one input; its failure (or the dice it now waits for) becomes the page's one line."""
    st.session_state.pop("play_offer", None)
    try:
        result = action()
    except GameMovedOn as exc:
        _say("warning", str(exc))
        return
    except PlayError as exc:
        _say("error", str(exc))
        return
    st.session_state["play_dice"] = result if isinstance(result, DiceNeeded) else None


def _give(table: Table, order) -> None:
    _act(table, lambda: table.give(order))


def _start_bots(path: str, game: str, pace: str) -> None:
    try:
        bot_runner.start(path, game, pace)
    except PlayError as exc:
        _say("error", str(exc))


# -- playing -----------------------------------------------------------------------------------


def _board_clicked(table: Table) -> None:
    """A click on one of the acting side's units selects it; a click on a cell or an enemy gives
    the order it offers the selected unit, or with nobody selected the side's order aimed at
    that enemy (a Frontier fight names its target, not a unit); several: offered as buttons."""
    state = table.state
    cell = board_click.clicked_cell("play_board", state.grid)
    uid = board_click.unit_in(state, cell)
    if uid is not None and state.units[uid].side == state.to_act:
        st.session_state["play_unit"] = uid
        st.session_state.pop("play_offer", None)
        return
    selected = st.session_state.get("play_unit")
    choices = table.choices(selected)  # nobody selected: the side's orders aimed at an enemy
    orders = (choices.enemies.get(uid, []) if uid is not None else []) or \
        choices.cells.get(cell, []) or choices.aims.get(cell, [])
    if len(orders) == 1:
        _give(table, orders[0])
    elif orders:
        st.session_state["play_offer"] = orders


def _order_buttons(table: Table, orders, prefix: str) -> None:
    for i, order in enumerate(orders):
        st.button(table.label(order), key=f"{prefix}_{i}", on_click=_give, args=(table, order),
                  use_container_width=True)


def _dice_panel(table: Table, needed: DiceNeeded) -> None:
    st.info(needed.prompt())
    for die in needed.dice:
        st.caption(f"Die {die.number} (d{die.sides})" + (f": {die.purpose}" if die.purpose else ""))
        if die.sides <= 6:
            for face, column in zip(range(1, die.sides + 1), st.columns(die.sides)):
                column.button(str(face), key=f"play_face_{die.number}_{face}", on_click=_act,
                              args=(table, lambda f=face: table.dice([f])))
        else:
            face = st.number_input("Face", 1, die.sides, key=f"play_face_{die.number}")
            st.button("Roll given", key=f"play_face_go_{die.number}", on_click=_act,
                      args=(table, lambda: table.dice([int(face)])))
    st.button("Undo this order", key="play_undo", on_click=_act, args=(table, table.undo))


def _note(table: Table) -> None:
    text = st.session_state.get("play_note", "").strip()
    if text:
        seat = table.seat_to_act
        _act(table, lambda: table.note(text, None if seat is None or seat.bot else seat.name))
        st.session_state["play_note"] = ""


def _fallback(table: Table) -> None:
    listed = play_session.fallback_orders(table)
    if not listed:
        return
    notations = [n for n, _ in listed]
    chosen = st.selectbox("Every legal order (type to search)", notations, key="play_fallback")
    by_notation = dict(listed)
    st.button("Give", key="play_fallback_go", on_click=_give,
              args=(table, by_notation[chosen]))


def _to_replay(game: str) -> None:
    st.session_state["game"] = game
    st.session_state["source"] = "Database"
    st.session_state["game_link_read"] = True


def _playing(path: str, game: str) -> None:  # noqa: C901 - the page's one layout
    try:
        check_id(game)  # the address is anyone's text: a bad one is named short, never echoed
        table = _table(path, game)
    except (ValueError, StoreError, sqlite3.Error) as exc:
        st.error(f"Cannot open the game {short_repr(game, 40)}: {exc}")
        st.button("Back", on_click=_leave)
        return
    if st.query_params.get("play") != game:  # the address names the game: a reload reopens it
        st.query_params["play"] = game
        st.session_state["play_link_read"] = (game, st.query_params.get("seat"))
    message = st.session_state.pop("play_message", None)
    if message is not None:
        (st.warning if message[0] == "warning" else st.error)(message[1])
    state = table.state
    seat = table.seat_to_act
    who = "—" if seat is None else f"{state.to_act} ({seat.name}{', bot' if seat.bot else ''})"
    st.markdown(f"**{state.scenario.title}** · `{game}` · turn {state.turn} · "
                f"{state.side or '—'} {phase_name(state.phase)} · to act: {who}")
    _seat_line(table)
    if st.session_state.get("play_reseat") and not state.ended:
        _reseat(table)
        return
    if state.ended:
        st.success(f"The game has ended: {state.winner or 'no winner'} "
                   f"({state.end_reason or 'over'}).")
        if st.button("Replay it", key="play_to_replay", type="primary"):
            _to_replay(game)
            _leave()
            st.switch_page("views/replay.py")
    unit = st.session_state.get("play_unit")
    live = unit in state.units and not state.units[unit].removed
    if not live or state.units[unit].side != state.to_act:
        unit = st.session_state["play_unit"] = None
    needed = st.session_state.get("play_dice")
    if needed is not None and table.pending is None:
        needed = st.session_state["play_dice"] = None

    board_column, side_column = st.columns([3, 2])
    with board_column:
        selected = None if unit is None else reach.unit_reach(state, unit)
        ready = table.units_to_act() if seat is not None and not seat.bot and \
            table.may_order() else ()
        board_click.show(board.board_spec(state, selected=selected, ready=ready,
                                          width_px=board.PAGE_PX),
                         board.PAGE_PX, key="play_board", on_click=lambda: _board_clicked(table),
                         title=f"The board, {state.to_act} to act")
        st.caption("Click one of your units to select it, then a cell or an enemy to order it.")
    with side_column:
        if needed is not None:
            _dice_panel(table, needed)
        elif seat is not None and seat.bot:
            _bot_panel(path, table, seat)
        elif seat is not None and not table.may_order():
            st.info(f"{state.to_act} is {seat.name}'s to play, from {state.to_act}'s seat "
                    "link: this page follows the moves as they are made.")
        elif seat is not None:
            units = table.units_to_act()
            if units:
                picked = st.selectbox("Selected unit", ["—"] + units,
                                      index=(units.index(unit) + 1) if unit in units else 0,
                                      # a fresh widget when a board click changed the unit:
                                      # the old one would keep (and restore) its own pick
                                      key=f"play_unit_pick_{len(table.events)}_{unit}")
                if (picked if picked != "—" else None) != unit:
                    st.session_state["play_unit"] = None if picked == "—" else picked
                    st.session_state.pop("play_offer", None)
                    st.rerun()
            offer = st.session_state.get("play_offer")
            if offer:
                st.write("That click offers:")
                _order_buttons(table, offer, "play_offer")
            choices = table.choices(unit)
            if unit is not None and choices.buttons:
                st.write(f"{unit}:")
                _order_buttons(table, choices.buttons, "play_unit_order")
            _order_buttons(table, choices.side, "play_side")
            with st.expander("Every legal order", expanded=False):
                _fallback(table)
        if not table.linked or table.holds is not None:
            st.text_input("A note on the game", key="play_note")
            st.button("Add note", key="play_note_go", on_click=_note, args=(table,))
        sides = table.concedable()
        if sides:
            with st.popover("Concede", key="play_concede"):
                st.caption("The battle is given up: the other side wins, and the game ends.")
                for side in sides:
                    st.button(f"{side} concedes the battle", key=f"play_concede_{side}",
                              on_click=_act, args=(table, lambda s=side: table.concede(s)))
        st.button("Leave this game", key="play_leave", on_click=_leave)
    if not state.ended:
        _watch(path, table)


def _bot_panel(path: str, table: Table, seat: Seat) -> None:
    """The bot's turn: it plays as soon as it is its turn at the pace set (a step at a time:
    one order a click), off the page's thread; its last orders with their reasons."""
    game, state = table.game_id, table.state
    run = bot_runner.current(path, game)
    running = run is not None and not run.done
    for line in (run.reasons if run is not None else []):
        st.caption(f"🤖 {line}")
    if run is not None and run.done and run.error:
        st.warning(run.error)
    st.write(f"{state.to_act} is the {seat.name} bot's to play"
             + (" (it thinks for a while)" if play_session.is_slow(seat.name) else ""))
    pace = st.radio("Bots play", list(bot_runner.PACES), index=1, horizontal=True,
                    key="play_pace")
    if running:
        st.button("Pause the bots", key="play_bot_stop", on_click=bot_runner.stop,
                  args=(path, game))
        return
    held_back = run is not None and (run.error is not None or run.paused)
    started_here = st.session_state.get("play_bots_started_at") == (game, len(table.events))
    if pace == "a step at a time" or held_back or started_here:
        st.button("Bot moves" if not held_back else "Let the bots play on", key="play_bot",
                  type="primary", on_click=_start_bots, args=(path, game, pace))
        return
    st.session_state["play_bots_started_at"] = (game, len(table.events))
    _start_bots(path, game, pace)
    st.caption("🤖 thinking…")


def _watch(path: str, table: Table) -> None:
    """Follow the game without a click: a fragment looks at the store (twice a second while a
    bot plays, every two seconds otherwise) and reruns the page when anyone appended (a bot, the
    other seat's browser, the command line), showing the bots' progress meanwhile."""
    game = table.game_id
    run = bot_runner.current(path, game)
    running = run is not None and not run.done

    @st.fragment(run_every=BOT_POLL if running else FOLLOW_POLL)
    def watcher() -> None:
        now = bot_runner.current(path, game)
        if now is not None and not now.done:
            st.caption(f"🤖 {now.orders} order{'s' if now.orders != 1 else ''} played since "
                       f"the bots began · thinking for {now.thinking_for():.1f} s")
        try:
            moved = table.recorder.store.last_seq(game) != table.events[-1]["seq"]
        except (StoreError, sqlite3.Error):
            moved = False
        if moved or (running and now is not None and now.done):
            st.rerun(scope="app")

    watcher()


def _reseat(table: Table) -> None:
    """A game continued from a replay step (a fork): who plays each side from here on, chosen
    afresh, recorded as a seats_changed event; or the seats kept as they were."""
    state = table.state
    st.subheader("Continue from here: who plays each side now?")
    st.caption(f"Turn {state.turn}, {state.side or '—'} {phase_name(state.phase)}. Until now: "
               + " v ".join(f"{side}: {state.players.get(side, side)}"
                            for side in state.scenario.sides))
    seats = play_start.seat_pickers(list(state.scenario.sides), "play_reseat",
                                    dict(state.players))
    keep, change = st.columns(2)
    if change.button("Play on with these seats", type="primary", key="play_reseat_go"):
        try:
            table.change_seats(seats)
        except PlayError as exc:
            st.error(str(exc))
            return
        st.session_state.pop("play_reseat", None)
        st.rerun()
    if keep.button("Keep the seats as they were", key="play_reseat_keep"):
        st.session_state.pop("play_reseat", None)
        st.rerun()


def _seat_line(table: Table) -> None:
    """Whose seat this page holds in a game played by links; the links themselves for the
    page that started the game (each to be sent to its player), and the view link."""
    if table.linked:
        if table.holds is not None:
            st.caption(f"🔑 This page holds {table.holds}'s seat: only its link gives "
                       f"{table.holds}'s orders.")
        else:
            st.caption("👁 Watching: this page holds no seat of this game.")
    links = st.session_state.get("play_links")
    if links:
        base = f"{st.context.url.split('?')[0]}" if st.context.url else "/play"
        with st.expander("Seat links: send each player theirs", expanded=True):
            for side, token in links.items():
                st.markdown(f"**{side}**: `{base}?play={table.game_id}&seat={token}`")
            st.markdown(f"**Watch**: `{base}?play={table.game_id}`")
            st.caption("A seat link is private: whoever holds it gives that side's orders. "
                       "Open yours (here or in another browser); keep the others' to send.")


def _read_link() -> None:
    """A link to a game (``?play=ID``, with ``&seat=TOKEN`` for a player's seat) opens it,
    once per link: the page then goes on as usual. (``play``, not the Replay page's ``game``:
    a game being watched in the replay is not thereby opened at the table.)"""
    game, token = st.query_params.get("play"), st.query_params.get("seat")
    if game is None or st.session_state.get("play_link_read") == (game, token):
        return
    st.session_state["play_link_read"] = (game, token)
    links = st.session_state.get("play_links")
    _leave()
    if links and token in links.values():
        st.session_state["play_links"] = links  # the starter opened one of its own links
    st.session_state["play_game"] = game
    st.session_state["play_seat_token"] = token


def main() -> None:
    path = data.db_path()
    try:
        data.ensure_database(path)
    except (StoreError, sqlite3.Error, ValueError) as exc:
        st.error(f"Cannot open the database {path}: {exc}")
        return
    st.title("Play")
    _read_link()
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
