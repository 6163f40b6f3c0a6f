"""Recording a game played on a real table, one order at a time, into the store.

Each order is decided against the stored log and appended with ``expected_seq`` = the last seq
that was read, so two people recording the same game cannot interleave: the second append fails
with ConcurrencyError and nothing is written. In a manual-dice game the player gives the faces
the real dice showed; an order that needs more dice, or fewer, than were given is refused whole.
"""

from __future__ import annotations

from typing import Any

from warlog.engine.bots import POLICIES
from warlog.engine.dice import DiceError, ManualDice
from warlog.engine.game import Game, start
from warlog.engine.scenario import Scenario
from warlog.events.ids import check_id
from warlog.events.orders import Order
from warlog.events.store import EventStore, StoreError

Event = dict[str, Any]


def free_game_id(store: EventStore, scenario: Scenario) -> str:
    """``<scenario>-1``, ``-2``, ...: the first id not yet in the database."""
    n = 1
    while store.has_game(f"{scenario.id}-{n}"):
        n += 1
    return f"{scenario.id}-{n}"


def new_game(store: EventStore, scenario: Scenario, game_id: str, *, players: dict[str, str],
             dice: str = "manual", seed: int | None = None,
             opening_dice: list[int] | None = None, played: str | None = None) -> list[Event]:
    """Start a recorded game: its first events go into the store as a new game. A scenario
    that rolls before the first order (rolled armies, a roll-off) takes, with manual dice, the
    faces the real dice showed in ``opening_dice``. ``played``: the day, YYYY-MM-DD. IdError if
    the game id or a player's name breaks events/ids.py's rule (nothing is stored)."""
    check_id(game_id, "game id")
    for side, name in players.items():
        check_id(name, "player name")
        if name in POLICIES:
            raise StoreError(f"player name {name!r} for {side} is the name of a bot policy; "
                             "choose another (bots are for `warlog simulate`)")
    if dice == "seeded" and seed is None:
        raise StoreError("a game with seeded dice needs --seed")
    if dice == "seeded" and opening_dice:
        raise DiceError("a game with seeded dice rolls its own opening dice: give none")
    given = list(opening_dice or [])
    try:
        events = start(game_id, scenario, seed=seed if dice == "seeded" else None,
                       players=players, dice=dice, opening_dice=given, played=played)
    except DiceError as exc:
        raise DiceError(f"the game opens with dice rolls (army tables or a roll-off): {exc}; "
                        "give them with --opening-dice") from None
    rolled = sum(len(e["faces"]) for e in events if e["kind"] == "dice_rolled")
    if dice == "manual" and rolled != len(given):
        raise DiceError(f"the opening rolled {rolled} dice but {len(given)} were given; "
                        "nothing was recorded")
    store.append(game_id, events, 0)
    return events


def load(store: EventStore, game_id: str) -> Game:
    return Game(store.read(game_id))


def record(store: EventStore, game_id: str, order: Order, faces: list[int] | None = None
           ) -> list[Event]:
    """Decide ``order`` in the stored game and append what follows; return the new events."""
    events = store.read(game_id)
    game = Game(events)
    state = game.state
    who = state.players.get(state.to_act or "", state.to_act or "")
    if who in POLICIES:  # its orders are the bot's to choose: verify would re-choose them
        raise StoreError(f"{state.to_act} is played by the {who} bot in {game_id}: it gives its "
                         "own orders (continue a bot game with `warlog simulate`, or fork it "
                         "and record both sides yourselves)")
    if state.dice_mode == "manual":
        dice = ManualDice(faces or [])
        new = game.play(order, by=who, dice=dice)
        if dice.rolled < len(faces or []):
            raise DiceError(f"this order needed {dice.rolled} dice but {len(faces)} were given; "
                            "nothing was recorded")
    else:
        if faces:
            raise DiceError("this game rolls its own dice (seeded): give no dice")
        new = game.play(order, by=who)
    store.append(game_id, new, events[-1]["seq"])
    return new
