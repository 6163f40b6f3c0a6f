"""The Play page (issue 22, "the dashboard becomes the table"): start a game or continue one,
then play it by clicking the board, the buttons beside it or the list of every legal order, and
let the bots move. Every order is recorded in the database as it is given.

The page only arranges widgets; dashboard/play_session.py decides (seats, what a click offers,
the bot's move, each failure as one line). Session state: ``play_game`` (the game being played),
``play_unit`` (the selected unit), ``play_offer`` (several orders one click offered, to choose
from), ``play_log`` (the last bots' reasons), ``play_table`` (the open table: an order waiting
for its dice lives only there until its dice are given).
"""

from __future__ import annotations

import sqlite3
from typing import Any

import streamlit as st

from warlog.dashboard import board, data, play_session
from warlog.dashboard.play_session import DiceNeeded, GameMovedOn, PlayError, Seat, Table
from warlog.engine import reach
from warlog.engine.flow import phase_name
from warlog.engine.scenario import bundled_scenarios, load_scenario
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

BOT_LOG = 6  # how many bot reasons stay shown


# -- the table ---------------------------------------------------------------------------------


def _table(path: str, game: str) -> Table:
    """The open table of ``game``, kept across reruns (a pending order lives in it), read again
    if anyone appended meanwhile."""
    held = st.session_state.get("play_table")
    if held is None or held[0] != (path, game):
        store = SQLiteEventStore(path, check_same_thread=False)
        held = ((path, game), Table(store, game))
        st.session_state["play_table"] = held
    table = held[1]
    if table.refresh():
        st.session_state.pop("play_offer", None)
    return table


def _leave() -> None:
    held = st.session_state.pop("play_table", None)
    if held is not None:
        held[1].recorder.store.close()
    for key in ("play_game", "play_unit", "play_offer", "play_dice", "play_log"):
        st.session_state.pop(key, None)


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


def _bot_step(table: Table) -> None:
    step = table.bot_step()
    log = st.session_state.setdefault("play_log", [])
    log.append(step.reason)
    del log[:-BOT_LOG]


def _bots_move(table: Table, once: bool) -> None:
    try:
        with st.spinner("The bot is thinking…"):
            while True:
                seat = table.seat_to_act
                if seat is None or not seat.bot:
                    break
                _bot_step(table)
                if once:
                    break
    except GameMovedOn as exc:
        _say("warning", str(exc))
    except PlayError as exc:
        _say("error", str(exc))


# -- starting a game ---------------------------------------------------------------------------


def _start_form(path: str) -> None:
    st.subheader("Start a game")
    scenarios = bundled_scenarios()
    by_id = {s.id: s for s in scenarios}
    sid = st.selectbox("Scenario", list(by_id), format_func=lambda i: f"{by_id[i].title} ({i})",
                       key="play_scenario")
    scenario = by_id[sid]
    words = dict(play_session.policies())
    seats: dict[str, Seat] = {}
    for side, column in zip(scenario.sides, st.columns(len(scenario.sides))):
        with column:
            who = st.radio(f"{side} is played by", ["person", "bot"], horizontal=True,
                           key=f"play_seat_{side}")
            if who == "person":
                name = st.text_input(f"{side} player's name", value=side.capitalize(),
                                     key=f"play_name_{side}")
                seats[side] = Seat.person(name.strip())
            else:
                policy = st.selectbox(f"{side} bot", list(words), key=f"play_policy_{side}",
                                      format_func=lambda p: f"{p}: {words[p]}")
                seats[side] = Seat.of_bot(policy)
    dice = st.radio("Dice", ["seeded", "manual"], horizontal=True, key="play_dice_mode",
                    help="seeded: the computer rolls from a recorded seed; manual: you roll "
                         "real dice and type the faces (people only)")
    seed = st.number_input("Seed (empty: a random one, recorded)", min_value=0, value=None,
                           step=1, key="play_seed")
    if st.button("Start", type="primary", key="play_start"):
        try:
            with SQLiteEventStore(path) as store:
                game = play_session.start(store, load_scenario(sid), seats=seats, dice=dice,
                                          seed=None if seed is None else int(seed))
        except PlayError as exc:
            st.error(str(exc))
        except (ValueError, StoreError, sqlite3.Error) as exc:
            st.error(f"Cannot start the game: {exc}")
        else:
            _leave()
            st.session_state["play_game"] = game
            data.list_games.clear()
            st.rerun()

    unfinished = [g for g in data.list_games(path) if not g["ended"]]
    if unfinished:
        st.subheader("Or continue a game")
        ids = [g["id"] for g in unfinished]
        titles = {g["id"]: g["title"] for g in unfinished}
        chosen = st.selectbox("Unfinished game", ids, key="play_continue",
                              format_func=lambda i: f"{i} — {titles[i]}")
        if st.button("Continue", key="play_continue_go"):
            _leave()
            st.session_state["play_game"] = chosen
            st.rerun()


# -- playing -----------------------------------------------------------------------------------


def _clicked_cell(state, selection: Any):
    """The cell whose centre a click on the board landed on, or None."""
    points = ((selection or {}).get("selection") or {}).get("points") or []
    for point in points:
        x, y = point.get("x"), point.get("y")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            for cell in state.grid.cells():
                cx, cy = state.grid.centre(cell)
                if abs(cx - x) < 1e-6 and abs(cy - y) < 1e-6:
                    return cell
    return None


def _board_clicked(table: Table) -> None:
    """A click on one of the acting side's units selects it; a click on a cell or an enemy gives
    the order it offers the selected unit (several: they are offered as buttons)."""
    state = table.state
    selection = st.session_state.get("play_board")
    uid = board.clicked_unit(state, selection)
    if uid is not None and state.units[uid].side == state.to_act:
        st.session_state["play_unit"] = uid
        st.session_state.pop("play_offer", None)
        return
    selected = st.session_state.get("play_unit")
    if selected is None:
        return
    choices = table.choices(selected)
    cell = _clicked_cell(state, selection)
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


def _playing(path: str, game: str) -> None:
    try:
        table = _table(path, game)
    except (ValueError, StoreError, sqlite3.Error) as exc:
        st.error(f"Cannot open game {game}: {exc}")
        st.button("Back", on_click=_leave)
        return
    message = st.session_state.pop("play_message", None)
    if message is not None:
        (st.warning if message[0] == "warning" else st.error)(message[1])
    state = table.state
    seat = table.seat_to_act
    who = "—" if seat is None else f"{state.to_act} ({seat.name}{', bot' if seat.bot else ''})"
    st.markdown(f"**{state.scenario.title}** · `{game}` · turn {state.turn} · "
                f"{state.side or '—'} {phase_name(state.phase)} · to act: {who}")
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
        ready = table.units_to_act() if seat is not None and not seat.bot else ()
        st.plotly_chart(board.board_figure(state, selected=selected, ready=ready),
                        key="play_board",
                        on_select=lambda: _board_clicked(table), selection_mode="points",
                        config={"displayModeBar": False})
        st.caption("Click one of your units to select it, then a cell or an enemy to order it.")
    with side_column:
        for line in st.session_state.get("play_log", []):
            st.caption(f"🤖 {line}")
        if needed is not None:
            _dice_panel(table, needed)
        elif seat is not None and seat.bot:
            st.write(f"{state.to_act} is the {seat.name} bot's to play"
                     + (" (it thinks for a while)" if play_session.is_slow(seat.name) else ""))
            at_once = st.checkbox("bots play at once", key="play_at_once")
            if st.button("Bot moves", key="play_bot", type="primary"):
                _bots_move(table, once=not at_once)
                st.rerun()
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
        st.text_input("A note on the game", key="play_note")
        st.button("Add note", key="play_note_go", on_click=_note, args=(table,))
        st.button("Leave this game", key="play_leave", on_click=_leave)


def main() -> None:
    path = data.db_path()
    try:
        data.ensure_database(path)
    except (StoreError, sqlite3.Error, ValueError) as exc:
        st.error(f"Cannot open the database {path}: {exc}")
        return
    st.title("Play")
    game = st.session_state.get("play_game")
    if game is None:
        _start_form(path)
    else:
        _playing(path, game)


main()
