"""The bots' turns on the Play page: the panel beside the board (their reasons, the pace, pause
and go on) and the watcher that follows the store while anyone else moves.

Widgets only: when the bots start and when the watcher reruns the page are dashboard/
play_flow.py's (``bots_next``, ``rerun_now``); the runs themselves are dashboard/bot_runner.py's
threads, off the page's thread.
"""

from __future__ import annotations

import sqlite3

import streamlit as st

from warlog.app.errors import PlayError
from warlog.app.seats import Seat, is_slow
from warlog.app.session import Session
from warlog.dashboard import bot_runner, play_flow
from warlog.dashboard.data import markdown_text as md
from warlog.events.store import StoreError

BOT_POLL = 0.5  # seconds between two looks at a bot's progress (each waits most of it for the end)
FOLLOW_POLL = 2.0  # seconds between two looks at the store for others' moves
_DEFAULT_PACE = 1  # "one a second", until the player sets another


def _start(path: str, game: str, pace: str) -> None:
    try:
        bot_runner.start(path, game, pace)
    except PlayError as exc:
        play_flow.say(st.session_state, "error", str(exc))


def bot_panel(path: str, table: Session, seat: Seat) -> None:
    """The bot's turn: it plays as soon as it is its turn at the pace set (a step at a time:
    one order a click), off the page's thread; its last orders with their reasons. Only a page
    that may play (a seat of the game, or any page of a game without seat links) sets the pace
    or pauses: a watcher never stops the players' bots."""
    game, state = table.game_id, table.state
    run = bot_runner.current(path, game)
    for line in (run.reasons if run is not None else []):
        st.caption(f"Bot: {md(line)}")
    if run is not None and run.done and run.error:
        st.warning(md(run.error))
    st.write(md(f"{state.to_act} is the {seat.name} bot's to play")
             + (" (it thinks for a while)" if is_slow(seat.name) else ""))
    if not play_flow.paces_here(st.session_state, table):
        st.caption("This page watches: the bots play at the pace the players set.")
        return
    # The pace is offered on the bots' turn only: kept apart from its widget, whose value
    # Streamlit forgets in the person's turns, so that "at once" stays "at once".
    paces = list(bot_runner.PACES)
    kept = st.session_state.get("play_bots_pace")
    pace = st.radio("Bots play", paces, index=paces.index(kept) if kept in paces else _DEFAULT_PACE,
                    horizontal=True, key="play_pace")
    st.session_state["play_bots_pace"] = pace
    step = play_flow.bots_next(st.session_state, table, run, pace)
    if step == "pause":
        st.button("Pause the bots", key="play_bot_stop", on_click=bot_runner.stop,
                  args=(path, game))
    elif step == "start":
        _start(path, game, pace)
        st.caption("The bot is thinking…")
    else:
        st.button("Let the bots play on" if step == "play on" else "Bot moves", key="play_bot",
                  type="primary", on_click=_start, args=(path, game, pace))


def watch(path: str, table: Session) -> None:
    """Follow the game without a click: a fragment looks at the store (every BOT_POLL while a
    bot plays, every FOLLOW_POLL otherwise) and reruns the page when anyone appended (a bot, the
    other seat's browser, the command line) or the other seat asked to take orders back or
    answered (events/takeback_requests.py), showing the bots' progress meanwhile.

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
    if table.has_bot():
        bot_runner.bot_pool.warm()
    run = bot_runner.current(path, game)
    running = run is not None and not run.done
    asked = table.request_mark()  # the other seat's take-back request reruns the page too

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
            moved = table.behind() or table.request_mark() != asked
        except (StoreError, sqlite3.Error):
            moved = False
        if play_flow.rerun_now(now, moved, running, bot_wait):
            st.rerun(scope="app")

    watcher()
