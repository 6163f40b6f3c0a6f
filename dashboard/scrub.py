"""Where each scrubbing control moves in a game's steps: first, last, and previous/next step,
phase and turn; and what a step offers (the rules it cites, whether the game may be continued
from it). Pure functions over analysis.Step lists, so the page stays a thin layer and the
arithmetic is tested on its own.

A "phase" is a run of steps with the same turn, side and phase (the opening is its own); moving
to the previous phase from inside one first goes back to that phase's start, as a media player's
"previous" returns to the start of the track.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from warlog.record import rest_points


class StepLike(Protocol):
    index: int
    first: int
    last: int
    turn: int
    side: str | None
    phase: str | None


MOVES = ("first", "prev_turn", "prev_phase", "prev_step", "next_step", "next_phase", "next_turn",
         "last")


def _phase(step: StepLike) -> tuple:
    return (step.turn, step.side, step.phase)


def _start(steps: Sequence[StepLike], i: int, key) -> int:
    """The first step of the run around ``i`` whose ``key`` is the same."""
    while i > 0 and key(steps[i - 1]) == key(steps[i]):
        i -= 1
    return i


def target(steps: Sequence[StepLike], index: int, move: str) -> int:
    """The step index ``move`` goes to from ``index`` (clamped to the game)."""
    last = len(steps) - 1
    index = min(max(index, 0), last)
    if move == "first":
        return 0
    if move == "last":
        return last
    if move == "prev_step":
        return max(index - 1, 0)
    if move == "next_step":
        return min(index + 1, last)
    key = _phase if move.endswith("phase") else (lambda s: s.turn)
    if move.startswith("next"):
        i = index
        while i < last and key(steps[i]) == key(steps[index]):
            i += 1
        return i if key(steps[i]) != key(steps[index]) else index
    start = _start(steps, index, key)
    if start < index:
        return start
    return _start(steps, index - 1, key) if index > 0 else 0


def step_of_click(steps: Sequence[StepLike], selection) -> int | None:
    """The first step of the turn a click on a chart picked (the x of its first point, as
    Streamlit reports a plotly selection), or None when nothing was picked."""
    points = ((selection or {}).get("selection") or {}).get("points") or []
    x = points[0].get("x") if points else None
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    turn = int(round(x))
    return next((s.index for s in steps if s.turn >= turn), len(steps) - 1)


def cited_rules(events: Sequence[dict[str, Any]]) -> list[str]:
    """The rules these events cite, each once, in the order first cited: a step that rolls for
    three units cites the same rule three times, and its paragraph is worth reading once."""
    return list(dict.fromkeys(rid for e in events for rid in e.get("rules") or ()))


def fork_point(events: Sequence[dict[str, Any]], step: StepLike, ended: bool) -> int | None:
    """The seq to fork at to continue the game from ``step`` (its last event), or None where
    the game does not wait for an order after it: an automatic phase resolves next (the fork
    would be cut back to an earlier step, not this one), or the game is over there (a fork of
    it would be over too)."""
    if ended or step.last + 1 not in rest_points(events):
        return None
    return events[step.last]["seq"]
