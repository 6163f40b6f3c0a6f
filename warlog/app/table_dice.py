"""Dice rolled at a real table: the faces a person gives, a few at a time, and which die the
rules want next (its sides and what it is for), for an order or for a game's opening."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from warlog.app.errors import PlayError
from warlog.engine.dice import DiceError
from warlog.engine.game import opening
from warlog.engine.game import start as opening_events
from warlog.engine.scenario import Scenario
from warlog.events.orders import Order

Event = dict[str, Any]


def parse_faces(text: str) -> list[int]:
    """``3,5`` or ``3 5`` -> [3, 5]: the faces of d6s."""
    words = text.replace(",", " ").split()
    if not words:
        raise DiceError("give the faces the dice showed, e.g. 4 or 3,5")
    faces = []
    for word in words:
        if not word.isdigit() or not 1 <= int(word) <= 6:
            raise DiceError(f"a d6 shows 1 to 6, not {word!r}")
        faces.append(int(word))
    return faces


class MoreDice(Exception):
    """The rules asked for a die that has not been given yet."""

    def __init__(self, number: int) -> None:
        super().__init__(f"die number {number}")
        self.number = number


class TableDice:
    """The faces given so far for one order; asking for one more raises MoreDice."""

    mode = "manual"

    def __init__(self, faces: list[int]) -> None:
        self.faces = list(faces)
        self.rolled = 0

    def roll(self, sides: int = 6) -> int:
        if self.rolled >= len(self.faces):
            raise MoreDice(self.rolled + 1)
        face = self.faces[self.rolled]
        if not 1 <= face <= sides:
            raise DiceError(f"a d{sides} shows 1 to {sides}, not {face}")
        self.rolled += 1
        return face


def too_many(needed: int, given: int) -> DiceError:
    return DiceError(f"this order rolls {needed} dice but {given} were given; "
                     "nothing was recorded")


@dataclass(frozen=True)
class Die:
    """One die the rules want now: its number among the order's dice, its sides and what for."""

    number: int
    sides: int
    purpose: str | None
    unit: str | None = None


@dataclass(frozen=True)
class DiceNeeded:
    """An order the rules accepted that waits for real dice: what to roll next. Only the next
    die is known: whether (and why) a later one is rolled can hang on this one's face."""

    order: Order
    notation: str
    label: str
    given: tuple[int, ...]
    dice: tuple[Die, ...]

    def prompt(self) -> str:
        wanted = "; ".join(f"die {d.number} (d{d.sides})" + (f" for {d.purpose}" if d.purpose
                                                              else "")
                           + (f", {d.unit}" if d.unit else "") for d in self.dice)
        return f"{self.label}: roll {wanted}"


class OpeningDiceNeeded(PlayError):
    """A manual-dice game whose opening rolls dice (armies from the tables, a roll-off) needs
    ``die`` before it can be stored: nothing was stored yet. Give the faces so far and this one
    to start it again."""

    def __init__(self, die: Die) -> None:
        self.die = die
        super().__init__(f"the game opens with dice rolls: roll die {die.number} (d{die.sides})"
                         + (f" for {die.purpose}" if die.purpose else ""))


class _Probe:
    """Dice for asking the rules what the next wanted die is for: the faces given, then ones.
    The dice_rolled event of die N names its purpose, which only the faces before it decide."""

    mode = "manual"

    def __init__(self, faces: list[int]) -> None:
        self.faces, self.rolled, self.sides = list(faces), 0, []

    def roll(self, sides: int = 6) -> int:
        if self.rolled > 10_000:
            raise DiceError("too many dice")
        self.sides.append(sides)
        face = self.faces[self.rolled] if self.rolled < len(self.faces) else 1
        self.rolled += 1
        return face


def probed_die(play: Callable[[Any], list[Event]], faces: list[int], number: int) -> Die:
    """Die ``number`` of a resolution, with what it is for: ``play`` resolves with a probe (the
    faces given, then ones), and the dice_rolled event of that die names its purpose, which
    only the faces before it decide."""
    probe = _Probe(faces)
    purpose = unit = None
    try:
        rolls = [e for e in play(probe) if e["kind"] == "dice_rolled"]
        if len(rolls) >= number:
            purpose, unit = rolls[number - 1]["purpose"], rolls[number - 1].get("unit")
    except Exception:  # noqa: BLE001 - the purpose is a courtesy; the die is still wanted
        pass
    sides = probe.sides[number - 1] if len(probe.sides) >= number else 6
    return Die(number, sides, purpose, unit)


def opening_die(scenario: Scenario, faces: list[int]) -> Die:
    """The next die a manual-dice opening wants after ``faces``, with what it is for."""
    return probed_die(  # the opening after its game_started event alone
        lambda probe: opening(opening_events("probe", scenario, seed=0)[0], probe),
        faces, len(faces) + 1)
