"""Where each scrubbing control moves in a game's steps: first, last, and previous/next step,
phase and turn; and what a step offers (the rules it cites, whether the game may be continued
from it). Pure functions over analysis.Step lists, so the page stays a thin layer and the
arithmetic is tested on its own.

A "phase" is a run of steps with the same turn, side and phase (the opening is its own); moving
to the previous phase from inside one first goes back to that phase's start, as a media player's
"previous" returns to the start of the track.

A step a take-back voided stays a step (the replay shows the whole log): ``taken_back_at`` says
which take-back voided it, for the page to strike it through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from warlog.app.forking import rest_points


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


def taken_back_at(events: Sequence[dict[str, Any]], step: StepLike,
                  gone: dict[int, int]) -> int | None:
    """The seq of the take-back that voided ``step`` (``gone``: engine.takeback.voided of
    the game), or None for a step of the live line. A step is voided whole or not at all: a
    voided stretch starts at an order, which heads a step, and ends before a take-back, which
    heads the next."""
    return gone.get(events[step.first]["seq"])


def fork_point(events: Sequence[dict[str, Any]], step: StepLike, ended: bool) -> int | None:
    """The seq to fork at to continue the game from ``step`` (its last event), or None where
    the game does not wait for an order after it: an automatic phase resolves next (the fork
    would be cut back to an earlier step, not this one), or the game is over there (a fork of
    it would be over too)."""
    if ended or step.last + 1 not in rest_points(events):
        return None
    return events[step.last]["seq"]


# -- one numbering: the log's event numbers (seq), as the command line prints them --------------


def event_span(events: Sequence[dict[str, Any]], step: StepLike) -> str:
    """The event numbers a step covers, as `warlog log` prints them: "event 7", "events 40–44"."""
    first, last = events[step.first]["seq"], events[step.last]["seq"]
    return f"event {first}" if first == last else f"events {first}–{last}"


def step_of_event(steps: Sequence[StepLike], events: Sequence[dict[str, Any]],
                  seq: int) -> int | None:
    """The index of the step that holds event ``seq`` (None when the game has no such event).
    A note is shown at the step it is about, not where the log appended it, so a note's number
    opens that step."""
    by_seq = {e["seq"]: e for e in events}
    event = by_seq.get(seq)
    if event is None:
        return None
    if event["kind"] == "note" and event.get("about") in by_seq:
        seq = event["about"]
    return next((s.index for s in steps
                 if events[s.first]["seq"] <= seq <= events[s.last]["seq"]), None)


def _number(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _quoted(text: str) -> str:
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


def linked_step(steps: Sequence[StepLike], events: Sequence[dict[str, Any]],
                event: str | None, step: str | None) -> tuple[int | None, str | None]:
    """The step a page address asks for, and what is wrong with the address (None when nothing
    is): ``event`` is an event number (seq, as `warlog log`, `fork --at` and `note` speak), and
    wins over ``step``, the step counted from 1 (the older links). A number outside the game
    opens its nearest end and says so, rather than clamping silently, and so does a step that
    disagrees with the event; no ask at all is (None, None)."""
    n = len(steps)
    if event is not None:
        seq = _number(event)
        if seq is None:
            return 0, (f"The address asks for event {_quoted(event)}, which is not an event "
                       "number: showing the first step.")
        found = step_of_event(steps, events, seq)
        asked = _number(step) if step is not None else None
        if found is not None and asked is not None and asked != found + 1:  # an edited address
            return found, (f"The address names step {asked} and event {seq}, which is in step "
                           f"{found + 1}: showing step {found + 1}.")
        if found is not None:
            return found, None
        low, high = events[0]["seq"], events[-1]["seq"]
        end, index = ("last", n - 1) if seq > high else ("first", 0)
        return index, (f"This game's events are numbered {low}–{high}: event {seq} does not "
                       f"exist; showing the {end} step.")
    if step is not None:
        k = _number(step)
        if k is None:
            return 0, (f"The address asks for step {_quoted(step)}, which is not a step number: "
                       "showing the first step.")
        if 1 <= k <= n:
            return k - 1, None
        end, index = ("last", n - 1) if k > n else ("first", 0)
        return index, (f"This game has {n} steps: step {k} does not exist; showing the {end} "
                       "step.")
    return None, None
