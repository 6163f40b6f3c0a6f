"""Parts of the Play page that only show what the table knows: what happened (newest first,
the latest also marked on the board), the attack behind a choice a unit must make now, and
whose seat this page holds with the links its starter sends.

Every text here that comes from a game (unit ids, player names, a scenario's words, rule
texts) is data: it goes through ``markdown_text`` before Streamlit's Markdown sees it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from warlog.dashboard.data import code_span
from warlog.dashboard.data import markdown_text as md
from warlog.app.feed import Entry
from warlog.app.session import Session
from warlog.engine import analysis
from warlog.engine.state import GameState
from warlog.events import seat_links
from warlog.events.store import StoreError

SHOWN = 8  # entries the list shows; the Replay page has every step
FEED_PX = 300  # the list's height: it scrolls, the board stays where it is


def latest_marks(happened: list[Entry], state: GameState) -> list[dict[str, Any]]:
    """The newest entry's marks for the board (its moves, its attacks and their results), as
    the Replay page marks a step: the last thing that happened is seen where it happened."""
    if not happened:
        return []
    try:
        return analysis.highlights(happened[0].events, state)
    except KeyError:  # a unit the entry names is no longer on the state's roll: no marks
        return []


def _entry(entry: Entry, newest: bool) -> None:
    title = md(entry.title)
    if newest:
        st.markdown(f"**{title}**")
        for line in entry.lines:
            st.caption(md(line))
        if entry.rules:
            with st.expander("The rules behind it"):
                for rid, text in entry.rules:
                    st.caption(f"{code_span(rid)} {md(text)}")
    else:
        st.markdown(title)
        if entry.lines:
            st.caption(" ".join(md(line) for line in entry.lines))


def happened(entries: list[Entry]) -> None:
    """The running list beside the board: each resolved order of either side (and each
    automatic phase that resolved something) in the Replay page's words, newest first."""
    if not entries:
        return
    st.markdown("**What happened** (newest first)")
    with st.container(height=FEED_PX, key="play_feed"):
        for i, entry in enumerate(entries[:SHOWN]):
            _entry(entry, newest=i == 0)
        if len(entries) > SHOWN:
            st.caption("Earlier steps: on the Replay page.")


def cause_of_choice(table: Session, unit: str) -> None:
    """When the unit must choose because of what the other side did (a hit it took: retreat
    or lose a strength point), the attack and its dice, shown with the choice."""
    entry = table.last_about(unit)
    state = table.state
    if entry is None or entry.side == state.to_act:
        return
    st.info(md(f"Because of {entry.title}") + "\n\n"
            + "\n\n".join(md(line) for line in entry.lines))


def seat_line(table: Session, token: str | None, links: dict[str, str] | None) -> None:
    """Whose seat this page holds in a game played by links (a link whose token is no seat of
    this game says so: the page then watches); for the page that started the game, the links
    themselves, each to be sent to its player, with a way to replace one that went astray."""
    if table.linked:
        if table.holds is not None:
            st.caption(f"Seat: this page holds {table.holds}'s seat; only its link gives "
                       f"{table.holds}'s orders. Keep this tab's address to come back to it.")
        elif token:
            st.warning("This link's seat is not a seat of this game (mistyped, cut short or "
                       "replaced by a new link): this page watches. Ask the game's starter for "
                       "your seat link.")
        else:
            st.caption("Watching: this page holds no seat of this game.")
    if not links:
        return
    base = f"{st.context.url.split('?')[0]}" if st.context.url else "/play"
    with st.expander("Seat links: send each player theirs", expanded=True):
        for side, secret in links.items():
            link = f"{base}?play={table.game_id}&seat={secret}"
            st.markdown(f"**{side}**: {code_span(link)}")
        st.markdown(f"**Watch**: {code_span(f'{base}?play={table.game_id}')}")
        st.caption("A seat link is private: whoever holds it gives that side's orders. "
                   "Open yours (here or in another browser); keep the others' to send. "
                   "Sent to the wrong person? Replace it: the old link stops working at once.")
        for side in links:
            st.button(f"Replace {side}'s link", key=f"play_relink_{side}",
                      on_click=_replace_link, args=(table, side, links))


def _replace_link(table: Session, side: str, links: dict[str, str]) -> None:
    """Revoke ``side``'s link and issue a new one (events/seat_links.py): the old token stops
    working at once; the new one is shown to this page only."""
    store = table.recorder.store
    try:
        seat_links.revoke(store, table.game_id, side)
        links[side] = seat_links.issue(store, table.game_id, [side])[side]
    except StoreError as exc:
        st.session_state["play_message"] = ("error", f"The link was not replaced: {exc}")
        return
    st.session_state["play_message"] = ("success", f"{side}'s link was replaced: the old one "
                                                   "no longer gives a seat.")
