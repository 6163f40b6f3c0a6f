"""What-if and the win-probability curve at scale: engine.whatif's playouts run through
warlog.app.jobs (in process, a local cluster, or a Dask scheduler elsewhere).

Seeds: playout i from step s gets ``task_seed(task_seed(job_seed, s), i)``: it depends on the
job's seed, the step and its own index, never on the number of playouts asked for, the workers
or the order in which they finish. So the same seed gives the same numbers on 1 or 20 workers,
and a curve's point for turn 3 is the same playouts as a what-if from that step.

A task carries the game's log up to its step (pickled once per chunk, since a chunk's tasks share
the list); each worker process folds a prefix once and copies the state for each playout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from warlog.engine import whatif
from warlog.engine.fold import live, replay
from warlog.engine.state import GameState
from warlog.app.jobs import KeptByKey, log_key, run_tasks, task_seed

Event = dict[str, Any]
TURNING_SWING = 0.2  # a change of P(red wins) at least this large between points: a turning point
LEAD_SWING = 0.1  # ... and so is a change of the side ahead with a change at least this large
DEFAULT_PLAYOUTS = 200
_CACHE_SIZE = 8


@dataclass(frozen=True)
class PlayoutTask:
    """One playout: a start position (``prefix``, named by ``key``), a seed, how to play."""

    key: str
    prefix: Sequence[Event]
    recorded: Sequence[Event]
    seed: int
    mode: str
    policies: tuple[tuple[str, str], ...]


_states = KeptByKey(_CACHE_SIZE)


def _start_state(task: PlayoutTask) -> GameState:
    """The folded prefix, kept for the next playouts from it in this process (a copy each)."""
    return _states.get(task.key, lambda: replay(task.prefix, check=False)).copy()


def run_playout(task: PlayoutTask) -> whatif.PlayoutResult:
    """The task function warlog.app.jobs runs on the workers."""
    return whatif.playout_from(_start_state(task), seed=task.seed, mode=task.mode,
                               policies=dict(task.policies), recorded=task.recorded)


@dataclass(frozen=True)
class WhatIf:
    """A what-if's answer: from ``seq`` (the step asked for, snapped to where the game waited for
    an order), turn ``turn``, ``n`` playouts with ``policies``."""

    game: str
    asked: int
    seq: int
    turn: int
    mode: str
    policies: dict[str, str]
    seed: int
    estimate: whatif.WinEstimate

    def as_dict(self) -> dict[str, Any]:
        return {"game": self.game, "asked": self.asked, "seq": self.seq, "turn": self.turn,
                "mode": self.mode, "policies": self.policies, "seed": self.seed,
                **self.estimate.as_dict()}


def check_args(playouts: int, mode: str) -> None:
    if playouts < 1:
        raise whatif.WhatIfError(f"--playouts must be at least 1, not {playouts}")
    if mode not in whatif.MODES:
        raise whatif.WhatIfError(f"unknown mode {mode!r}: use bots or recorded")


def _tasks(events: Sequence[Event], seq: int, playouts: int, seed: int, mode: str,
           policies: dict[str, str]) -> list[PlayoutTask]:
    pre = whatif.prefix(events, seq)
    recorded = whatif.recorded_orders(events, seq) if mode == "recorded" else []
    key, pol, base = log_key(pre), tuple(sorted(policies.items())), task_seed(seed, seq)
    return [PlayoutTask(key, pre, recorded, task_seed(base, i), mode, pol)
            for i in range(playouts)]


def policies_for(events: Sequence[Event], red: str | None, blue: str | None) -> dict[str, str]:
    return whatif.default_policies(replay(events[:1], check=False), red, blue)


def run_whatif(events: Sequence[Event], seq: int, *, playouts: int = DEFAULT_PLAYOUTS,
               seed: int = 1, mode: str = "bots", red: str | None = None,
               blue: str | None = None, scheduler: str = "auto", workers: int | None = None,
               progress: Callable[[int, int], None] | None = None,
               runner: Callable[..., list] | None = None) -> WhatIf:
    """``playouts`` playouts from step ``seq``; ``runner`` (default warlog.app.jobs.run_tasks, or
    warlog.progress.run_job with a bar) runs them."""
    check_args(playouts, mode)
    at = whatif.snap(events, seq)
    policies = policies_for(events, red, blue)
    tasks = _tasks(events, at, playouts, seed, mode, policies)
    results = (runner or run_tasks)(run_playout, tasks, scheduler=scheduler, workers=workers,
                                    **({"progress": progress} if progress else {}))
    turn = _position_turn(events, at)
    return WhatIf(events[0]["game"], seq, at, turn, mode, policies, seed, whatif.estimate(results))


# -- the win-probability curve -------------------------------------------------------------------


def _position_turn(events: Sequence[Event], seq: int) -> int:
    """The turn of the position after event ``seq``: that of the order (or note) that follows,
    else of the last event."""
    after = next((e for e in events if e["seq"] > seq), events[-1])
    return after["turn"]


def turn_starts(events: Sequence[Event]) -> list[tuple[int, int]]:
    """(turn, seq) for each turn with an order: the position just before its first order; and
    for a game still being played, the end of its log if its turn has no order yet (the turn
    has just begun: its start is now)."""
    out: dict[int, int] = {}
    events = live(events)  # a turn's orders taken back are not where it started
    for i, e in enumerate(events):
        if e["kind"] == "order_given" and e["turn"] not in out:
            out[e["turn"]] = events[i - 1]["seq"]
    last = events[-1]
    if not any(e["kind"] == "game_ended" for e in events) and last["turn"] not in out:
        out[last["turn"]] = last["seq"]
    return sorted(out.items())


def turning_points(points: Sequence[dict[str, Any]], swing: float = TURNING_SWING,
                   lead_swing: float = LEAD_SWING) -> list[dict[str, Any]]:
    """The turns in which the game turned, between consecutive points: a side's win probability
    moved by at least ``swing`` (either side's: where draws are common, P(blue wins) can swing
    while P(red wins) barely moves), or the leader (the side more likely to win) changed and
    P(red wins) moved by at least ``lead_swing`` (a flicker around even odds is noise, not a
    turn). ``turn`` is the turn during which it happened (the earlier point's), ``to_turn`` the
    point showing it; ``from``, ``to`` and ``change`` are P(red wins)'s."""
    out = []
    for before, after in zip(points, points[1:]):
        change = after["red"]["p"] - before["red"]["p"]
        moved = max(abs(change), abs(after["blue"]["p"] - before["blue"]["p"]))
        lead = [_leader(before), _leader(after)]
        flipped = None not in lead and lead[0] != lead[1] and abs(change) >= lead_swing
        if moved >= swing or flipped:
            out.append({"turn": before["turn"], "to_turn": after["turn"], "from": before["red"]["p"],
                        "to": after["red"]["p"], "change": change,
                        "why": "leader changed" if flipped else f"swing of {moved:.2f}"})
    return out


def _leader(point: dict[str, Any]) -> str | None:
    red, blue = point["red"]["p"], point["blue"]["p"]
    return "red" if red > blue else "blue" if blue > red else None


def _exact(turn: int, seq: int, winner: str | None) -> dict[str, Any]:
    """The last point of a finished game: its result, certain."""
    def share(yes: bool) -> dict[str, float]:
        v = 1.0 if yes else 0.0
        return {"p": v, "low": v, "high": v}

    return {"turn": turn, "seq": seq, "final": True, "n": 0, "red": share(winner == "red"),
            "blue": share(winner == "blue"), "draw": share(winner is None)}


def run_curve(events: Sequence[Event], *, playouts: int = DEFAULT_PLAYOUTS, seed: int = 1,
              mode: str = "bots", red: str | None = None, blue: str | None = None,
              scheduler: str = "auto", workers: int | None = None,
              progress: Callable[[int, int], None] | None = None,
              runner: Callable[..., list] | None = None) -> dict[str, Any]:
    """One estimate per turn (the state at the start of each turn), the game's result as a last
    point if it is over, and the turning points; as a JSON-ready dict with its parameters."""
    check_args(playouts, mode)
    policies = policies_for(events, red, blue)
    starts = turn_starts(events)
    tasks = [t for _, seq in starts for t in _tasks(events, seq, playouts, seed, mode, policies)]
    results = (runner or run_tasks)(run_playout, tasks, scheduler=scheduler, workers=workers,
                                    **({"progress": progress} if progress else {}))
    points = []
    for k, (turn, seq) in enumerate(starts):
        est = whatif.estimate(results[k * playouts:(k + 1) * playouts]).as_dict()
        points.append({"turn": turn, "seq": seq, "final": False, "n": est["n"],
                       "red": est["red"], "blue": est["blue"], "draw": est["draw"]})
    last = events[-1]
    ended = next((e for e in reversed(events) if e["kind"] == "game_ended"), None)
    if ended is not None:
        points.append(_exact(last["turn"] + 1, last["seq"], ended.get("winner")))
    return {"game": events[0]["game"], "last_seq": last["seq"],
            "params": curve_params(playouts, seed, mode, policies),
            "points": points, "turning_points": turning_points(points)}


def curve_params(playouts: int, seed: int, mode: str, policies: dict[str, str]) -> dict[str, Any]:
    """What a stored curve is keyed by (with the game and its last seq)."""
    return {"playouts": playouts, "seed": seed, "mode": mode,
            "red": policies["red"], "blue": policies["blue"]}
