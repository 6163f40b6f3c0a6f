"""verify: re-derive a whole game from its inputs and compare, event by event, with the log.

The inputs of a game are its first event (scenario, options, seed, players), its orders and, for
a tabletop game, its dice. Everything else is a consequence, and the rules must produce it again
byte for byte. For a seeded game the dice are re-rolled from the seed, and for a side played by a
bot its orders are re-chosen by that bot, so an edited die or order is caught where it stands.
The first difference is reported: the rules changed, the file was edited, or the engine has a bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from warlog.engine.bots import POLICIES, next_order
from warlog.engine.dice import DiceError, RecordedDice, SeededDice
from warlog.engine.fold import FoldError, evolve
from warlog.engine.game import decide, opening
from warlog.engine.rules import IllegalOrder
from warlog.engine.scenario import ScenarioError
from warlog.events.model import parse_order

Event = dict[str, Any]


@dataclass(frozen=True)
class Mismatch:
    seq: int
    message: str


@dataclass(frozen=True)
class Report:
    events: int
    orders: int
    finished: bool
    mismatch: Mismatch | None = None

    @property
    def ok(self) -> bool:
        return self.mismatch is None


class _Stop(Exception):
    def __init__(self, seq: int, message: str) -> None:
        self.mismatch = Mismatch(seq, message)


def _describe(event: Event) -> str:
    return f"event seq {event.get('seq', '?')} ({event.get('kind', '?')})"


def _compare(logged: list[Event], derived: list[Event], after_seq: int) -> None:
    for have, want in zip(logged, derived):
        if have == want:
            continue
        keys = sorted(set(have) | set(want))
        key = next(k for k in keys if have.get(k) != want.get(k))
        raise _Stop(  # named by where it stands: its own seq field may be the edit
            want["seq"],
            f"{_describe(have)}: {key} is {have.get(key)!r} in the log, but the rules give "
            f"{want.get(key)!r}",
        )
    if len(logged) < len(derived):
        missing = derived[len(logged)]
        raise _Stop(missing["seq"], f"the log stops after seq {after_seq + len(logged)}, but the "
                    f"rules continue with a {missing['kind']} event")


def verify(events: list[Event]) -> Report:
    """Check that every consequence in ``events`` follows from its inputs."""
    orders = 0
    state = None
    try:
        if not events or events[0].get("kind") != "game_started":
            raise _Stop(1, "a game log starts with its game_started event")
        first = events[0]
        dice = (SeededDice(first.get("seed") or 0) if first["dice"] == "seeded"
                else RecordedDice.from_events(events))
        try:
            derived = opening(first, dice)
        except (ScenarioError, ValueError, KeyError) as exc:
            raise _Stop(1, f"{_describe(first)}: cannot start the game: {exc}") from None
        _compare(events[1 : 1 + len(derived)], derived, 1)
        state = evolve(None, first)
        for event in derived:
            evolve(state, event)
        i = 1 + len(derived)
        while i < len(events):
            logged = events[i]
            if logged.get("kind") == "note":  # a comment, not a consequence: it must point back
                about = logged.get("about")
                if not isinstance(about, int) or not 1 <= about < logged.get("seq", 0):
                    raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: it is about "
                                f"event {about!r}, which does not come before it")
                evolve(state, logged)
                i += 1
                continue
            if state.ended:
                raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)} comes after the end "
                            "of the game")
            if logged.get("kind") != "order_given":
                raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: the rules wait for "
                            "an order here")
            try:
                order = parse_order(logged["order"])
            except (ValidationError, KeyError) as exc:
                raise _Stop(logged["seq"], f"{_describe(logged)}: not a valid order: {exc}") from None
            player = state.players.get(state.to_act)
            by = logged.get("by")
            if player in POLICIES:
                by = player  # a bot's orders are signed with its policy's name
                chosen = next_order(state)
                if chosen != order:
                    raise _Stop(logged["seq"], f"{_describe(logged)}: the {player} bot playing "
                                f"{state.to_act} orders {chosen.model_dump()}, the log says "
                                f"{order.model_dump()}")
            try:
                produced = decide(state, order, dice, by=by)
            except IllegalOrder as exc:
                raise _Stop(logged["seq"], f"{_describe(logged)}: the order is illegal: {exc}") from None
            except DiceError as exc:
                raise _Stop(logged["seq"], f"{_describe(logged)}: {exc}") from None
            _compare(events[i : i + len(produced)], produced, i)
            for event in produced:
                evolve(state, event)
            orders += 1
            i += len(produced)
    except _Stop as stop:
        return Report(len(events), orders, False, stop.mismatch)
    except FoldError as exc:
        return Report(len(events), orders, False, Mismatch(0, str(exc)))
    return Report(len(events), orders, bool(state and state.ended))
