"""Taking orders back (issue 39): a side's own orders voided, the game back where it stood
before them, by an event appended like any other (nothing is ever deleted).

Which orders may be taken back is one rule, said here and checked the same way by the table,
the Play page and verify: walking back from the end of the live log, a side's orders may be
taken back as long as nothing else decided the game since: no order of the other side, no
change of seats, no concession. Notes, withdrawn orders (``order_retracted``) and the side's own
earlier take-backs are passed over. A side a bot plays is never taken back (its orders are the
bot's, re-chosen by verify), and only by the side's own player (or unsigned, as an order is).

Why the seeded dice go on forward (``dice_rolled`` in the event): a take-back that rolled the
same dice again would let a player see the dice of the next orders before giving them. The
rebuilt position differs from the one before the voided orders only in that count.

How a log with take-backs is folded is engine/fold.py's (``live``, ``LiveLine``): the voided
stretch is skipped, the take-back event kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import ValidationError

from warlog.engine.fold import TAKEBACK
from warlog.engine.state import SIDES, GameState
from warlog.events import model
from warlog.events.fields import first_problem
from warlog.events.replay_input import short_repr

Event = dict[str, Any]

PASSED_OVER = frozenset({"note", "order_retracted"})
"""Inputs a take-back walks past: they decided nothing (a note, an order withdrawn before its
dice). Everything else that is not a consequence of an order stops it."""
STOPS = frozenset({"seats_changed", "side_conceded", "game_started"})
"""Inputs a take-back never goes back over: the seats changed, a concession, the start."""


class TakeBackError(ValueError):
    """A take-back that the game does not allow: the message says why, in a player's words."""


def live_backwards(events: Sequence[Event]) -> Iterator[Event]:
    """The live log from its end back to its start (``fold.live`` reversed), a voided stretch
    jumped over at once, so a walk that stops early costs what it walked, not the whole log."""
    i = len(events) - 1
    while i >= 0:
        event = events[i]
        yield event
        if event.get("kind") == TAKEBACK and isinstance(event.get("back_to"), int):
            back_to = event["back_to"]
            j = back_to - 2  # seqs run 1, 2, 3 ... in a log that verifies
            if not (0 <= j < i and events[j].get("seq") == back_to - 1):
                j = i - 1
                while j >= 0 and events[j].get("seq", 0) >= back_to:
                    j -= 1
            i = j
        else:
            i -= 1


def orders_to_take_back(events: Sequence[Event], side: str) -> list[Event]:
    """The ``order_given`` events of ``side`` that may be taken back now, latest first: the
    side's orders at the end of the live log, back to the first decision that is not its own."""
    found: list[Event] = []
    for event in live_backwards(events):
        kind = event.get("kind")
        if kind == "order_given":
            if event.get("side") != side:
                break
            found.append(event)
        elif kind == TAKEBACK:
            if event.get("side") != side:
                break
        elif kind in STOPS:
            break
    return found


def last_order_side(events: Sequence[Event]) -> str | None:
    """The side that gave the last order of the live log (None before any): whose orders a
    take-back without a side means."""
    for event in live_backwards(events):
        if event.get("kind") == "order_given":
            return event.get("side")
        if event.get("kind") in STOPS:
            return None
    return None


def take_back(state: GameState, events: Sequence[Event], side: Any, orders: Any = 1,
              by: Any = None, *, taken: int | None = None) -> Event:
    """The ``orders_taken_back`` event taking back the last ``orders`` orders of ``side`` where
    ``state`` (the state after ``events``) stands. TakeBackError naming what stops it.
    ``taken``: the take-backs the log already holds, when the caller counts them as it goes."""
    if taken is None:
        taken = sum(e.get("kind") == TAKEBACK for e in events)
    if side not in SIDES:
        raise TakeBackError(f"field 'side': {short_repr(side, 40)} is not a side; the sides are "
                            "red and blue")
    if not isinstance(orders, int) or isinstance(orders, bool) or orders < 1:
        raise TakeBackError(f"field 'orders': {short_repr(orders, 40)} is not a number of orders "
                            "(1 or more)")
    player = state.players.get(side, side)
    from warlog.engine.bots import POLICIES  # the bots know the game; the game not the bots

    if player in POLICIES:
        raise TakeBackError(f"{side} is played by the {player} bot: a bot's orders are never "
                            "taken back")
    if by is not None and by != player:
        raise TakeBackError(f"field 'by': the take-back is signed by {short_repr(by, 40)}, but "
                            f"{side} is played by {player!r}: a side takes back its own orders")
    if taken >= model.MAX_TAKEBACKS:
        raise TakeBackError(f"this game already holds {model.MAX_TAKEBACKS:,} take-backs, the "
                            "most a game may hold")
    mine = orders_to_take_back(events, side)
    if not mine:
        raise TakeBackError(f"{side} has no order to take back: {_why_none(events, side)}")
    if orders > len(mine):
        raise TakeBackError(f"{side} can take back {len(mine)} order"
                            f"{'s' if len(mine) != 1 else ''} here, not {orders}: "
                            f"{_why_none(events[:mine[-1]['seq'] - 1], side)}")
    first = mine[orders - 1]
    try:
        event = model.OrdersTakenBack(
            game=events[0]["game"], seq=len(events) + 1, turn=first["turn"], side=side,
            phase=first.get("phase"), back_to=first["seq"], dice_rolled=state.dice_rolled,
            orders=orders, by=by)
    except ValidationError as exc:
        raise TakeBackError(first_problem(exc)) from None
    return model.to_dict(event)


def _why_none(events: Sequence[Event], side: str) -> str:
    """Why the orders stop where they do, in a player's words."""
    for event in live_backwards(events):
        kind = event.get("kind")
        if kind == "order_given" and event.get("side") != side:
            return f"{event.get('side')} has ordered since"
        if kind == TAKEBACK and event.get("side") != side:
            return f"{event.get('side')} took orders back since"
        if kind == "seats_changed":
            return "the seats changed since"
        if kind == "side_conceded":
            return "a side conceded"
        if kind == "game_started":
            return "no order of theirs since the game started"
    return "nothing of theirs to take back"


def voided(events: Sequence[Event]) -> dict[int, int]:
    """Every voided event's seq -> the seq of the take-back that voided it (the outermost, when
    a later take-back went back over an earlier one): what the replay strikes through."""
    out: dict[int, int] = {}
    standing: list[int] = []  # the live line's seqs so far
    for event in events:
        if event.get("kind") == TAKEBACK:
            while standing and standing[-1] >= event["back_to"]:
                out[standing.pop()] = event["seq"]
        standing.append(event["seq"])
    for seq, by in list(out.items()):  # an event voided by a take-back later voided itself
        while by in out:
            by = out[by]
        out[seq] = by
    return out
