"""The EventStore protocol every backend implements, and the errors it raises.

A store keeps each game as an append-only sequence of event dicts numbered 1, 2, 3, ... A writer
says which seq it last saw (``expected_seq``); if someone else appended in between, the append
fails as a whole (optimistic concurrency, as in eventsourcing) and the writer reloads. Nothing is
ever updated or deleted: corrections are new events. Each append also records where it left the
game (its length and last event), so a game cut short behind the store's back is reported.

The errors subclass ValueError and carry messages written for a player, not a database admin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


class StoreError(ValueError):
    """A request the store refuses (bad batch, unknown game, ...); nothing was written."""


class DatabaseAltered(StoreError):
    """The database holds a table, index, trigger or view that warlog did not make as it is (an
    extra one, or one of its own changed): a write is refused before anything is written, since
    such an object runs inside warlog's writes (events/sqlite_guard.py). ``findings`` has one
    line for each, sorted by name."""

    def __init__(self, message: str, findings: list[str]) -> None:
        self.findings = list(findings)
        super().__init__(message)


class ConcurrencyError(StoreError):
    """The game moved on since the writer last read it: reload and try again."""

    def __init__(self, game: str, stored: int, expected: int, message: str = "") -> None:
        self.game, self.stored, self.expected = game, stored, expected
        super().__init__(
            message
            or f"game {game!r} has {stored} events; this append expected {expected} — "
            "reload and try again"
        )


class GameExists(ConcurrencyError):
    """A new game (expected_seq 0) whose id is already taken."""

    def __init__(self, game: str, stored: int, what: str = "") -> None:
        prefix = f"{what}: " if what else ""
        super().__init__(
            game,
            stored,
            0,
            f"{prefix}game {game!r} is already in the database ({stored} events); "
            "use another game id or another database",
        )


class GameDamaged(StoreError):
    """A stored game does not end where its last append left it: the database records the game's
    length and the chain hash of its last event (its head) with every append, and the rows now
    stored disagree: rows were deleted or added behind the store's back (with its triggers
    dropped), or the events were put back from an older copy of the file. (A whole file put back
    from an older copy agrees with itself; only a head kept elsewhere shows that.)"""

    def __init__(self, game: str, recorded: int, stored: int, count: int | None = None) -> None:
        """``recorded``: the game's length as its last append recorded it; ``stored``: the seq of
        its last stored event; ``count``: how many are stored, if known and not ``stored``."""
        self.game, self.recorded, self.stored = game, recorded, stored
        if count is not None and count != stored:
            what = (f"game {game!r} has a hole: {recorded} events were recorded and the last one "
                    f"stored is seq {stored}, but only {count} are stored")
            why = "events were deleted outside warlog"
        elif stored < recorded:
            what = (f"game {game!r} is cut short: {recorded} events were recorded, but the last "
                    f"one stored is seq {stored}")
            why = "events were deleted outside warlog, or restored from an older copy"
        elif stored > recorded:
            what = (f"game {game!r} runs past its recorded end: {recorded} events were recorded, "
                    f"but the last one stored is seq {stored}")
            why = "events were added outside warlog"
        else:
            what = (f"game {game!r}: {recorded} events were recorded and {stored} are stored, but "
                    "the last one stored is not the one recorded")
            why = "the log was rewritten outside warlog"
        super().__init__(f"{what} — {why}")


class PhantomGame(StoreError):
    """The games table holds a row for the game but no event of it is stored: such a row can
    only have been written outside warlog (its triggers refuse one without its first event). It
    is no game: not listed, not found; an append of a new game under its id is refused (the row
    cannot be removed through the triggers) unless the row is exactly the new game's own."""

    def __init__(self, game: str, adding: bool = False) -> None:
        self.game = game
        if adding:
            message = (f"cannot add game {game!r}: the database holds a games row for it but "
                       "none of its events — it was changed outside warlog; nothing was written "
                       "(use another game id or another database)")
        else:
            message = (f"no game {game!r} in this database: it holds a games row for it but "
                       "none of its events — it was changed outside warlog")
        super().__init__(message)


class GameNotFound(StoreError):
    """No game with that id is stored."""

    def __init__(self, game: str) -> None:
        self.game = game
        super().__init__(f"no game {game!r} in this database")


@dataclass(frozen=True)
class GameInfo:
    """One line of a game list: who played what and when (``played``, YYYY-MM-DD, if recorded),
    how long it is, how it ended (if it did)."""

    id: str
    rule_system: str
    period: str
    scenario_id: str | None
    title: str | None
    players: dict[str, str] = field(default_factory=dict)
    played: str | None = None
    events: int = 0
    ended: bool = False
    winner: str | None = None
    reason: str | None = None


@runtime_checkable
class EventStore(Protocol):
    """What the engine, the CLI and the dashboard may ask of any backend."""

    def append(self, game: str, events: list[dict[str, Any]], expected_seq: int) -> int:
        """Append ``events`` (seqs expected_seq+1, +2, ...) atomically; return the new last seq."""
        ...

    def read(self, game: str, upto: int | None = None) -> list[dict[str, Any]]:
        """The game's events with seq <= upto (all if None), in order; GameDamaged if the stored
        events do not reach (or run past) where the game's last append left it."""
        ...

    def check(self, game: str) -> int:
        """The game's length, once its last stored event is found to be where its last append
        left it (GameDamaged, naming both lengths, if not): a cheap test for a cut-short game."""
        ...

    def last_seq(self, game: str) -> int:
        """The seq of the game's last event; 0 if the game has none."""
        ...

    def has_game(self, game: str) -> bool: ...

    def games(self) -> list[GameInfo]:
        """Every stored game, ordered by id."""
        ...

    def close(self) -> None: ...
