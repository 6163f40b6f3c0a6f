"""What the replay page says is proven of the game on show, and what it says while a game a
search bot played is still being re-derived in the background (warlog/app/background.py): how far
that has come, polled by a fragment until it is done, then the whole page runs again."""

from __future__ import annotations

from typing import Any

import streamlit as st

from warlog.dashboard import data

Event = dict[str, Any]
POLL_SECONDS = 2


def pending_text(pending: data.Pending, meanwhile: str) -> str:
    return (f"Re-deriving the game from its orders and dice, in the background: {pending.done:,} "
            f"of {pending.total:,} orders so far. The search bot that played "
            f"{' and '.join(pending.sides)} re-chooses each of its orders by playing its playouts "
            f"again, which takes minutes; {meanwhile}.")


def verified_caption(identity: str, events: list[Event]) -> None:
    """What is proven of the game on show (``data.verified_line``); for a search bot's game
    still being re-derived, how far that has come, polled until it is done."""
    line = data.verified_line(identity, events)
    if isinstance(line, str):
        st.caption(line)
    else:
        _still_verifying(identity, events)


@st.fragment(run_every=POLL_SECONDS)
def _still_verifying(identity: str, events: list[Event]) -> None:
    line = data.verified_line(identity, events)
    if isinstance(line, str):
        st.rerun()  # the whole page, with the verified line in place; this fragment is not called
    st.caption(pending_text(line, "the game is shown meanwhile, not yet verified"))


@st.fragment(run_every=POLL_SECONDS)
def checking_upload(key: str, events: list[Event], name: str) -> None:
    """An uploaded game a search bot played is shown once it re-derives (trust by default):
    until then, how far the check has come."""
    refusal = data.upload_refusal(key, events)
    if not isinstance(refusal, data.Pending):
        st.rerun()  # shown, or refused with the first difference
    st.info(f"Checking {data.markdown_text(name)} before showing it. "
            + pending_text(refusal, "it is shown once it re-derives"))
