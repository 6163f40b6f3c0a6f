"""The Play page's forms (widgets only): starting a game, and seating a game afresh.

Starting: a bundled scenario (those that roll their armies on the tables say so) or a scenario
file; the options with the rules they switch; each side a person (a name) or a bot (every policy,
with a word on its strength and speed); dice seeded or manual (a manual game whose opening rolls
dice asks for each die, with what it is for); the date played. It stores the game `warlog new`
stores (warlog/app/session.py and start.py decide; this module only arranges widgets and hands back the
new game's id through session state).

Every text from a game, a scenario file or an exception goes to Streamlit's markdown through
``data.markdown_text`` (a player named ``![i](http://host/x)`` is shown as written, not fetched
as an image); a selectbox's options are plain text and stay as they are.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date
from typing import Any

import streamlit as st

from warlog.app.errors import PlayError
from warlog.app.seats import Seat, policies
from warlog.app.session import issue_seat_links
from warlog.app.start import start_game
from warlog.app.table_dice import OpeningDiceNeeded
from warlog.dashboard import data, play_options
from warlog.app.pictures import board
from warlog.app.pictures.board_svg import board_svg
from warlog.engine.flow import phase_name
from warlog.engine.fold import FoldError
from warlog.engine.scenario import Scenario, ScenarioError, bundled_scenarios, scenario_from_bytes
from warlog.engine.state import SIDES
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError

SOURCES = ("a bundled scenario", "a scenario file")


def _scenario_label(s: Scenario) -> str:
    rolled = " · armies rolled on the tables" if s.armies else ""
    return f"{s.title} ({s.id}, {s.rule_system} {s.period}){rolled}"


def _scenario() -> Scenario | None:
    """The scenario chosen: bundled, or an uploaded file (its problem shown, None)."""
    source = st.radio("Scenario from", SOURCES, horizontal=True, key="play_source")
    if source == SOURCES[0]:
        by_id = {s.id: s for s in bundled_scenarios()}
        sid = st.selectbox("Scenario", list(by_id), format_func=lambda i: _scenario_label(by_id[i]),
                           key="play_scenario")
        return by_id[sid]
    upload = st.file_uploader("Scenario file (.toml)", type=["toml"], key="play_scenario_file")
    if upload is None:
        st.caption("A scenario file as docs/architecture.md and the bundled ones show: board, "
                   "terrain, armies, victory and options.")
        return None
    try:
        scenario = scenario_from_bytes(upload.getvalue(), upload.name)
    except ScenarioError as exc:
        st.error(data.markdown_text(str(exc)))
        return None
    st.caption(data.markdown_text(_scenario_label(scenario)))
    return scenario


def _options(scenario: Scenario) -> dict[str, Any]:
    """The options, each widget's help giving the rule it switches; returns the values set."""
    rows = play_options.option_rows(scenario)
    chosen: dict[str, Any] = {}
    with st.expander(f"Options ({len(rows)}): the rules they switch", expanded=False):
        st.caption("⚖️ marks warlog's interpretation where the source allows two readings. The "
                   "options in force are recorded in the game's first event.")
        for row in rows:
            key = f"play_option_{scenario.id}_{row.name}"
            label = ("⚖️ " if row.interpretation else "") + row.name
            if row.kind == "bool":
                chosen[row.name] = st.checkbox(label, value=bool(row.value), key=key,
                                               help=row.words())
            elif row.kind == "int":
                chosen[row.name] = int(st.number_input(
                    label, min_value=row.low, max_value=row.high, value=int(row.value), step=1,
                    key=key, help=row.words()))
            else:
                choices = list(row.choices) or [row.value]
                chosen[row.name] = st.selectbox(
                    label, choices, index=choices.index(row.value) if row.value in choices else 0,
                    key=key, help=row.words())
    return chosen


def seat_pickers(sides: list[str], prefix: str, names: dict[str, str]) -> dict[str, Seat]:
    """A person-or-bot choice per side (a bot: every policy with its word)."""
    words = dict(policies())
    seats: dict[str, Seat] = {}
    for side, column in zip(sides, st.columns(len(sides))):
        with column:
            default = 1 if names.get(side) in words else 0
            who = st.radio(f"{side} is played by", ["person", "bot"], horizontal=True,
                           index=default, key=f"{prefix}_seat_{side}")
            if who == "person":
                fallback = names.get(side) if names.get(side) not in words else None
                name = st.text_input(f"{side} player's name", key=f"{prefix}_name_{side}",
                                     value=fallback or side.capitalize())
                seats[side] = Seat.person(name.strip())
            else:
                names_of_bots = list(words)
                held = names.get(side)
                policy = st.selectbox(f"{side} bot", names_of_bots,
                                      key=f"{prefix}_policy_{side}",
                                      index=names_of_bots.index(held) if held in names_of_bots
                                      else names_of_bots.index("tactician"),
                                      format_func=lambda p: f"{p}: {words[p]}")
                seats[side] = Seat.of_bot(policy)
    return seats


def _opening_dice(needed: OpeningDiceNeeded) -> None:
    """Face buttons for the next die of a manual-dice opening (then Start is pressed again
    for them: the faces so far are kept in session state)."""
    die = needed.die
    st.info(f"The opening rolls dice. Roll die {die.number} (d{die.sides})"
            + (f" for {data.markdown_text(die.purpose)}" if die.purpose else "")
            + ", then click its face:")
    faces = st.session_state.setdefault("play_opening_faces", [])
    for face, column in zip(range(1, die.sides + 1), st.columns(min(die.sides, 12))):
        column.button(str(face), key=f"play_opening_face_{die.number}_{face}",
                      on_click=lambda f=face: (faces.append(f),
                                               st.session_state.update(play_start_again=True)))


def start_form(path: str) -> str | None:
    """The start form; the new game's id once one was stored."""
    st.subheader("Start a game")
    scenario = _scenario()
    if scenario is None:
        return None
    options = _options(scenario)
    seats = seat_pickers(list(scenario.sides), "play", {})
    dice = st.radio("Dice", ["seeded", "manual"], horizontal=True, key="play_dice_mode",
                    help="seeded: warlog rolls from a recorded seed; manual: you roll real dice "
                         "and click the faces (people only: a bot needs seeded dice)")
    left, right = st.columns(2)
    seed = None  # manual dice: no seed is asked, as none is used (the faces are the dice)
    if dice == "seeded":
        seed = left.number_input("Seed (empty: a random one, recorded)", min_value=0, value=None,
                                 step=1, key="play_seed")
    played = right.date_input("Date played", value=date.today(), key="play_played",
                              format="YYYY-MM-DD")
    two = st.checkbox("Played from two browsers: a private seat link for each person",
                      key="play_two_browsers",
                      help="Each person gets a link of their own: only its holder gives that "
                           "side's orders; the game's view link lets anyone watch. Without "
                           "links, the game is played from one screen (hot-seat).")
    pressed = st.button("Start", type="primary", key="play_start")
    again = st.session_state.pop("play_start_again", False)
    if not (pressed or again):
        needed = st.session_state.get("play_opening_needed")
        if needed is not None:
            _opening_dice(needed)
        return None
    if pressed:
        st.session_state["play_opening_faces"] = []
    faces = list(st.session_state.get("play_opening_faces", []))
    try:
        chosen = play_options.with_options(scenario, options)
        with SQLiteEventStore(path) as store:
            game = start_game(
                store, chosen, seats=seats, dice=dice, opening_dice=faces if dice == "manual"
                else (), seed=None if seed is None or dice == "manual" else int(seed),
                played=played.isoformat() if isinstance(played, date) else None)
    except OpeningDiceNeeded as needed:
        st.session_state["play_opening_needed"] = needed
        _opening_dice(needed)
        return None
    except (PlayError, ScenarioError) as exc:
        st.error(data.markdown_text(str(exc)))
    except (ValueError, StoreError, sqlite3.Error) as exc:
        st.error(f"Cannot start the game: {data.markdown_text(str(exc))}")
    else:
        for key in ("play_opening_needed", "play_opening_faces"):
            st.session_state.pop(key, None)
        data.list_games.clear()
        if two:
            try:
                with SQLiteEventStore(path) as store:
                    st.session_state["play_new_links"] = issue_seat_links(
                        store, game, seats)
            except (PlayError, StoreError, sqlite3.Error) as exc:
                # raw text: the Play page shows its message (views/play.py escapes it there)
                st.session_state["play_message"] = (
                    "error", f"{game} was started, but without seat links (anyone who opens "
                             f"it may play it): {exc}")
        return game
    return None


CHOICES = ("Continue a game", "Start a new game")


def choose_continue(path: str, on_choose: Callable[[str], None]) -> bool:
    """With unfinished games in the database, the page asks first whether to continue one (the
    choice it opens on) or start a new one; True when continuing, so the start form is not drawn
    at all (it is the page's heaviest part for the browser, and the one not wanted). With none,
    False: the start form is all there is. ``on_choose(id)`` when a game is chosen: a callback,
    not a returned id, as it runs before the script, so the click's one run draws the board."""
    unfinished = [g for g in data.list_games(path) if not g["ended"]]
    if not unfinished:
        return False
    if st.radio("What next", CHOICES, horizontal=True, key="play_what_next",
                label_visibility="collapsed") == CHOICES[1]:
        return False
    by_id = {g["id"]: g for g in unfinished}
    picker, preview = st.columns([2, 3])
    with picker:
        chosen = st.selectbox("Unfinished game", list(by_id), key="play_continue",
                              format_func=lambda i: f"{i} — {by_id[i]['title']}")
        st.caption(_who_and_when(by_id[chosen]))
        st.button("Continue", key="play_continue_go", type="primary",
                  on_click=lambda: on_choose(st.session_state["play_continue"]))
    with preview:
        _where_it_stands(path, by_id[chosen])
    return True


def _where_it_stands(path: str, game: dict[str, Any]) -> None:
    """The board of the game offered, as it stands (hover a counter for the unit): which game
    it is at a glance. A still picture (warlog/app/pictures/board_svg.py), drawn as soon as it arrives,
    as the board played on is (dashboard/board_click.py)."""
    try:
        state = data.state_now(path, game["id"], game["events"])
    except (FoldError, StoreError, sqlite3.Error) as exc:
        st.caption(f"Its board cannot be drawn: {data.markdown_text(str(exc))}")
        return
    st.caption(f"Turn {state.turn} · {state.side or '—'} {phase_name(state.phase)}")
    # markdown, not st.html (which drew nothing of an SVG here); every text in it is escaped for
    # HTML, and the id for markdown too: markdown reads the text between the SVG's tags (a
    # title "![i](url)" became an <img> inside it, in chromium)
    st.markdown(board_svg(board.board_spec(state, width_px=board.PAGE_PX), board.PAGE_PX,
                          title=f"The board of {data.markdown_text(game['id'])}"),
                unsafe_allow_html=True)


def _who_and_when(game: dict[str, Any]) -> str:
    """A game's seats, day and length in a line, markdown-safe (the names and the day are the
    game's text): which game it is, before it is opened."""
    players = game["players"]
    seats = " v ".join(f"{data.markdown_text(players[side])} ({side})"
                       for side in SIDES if side in players)
    played = f" · played {data.markdown_text(game['played'])}" if game.get("played") else ""
    return f"{seats or 'no players recorded'}{played} · {game['events']:,} events so far"
