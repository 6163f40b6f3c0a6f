"""What a game's inputs may hold, given the game so far: the one statement verify checks, and
so every import, every ``warlog verify`` and the dashboard's upload (they all go through it).

Every event of a log is a consequence or an input. A consequence the rules produce again, byte
for byte, from the game so far, so all its fields are checked by comparison (verify). An input
is what people (or a bot's choice, or a die) brought to the game, and each field has its rule:

* the envelope of every event: ``game`` the game's id, ``seq`` 1, 2, 3 ... without gaps (the
  replay reader and the store), ``v`` a known schema version (events/upcast.py), ``turn``,
  ``side`` and ``phase`` where the game stands (a consequence's by comparison, an input's below);
* ``game_started``: a scenario that loads, options of its rule system, two sides' players at
  most, bots only with seeded dice (verify's ``_check_inputs``);
* ``order_given`` and ``order_retracted``: an order the rules accept where it stands, signed
  (``by``) by the player of the side that acts, as the recorder signs it (the player's name,
  or the side's when it has none), or unsigned; a bot's side by that bot's policy only;
* ``dice_rolled`` in a table game (manual dice): each face a whole number from 1 to the sides
  of the die the rules asked for (engine/dice.py ``RecordedDice``);
* ``note``: about an event before it, with that event's turn and no side, phase, cause or
  rules of its own, at most ``MAX_NOTES`` in a game;
* ``order_retracted``: at most ``MAX_RETRACTIONS`` in a game;
* every free-text field (a player's or author's name, a note's text, the scenario's title ...)
  and every list: the rule and cap its type states (events/fields.py), checked wherever the
  event is validated, so by the reader and by the events made here to compare.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from warlog.engine.state import GameState
from warlog.events import model
from warlog.events.fields import first_problem
from warlog.events.replay_input import short_repr

Event = dict[str, Any]


class InputError(ValueError):
    """An input field that the game so far does not allow; the message names the field."""


def signer(state: GameState) -> str:
    """Who signs a person's order where ``state`` waits: the player of the side that acts, or
    the side itself when no player is named (as the recorder and the table commands sign)."""
    side = state.to_act or ""
    return state.players.get(side, side)


def check_signature(state: GameState, by: Any) -> None:
    """InputError unless ``by`` (an order's signature) is the acting side's player, or None."""
    if by is None or by == signer(state):
        return
    raise InputError(f"the order is signed by {short_repr(by, 40)}, but {state.to_act} is played by "
                     f"{signer(state)!r}: an order is signed by the player of the side that acts")


def check_retractions(retracted: int) -> None:
    """InputError if a game that already holds ``retracted`` withdrawn orders may take no more
    (``MAX_RETRACTIONS``): verify asks it before each one, the recorder before an undo."""
    if retracted >= model.MAX_RETRACTIONS:
        raise InputError(f"a game holds at most {model.MAX_RETRACTIONS:,} withdrawn orders")


def expected_note(events: list[Event], state: GameState, logged: Event, notes: int) -> Event:
    """The note event the log may hold where ``state`` stands, with ``logged``'s own text and
    author (``notes``: the notes before it); InputError saying which rule it breaks."""
    about = logged.get("about")
    if type(about) is not int or not 1 <= about <= state.seq or about > len(events):
        raise InputError(f"it is about event {about!r}, which does not come before it")
    if notes >= model.MAX_NOTES:
        raise InputError(f"a game holds at most {model.MAX_NOTES:,} notes")
    target = events[about - 1]
    turn = target.get("turn") if isinstance(target, dict) else None
    plan = logged.get("plan", False)
    side = logged.get("side")
    if plan is True:  # a side's plan: written before that side's first decision
        first = model.first_decision(events[:state.seq], side)
        if first is not None:
            raise InputError(f"it is {side}'s plan, written after {side}'s first order (event "
                             f"{first}): a plan comes before a side's first order")
    try:
        return model.to_dict(model.Note(game=state.game, seq=state.seq + 1, turn=turn,
                                        about=about, text=logged.get("text"),
                                        author=logged.get("author"),
                                        **({"plan": plan, "side": side} if plan is not False
                                           else {})))
    except ValidationError as exc:
        raise InputError(first_problem(exc)) from None
