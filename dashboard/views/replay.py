"""The replay page: pick a game, scrub through it step by step, and see why each thing happened.

The page only arranges widgets; the figures come from warlog/app/pictures/charts.py, the steps, narration
and tidy rows from engine/analysis.py, the cached loading from dashboard/data.py, and a step's
events and what a reader does with it (continue from it, a note, a picture) from
dashboard/step_actions.py.

Layout: the board comes first, under a short header (title, sides, the scenario folded away),
so that its top is on the first screen at 1280x800; the step line, the scrubbing buttons and the
sliders sit in the column beside it, above what happened. The result is told at the last step
(or when the reader asks for it in the header), never above the opening: it would spoil the
replay, and a teaching lesson.

Session state: ``cursor`` (the current step's index) is the one source of truth. The widgets
``step`` and ``turn_N`` and the scrubbing buttons (first, previous/next turn, phase and step,
last; each with a keyboard shortcut) change it through callbacks, and are re-synchronised from
it before they are drawn, so they never disagree. The turn slider's key changes each time it
moves the cursor (``turn_version``): Streamlit draws it afresh and the keyboard focus leaves it,
so the arrow keys go back to meaning "a step" (the Left/Right shortcuts) rather than "a turn",
as in every replay tool with one timeline (PageUp/PageDown move by turn).

One numbering: the step line names the event numbers (``seq``) the step covers, the numbers
`warlog log` prints and `warlog fork --at` and `warlog note` take. The page address carries
``game``, ``step`` and ``event`` (the step's first event): a copied link opens the same step, and
so does ``?event=N`` for any event N of it (the event wins over the step); ``?step=N`` alone
(counted from 1, the older links) still opens step N. An address asking for what the game does not have opens the nearer end and says so in
one line (scrub.linked_step). ``cursor`` is not a widget key, so it survives a visit to another
page; ``loaded`` names the game it belongs to, and a different game resets it to the opening.
``fork_opened`` is set by "Continue from here" (a callback may not switch pages): the next run
opens the Play page on the fork.

A step a take-back voided is still a step (the whole log is replayed): its line is struck
through (``~~``) and says which take-back voided it, and its board is the game as it stood then
(the Timeline's).

Every text from a game, a file or an address is escaped (data.markdown_text) before Streamlit's
Markdown renders it: a player named ``![i](http://host)`` is shown, not fetched.
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import Any

import streamlit as st

from warlog.dashboard import board_click, data, replay_header, scrub, step_actions, teach, verifying
from warlog.app.pictures import board
from warlog.engine import analysis, reach
from warlog.engine.flow import phase_name
from warlog.events.store import StoreError

Event = dict[str, Any]
SOURCES = ("Database", "Replay file")


def _game_label(info: dict[str, Any], spoil: bool = True) -> str:
    """A game as the sidebar's picker names it: with its result, except in teaching mode (a
    learner is not told the end before the lesson). Plain text: a select box's options are not
    read as Markdown."""
    result = ""
    if info["ended"] and spoil:
        result = f" · {info['winner']} won" if info["winner"] else " · draw"
    return f"{info['title'] or info['scenario_id']}{result} ({info['id']})"


def choose_source() -> tuple[str, list[Event]] | str | None:
    """The sidebar: where the game comes from. Returns (cache key, events), an error message to
    show, or None when there is nothing to show yet."""
    st.sidebar.header("warlog")
    source = st.sidebar.radio("Source", SOURCES, key="source", horizontal=True)
    if source == "Database":
        path = data.db_path()
        games = data.sidebar_games(path)
        if isinstance(games, str):
            return games
        by_id = {g["id"]: g for g in games}
        linked = st.query_params.get("game")
        if not st.session_state.get("game_link_read"):  # a copied link names its game once
            st.session_state["game_link_read"] = True
            if linked in by_id:
                st.session_state["game"] = linked
        if st.session_state.get("game") not in by_id:
            st.session_state["game"] = games[0]["id"]
        spoil = not st.session_state.get("teaching")  # the toggle's value, drawn below
        gid = st.sidebar.selectbox("Game", list(by_id), key="game",
                                   format_func=lambda g: _game_label(by_id[g], spoil))
        info = by_id[gid]
        st.query_params["game"] = gid
        events = data.read_events(path, gid, info["events"])
        st.session_state["game_identity"] = f"db:{path}:{gid}"
        return data.source_key("db", path, gid, info["events"]), events
    upload = st.sidebar.file_uploader("Replay file (.jsonl or .jsonl.gz)", type=data.REPLAY_TYPES,
                                      key="upload", help="A file written by `warlog export`.")
    if upload is None:
        st.info("Upload a warlog replay file (.jsonl, or .jsonl.gz compressed) in the sidebar to "
                "watch it here.")
        return None
    raw = upload.getvalue()
    try:
        events = data.load_upload(raw, upload.name)
    except Exception as exc:  # an uploaded file is untrusted input: any failure is a message
        return f"Cannot open {upload.name}: {exc}"
    key = data.source_key("upload", raw)
    refusal = data.upload_refusal(key, events)
    if isinstance(refusal, data.Pending):
        verifying.checking_upload(key, events, upload.name)
        return None
    if refusal is not None:
        return f"Cannot open {upload.name}: {refusal}"
    st.session_state["game_identity"] = f"upload:{key}"
    return key, events


# -- callbacks: each moves the cursor; widgets follow it on the next run ----------------------


def turn_key() -> str:
    """The turn slider's key this run (see the module's docstring: a new one after each move)."""
    return f"turn_{st.session_state.get('turn_version', 0)}"


def _on_turn(steps: list[analysis.Step], key: str) -> None:
    turn = st.session_state[key]
    st.session_state["cursor"] = next((s.index for s in steps if s.turn >= turn), len(steps) - 1)
    st.session_state["turn_version"] = st.session_state.get("turn_version", 0) + 1


def _on_step() -> None:
    st.session_state["cursor"] = st.session_state["step"] - 1  # the slider counts from 1


def _move(move: str, steps: list[analysis.Step]) -> None:
    st.session_state["cursor"] = scrub.target(steps, st.session_state["cursor"], move)


LINK_PROBLEM = "link_problem"  # (what is wrong with the address, the step it opened)


def _linked_step(steps: list[analysis.Step], events: list[Event]) -> int | None:
    """The step a copied link asks for, read once a session: ``?event=40`` (an event number,
    as the command line prints it) or ``?step=12`` (counted from 1, the older links). What is
    wrong with it is kept to be said on the page (scrub.linked_step)."""
    if st.session_state.get("link_read"):
        return None
    st.session_state["link_read"] = True
    index, problem = scrub.linked_step(steps, events, st.query_params.get("event"),
                                       st.query_params.get("step"))
    if problem is not None:
        st.session_state[LINK_PROBLEM] = (problem, index)
    return index


def _sync(key: str, steps: list[analysis.Step], events: list[Event]) -> analysis.Step:
    """Reset the cursor for a new game (to the step a link names, if any), clamp it, point the
    widgets at it, and write game, step and event into the page address so a copied link
    reopens it: the step (counted from 1, as the page shows it) and its first event number, the
    number `warlog log` prints beside it (a link opens by the event when it has one)."""
    ss = st.session_state
    identity = ss.get("game_identity", key)
    if ss.get("loaded") != identity:  # another game (the same one grown by a note keeps its step)
        ss.pop(LINK_PROBLEM, None)  # said of the game the address opened, not of another
        linked = _linked_step(steps, events)
        ss["loaded"], ss["cursor"] = identity, linked if linked is not None else 0
    ss["cursor"] = min(max(int(ss.get("cursor", 0)), 0), len(steps) - 1)
    step = steps[ss["cursor"]]
    ss["step"], ss[turn_key()] = step.index + 1, step.turn
    st.query_params["step"] = str(step.index + 1)
    st.query_params["event"] = str(events[step.first]["seq"])
    return step


def link_problem(step: analysis.Step) -> None:
    """What was wrong with the address that opened the page (one line), until the reader
    moves away from the step it opened."""
    problem = st.session_state.get(LINK_PROBLEM)
    if problem is None:
        return
    if problem[1] != step.index:
        del st.session_state[LINK_PROBLEM]
        return
    st.warning(data.markdown_text(problem[0]), icon=":material/link_off:")


# -- page sections -----------------------------------------------------------------------------


BUTTONS = (  # key, label, icon, keyboard shortcut (Streamlit shows it on the button)
    ("first", "First step", ":material/first_page:", "Home"),
    ("prev_turn", "Previous turn", ":material/keyboard_double_arrow_left:", "PageUp"),
    ("prev_phase", "Previous phase", ":material/chevron_left:", "Shift+Left"),
    ("prev_step", "Previous step", ":material/arrow_back:", "Left"),
    ("next_step", "Next step", ":material/arrow_forward:", "Right"),
    ("next_phase", "Next phase", ":material/chevron_right:", "Shift+Right"),
    ("next_turn", "Next turn", ":material/keyboard_double_arrow_right:", "PageDown"),
    ("last", "Last step", ":material/last_page:", "End"),
)


# The shortcut Streamlit writes on each button would crowd its icon out of a quarter of the
# narrow column: the tooltip names it instead (the key still works).
BUTTON_STYLE = ("<style>" + ", ".join(f".st-key-{b[0]} kbd" for b in BUTTONS)
                + " { display: none; }</style>")


def controls(steps: list[analysis.Step], step: analysis.Step, title: str,
             events: list[Event], taken_back: int | None = None) -> None:
    """Beside the board: the step line (its number, and the event numbers it covers, as the
    command line prints them), the scrubbing buttons in two rows of four, back (first, turn,
    phase, step) then forward (step, phase, turn, last), each an icon with its keyboard
    shortcut and its name in a tooltip (a narrow column), then the step and turn sliders.
    ``taken_back``: the take-back that voided this step, if one did (its title struck)."""
    n, last_turn = len(steps), max(s.turn for s in steps)
    said = data.markdown_text(title)
    if taken_back is not None:
        said = f"~~{said}~~ :gray[taken back at event {taken_back}]"
    st.markdown(f"**Step {step.index + 1} of {n}** · {scrub.event_span(events, step)} — {said}")
    st.html(BUTTON_STYLE)
    for row in (BUTTONS[:4], BUTTONS[4:]):
        for column, (key, label, icon, shortcut) in zip(st.columns(4, gap="small"), row):
            going = scrub.target(steps, step.index, key)
            column.button(icon, key=key, on_click=_move, args=(key, steps),
                          help=f"{label} ({shortcut})", shortcut=shortcut,
                          disabled=going == step.index, width="stretch")
    if n > 1:
        st.slider("Step", 1, n, key="step", on_change=_on_step,
                  help="Each step is one order and what it caused, or an automatic phase. "
                       "The arrow keys move step by step; the event numbers in the line "
                       "above are those of `warlog log`, `warlog fork --at` and `warlog note`, "
                       "and a link `?event=N` opens the step holding event N.")
    if last_turn > 0:
        key = turn_key()
        st.slider("Turn", 0, last_turn, key=key, on_change=_on_turn, args=(steps, key),
                  help="Jumps to the turn's first step; the arrow keys then go on step by "
                       "step (PageUp/PageDown move by turn).")


NO_UNIT = "—"
# Set once a browser has drawn this session's board (a comment, not a docstring: Streamlit's
# magic would print a bare string on the page).
BOARD_DRAWN = "replay_board_drawn"


def _board_drawn() -> None:
    st.session_state[BOARD_DRAWN] = True


def _charts_wait() -> bool:
    """Whether the charts wait for the browser to draw the board first: sent in the same run,
    their plotly.js (4.7 MB) and the data grid's script run before anything of the page is
    shown, the board too (about 2 s more on a busy 2-core machine); one run later, they follow
    it. Only a browser draws the board and says so (its request has a User-Agent): a session
    with none (a script driving the page) gets the charts at once."""
    return bool(st.context.headers.get("User-Agent")) and not st.session_state.get(BOARD_DRAWN)


def _board_clicked(state) -> None:
    """A click on a unit of the board selects it; a click anywhere else clears the selection."""
    st.session_state["selected_unit"] = board_click.clicked_unit("board", state) or NO_UNIT


def unit_picker(state) -> reach.UnitReach | None:
    """The selected unit (picked here or by clicking it on the board) and its reach now."""
    ids = [NO_UNIT] + sorted(state.units, key=lambda u: (state.units[u].side, u))
    if st.session_state.get("selected_unit") not in ids:
        st.session_state["selected_unit"] = NO_UNIT
    chosen = st.selectbox(
        "Selected unit", ids, key="selected_unit",
        format_func=lambda u: u if u == NO_UNIT else
        f"{u} ({state.units[u].type}{', fallen' if state.units[u].removed else ''})",
        help="Click a unit on the board, or pick it here: its fire arc and range, and its "
             "legal moves and targets at this step, are drawn on the board.")
    return None if chosen == NO_UNIT else reach.unit_reach(state, chosen)


def _chart_clicked(key: str, steps: list[analysis.Step]) -> None:
    """A click on a chart's point moves to the first step of that turn."""
    index = scrub.step_of_click(steps, st.session_state.get(key))
    if index is not None:
        st.session_state["cursor"] = index


def win_probability(key: str, step: analysis.Step, events: list[Event], clicked) -> None:
    """P(red wins) turn by turn, from the curve stored beside the game (``warlog winprob``), or
    computed here on request (in process, a few playouts a turn) and stored."""
    st.subheader("Win probability")
    identity = st.session_state.get("game_identity", "")
    if not identity.startswith("db:"):
        st.caption("Computed for games in the database: import the file, or run "
                   "`warlog winprob FILE`.")
        return
    _, path, game = identity.split(":", 2)
    try:
        curve = data.stored_curve(path, game, events[-1]["seq"])
    except StoreError as exc:
        st.error(data.markdown_text(str(exc)))
        return
    if curve is None:
        offer = st.empty()  # the offer goes once the curve is computed, not above the chart
        with offer.container():
            st.caption(f"No curve is stored for this game as it stands. Computing one plays "
                       f"the game out {data.DASHBOARD_PLAYOUTS} times from the start of every "
                       "turn (`warlog winprob GAME --playouts 500` makes a finer one).")
            pressed = st.button("Compute the win probability", key="winprob_compute",
                                icon=":material/query_stats:")
        if not pressed:
            return
        offer.empty()
        bar = st.progress(0.0, text="Playing the game out from every turn…")

        def progress(done: int, total: int) -> None:
            bar.progress(done / total if total else 1.0, text=f"{done:,} of {total:,} playouts")

        try:
            with st.spinner("Playing the game out from every turn…"):
                curve = data.compute_curve(path, events, progress)
        except (ValueError, StoreError, sqlite3.Error) as exc:
            st.error(data.markdown_text(f"Cannot compute the curve: {exc}"))
            return
        finally:
            bar.empty()
    p = curve["params"]
    md = data.markdown_text  # the curve's parameters are stored data
    st.caption(f"P(red wins) at the start of each turn: {p['playouts']:,} playouts a turn with "
               f"fresh dice, {md(str(p['red']))} (red) against {md(str(p['blue']))} (blue), "
               f"{md(str(p['mode']))}; the band "
               "is the 95% interval. ★ marks a turning point, labelled with the turn it "
               "happened in: a side's win probability moved by 0.2 or more, or the side ahead "
               "changed.")
    st.plotly_chart(data.winprob_chart(key, step.turn, repr(sorted(p.items())), curve),
                    **clicked("winprob"))


def board_share(width_cells: int) -> list[float]:
    """The board's and the narrative's shares of the page's width. Three fifths holds a board
    12 cells wide readable at 1280x800 (ids >= 10 px, pips >= 6 px); a wider board gets the
    share that keeps its cells as large (7/10 for the bundled 14-wide ones), never more than
    three quarters: the step's controls and story stay beside it."""
    share = min(0.75, max(0.6, 0.6 * width_cells / 12))
    return [share, 1 - share]


def _describe(state, selected: reach.UnitReach) -> str:
    """reach.describe's text with the unit's id in bold and the rest escaped (it quotes ids
    from the log)."""
    text, uid = reach.describe(state, selected), selected.unit
    head = f"**{uid}**"
    if text.startswith(head):
        return f"**{data.markdown_text(uid)}**" + data.markdown_text(text[len(head):])
    return data.markdown_text(text)


def main() -> None:
    if st.session_state.get("fork_opened"):  # "Continue from here" made a game to play
        del st.session_state["fork_opened"]
        st.switch_page("views/play.py")
    loaded = choose_source()
    if loaded is None:
        return
    if isinstance(loaded, str):
        st.error(data.markdown_text(loaded))  # it names a path, a file, an error's words
        return
    key, events = loaded
    try:
        tl = data.timeline(key, events)
        proj = data.projections(key, events)
    except ValueError as exc:  # FoldError, DivergenceError: a log changed behind warlog's back
        st.error(data.markdown_text(f"This game cannot be replayed: {exc}"))
        return
    steps = proj["steps"]
    step = _sync(key, steps, events)
    replay_header.header(tl, events)
    identity = st.session_state.get("game_identity", key)
    asked = data.questions(key, events) if teach.enabled() else {}
    question = asked.get(step.index)
    hidden = not teach.answered(identity, question)
    shown = question.hide_from - 1 if hidden else step.last  # the last event shown
    if asked:
        teach.show_score(identity, asked)
    state = tl.state_at(shown)
    # The board first, the controls beside it: at 1280x800 the board's top is on the first
    # screen (above it only the title, the sides and the folded scenario).
    board_column, narrative = st.columns(board_share(state.grid.width))
    with board_column:
        marks = analysis.highlights(events[step.first : shown + 1], state)
        drawn = st.container()  # the board first on the page, its unit picker below it
        selected = unit_picker(state)
        with drawn:
            board_click.show(board.board_spec(state, highlight=marks, selected=selected,
                                              width_px=board.PAGE_PX),
                             board.PAGE_PX, key="board", on_click=partial(_board_clicked, state),
                             title=f"The board after step {step.index + 1}",
                             on_drawn=_board_drawn)
        st.caption(f"{'Before the answer' if hidden else 'On the board'}: turn {state.turn} · "
                   f"{data.markdown_text(str(state.side or '—'))} {phase_name(state.phase)} · "
                   "each counter shows its "
                   "type's map symbol, its id, the strength it has left of what it started with "
                   "(pips, a bar past six), a pointer on the edge it faces, and badges for "
                   "period state (square, column, limbered, out of formation, out of "
                   "ammunition, trench, hull-down, spotted); hover a counter for all of it")
        if selected is not None:
            st.markdown(_describe(state, selected))
        step_actions.pictures(key, step, state, marks, proj, selected)
    with narrative:
        link_problem(step)
        taken_back = scrub.taken_back_at(events, step, proj["voided"])
        controls(steps, step, teach.untold(step.title, question) if hidden else step.title,
                 events, taken_back)
        replay_header.result(tl.final, step.index == len(steps) - 1 and not hidden)
        st.subheader("What happened")
        step_actions.continue_from_here(step, events, tl.state_at(step.last).ended)
        if question is not None:
            teach.panel(identity, question)
        taught = tuple(question.rules) if question is not None and not hidden else ()
        step_actions.step_events(tl, events, step, proj["notes"].get(step.index, []), shown, taught,
                                 proj["voided"])
        step_actions.note_form(step, events)
    step_actions.notes_index(steps, proj["notes"])
    if _charts_wait():
        st.caption("The charts follow as soon as the board is drawn.")
        return
    attrition, exhaustion = st.columns(2)
    def clicked(chart: str) -> dict[str, Any]:  # a click on a point goes to that turn
        return {"key": chart, "on_select": partial(_chart_clicked, chart, steps),
                "selection_mode": "points", "config": {"displayModeBar": False}}

    with attrition:
        st.subheader("Attrition")
        st.plotly_chart(data.attrition_chart(key, step.turn, proj), **clicked("attrition"))
    with exhaustion:
        st.subheader("Exhaustion")
        basis = {r["basis"] for r in proj["exhaustion"]}
        st.caption("Strength lost against each army's exhaustion point." if basis == {"rule"} else
                   "Strength lost against a reference line at one third of each army's starting "
                   "strength: this rule system has no exhaustion rule, so the line is a "
                   "yardstick, not a rule.")
        st.plotly_chart(data.exhaustion_chart(key, step.turn, proj), **clicked("exhaustion"))
    st.subheader("Luck")
    st.caption("What each side's dice gave (the hits they dealt) against what average dice "
               "would have given in the same rolls, by this game's own rules. Click a point of "
               "any chart to go to that turn.")
    curve, table = st.columns([3, 2])
    curve.plotly_chart(data.luck_chart(key, step.turn, proj), **clicked("luck_chart"))
    table.dataframe(proj["luck"], hide_index=True, key="luck", column_config={
        "dice": "dice rolled", "mean_face": "mean face", "hits": "hits dealt",
        "expected_hits": "hits expected", "luck": "luck (hits over expected)"})
    win_probability(key, step, events, clicked)


main()
