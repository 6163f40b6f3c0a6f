"""The Play page (issue 22, "the dashboard becomes the table"): start a game or continue one,
then play it by clicking the board, the buttons beside it or the list of every legal order, and
let the bots move. Every order is recorded in the database as it is given.

The page only arranges widgets; the application (warlog/app/session.py) decides (seats, what a click offers,
the bot's move, each failure as one line). Session state: ``play_game`` (the game being played),
``play_unit`` (the selected unit), ``play_offer`` (several orders one click offered, to choose
from), ``play_table`` (the open table: an order waiting
for its dice lives only there until its dice are given).
"""

from __future__ import annotations

import hashlib
import sqlite3

import streamlit as st

from warlog.app.errors import GameMovedOn, PlayError
from warlog.app.seats import Seat, is_slow
from warlog.app.session import Session, fallback_orders
from warlog.app.table_dice import DiceNeeded
from warlog.dashboard import board_click, bot_runner, data, play_clicks, play_panels, play_start, review_try, table_registry
from warlog.app.pictures import board
from warlog.dashboard.data import markdown_text as md
from warlog.engine import reach
from warlog.engine.flow import phase_name
from warlog.events.ids import check_id
from warlog.events.replay_input import short_repr
from warlog.events.store import StoreError

BOT_POLL = 0.5  # seconds between two looks at a bot's progress (each waits most of it for the end)
FOLLOW_POLL = 2.0  # seconds between two looks at the store for others' moves


# -- the table ---------------------------------------------------------------------------------


def _table(path: str, game: str) -> Session:
    """The open table of ``game``, kept across reruns (a pending order lives in it), read again
    if anyone appended meanwhile. Its store's connection is the session's: given back when the
    session ends (dashboard/table_registry.py), opened again if the session comes back."""
    held = st.session_state.get("play_table")
    token = st.session_state.get("play_seat_token")
    if held is None or held[0] != (path, game, token):
        if held is not None:
            held[1].recorder.store.close()  # the table it replaces
        store = table_registry.SessionStore(path)
        try:
            held = ((path, game, token), Session(store, game, token))
        except BaseException:
            store.close()
            raise
        st.session_state["play_table"] = held
    table = held[1]
    table_registry.hold(table.recorder.store)
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
        st.session_state["play_links"] = (game, links)  # this game's, never shown for another
    st.query_params["play"] = game
    st.session_state["play_link_read"] = (game, None)


def _say(kind: str, text: str) -> None:
    """The page's one line for the last input: "info" (why a click gave nothing), "warning"
    (the game moved on), "error" (a refusal), "success" (a note written)."""
    st.session_state["play_message"] = (kind, text)


MOVED_ON = ("The game moved on before your click arrived (another page, a bot or the command "
            "line moved first): nothing was given. Look at the board as it stands and click "
            "again.")


def _stale(table: Session, seen: int | None) -> bool:
    """Whether an input was made on a board drawn before the game moved on: the table is
    read again first (a callback runs before the page's script), then the board the player
    clicked (``seen``, its last event) is compared with the game as stored. Such an input is
    refused with a line, never applied to a phase the player has not seen."""
    moved = table.refresh()
    if moved or (seen is not None and seen != table.last_seq()):
        st.session_state.pop("play_offer", None)
        _say("warning", MOVED_ON)
        return True
    return False


def _act(table: Session, action) -> None:
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


def _give(table: Session, order, seen: int | None = None) -> None:
    if not _stale(table, seen):
        _act(table, lambda: table.give(order))


def _start_bots(path: str, game: str, pace: str) -> None:
    try:
        bot_runner.start(path, game, pace)
    except PlayError as exc:
        _say("error", str(exc))


# -- playing -----------------------------------------------------------------------------------


def _board_clicked(table: Session) -> None:
    """A click on the board: what it means is play_clicks.resolve's (select a unit, give the
    plain order, offer the alternatives, or say why nothing was given); a click on a board
    drawn before the game moved on gives nothing and says so."""
    if _stale(table, board_click.clicked_seen("play_board")):
        return
    cell = board_click.clicked_cell("play_board", table.state.grid)
    ask = board_click.clicked_shift("play_board") or st.session_state.get("play_ask", False)
    outcome = play_clicks.resolve(table, cell, st.session_state.get("play_unit"), ask=ask)
    st.session_state.pop("play_offer", None)
    if outcome.select is not None:
        st.session_state["play_unit"] = outcome.select
    elif outcome.give is not None:
        _give(table, outcome.give)
    elif outcome.offer:
        st.session_state["play_offer"] = list(outcome.offer)
    elif outcome.say:
        _say("info", outcome.say)


def _order_buttons(table: Session, orders, prefix: str) -> None:
    """A button an order, keyed by the board it was drawn with and by the order itself: a
    click on a button of an earlier board is refused as moved on (``_stale``), never given in
    a later phase, and a button drawn for one unit never gives another unit's order that a
    later run put in its place (a new unit selected, no event between)."""
    seen = table.last_seq()
    for i, order in enumerate(orders):
        mark = hashlib.blake2b(order.model_dump_json().encode(), digest_size=4).hexdigest()
        st.button(md(table.label(order)), key=f"{prefix}_{seen}_{i}_{mark}", on_click=_give,
                  args=(table, order, seen), use_container_width=True)


def _dice_panel(table: Session, needed: DiceNeeded) -> None:
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


def _note(table: Session) -> None:
    text = st.session_state.get("play_note", "").strip()
    if not text:
        _say("info", "The note is empty: write something first")
        return
    try:
        event = table.note(text)
    except PlayError as exc:
        _say("error", f"The note was not saved: {exc}")
        return
    st.session_state["play_note"] = ""
    by = f", signed {event['author']}" if event.get("author") else ""
    _say("success", f"Note saved on event {event['about']}{by}: the Replay page shows it there.")


def _plan(table: Session, side: str) -> None:
    text = st.session_state.get(f"play_plan_{side}", "").strip()
    if not text:
        _say("info", "The plan is empty: write it first")
        return
    try:
        table.plan(side, text)
    except PlayError as exc:
        _say("error", f"The plan was not saved: {exc}")
        return
    st.session_state[f"play_plan_{side}"] = ""
    _say("success", f"{side}'s plan is saved: the review's after-action report sets the battle "
                    "against it.")


def _plan_box(table: Session) -> None:
    """Before a side's first order, its player may write the plan (what was meant, for the
    after-action report): offered once, until that side gives an order."""
    for side in table.plannable():
        with st.expander(f"{side}'s plan for the battle (before its first order)",
                         expanded=False):
            st.text_area("What is the plan? (kept in the game; the review compares the battle "
                         "with it)", key=f"play_plan_{side}", height=80)
            st.button("Save the plan", key=f"play_plan_go_{side}", on_click=_plan,
                      args=(table, side))


def _fallback(table: Session) -> None:
    listed = fallback_orders(table)
    if not listed:
        return
    notations = [n for n, _ in listed]
    chosen = st.selectbox("Every legal order (type to search)", notations, key="play_fallback")
    by_notation = dict(listed)
    st.button("Give", key="play_fallback_go", on_click=_give,
              args=(table, by_notation[chosen], table.last_seq()))


def _to_replay(game: str) -> None:
    st.session_state["game"] = game
    st.session_state["source"] = "Database"
    st.session_state["game_link_read"] = True


def _header(table: Session) -> None:
    """The game in one line: its title, id, turn and phase, and who is to act (or its end)."""
    state, seat = table.state, table.seat_to_act
    where = f"turn {state.turn}"
    if state.ended:
        where += " · the game has ended"
    else:
        who = "" if seat is None else f" ({md(seat.name)}, bot)" if seat.bot else \
            f" ({md(seat.name)})"
        where += f" · {state.side or 'both sides'} {phase_name(state.phase)} · " \
                 f"to act: {state.to_act}{who}"
    st.markdown(f"**{md(state.scenario.title)}** · {data.code_span(table.game_id)} · {where}")


def _settle_selection(table: Session) -> str | None:
    """The selected unit, if it may still act; a lone unit that may act is selected for the
    player (a unit that must choose after a hit, the last unit of a phase)."""
    state = table.state
    unit = st.session_state.get("play_unit")
    live = unit in state.units and not state.units[unit].removed
    if not live or state.units[unit].side != state.to_act:
        unit = None
    seat = table.seat_to_act
    if seat is not None and not seat.bot and table.may_order():
        acting = table.units_to_act()
        if unit not in acting:  # it has acted (here or on another page): no longer selected
            unit = acting[0] if len(acting) == 1 else None
    st.session_state["play_unit"] = unit
    return unit


def _playing(path: str, game: str) -> None:
    try:
        check_id(game)  # the address is anyone's text: a bad one is named short, never echoed
        table = _table(path, game)
    except (ValueError, StoreError, sqlite3.Error) as exc:
        st.error(md(f"Cannot open the game {short_repr(game, 40)}: {exc}"))
        st.button("Back", on_click=_leave)
        return
    _keep_address(table, game)
    message = st.session_state.pop("play_message", None)
    if message is not None:
        {"warning": st.warning, "info": st.info, "success": st.success}.get(
            message[0], st.error)(md(message[1]))
    state = table.state
    seat = table.seat_to_act
    _header(table)
    play_panels.seat_line(table, st.session_state.get("play_seat_token"),
                          _links_of(table.game_id))
    if st.session_state.get("play_reseat") and not state.ended:
        _reseat(table)
        return
    if state.ended:
        st.success(md(f"The game has ended: {state.winner or 'no winner'} "
                      f"({state.end_reason or 'over'})."))
        if st.button("Replay it", key="play_to_replay", type="primary"):
            _to_replay(game)
            _leave()
            st.switch_page("views/replay.py")
    unit = _settle_selection(table)
    needed = st.session_state.get("play_dice")
    if needed is not None and table.pending is None:
        needed = st.session_state["play_dice"] = None
    ordering = seat is not None and not seat.bot and table.may_order()
    happened = table.happened()

    board_column, side_column = st.columns([3, 2])
    with board_column:
        selected = None if unit is None else reach.unit_reach(state, unit)
        ready = table.units_to_act() if ordering else ()
        board_click.show(board.board_spec(state, selected=selected, ready=ready,
                                          highlight=play_panels.latest_marks(happened, state),
                                          width_px=board.PAGE_PX),
                         board.PAGE_PX, key="play_board", on_click=lambda: _board_clicked(table),
                         title=f"The board, {state.to_act or 'nobody'} to act",
                         seen=table.last_seq())
        if ordering:
            st.caption("Click one of your marked units to select it, then a cell or an enemy: "
                       "a click gives the plain order at once. Shift-click (or Alt-click) a "
                       "cell to choose another facing or an attack on arrival.")
    with side_column:
        review_try.offer(table, ordering and needed is None, _give)  # the Review page's "Try it"
        if needed is not None:
            _dice_panel(table, needed)
        elif seat is not None and seat.bot:
            _bot_panel(path, table, seat)
        elif seat is not None and not table.may_order():
            st.info(md(f"{state.to_act} is {seat.name}'s to play, from {state.to_act}'s seat "
                       "link: this page follows the moves as they are made."))
        elif seat is not None:
            _orders_panel(table, unit)
        play_panels.happened(happened)
        _plan_box(table)
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


def _orders_panel(table: Session, unit: str | None) -> None:
    """The person to act's side panel: the selected unit, what its last click offered, its own
    buttons (with the attack behind a choice it must make), the side's, and every legal order."""
    units = table.units_to_act()
    if units:
        picked = st.selectbox("Selected unit", ["—"] + units,
                              index=(units.index(unit) + 1) if unit in units else 0,
                              # a fresh widget when a board click changed the unit: the old
                              # one would keep (and restore) its own pick
                              key=f"play_unit_pick_{len(table.events)}_{unit}")
        if (picked if picked != "—" else None) != unit:
            st.session_state["play_unit"] = None if picked == "—" else picked
            st.session_state.pop("play_offer", None)
            st.rerun()
    offer = st.session_state.get("play_offer")
    if offer:
        st.write("That click offers (the plain order first):")
        _order_buttons(table, offer, "play_offer")
    choices = table.choices(unit)
    if unit is not None and choices.buttons:
        play_panels.cause_of_choice(table, unit)
        st.write(f"{md(unit)}:")
        _order_buttons(table, choices.buttons, "play_unit_order")
    _order_buttons(table, choices.side, "play_side")
    st.toggle("Ask which order on every click", key="play_ask",
              help="A click on a cell or an enemy then lists every order it could give "
                   "(other facings, an attack on arrival) instead of giving the plain one.")
    with st.expander("Every legal order", expanded=False):
        _fallback(table)


def _bot_panel(path: str, table: Session, seat: Seat) -> None:
    """The bot's turn: it plays as soon as it is its turn at the pace set (a step at a time:
    one order a click), off the page's thread; its last orders with their reasons. Only a page
    that may play (a seat of the game, or any page of a game without seat links) sets the pace
    or pauses: a watcher never stops the players' bots."""
    game, state = table.game_id, table.state
    run = bot_runner.current(path, game)
    running = run is not None and not run.done
    for line in (run.reasons if run is not None else []):
        st.caption(f"Bot: {md(line)}")
    if run is not None and run.done and run.error:
        st.warning(md(run.error))
    st.write(md(f"{state.to_act} is the {seat.name} bot's to play")
             + (" (it thinks for a while)" if is_slow(seat.name) else ""))
    if table.linked and table.holds is None and _links_of(game) is None:
        st.caption("This page watches: the bots play at the pace the players set.")
        return
    # The pace is offered on the bots' turn only: kept apart from its widget, whose value
    # Streamlit forgets in the person's turns, so that "at once" stays "at once".
    paces = list(bot_runner.PACES)
    kept = st.session_state.get("play_bots_pace")
    pace = st.radio("Bots play", paces, index=paces.index(kept) if kept in paces else 1,
                    horizontal=True, key="play_pace")
    st.session_state["play_bots_pace"] = pace
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
    st.caption("The bot is thinking…")


def _watch(path: str, table: Session) -> None:
    """Follow the game without a click: a fragment looks at the store (every BOT_POLL while a
    bot plays, every FOLLOW_POLL otherwise) and reruns the page when anyone appended (a bot, the
    other seat's browser, the command line), showing the bots' progress meanwhile.

    A game with a bot seat starts the bots' worker processes as soon as it is open (they take a
    second or more to start), not on the bot's first order. The page's run that started a run
    waits for its end (most of BOT_POLL: a fast bot's whole turn) and reruns at once, rather
    than on the fragment's next tick (the ticks never wait: a tick that waited would hold
    this page's clicks, and under load the ticks would follow each other); and at the pace "at
    once" an order appended is not shown on its own (each rerun of the page costs what the
    bot's whole turn does) unless the bot is still thinking over the next one (a slow bot's
    progress)."""
    game = table.game_id
    bot_wait = BOT_POLL * 0.8  # the run's end waited for in the page's run, at most
    if any(Seat.of_player(name).bot for name in table.state.players.values()):
        bot_runner.bot_pool.warm()
    run = bot_runner.current(path, game)
    running = run is not None and not run.done

    inline = [True]  # the fragment's first call, in the page's own run (its ticks: False)

    @st.fragment(run_every=BOT_POLL if running else FOLLOW_POLL)
    def watcher() -> None:
        now = bot_runner.current(path, game)
        if running and now is not None and inline[0]:
            now.wait(bot_wait)  # only here: a tick that waited would hold the page's clicks
        inline[0] = False
        if now is not None and not now.done:
            st.caption(f"Bots: {now.orders} order{'s' if now.orders != 1 else ''} played since "
                       f"they began · thinking for {now.thinking_for():.1f} s")
        try:
            moved = table.recorder.store.last_seq(game) != table.events[-1]["seq"]
        except (StoreError, sqlite3.Error):
            moved = False
        whole_turn = (now is not None and not now.done and now.pace == "at once"
                      and now.thinking_for() < bot_wait)
        if (moved and not whole_turn) or (running and now is not None and now.done):
            st.rerun(scope="app")

    watcher()


def _reseat(table: Session) -> None:
    """A game continued from a replay step (a fork): who plays each side from here on, chosen
    afresh, recorded as a seats_changed event; or the seats kept as they were."""
    state = table.state
    st.subheader("Continue from here: who plays each side now?")
    st.caption(f"Turn {state.turn}, {state.side or 'both sides'} {phase_name(state.phase)}. "
               "Until now: " + " v ".join(f"{side}: {md(state.players.get(side, side))}"
                                          for side in state.scenario.sides))
    seats = play_start.seat_pickers(list(state.scenario.sides), "play_reseat",
                                    dict(state.players))
    keep, change = st.columns(2)
    if change.button("Play on with these seats", type="primary", key="play_reseat_go"):
        try:
            table.change_seats(seats)
        except PlayError as exc:
            st.error(md(str(exc)))
            return
        st.session_state.pop("play_reseat", None)
        st.rerun()
    if keep.button("Keep the seats as they were", key="play_reseat_keep"):
        st.session_state.pop("play_reseat", None)
        st.rerun()


def _links_of(game: str) -> dict[str, str] | None:
    """The seat links this page issued for ``game`` when it started it (None for any other
    game: a page that started one game never shows its links on another)."""
    held = st.session_state.get("play_links")
    return held[1] if isinstance(held, tuple) and held[0] == game else None


def _keep_address(table: Session, game: str) -> None:
    """The address names the game, and the seat this page holds, so a reload reopens both (a
    seat link's token stays in its own tab's address, where it came from); a token that is no
    seat of this game is dropped from it (the page watches, and says so)."""
    token = st.session_state.get("play_seat_token")
    seat = token if token is not None and table.holds is not None else None
    if st.query_params.get("play") != game or st.query_params.get("seat") != seat:
        st.query_params["play"] = game
        if seat is None:
            st.query_params.pop("seat", None)
        else:
            st.query_params["seat"] = seat
        st.session_state["play_link_read"] = (game, seat)


def _read_link() -> None:
    """A link to a game (``?play=ID``, with ``&seat=TOKEN`` for a player's seat) opens it,
    once per link: the page then goes on as usual. (``play``, not the Replay page's ``game``:
    a game being watched in the replay is not thereby opened at the table.)"""
    game, token = st.query_params.get("play"), st.query_params.get("seat")
    if game is None or st.session_state.get("play_link_read") == (game, token):
        return
    st.session_state["play_link_read"] = (game, token)
    links = _links_of(game)
    _leave()
    if links and token in links.values():
        st.session_state["play_links"] = (game, links)  # the starter opened one of its own
    st.session_state["play_game"] = game
    st.session_state["play_seat_token"] = token
    st.session_state["play_link_read"] = (game, token)


def main() -> None:
    path = data.db_path()
    try:
        data.ensure_database(path)
    except (StoreError, sqlite3.Error, ValueError) as exc:
        st.error(md(f"Cannot open the database {path}: {exc}"))
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
