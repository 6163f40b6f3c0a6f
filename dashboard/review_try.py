"""The Review page's better order, shown and tried (issue 38, item 6): at a decision the review
graded, the order played and the better order found are both drawn on the board, and "Try it"
makes a game from the log up to that decision and offers the better order first on the Play page.

Why these pieces live together: the Review page draws and forks, the Play page offers, and the
one thing they share is the suggestion left in session state (``SUGGESTION``) between them.

* The played order is drawn as the Replay page draws its step (``analysis.highlights`` of the
  step the order heads, placed with the state after it), with what its dice did.
* The better order was never played, so its events are made on the side: ``game.decide`` on
  the position (left untouched) with ``SeededDice(0)``. The review weighed it with its dice
  averaged out, so one roll's outcome (hit or miss labels, a retreat, a removal) would claim
  more than the review knows: only what the order itself does is drawn (its moves and its
  attacks' lines), as the board's "alternative" variant (dashed, in its own colour, with a
  legend entry).
* "Try it" forks through the Replay page's own "Continue from here" (``step_actions._continue``
  at ``scrub.fork_point``), so the fork is exactly `warlog fork GAME --at N` and the seats are
  asked afresh as there; the suggestion names the fork, the side, the order and where the fork
  ends, and the Play page shows it until the first decision made in the fork.

No rule system is named here: orders are the vocabulary's, their effects the engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from warlog.dashboard import scrub, step_actions
from warlog.dashboard.data import markdown_text as md
from warlog.engine import analysis
from warlog.engine.dice import SeededDice
from warlog.engine.fold import Timeline, evolve
from warlog.engine.game import decide
from warlog.engine.review import DECISIONS
from warlog.engine.state import GameState
from warlog.events.orders import parse_order

Event = dict[str, Any]
SUGGESTION = "review_try"
"""Session state: the better order offered on the Play page (a dict: game, side, order, text,
from = the fork's length)."""
CHANCE = ("unit_retreated", "unit_removed")
"""Events whose marks say what one roll of the better order's dice did, not what it does (an
attack's line stays, its label, a roll's outcome, goes)."""
HYPOTHETICAL_DICE = 0  # the seed of the dice the better order is resolved with, to draw it


def decision_step(events: Sequence[Event], order: dict[str, Any]) -> tuple[analysis.Step, ...]:
    """The step the decision heads, and the one before it (where the game waited for it)."""
    steps = analysis.steps(events)
    at = next(i for i, s in enumerate(steps) if events[s.first]["seq"] == order["seq"])
    return steps[at], steps[at - 1]


def played_marks(events: Sequence[Event], timeline: Timeline, order: dict[str, Any]
                 ) -> list[dict[str, Any]]:
    """The marks of the order played and all it caused, as the Replay page draws its step."""
    step, _ = decision_step(events, order)
    return analysis.highlights(events[step.first : step.last + 1],
                               timeline.state_at(step.last))


def better_marks(state: GameState, order: dict[str, Any]) -> list[dict[str, Any]]:
    """The better order's marks (none when the played order was the best found), drawn as the
    board's "alternative": its moves and attack lines, no outcome of a roll. ``state`` (the
    position the decision was made in) is not changed."""
    if not order.get("best_order"):
        return []
    events = decide(state, parse_order(order["best_order"]), SeededDice(HYPOTHETICAL_DICE))
    after = state.copy()
    for e in events:
        after = evolve(after, e, check=False)
    own = analysis.steps(events)[0]  # the order's own step: not the phases it lets resolve
    shown = [e for e in events[: own.last + 1] if e["kind"] not in CHANCE]
    return [{**{k: v for k, v in m.items() if k != "label"}, "variant": "alternative"}
            for m in analysis.highlights(shown, after)]


def fork_at(events: Sequence[Event], order: dict[str, Any]) -> int | None:
    """The event to fork at to try another order at this decision: the last one before it (the
    Replay page's rule: None where the game does not wait for an order there)."""
    _, before = decision_step(events, order)
    return scrub.fork_point(events, before, ended=False)


def _try(path: str, game: str, at: int, order: dict[str, Any]) -> None:
    """"Try it"'s callback: the Replay page's fork, then the suggestion for the fork it made."""
    step_actions._continue(path, game, at)  # noqa: SLF001 - the Replay page's fork, reused whole
    if st.session_state.get("fork_error"):
        return
    st.session_state[SUGGESTION] = {"game": st.session_state["play_game"], "side": order["side"],
                                    "order": order["best_order"], "text": order["best_text"],
                                    "from": at}


def try_button(path: str, game: str, events: Sequence[Event], order: dict[str, Any]) -> None:
    """"Try it" at a decision with a better order found, and the fork's refusal if it had one."""
    at = fork_at(events, order) if order.get("best_order") else None
    if at is None:
        return
    st.button("Try it", key="review_try_it", icon=":material/call_split:", on_click=_try,
              args=(path, game, at, order),
              help=f"A new game with this game's events 1–{at} (as `warlog fork GAME --at {at}` "
                   "makes; the original is untouched), opened in the Play page with the better "
                   "order offered first.")
    if st.session_state.get("fork_error"):
        st.error(md(st.session_state.pop("fork_error")))


def opened() -> bool:
    """Whether "Try it" has just made a game (the page then switches to Play: a callback may
    not)."""
    return st.session_state.pop("fork_opened", None) is not None


def offer(table: Any, ordering: bool, give: Callable[..., None]) -> None:
    """On the Play page: the review's better order, offered to the person to act in the game
    "Try it" made, until a decision is made there (the suggestion is then spent). ``give`` is
    dashboard/play_widgets.give(table, order, seen): the order goes the session's normal way."""
    held = st.session_state.get(SUGGESTION)
    if not isinstance(held, dict) or held.get("game") != table.game_id:
        return
    if any(e["kind"] in DECISIONS for e in table.events[held["from"]:]):
        st.session_state.pop(SUGGESTION, None)
        return
    if not ordering or table.pending is not None or table.state.to_act != held["side"]:
        return
    order = parse_order(held["order"])
    st.info(f"Review suggests: {md(held['text'])} (the better order found at this decision).",
            icon=":material/lightbulb:")
    st.button(f"Give it: {md(table.label(order))}", key="review_try_give", type="primary",
              on_click=give, args=(table, order, table.last_seq()), use_container_width=True)
