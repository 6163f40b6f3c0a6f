"""Who sits at each side: a person or a bot, and the one rule that keeps the two apart.

A stored game knows a bot only by its player name being a policy's name (verify re-chooses the
orders of a side so named), so a person may never take a policy's name: ``check_person`` says
so once, for every face and every way of seating (a new game, a fork's new seats, a reseat).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from warlog.app.errors import SeatError
from warlog.engine.bots import POLICIES, SEARCH_POLICIES
from warlog.events.ids import IdError, check_id


@dataclass(frozen=True)
class Seat:
    """Who sits at a side: a person (``name`` is how the game records them) or a bot (``name``
    is its policy)."""

    name: str
    bot: bool = False

    @classmethod
    def person(cls, name: str) -> Seat:
        return cls(name, False)

    @classmethod
    def of_bot(cls, policy: str) -> Seat:
        return cls(policy, True)

    @classmethod
    def of_player(cls, name: str) -> Seat:
        """The seat a stored game's player name stands for."""
        return cls(name, name in POLICIES)


def check_person(side: str, name: str) -> str:
    """``name`` as a person's name for ``side``: SeatError if it breaks the id rule or is a bot
    policy's name (a person so named would be taken for the bot, whose orders verify
    re-chooses)."""
    try:
        check_id(name, "player name")
    except IdError as exc:
        raise SeatError(str(exc)) from None
    if name in POLICIES:
        raise SeatError(f"player name {name!r} for {side} is the name of a bot policy; choose "
                        "another, or seat the bot itself")
    return name


def check_seats(sides: Iterable[str], seats: Mapping[str, Seat], dice: str) -> dict[str, str]:
    """The players (side -> name) of ``seats`` for a game with ``sides`` and ``dice``
    ("seeded" or "manual"): every side seated, each person by ``check_person``, each bot a
    released policy with seeded dice (verify re-chooses its orders from the seed)."""
    missing = [side for side in sides if side not in seats]
    if missing:
        raise SeatError(f"no seat for {', '.join(missing)}: every side needs a person or a bot")
    players = {}
    for side, seat in seats.items():
        if seat.bot:
            if seat.name not in POLICIES:
                raise SeatError(f"{side}: no bot is called {seat.name!r}; choose one of "
                                f"{', '.join(POLICIES)}")
            if dice != "seeded":
                raise SeatError(f"{side} is the {seat.name} bot: a bot needs seeded dice "
                                "(verify re-chooses its orders from the seed), so choose "
                                "seeded dice")
        else:
            check_person(side, seat.name)
        players[side] = seat.name
    return players


def policies() -> list[tuple[str, str]]:
    """Every bot a seat may take, with its line on strength and speed, for a seat picker."""
    return [(name, bot.words) for name, bot in POLICIES.items()]


def is_slow(policy: str) -> bool:
    """A search policy plays playouts at every decision: a face should say it is thinking."""
    return policy in SEARCH_POLICIES
