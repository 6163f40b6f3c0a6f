"""A step of the Replay page beyond its board: its events as narrated lines with the rules they
cite, and what a reader does with it: continue the game from it in the Play page, write a note
on it, take a picture of the board or a chart away. Every text from the game (narration, notes,
ids) is escaped before Markdown renders it. The Replay page (dashboard/views/replay.py) places
these; their state lives in ``st.session_state``
(``fork_opened``, ``fork_error``, ``note_text``, ``note_error``, ``png``, ``png_error``) and
``cursor`` is the page's current step.

A step a take-back voided is shown as it was played, each line struck through (``~~``) under a
caption naming the take-back; its states come from the Timeline, which folds through a
take-back (a bare evolve cannot go back)."""

from __future__ import annotations

import sqlite3
from typing import Any

import streamlit as st

from warlog.dashboard import data, scrub
from warlog.app.pictures import board
from warlog.app.pictures import charts
from warlog.dashboard.data import markdown_text as md
from warlog.engine import analysis, narration
from warlog.engine.fold import TAKEBACK, evolve
from warlog.engine.rules import catalogue
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import StoreError
from warlog.app.errors import PlayError
from warlog.app.forking import fork

Event = dict[str, Any]


def _continue(path: str, game: str, at: int) -> None:
    """Fork the stored game at ``at`` (as `warlog fork` does) and open the fork on the Play
    page, which asks each side's seat afresh."""
    try:
        with SQLiteEventStore(path) as store:
            new_id, _ = fork(store, game, at)
    except (PlayError, StoreError, sqlite3.Error) as exc:
        st.session_state["fork_error"] = str(exc)
        return
    st.session_state.pop("fork_error", None)
    data.list_games.clear()  # the fork is a new game in the list
    st.session_state["play_game"], st.session_state["play_reseat"] = new_id, True
    st.session_state["fork_opened"] = new_id  # switch_page cannot be called in a callback


def continue_from_here(step: analysis.Step, events: list[Event], ended: bool) -> None:
    """"Continue from here": a new game from this step, to play on in the Play page (a stored
    game only; a replay file must be imported on the Library page first)."""
    identity = st.session_state.get("game_identity", "")
    if not identity.startswith("db:"):
        st.caption("To continue this game from a step, import the replay file first (Library "
                   "page).")
        return
    at = scrub.fork_point(events, step, ended)
    if at is None:
        st.caption("Continue from here: the game is over at this step." if ended else
                   "Continue from here is offered at steps after which the game waits for "
                   "an order.")
        return
    _, path, game = identity.split(":", 2)
    st.button("Continue from here", key="continue_here", icon=":material/call_split:",
              on_click=_continue, args=(path, game, at),
              help=f"A new game with this game's events 1–{at} (as `warlog fork GAME --at "
                   f"{at}` makes; the original is untouched), opened in the Play page to play "
                   "on.")
    if st.session_state.get("fork_error"):
        st.error(md(st.session_state.pop("fork_error")))


def _write_note(path: str, game: str, about: int) -> None:
    text = st.session_state.get("note_text", "")
    author = st.session_state.get("note_author") or None
    try:
        data.add_note(path, game, about, text, author)
    except (ValueError, StoreError, sqlite3.Error) as exc:
        st.session_state["note_error"] = str(exc)
        return
    st.session_state["note_text"] = ""
    st.session_state.pop("note_error", None)


def note_form(step: analysis.Step, events: list[Event]) -> None:
    """Write a note on this step (a stored game only: a replay file is read-only here)."""
    identity = st.session_state.get("game_identity", "")
    if not identity.startswith("db:"):
        st.caption("Notes are written on games in the database (import the file first).")
        return
    _, path, game = identity.split(":", 2)
    about = events[step.last]["seq"]
    with st.expander("Write a note on this step", icon=":material/edit_note:"):
        st.caption(f"The note is on event {about}, as `warlog note GAME {about} TEXT` writes it.")
        st.text_area("Note", key="note_text", max_chars=4000,
                     placeholder="What happened here, what to try instead…")
        st.text_input("Your name (optional)", key="note_author")
        st.button("Add note", key="add_note", on_click=_write_note,
                  args=(path, game, about))
        if st.session_state.get("note_error"):
            st.error(md(st.session_state["note_error"]))


def notes_index(steps: list[analysis.Step], notes: dict[int, list[Event]]) -> None:
    """The notes of the game in the sidebar: each one a button that moves to its step."""
    if not notes:
        return
    st.sidebar.subheader("Notes")
    for index, group in sorted(notes.items()):
        for note in group:
            label = md(f"Step {index + 1} · event {note['about']}: {note['text'][:40]}")
            st.sidebar.button(label, key=f"note_{note['seq']}", on_click=_go, args=(index,))


def _prepare_png(which: str, key: str, step: analysis.Step, state, marks, proj, selected) -> None:
    figures = {
        "board": lambda: board.board_figure(state, highlight=marks, selected=selected),
        "attrition": lambda: data.attrition_chart(key, step.turn, proj),
        "exhaustion": lambda: data.exhaustion_chart(key, step.turn, proj),
        "luck": lambda: data.luck_chart(key, step.turn, proj),
    }
    try:
        picture = charts.png(figures[which]())
    except Exception as exc:  # no chromium on this machine, most likely: a message, not a crash
        st.session_state["png_error"] = (f"Cannot draw the picture: {exc}. It needs a Chromium "
                                         "browser (Debian: apt-get install chromium).")
        return
    st.session_state.pop("png_error", None)
    st.session_state["png"] = (which, key, step.index, picture)


def pictures(key: str, step: analysis.Step, state, marks, proj, selected) -> None:
    """Take a picture away: the board at this step or a chart, as PNG, made on request."""
    with st.expander("Download a picture (PNG)"):
        which = st.selectbox("Which", ["board", "attrition", "exhaustion", "luck"], key="png_which")
        st.button("Make the picture", key="png_make", on_click=_prepare_png,
                  args=(which, key, step, state, marks, proj, selected))
        if st.session_state.get("png_error"):
            st.error(md(st.session_state["png_error"]))
        made = st.session_state.get("png")
        if made and made[:3] == (which, key, step.index):
            st.download_button(f"Download {which}.png", data=made[3], key="png_download",
                               file_name=f"{which}-step-{step.index + 1}.png", mime="image/png")


def _go(index: int) -> None:
    st.session_state["cursor"] = index


def _rule_lines(rule_ids: list[str]) -> str:
    rules, lines = catalogue(), []
    for rid in rule_ids:
        r = rules.get(rid)
        if r is None:  # an id from the log, not from the catalogue: data
            lines.append(f"- {md(rid)} (not in the rule catalogue)")
            continue
        flag = ""
        if r.interpretation:
            flag = " — ⚖️ *interpretation*" + (f" (option `{r.option}`)" if r.option else "")
        lines.append(f"- `{rid}` {r.text}{flag}")
    return "\n".join(lines)


def event_line(e: Event, narrated: str, raw: bool, struck: bool = False) -> str:
    """An event as the step's list shows it: the narrated sentence, after its seq and raw
    kind (``hits_inflicted``) only when the reader asked for event names; struck through
    when a take-back voided it (the escaping keeps a ``~`` of the log from ending it early)."""
    narrated = md(narrated)  # it quotes ids and names from the log
    if struck:
        narrated = f"~~{narrated}~~"
    return f":gray[{md(str(e['seq']))} {md(str(e['kind']))}] {narrated}" if raw else narrated


def taken_back_caption(by: int) -> str:
    """What a voided step says above its struck-through lines."""
    return (f"Taken back at event {by}: these events were voided by a take-back; the game went "
            "back to where it stood before them.")


def step_events(tl, events: list[Event], step: analysis.Step, notes: list[Event],
                upto: int, taught: tuple[str, ...] = (), gone: dict[int, int] | None = None
                ) -> None:
    """Each event of the step as its narrated line (the raw event names behind a toggle), then
    the text of every rule the step cites, once (``taught``: the rules the teaching answer above
    has just given, not given again); the players' notes on this step first (a note sits in the
    log where it was written, so it is shown here, at the step it is about, not where it was
    appended). ``gone``: engine.takeback.voided of the game, what is struck through."""
    raw = st.toggle("Show event names", key="event_names",
                    help="The log's own name for each event (e.g. hits_inflicted) and its "
                         "number, as `warlog show` prints them.")
    state = tl.state_at(step.first - 1) if step.first > 0 else None
    shown = events[step.first : upto + 1]
    gone = gone or {}
    voided_by = scrub.taken_back_at(events, step, gone)
    with st.container(height=620, key="events"):
        if voided_by is not None:
            st.caption(taken_back_caption(voided_by))
        for note in notes:
            by = f" — {note['author']}" if note.get("author") else ""
            st.info(data.markdown_text(f"Note: {note['text']}{by}"), icon=":material/edit_note:")
        for i, e in enumerate(shown, start=step.first):
            if e["kind"] != "note":
                st.markdown(event_line(e, narration.narrate(e, state), raw, e["seq"] in gone))
            # a take-back goes back: the Timeline's state after it, never evolve across it
            state = tl.state_at(i) if e["kind"] == TAKEBACK else evolve(state, e, check=False)
        rules = [r for r in scrub.cited_rules([e for e in shown if e["kind"] != "note"])
                 if r not in taught]
        if rules:
            st.markdown("**Other rules cited in this step** (the answer above gives the rest)"
                        if taught else "**Rules cited in this step**")
            st.caption(_rule_lines(rules))
