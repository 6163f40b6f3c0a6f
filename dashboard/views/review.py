"""The Review page: was it the dice or the decisions, and where was the battle won or lost.

A thin page over tested modules: the review is engine/review.py's (the one stored beside the
game, else run in process in the background and stored: dashboard/review_page.py), the graph
dashboard/review_chart.py's, the rows, counts, links and the after-action report's layout
dashboard/review_page.py's (its words engine/review_aar.py's), the board warlog/app/pictures/board.py's
as the Replay page draws it. The page only lays them out: each side's headline (start + orders
+ dice = result) and accuracy, the after-action report's four questions, the evaluation graph
decision by decision with the battle's chapters, the order table, and the board at the
decision picked by a click on the graph, a row or a moment of the report.

A stored review by an older evaluator is shown with one line saying so and a "Review again"
button; the button's choice is kept for the session (``review_again``: the review it was
pressed for), and the current evaluator's review then runs in the background as any other.

The game is one of the database's, chosen in the sidebar or by the address (``?game=ID``, as
the Replay page links games); the Replay page's own picker lives in its page file, which runs
that page when imported, so the choice is made here with dashboard/data.py's loading. Session
state: ``review_game`` (the picker), ``review_selected`` (the decision on show, with the review
it belongs to in ``review_selected_for``: another game clears it); "Try it"
(dashboard/review_try.py) leaves ``fork_opened`` as the Replay page's "Continue from here" does,
and the next run opens the Play page.

Every text from a game (ids, orders, names) is escaped (data.markdown_text) before Streamlit's
Markdown renders it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from warlog.dashboard import board_click, data, review_chart, review_page, review_try
from warlog.app.pictures import board
from warlog.engine import review_aar

Event = dict[str, Any]
POLL_SECONDS = 1
SELECTED, SELECTED_FOR = "review_selected", "review_selected_for"
AGAIN = "review_again"


def choose_game() -> tuple[str, str, str, list[Event]] | str:
    """The sidebar's game picker: (game id, identity, cache key, events), or a message."""
    st.sidebar.header("warlog")
    path = data.db_path()
    games = data.sidebar_games(path)
    if isinstance(games, str):
        return games
    by_id = {g["id"]: g for g in games}
    ss = st.session_state
    linked = None
    if not ss.get("review_link_read"):  # a copied link names its game once a session
        ss["review_link_read"] = True
        linked = st.query_params.get("game")
    ss["review_game"] = review_page.chosen_game(list(by_id), linked, ss.get("review_game"),
                                                ss.get("game"))
    gid = st.sidebar.selectbox("Game", list(by_id), key="review_game",
                               format_func=lambda g: review_page.game_label(by_id[g]))
    st.query_params["game"] = gid
    count = by_id[gid]["events"]
    events = data.read_events(path, gid, count)
    return gid, f"db:{path}:{gid}", data.source_key("db", path, gid, count), events


@st.fragment(run_every=POLL_SECONDS)
def reviewing(job) -> None:
    """How far the review has come, polled until it is done; then the whole page again."""
    if job.finished:
        st.rerun()
    st.progress(job.done / job.total if job.total else 0.0,
                text=review_page.progress_text(job.done, job.total))


def _select(index: int | None, review_id: str) -> None:
    if index is not None:
        st.session_state[SELECTED], st.session_state[SELECTED_FOR] = index, review_id


def _chart_clicked(review_id: str, count: int) -> None:
    _select(review_page.clicked_decision(st.session_state.get("review_chart"), count), review_id)


def _row_clicked(key: str, indices: list[int], review_id: str) -> None:
    _select(review_page.selected_row(st.session_state.get(key), indices), review_id)


def selected(review_id: str, count: int) -> int | None:
    """The decision on show, if one was picked in this review."""
    ss = st.session_state
    if ss.get(SELECTED_FOR) != review_id or not 0 <= ss.get(SELECTED, -1) < count:
        return None
    return ss[SELECTED]


def summary(review: dict[str, Any]) -> None:
    """Each side's headline (the sentence adds up: start + orders + dice = result), accuracy
    and grade counts."""
    for side in review_page.SIDES:
        st.markdown(f"**{data.markdown_text(review['headline'][side])}**")
    st.dataframe(review_page.summary_rows(review), hide_index=True, key="review_summary",
                 column_config={"accuracy": st.column_config.NumberColumn(
                     "accuracy", help="lichess's accuracy, 0 to 100", format="%.1f")})


def _ask_again(review_id: str) -> None:
    st.session_state[AGAIN] = review_id


def after_action_report(sections: list[review_aar.Section], review_id: str) -> None:
    """The four questions (what was planned, what happened, why, what to keep and change),
    each a subheading over its items; each moment of a chapter with a button that shows its
    decision on the board, as a click on the graph does."""
    with st.expander("After-action report", expanded=False):
        for section in sections:
            st.subheader(data.markdown_text(section.heading))
            st.caption(data.markdown_text(section.intro))
            for text, decision, depth in review_page.section_blocks(section):
                if decision is None and not depth:
                    st.markdown(text)
                    continue
                _, said, button = st.columns([1, 16, 5], vertical_alignment="center")
                said.markdown(text)
                if decision is not None:
                    button.button("Show on the board", key=f"review_moment_{decision}",
                                  type="tertiary", icon=":material/my_location:",
                                  on_click=_select, args=(decision, review_id))


def older_evaluator(review: dict[str, Any], review_id: str) -> None:
    """One line when the review shown is an older evaluator's, and the button that reviews
    the game again with this warlog's."""
    line = review_page.older_evaluator_line(review)
    if line is None:
        return
    st.info(data.markdown_text(line), icon=":material/history:")
    if st.session_state.get(AGAIN) != review_id:
        st.button("Review again", key="review_again_button", on_click=_ask_again,
                  args=(review_id,), help="Review the game with this warlog's evaluator, in "
                  "the background; the review is stored when done.")


def order_table(review: dict[str, Any], review_id: str) -> None:
    only = st.toggle("Only inaccuracies and worse", key="review_only_flawed")
    rows, indices = review_page.order_rows(review, only_flawed=only)
    key = f"review_table_{int(only)}"  # a new table when filtered: its selection counted rows
    st.dataframe(rows, hide_index=True, key=key, selection_mode="single-row",
                 on_select=partial(_row_clicked, key, indices, review_id),
                 column_config={"#": st.column_config.NumberColumn("#", width="small")})


def position(review: dict[str, Any], index: int, gid: str, key: str,
             events: list[Event]) -> None:
    """The board where decision ``index`` was made, the order played and the better one found
    drawn on it, "Try it" (the better order, in a new game) and the way to it on Replay."""
    order = review["orders"][index]
    timeline = data.timeline(key, events)
    state = review_page.position_before(timeline, events, order)
    marks = (review_try.played_marks(events, timeline, order)
             + review_try.better_marks(state, order))
    board_click.show(board.board_spec(state, highlight=marks, width_px=board.PAGE_PX),
                     board.PAGE_PX, key="review_board", on_click=lambda: None,
                     title=f"The position of decision {index + 1}")
    st.caption(review_page.decision_caption(order))
    if order.get("best_order"):
        better = data.markdown_text(order["best_text"])
        st.caption(f"Drawn on the board: the order played, with what it caused; dashed, the "
                   f"{board.ALTERNATIVE_LEGEND}, {better}, without an outcome of its dice (the "
                   "review weighed it with them averaged out).")
    review_try.try_button(data.db_path(), gid, events, order)
    st.link_button("Open in Replay at this step", review_page.replay_link(gid, order["seq"]),
                   icon=":material/play_circle:", key="review_open_replay")


def main() -> None:
    if review_try.opened():  # "Try it" made a game: play it (a callback may not switch pages)
        st.switch_page("views/play.py")
    st.title("Review")
    chosen = choose_game()
    if isinstance(chosen, str):
        st.error(data.markdown_text(chosen))  # it names a path, an error's words
        return
    gid, identity, key, events = chosen
    st.caption(f"Game {data.code_span(gid)}: every decision weighed against the best order "
               "found there, with its dice averaged out (`warlog review`, docs/review.md).")
    review_id = review_page.review_key(identity, events)
    found = review_page.stored(data.db_path(), events)
    review, report = found if found is not None else (None, None)
    asked_again = st.session_state.get(AGAIN) == review_id
    if review is None or (asked_again and review_page.older_evaluator_line(review)):
        job = review_page.review_job(identity, gid, events, data.db_path())
        if not job.finished:
            reviewing(job)
            if review is None:
                return  # (else the older review stays on show while the new one is made)
        else:
            try:
                review, report = job.result(), None
            except Exception as exc:  # noqa: BLE001 - a log the review cannot read: one line
                st.error(data.markdown_text(f"Cannot review this game: {exc}"))
                return
    if not review["orders"]:
        st.info("No decision was made in this game yet: nothing to review.")
        return
    count = len(review["orders"])
    older_evaluator(review, review_id)
    summary(review)
    if report is None:  # a review made just now (a stored one came with its report)
        report = review_aar.after_action(review, events)  # told once a run: report and graph
    after_action_report(review_aar.sections(report, review), review_id)
    pick = selected(review_id, count)
    st.subheader("The evaluation, decision by decision")
    st.caption("Red's expected score (a win counts 1, a draw half) before each decision, then "
               "the result; each decision's point is the position it was made in, the line "
               "from it what its order and dice did. Inaccuracies, mistakes and blunders are "
               "marked; the moments that mattered are labelled, the battle's chapters titled "
               "along the top. Click a mark or a row to see the board there.")
    st.plotly_chart(review_chart.review_figure(review, selected=pick, chapters=report.chapters),
                    key="review_chart", on_select=partial(_chart_clicked, review_id, count),
                    selection_mode="points", config={"displayModeBar": False})
    table, shown = st.columns([3, 2])
    with table:
        st.subheader("Every decision")
        order_table(review, review_id)
    with shown:
        if pick is None:
            st.caption("Click a mark on the graph or a row of the table: the board where that "
                       "decision was made is shown here.")
        else:
            position(review, pick, gid, key, events)


main()
