"""The library: every game in the database, searchable and sortable; play an unfinished one on
in the Play page, open one in the replay page, download its exact replay file, or add a replay
file to the database.

The table and the search are plain data (dashboard/library_rows.py); this page only arranges
widgets. An added file is checked as `warlog import` checks it, then re-derived (verify): a file
whose events do not follow from its orders and dice is refused, naming the first difference.

Game ids, file names and the errors quoting them are data (a shared file may name its game
``![i](http://host/x)``): every such text goes to Streamlit's markdown through
``data.markdown_text``; the table is a dataframe, which shows text as text.
"""

from __future__ import annotations

import sqlite3

import streamlit as st

from warlog.dashboard import data
from warlog.dashboard.library_rows import matching, rows
from warlog.events.store import StoreError

st.title("Library")
path = data.db_path()


def add_upload() -> tuple[str, str] | None:
    """The file in the uploader, added before the games are listed (so the list and its count
    include it at once), once per file: a rerun with the same file in the widget shows the
    same verdict rather than importing it again. ("success" or "error", the message)."""
    upload = st.session_state.get("library_upload")
    if upload is None:
        return None
    verdicts = st.session_state.setdefault("library_verdicts", {})
    if upload.file_id in verdicts:
        return verdicts[upload.file_id]
    bar = st.empty()

    def rederived(done: int, total: int) -> None:  # a game a search bot played: minutes
        bar.progress(done / max(1, total), text=f"Re-deriving {data.markdown_text(upload.name)}: "
                     f"{done} of {total} orders (a search bot's orders are re-chosen by playing "
                     "its playouts again)")

    try:
        added = data.import_upload(path, upload.getvalue(), upload.name, rederived)
    except Exception as exc:  # an uploaded file is untrusted input: any failure is a message
        verdict = ("error", data.markdown_text(f"Cannot add {upload.name}: {exc}"))
    else:
        verdict = ("success", f"Added {data.markdown_text(added)}: it re-derives from its own "
                              "orders and dice.")
    finally:
        bar.empty()
    verdicts[upload.file_id] = verdict
    return verdict


try:
    data.ensure_database(path)
    verdict = add_upload()
    games = data.list_games(path)
except (StoreError, sqlite3.Error) as exc:
    st.error(data.markdown_text(f"Cannot open the database {path}: {exc}"))
    st.stop()

query = st.text_input("Search", key="library_search",
                      placeholder="scenario, rule system, period, player, result, date (2026-11)…")
shown = matching(rows(games), query)
st.caption(f"{len(shown)} of {len(games)} games in {data.markdown_text(path)} · click a column "
           "to sort")
picked = st.dataframe(
    shown, hide_index=True, key="library_table", on_select="rerun", selection_mode="single-row",
    column_config={"events": st.column_config.NumberColumn("events", format="%d")})

chosen = None
if picked is not None and picked.selection.rows:
    chosen = shown[picked.selection.rows[0]]["game"]
elif shown:
    chosen = shown[0]["game"]

if chosen is not None:
    st.subheader(data.markdown_text(chosen))
    info = next(g for g in games if g["id"] == chosen)
    play_col, open_col, download_col = st.columns(3)
    if not info["ended"] and play_col.button("Play on from where it stands", key="library_play",
                                             type="primary"):
        for key in ("play_table", "play_unit", "play_offer", "play_dice"):
            st.session_state.pop(key, None)  # the Play page opens this game afresh
        st.session_state["play_game"] = chosen
        st.switch_page("views/play.py")
    if open_col.button("Open in the replay page", key="library_open"):
        st.session_state["game"] = chosen
        st.session_state["game_link_read"] = True
        st.session_state["source"] = "Database"
        st.switch_page("views/replay.py")
    download_col.download_button(
        "Download the replay file", data=data.replay_bytes(path, chosen, info["events"]),
        file_name=f"{chosen}.jsonl", mime="application/jsonl", key="library_download")

st.subheader("Add a replay file")
st.file_uploader("Replay file (.jsonl or .jsonl.gz)", type=data.REPLAY_TYPES, key="library_upload")
if verdict is not None:
    (st.success if verdict[0] == "success" else st.error)(verdict[1])
