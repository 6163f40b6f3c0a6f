"""The SQLite backend of the EventStore, built on sqlite-utils.

Why it looks the way it does:

* ``events`` is keyed by (game, seq) and ``WITHOUT ROWID``: rows sit in game order, so reading a
  game back is one range scan, and a second writer with the same seq hits the primary key.
* The database itself refuses ``UPDATE`` and ``DELETE`` on ``events`` (and ``games``): triggers
  ``RAISE(ABORT, ...)``, so no tool, script or bug can rewrite history quietly.
* Each row stores ``body`` (canonical JSON of the whole event dict) and ``chain`` (sha256 of the
  previous row's chain + body), so an edit made behind the store's back is detectable
  (:meth:`SQLiteEventStore.verify`).
* ``append`` takes the write lock first (``BEGIN IMMEDIATE``), then compares ``expected_seq`` with
  the stored last seq: two processes cannot both pass the check. Everything in a batch is written
  in that one transaction, or nothing is.
* Reads parse ``body`` with orjson and do not validate: the store wrote those bytes itself.
* A file database runs in WAL mode with ``synchronous=NORMAL``: many small commits stay cheap and
  readers do not block the writer.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from hashlib import sha256
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson
import sqlite_utils

from warlog.events.chain import GENESIS, canonical, link
from warlog.events.model import EVENT_KINDS
from warlog.events.store import (
    ConcurrencyError,
    GameExists,
    GameInfo,
    GameNotFound,
    StoreError,
)

_KINDS = frozenset(EVENT_KINDS)
_SORT = orjson.OPT_SORT_KEYS

GAMES_COLUMNS: dict[str, type] = {
    "id": str,
    "rule_system": str,
    "period": str,
    "scenario_id": str,
    "title": str,
    "players": str,  # JSON object: side -> player name
    "dice": str,
    "seed": int,
    "first_event_chain": str,
}
EVENTS_COLUMNS: dict[str, type] = {
    "game": str,
    "seq": int,
    "turn": int,
    "side": str,
    "phase": str,
    "kind": str,
    "body": str,  # canonical JSON of the whole event dict
    "chain": str,  # link(previous row's chain or GENESIS, body)
}

_GUARDS = [
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, '{table} are append-only: {verb} is not allowed; "
    f"record a new event instead'); END"
    for table in ("events", "games")
    for verb in ("UPDATE", "DELETE")
]
# Only game_ended rows: lets games() find how a game ended without scanning it.
_ENDED_INDEX = (
    "CREATE INDEX IF NOT EXISTS events_game_ended ON events (game, seq) "
    "WHERE kind = 'game_ended'"
)
_INSERT = (
    "INSERT INTO events (game, seq, turn, side, phase, kind, body, chain) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small objects at once.

    Decoding 100k events creates 100k dicts with no reference cycles; each allocation burst makes
    the collector rescan everything alive, which measured 3-4x slower than the work itself.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class SQLiteEventStore:
    """Games as append-only, hash-chained event rows in one SQLite file (or ``":memory:"``)."""

    def __init__(
        self, path: str | Path, *, timeout: float = 5.0, check_same_thread: bool = True
    ) -> None:
        """Open (creating if needed) the database at ``path``. ``timeout`` is how long an append
        waits for another writer's lock; ``check_same_thread=False`` lets one store be shared by
        threads that take turns (e.g. a cached dashboard resource)."""
        self.path = str(path)
        try:
            conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=check_same_thread)
        except sqlite3.Error as exc:  # e.g. its folder does not exist
            raise StoreError(f"{self.path}: cannot open the database ({exc})") from None
        self.db = sqlite_utils.Database(conn)
        try:
            if self.path != ":memory:":
                self.db.enable_wal()
                self.db.execute("PRAGMA synchronous=NORMAL")
            self._create_schema()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{self.path}: cannot open as a warlog database ({exc})") from None

    # -- schema ------------------------------------------------------------------------------

    def _create_schema(self) -> None:
        """Create tables, triggers and index if missing; safe to run on every open."""
        db = self.db
        with db.atomic():
            db["games"].create(
                GAMES_COLUMNS,
                pk="id",
                not_null=["rule_system", "period", "players", "first_event_chain"],
                if_not_exists=True,
                strict=True,
            )
            sql = db.create_table_sql(
                "events",
                EVENTS_COLUMNS,
                pk=("game", "seq"),
                not_null=["game", "seq", "turn", "kind", "body", "chain"],
                if_not_exists=True,
                strict=True,
            )
            # sqlite-utils has no WITHOUT ROWID option; the rest of the DDL is its own.
            db.execute(sql.strip().rstrip(";") + ", WITHOUT ROWID")
            db.execute(_ENDED_INDEX)
            for guard in _GUARDS:
                db.execute(guard)

    # -- writing -----------------------------------------------------------------------------

    def append(self, game: str, events: list[dict[str, Any]], expected_seq: int) -> int:
        """Append ``events`` to ``game`` in one transaction and return the new last seq.

        ``expected_seq`` is the seq of the last event the writer has seen (0 for a new game, whose
        first event must be ``game_started``). If the game has moved on, ConcurrencyError; if the
        batch is malformed, StoreError. Either way nothing is written.
        """
        self._check_batch(game, events, expected_seq)
        conn = self.db.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(
                f"cannot append to game {game!r}: the database is busy ({exc}); try again"
            ) from None
        try:
            last = conn.execute(
                "SELECT seq, chain FROM events WHERE game = ? ORDER BY seq DESC LIMIT 1", (game,)
            ).fetchone()
            stored, prev = (last[0], last[1]) if last else (0, GENESIS)
            if stored != expected_seq:
                if expected_seq == 0:
                    raise GameExists(game, stored)
                if stored == 0:
                    raise GameNotFound(game)
                raise ConcurrencyError(game, stored, expected_seq)
            with _gc_paused():
                rows = self._rows(game, events, expected_seq, prev)
            if expected_seq == 0:
                self._insert_game(game, events[0], rows[0][7])
            conn.executemany(_INSERT, rows)
            self.db.commit()
        except sqlite3.IntegrityError as exc:
            self.db.rollback()
            raise StoreError(f"cannot append to game {game!r}: {exc}") from None
        except BaseException:
            self.db.rollback()
            raise
        return expected_seq + len(events)

    @staticmethod
    def _check_batch(game: str, events: list[dict[str, Any]], expected_seq: int) -> None:
        """Cheap checks that need no lock: a non-empty list, a sane expected_seq, a first event."""
        if not isinstance(game, str) or not game:
            raise StoreError(f"game id must be a non-empty string, not {game!r}")
        if type(expected_seq) is not int or expected_seq < 0:
            raise StoreError(
                f"expected_seq must be the seq of the last event seen (0 for a new game), "
                f"not {expected_seq!r}"
            )
        if not isinstance(events, list) or not events:
            raise StoreError(f"nothing to append to game {game!r}: the batch is empty")
        if expected_seq == 0:
            first = events[0]
            if not isinstance(first, dict) or first.get("kind") != "game_started":
                kind = first.get("kind") if isinstance(first, dict) else type(first).__name__
                raise StoreError(
                    f"game {game!r} is new, so its first event must be 'game_started', "
                    f"not {kind!r}"
                )

    @staticmethod
    def _rows(
        game: str, events: list[dict[str, Any]], expected_seq: int, prev: str
    ) -> list[tuple[Any, ...]]:
        """Serialize, check and chain the batch: the hot loop of every append."""
        dumps, sort, hasher, kinds = orjson.dumps, _SORT, sha256, _KINDS
        rows: list[tuple[Any, ...]] = []
        seq = expected_seq
        for ev in events:
            seq += 1
            try:
                if ev["game"] != game:
                    raise StoreError(
                        f"event seq {ev.get('seq')} belongs to game {ev['game']!r}, "
                        f"not {game!r}; nothing was written"
                    )
                if ev["seq"] != seq:
                    raise StoreError(
                        f"event seq {ev['seq']!r} is out of order in the batch for game "
                        f"{game!r}: expected seq {seq}; nothing was written"
                    )
                kind = ev["kind"]
                if kind not in kinds:
                    raise StoreError(f"event seq {seq}: unknown kind {kind!r}; nothing was written")
                body = dumps(ev, option=sort)
                prev = hasher(prev.encode() + body).hexdigest()
                row = (game, seq, ev["turn"], ev.get("side"), ev.get("phase"), kind)
                rows.append((*row, body.decode(), prev))
            except KeyError as exc:
                raise StoreError(
                    f"event number {seq - expected_seq} of the batch for game {game!r} has no "
                    f"{exc.args[0]!r} field; nothing was written"
                ) from None
            except (TypeError, orjson.JSONEncodeError) as exc:
                raise StoreError(
                    f"event number {seq - expected_seq} of the batch for game {game!r} is not "
                    f"a JSON event dict ({exc}); nothing was written"
                ) from None
        return rows

    def _insert_game(self, game: str, first: dict[str, Any], first_chain: str) -> None:
        for name in ("rule_system", "period"):
            if not isinstance(first.get(name), str):
                raise StoreError(f"game {game!r}: the game_started event has no {name!r}")
        scenario = first.get("scenario") or {}
        self.db["games"].insert(
            {
                "id": game,
                "rule_system": first.get("rule_system"),
                "period": first.get("period"),
                "scenario_id": scenario.get("id"),
                "title": scenario.get("title"),
                "players": canonical(first.get("players") or {}).decode(),
                "dice": first.get("dice"),
                "seed": first.get("seed"),
                "first_event_chain": first_chain,
            }
        )

    # -- reading -----------------------------------------------------------------------------

    def read(self, game: str, upto: int | None = None) -> list[dict[str, Any]]:
        """The events of ``game`` with seq <= ``upto`` (all if None), in seq order."""
        if upto is None:
            cursor = self.db.execute("SELECT body FROM events WHERE game = ? ORDER BY seq", [game])
        else:
            cursor = self.db.execute(
                "SELECT body FROM events WHERE game = ? AND seq <= ? ORDER BY seq", [game, upto]
            )
        loads = orjson.loads
        with _gc_paused():
            events = [loads(body) for (body,) in cursor.fetchall()]
        if not events and not self.has_game(game):
            raise GameNotFound(game)
        return events

    def last_seq(self, game: str) -> int:
        row = self.db.execute("SELECT max(seq) FROM events WHERE game = ?", [game]).fetchone()
        return row[0] or 0

    def has_game(self, game: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ?", [game]).fetchone() is not None

    def chains(self, game: str) -> list[str]:
        """The stored chain value of every event of ``game``, in seq order."""
        cursor = self.db.execute("SELECT chain FROM events WHERE game = ? ORDER BY seq", [game])
        return [chain for (chain,) in cursor.fetchall()]

    def verify(self, game: str) -> int:
        """Recompute the hash chain of ``game``; return its length, or raise StoreError naming
        the first event whose stored bytes no longer match (the file was edited outside warlog)."""
        prev, count = GENESIS, 0
        rows = self.db.execute(
            "SELECT seq, body, chain FROM events WHERE game = ? ORDER BY seq", [game]
        ).fetchall()
        if not rows and not self.has_game(game):
            raise GameNotFound(game)
        for seq, body, chain in rows:
            count += 1
            prev = link(prev, body.encode())
            if seq != count or chain != prev:
                raise StoreError(
                    f"game {game!r}, event seq {seq}: hash chain broken — the database was "
                    "changed outside warlog"
                )
        return count

    def games(self) -> list[GameInfo]:
        """Every game, ordered by id, with its event count and outcome (from game_ended).

        The date played is read from the first event's body (one primary-key row per game), not
        from a column of ``games``: databases written before it existed need no migration."""
        rows = self.db.query(
            """
            SELECT g.id, g.rule_system, g.period, g.scenario_id, g.title, g.players,
              (SELECT json_extract(body, '$.played') FROM events e
                 WHERE e.game = g.id AND e.seq = 1) AS played,
              (SELECT max(seq) FROM events e WHERE e.game = g.id) AS n,
              (SELECT body FROM events e INDEXED BY events_game_ended
                 WHERE e.game = g.id AND e.kind = 'game_ended'
                 ORDER BY e.seq DESC LIMIT 1) AS ended
            FROM games g ORDER BY g.id
            """
        )
        infos = []
        for row in rows:
            ended = orjson.loads(row["ended"]) if row["ended"] else None
            infos.append(
                GameInfo(
                    id=row["id"],
                    rule_system=row["rule_system"],
                    period=row["period"],
                    scenario_id=row["scenario_id"],
                    title=row["title"],
                    players=orjson.loads(row["players"]),
                    played=row["played"],
                    events=row["n"] or 0,
                    ended=ended is not None,
                    winner=ended.get("winner") if ended else None,
                    reason=ended.get("reason") if ended else None,
                )
            )
        return infos

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> SQLiteEventStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteEventStore({self.path!r})"
