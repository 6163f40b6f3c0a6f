"""The Replay page's header: the game's title, sides and players, the scenario folded away with
its options and verification; and the result, told only at the last step (or when asked).

Kept beside dashboard/views/replay.py (which places it) so the page stays a layout. Every text
from a game or a file is escaped (data.markdown_text) before Streamlit's Markdown renders it;
ids and paths go into code spans.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from warlog.dashboard import data, verifying
from warlog.engine import analysis
from warlog.engine.flow import phase_name
from warlog.engine.rules import catalogue

Event = dict[str, Any]


def header(tl, events: list[Event]) -> None:
    """Title, sides, and the scenario folded away: short, so that the board below is in sight
    at 1280×800. Not the result: a reader is told the end at the last step (``result``)."""
    final, first = tl.final, events[0]
    scenario = final.scenario
    md = data.markdown_text
    st.title(md(scenario.title))
    names = scenario.side_names
    players = first.get("players") or {}
    sides = " vs ".join(f"**{md(side)}**: {md(names.get(side, side))}"
                        + (f" \\({md(players[side])}\\)" if side in players else "")
                        for side in names)
    year = f" · {scenario.year}" if scenario.year is not None else ""
    st.markdown(f"{sides} · {md(scenario.grid.kind)} grid {scenario.grid.width}×"
                f"{scenario.grid.height} · {md(analysis.system_name(final))}{md(year)} · game "
                f"{data.code_span(final.game)}")
    identity = st.session_state.get("game_identity", "")
    line = data.verified_line(identity, events)
    failed = failure(line)
    if failed is not None:  # a failure is never folded away
        st.error(md(failed))
    with st.expander(f"The scenario, its options and verification · {verdict_word(line)}",
                     expanded=False):  # folded, so that the board is in sight at 1400×900
        if scenario.description:
            st.caption(md(scenario.description))
        st.caption("Options in force: " + options_text(final.options), help=(
            "Every interpretation and optional rule the game was played with, as recorded in "
            "its first event. ⚖️ marks an interpretation of the source; the Rules page "
            "explains each."))
        verifying.verified_caption(identity, events)
        st.toggle("Show the result now", key="show_result",
                  help="How the game ended, before the last step (otherwise it is told when "
                       "the replay reaches it).")


def result(final, at_last: bool) -> None:
    """How the game ended (or that its log stops in play): at the last step only, or when the
    reader asked for it in the header, never above the opening (it would spoil the replay, and
    a teaching lesson)."""
    if not at_last and not st.session_state.get("show_result"):
        return
    md, names = data.markdown_text, final.scenario.side_names
    if final.ended:
        if final.winner:
            st.success(f"Result: **{md(final.winner)}** "
                       f"\\({md(names.get(final.winner, final.winner))}\\) won — "
                       f"{md(str(final.end_reason))}.")
        else:
            st.info(f"Result: a draw — {md(str(final.end_reason))}.")
    else:
        st.info(f"Game in progress: turn {final.turn}, {md(str(final.side))} "
                f"{md(phase_name(final.phase))}.")


def _unfinished(line: str) -> bool:
    """A log that merely stops inside an order (a game exported while it was being played):
    not verified, but nothing in it is wrong (data.upload_refusal lets it be shown)."""
    return "the log stops after" in line


def failure(line: str | data.Pending) -> str | None:
    """The verified line when it says the game is NOT verified (shown outside the folded
    header, so a failure is seen without opening anything), else None."""
    if isinstance(line, str) and line.startswith("Not verified") and not _unfinished(line):
        return line
    return None


def verdict_word(line: str | data.Pending) -> str:
    """The folded header's label ends with the verdict, so even folded it says what is proven."""
    if isinstance(line, data.Pending):
        return "verifying…"
    if failure(line):
        return "NOT verified"
    return "not verified: the log stops inside an order" if _unfinished(line) else "verified"


def options_text(options: dict[str, Any]) -> str:
    """The options in force, each with the rule it switches; interpretations marked."""
    rules = {r.option: r for r in catalogue().values() if r.option}
    parts = []
    for name, value in options.items():
        rule = rules.get(name)
        mark = "⚖️ " if rule is not None and rule.interpretation else ""
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        parts.append(f"{mark}{data.code_span(name)} = {data.markdown_text(shown)}")
    return " · ".join(parts)
