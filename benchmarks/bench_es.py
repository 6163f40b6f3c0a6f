"""The `eventsourcing` library's own documented path, as the reference of issue 10's store targets.

bench_store.py's eventsourcing row hands ``SQLiteAggregateRecorder.insert_events`` ready-made
``StoredEvent`` objects: that is nearly a raw ``executemany``, the library's lowest layer, and
not how an application uses it. The library documents one way to store domain events: an
``Application`` saves an ``Aggregate``, whose pending events go through the application's mapper
(the event's attributes through its JSON transcoder, with the event's topic) into its recorder
(``SQLiteApplicationRecorder``, which also numbers notifications), in one transaction. That is the
counterpart of warlog's append: pydantic-built event dicts through ``SQLiteEventStore.append``
(canonical JSON, a sha256 chain, the batch checks, the append-only guard, the head row).

- Append: one aggregate whose first event carries the game's first event and whose other events
  each carry one of warlog's event dicts (the same 100,000 as ours). The domain events are made
  before the clock starts (as ours are built through pydantic before ``append``); the clock times
  ``app.save(aggregate)``.
- Rebuild: the library's ``repository.get`` of an aggregate with as many events as our game,
  each event carrying one of the game's events and its mutator folding it with warlog's own
  ``evolve``: both sides do the same domain work per event, so the ratio compares reading and
  rehydrating, not two different folds. Ours: ``store.read`` then ``replay``.

The library's SQLite datastore sets WAL mode and leaves ``synchronous`` at SQLite's default
(FULL): one transaction, so one sync more than ours per save, which is negligible at this size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from warlog.engine.fold import evolve

Events = list[dict[str, Any]]


class Ledger(Aggregate):
    """A game as an aggregate: it was opened with its first event, then recorded the others."""

    @event("Opened")
    def __init__(self, first: dict[str, Any]) -> None:
        self.last = first["seq"]

    @event("Recorded")
    def record(self, body: dict[str, Any]) -> None:
        self.last = body["seq"]


class Battle(Aggregate):
    """A game as an aggregate whose mutators fold each event into warlog's game state."""

    @event("Started")
    def __init__(self, first: dict[str, Any]) -> None:
        self.state = evolve(None, first)

    @event("Happened")
    def happened(self, body: dict[str, Any]) -> None:
        self.state = evolve(self.state, body)


def application(path: Path) -> Application:
    """The library's application on an SQLite file, as its documentation configures one."""
    return Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                            "SQLITE_DBNAME": str(path), "IS_SNAPSHOTTING_ENABLED": "n"})


def append_application(events: Events, timed: Callable) -> Callable[[Path], float]:
    """``app.save`` of an aggregate holding the same events as pending domain events."""

    def run(path: Path) -> float:
        app = application(path)
        ledger = Ledger(first=events[0])
        for body in events[1:]:
            ledger.record(body=body)
        seconds, _ = timed(lambda: app.save(ledger))
        assert app.repository.get(ledger.id, version=1).last == 1
        app.close()
        return seconds

    return run


class Rebuild:
    """An aggregate of the game's events, saved once; ``run`` times ``repository.get``."""

    def __init__(self, events: Events, path: Path) -> None:
        self.app = application(path)
        battle = Battle(first=events[0])
        for body in events[1:]:
            battle.happened(body=body)
        self.app.save(battle)
        self.id, self.events = battle.id, len(events)

    def run(self, timed: Callable) -> tuple[float, Any]:
        seconds, battle = timed(lambda: self.app.repository.get(self.id))
        assert battle.version == self.events
        return seconds, battle.state

    def close(self) -> None:
        self.app.close()
