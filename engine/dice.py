"""Dice sources. Every die the rules ask for comes from one of these and is recorded as an event.

- SeededDice: digital play. A splitmix64 stream from the game's seed, so the same seed gives the
  same faces on every machine and Python version (``random``'s algorithms may change between
  versions; this cannot).
- RecordedDice: replay and verify. The faces come from the log, in order.
- ManualDice: a tabletop game. The player types what the real die showed.
"""

from __future__ import annotations

from collections.abc import Iterable

from warlog.events.replay_input import short_repr

_MASK = (1 << 64) - 1


class DiceError(ValueError):
    """No die available (a recording ran out, or a manual die was not given) or a bad face."""


class SplitMix64:
    """A tiny, portable, well-mixed 64-bit generator (Steele, Lea & Flood 2014)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) by rejection, so no face is favoured."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n


class SeededDice:
    """Dice from a seed. ``rolled`` counts the dice already used, so a game can be resumed:
    a fresh SeededDice(seed, rolled=N) continues exactly where the log stopped."""

    mode = "seeded"

    def __init__(self, seed: int, rolled: int = 0) -> None:
        self.seed = seed
        self._rng = SplitMix64(seed)
        self.rolled = 0
        for _ in range(rolled):
            self.roll()

    def roll(self, sides: int = 6) -> int:
        self.rolled += 1
        return self._rng.below(sides) + 1


class RecordedDice:
    """Faces taken, in order, from a log's dice_rolled events.

    A recorded face is an input like any order (a table game's dice were typed by a person, and
    a replay file comes from anyone), so each is checked against the die the rules ask for:
    a d6 shows 1 to 6. ``seqs`` names the event each face came from, for the message."""

    mode = "recorded"

    def __init__(self, faces: Iterable[int], seqs: Iterable[int | None] = ()) -> None:
        self._faces = list(faces)
        self._seqs = list(seqs)
        self.rolled = 0

    @classmethod
    def from_events(cls, events: Iterable[dict]) -> RecordedDice:
        faces, seqs = [], []
        for event in events:
            if event["kind"] == "dice_rolled":
                for face in event["faces"]:
                    faces.append(face)
                    seqs.append(event.get("seq"))
        return cls(faces, seqs)

    def roll(self, sides: int = 6) -> int:
        if self.rolled >= len(self._faces):
            raise DiceError(f"the recording has no die left (it held {len(self._faces)})")
        face = self._faces[self.rolled]
        if type(face) is not int or not 1 <= face <= sides:
            seq = self._seqs[self.rolled] if self.rolled < len(self._seqs) else None
            where = f"event seq {seq} (dice_rolled): " if seq is not None else ""
            raise DiceError(f"{where}a d{sides} shows 1 to {sides}, not {short_repr(face, 24)}")
        self.rolled += 1
        return face


class ManualDice:
    """Faces a player read off real dice, given up front for one order."""

    mode = "manual"

    def __init__(self, faces: Iterable[int] = ()) -> None:
        self._faces = list(faces)
        self.rolled = 0

    def roll(self, sides: int = 6) -> int:
        if self.rolled >= len(self._faces):
            raise DiceError(
                f"this order needs die number {self.rolled + 1}: roll a d{sides} and enter it"
            )
        face = self._faces[self.rolled]
        if not isinstance(face, int) or not 1 <= face <= sides:
            raise DiceError(f"a d{sides} shows 1 to {sides}, not {face!r}")
        self.rolled += 1
        return face
