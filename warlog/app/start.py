"""Starting a game: the one way, for `warlog new`, `warlog record` and the Play page alike.

What a new game needs is checked before anything is stored: every side seated (seats.py's rule
for people and bots), the game id, the dice (a bot needs seeded dice; a seeded game rolls its own
opening), and, with manual dice, every face its opening rolls (rolled armies, a roll-off): too
few is ``OpeningDiceNeeded`` naming the next die, too many a DiceError. Chance and the calendar
are read here, at the edge, and recorded (a seeded game's seed, the day it was played): the
engine never reads either.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from warlog.app.errors import PlayError, SeatError
from warlog.app.seats import Seat, check_seats
from warlog.app.table_dice import OpeningDiceNeeded, opening_die
from warlog.engine.dice import DiceError
from warlog.engine.game import start
from warlog.engine.scenario import Scenario
from warlog.events.ids import IdError, check_id
from warlog.events.store import EventStore

Event = dict[str, Any]
DICE_MODES = ("seeded", "manual")


def free_game_id(store: EventStore, scenario: Scenario) -> str:
    """``<scenario>-1``, ``-2``, ...: the first id not yet in the database."""
    n = 1
    while store.has_game(f"{scenario.id}-{n}"):
        n += 1
    return f"{scenario.id}-{n}"


def start_game(store: EventStore, scenario: Scenario, *, seats: Mapping[str, Seat],
               game_id: str | None = None, dice: str = "seeded", seed: int | None = None,
               opening_dice: Sequence[int] = (), played: str | None = None) -> str:
    """Store a new game of ``scenario`` with ``seats`` (side -> Seat) and return its id
    (``game_id``, or the scenario's first free one). ``dice``: "seeded" (warlog rolls, from
    ``seed``, or a seed read from the OS here and recorded) or "manual" (the players roll; the
    opening's faces in ``opening_dice``). ``played``: the day, YYYY-MM-DD (default today).
    SeatError, PlayError (the id), DiceError or OpeningDiceNeeded, and nothing stored, for a
    game that cannot start."""
    if dice not in DICE_MODES:
        raise SeatError(f"dice are seeded or manual, not {dice!r}")
    players = check_seats(scenario.sides, seats, dice)
    given = list(opening_dice)
    if dice == "seeded":
        if given:
            raise DiceError("a game with seeded dice rolls its own opening dice: give none")
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "big")  # chance read at the edge, then recorded
    game_id = game_id if game_id is not None else free_game_id(store, scenario)
    try:
        check_id(game_id, "game id")
    except IdError as exc:
        raise PlayError(str(exc)) from None
    played = played or date.today().isoformat()  # today is read here, never by the engine
    try:
        events = start(game_id, scenario, seed=seed if dice == "seeded" else None,
                       players=players, dice=dice, opening_dice=given, played=played)
    except DiceError:
        if dice == "manual" and all(1 <= face <= 6 for face in given):
            raise OpeningDiceNeeded(opening_die(scenario, given)) from None
        raise
    rolled = sum(len(e["faces"]) for e in events if e["kind"] == "dice_rolled")
    if dice == "manual" and rolled != len(given):
        raise DiceError(f"the opening rolled {rolled} dice but {len(given)} were given; "
                        "nothing was recorded")
    store.append(game_id, events, 0)
    return game_id
