"""The SQLite backend of the EventStore, built on sqlite-utils.

Its tables, the triggers that keep them append-only and the heads that show a game cut short are
events/sqlite_schema.py's, which says why they look the way they do. Why the store works as it
does:

* Each row stores ``body`` (canonical JSON of the whole event dict) and ``chain`` (sha256 of the
  previous row's chain + body), so an edit made behind the store's back is detectable
  (:meth:`SQLiteEventStore.verify`).
* ``append`` takes the write lock first (``BEGIN IMMEDIATE``), then compares ``expected_seq`` with
  the stored last seq: two processes cannot both pass the check. Everything in a batch is written
  in that one transaction, or nothing is.
* Reads parse ``body`` with orjson and do not validate: the store wrote those bytes itself.
* A file database runs in WAL mode with ``synchronous=NORMAL``: many small commits stay cheap and
  readers do not block the writer.
* Opening is safe when many processes open one (new) file at once: the busy timeout is set by
  ``connect`` before any statement; opening reads the schema without a lock and only when
  something is missing takes the write lock first (``BEGIN IMMEDIATE``, which waits its turn)
  and creates it; a ``SQLITE_BUSY`` that SQLite returns without waiting (switching to WAL while
  another connection reads, a lock upgrade that could deadlock) is retried until ``timeout``.
"""

from __future__ import annotations

import gc
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from hashlib import sha256
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from warlog.events.chain import GENESIS, canonical, link
from warlog.events.model import EVENT_KINDS
from warlog.events.sqlite_schema import create_schema
from warlog.events.store import (
    ConcurrencyError,
    GameDamaged,
    GameExists,
    GameInfo,
    GameNotFound,
    StoreError,
)

_KINDS = frozenset(EVENT_KINDS)
_SORT = orjson.OPT_SORT_KEYS

_INSERT_ROWS = "INSERT INTO events (game, seq, turn, side, phase, kind, body, chain) VALUES "
_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)"
_MAX_CHUNK = 256  # rows a statement, at most (and never more variables than SQLite allows)
_INSERT_HEAD = "INSERT INTO heads (game, seq, chain) VALUES (?, ?, ?)"
_LAST_EVENT = "SELECT seq, chain FROM events WHERE game = ? ORDER BY seq DESC LIMIT 1"
_LAST_HEAD = "SELECT seq, chain FROM heads WHERE game = ? ORDER BY seq DESC LIMIT 1"
_NOTHING = (0, GENESIS)  # where a game with no events (and so no head) stands

_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6


def _busy(exc: sqlite3.Error) -> bool:
    """Another connection holds a lock we need (SQLITE_BUSY / SQLITE_LOCKED, any extended code)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


@lru_cache(maxsize=None)
def _insert_sql(n: int) -> str:
    return _INSERT_ROWS + ", ".join([_ROW] * n)


def _insert_rows(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """Insert the rows a few hundred to a statement, not one by one.

    A statement that fires a trigger may abort halfway, so SQLite opens a statement journal
    around each one; one statement a row (``executemany``) paid that, with the REPLACE guard's
    trigger, on every row: 60% more time for a 100,000-event append. Chunks are powers of two
    (256, 128, ..., 1), so a handful of statement texts serve every batch size."""
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(rows[0])
    size, done, total = _MAX_CHUNK, 0, len(rows)
    while size > limit:
        size //= 2
    while done < total:
        while size > total - done:
            size //= 2
        part = rows[done : done + size]
        conn.execute(_insert_sql(size), [value for row in part for value in row])
        done += size


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
        (or the first open of a new file) waits for another writer's lock;
        ``check_same_thread=False`` lets one store be shared by threads that take turns (e.g. a
        cached dashboard resource)."""
        self.path = str(path)
        try:
            # connect sets the busy timeout before any statement runs
            conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=check_same_thread)
        except sqlite3.Error as exc:  # e.g. its folder does not exist
            raise StoreError(f"{self.path}: cannot open the database ({exc})") from None
        self.conn = conn
        self._db = None
        try:
            self._prepare(timeout)
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _busy(exc):
                raise StoreError(
                    f"{self.path}: cannot open the database: another process kept it busy for "
                    f"{timeout:g} s; try again"
                ) from None
            raise StoreError(f"{self.path}: cannot open as a warlog database ({exc})") from None

    @property
    def db(self):
        """The connection as a sqlite-utils Database, made when first needed: importing
        sqlite-utils pulls in pandas, numpy and pyarrow wherever they are installed (about a
        second of CPU), so reads and appends use ``conn`` and only schema creation and the
        games row insert this."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    # -- opening -----------------------------------------------------------------------------

    def _prepare(self, timeout: float) -> None:
        """WAL mode and the schema, retrying while another connection is busy with the same.

        The busy timeout makes SQLite itself wait for most locks. It returns SQLITE_BUSY at once
        where waiting could deadlock (a reader upgrading to writer while another writer waits
        for readers to leave) and for a journal-mode switch that finds the file in use: those
        are retried here, with short growing pauses, until ``timeout`` has passed."""
        deadline = time.monotonic() + timeout
        pause = 0.001
        while True:
            try:
                if self.path != ":memory:":
                    self._use_wal()
                create_schema(self.conn, lambda: self.db)
                return
            except sqlite3.OperationalError as exc:
                self.conn.rollback()
                if not _busy(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _use_wal(self) -> None:
        conn = self.conn
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
        conn.execute("PRAGMA synchronous=NORMAL")

    # -- writing -----------------------------------------------------------------------------

    def append(self, game: str, events: list[dict[str, Any]], expected_seq: int) -> int:
        """Append ``events`` to ``game`` in one transaction and return the new last seq.

        ``expected_seq`` is the seq of the last event the writer has seen (0 for a new game, whose
        first event must be ``game_started``). If the game has moved on, ConcurrencyError; if the
        batch is malformed, StoreError; if the stored game does not end at its recorded head,
        GameDamaged. Either way nothing is written. The new head is recorded in the same
        transaction as the events.
        """
        self._check_batch(game, events, expected_seq)
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(
                f"cannot append to game {game!r}: the database is busy ({exc}); try again"
            ) from None
        try:
            stored, prev = conn.execute(_LAST_EVENT, (game,)).fetchone() or _NOTHING
            head = conn.execute(_LAST_HEAD, (game,)).fetchone() or _NOTHING
            if (stored, prev) != tuple(head):  # never write on top of a damaged game
                raise GameDamaged(game, head[0], stored)
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
            _insert_rows(conn, rows)
            conn.execute(_INSERT_HEAD, (game, rows[-1][1], rows[-1][7]))
            self.conn.commit()
        except sqlite3.IntegrityError as exc:
            self.conn.rollback()
            raise StoreError(f"cannot append to game {game!r}: {exc}") from None
        except BaseException:
            self.conn.rollback()
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
        row = {
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
        self.conn.execute(f"INSERT INTO games ({', '.join(row)}) "
                          f"VALUES ({', '.join(':' + k for k in row)})", row)

    # -- reading -----------------------------------------------------------------------------

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction, so that several SELECTs see the same commit (another process may
        append between two statements run on their own)."""
        conn = self.conn
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def read(self, game: str, upto: int | None = None) -> list[dict[str, Any]]:
        """The events of ``game`` with seq <= ``upto`` (all if None), in seq order.

        GameDamaged if the rows do not run 1, 2, ... to the game's recorded head (or to ``upto``,
        if that comes first), or if the last one is not the recorded head."""
        with self._snapshot() as conn:
            if upto is None:
                cursor = conn.execute("SELECT body FROM events WHERE game = ? ORDER BY seq", [game])
            else:
                cursor = conn.execute(
                    "SELECT body FROM events WHERE game = ? AND seq <= ? ORDER BY seq", [game, upto]
                )
            loads = orjson.loads
            with _gc_paused():
                events = [loads(body) for (body,) in cursor.fetchall()]
            recorded, head = conn.execute(_LAST_HEAD, [game]).fetchone() or _NOTHING
            want = recorded if upto is None else max(0, min(upto, recorded))
            if len(events) != want:
                self._damage(conn, game)
            if upto is None and recorded:
                last = conn.execute(
                    "SELECT chain FROM events WHERE game = ? AND seq = ?", [game, recorded]
                ).fetchone()
                if last is None or last[0] != head:
                    self._damage(conn, game)
            if not events and not recorded and not self.has_game(game):
                raise GameNotFound(game)
        return events

    def _damage(self, conn: sqlite3.Connection, game: str) -> None:
        """Raise GameDamaged for ``game``, with what its head records and what is stored."""
        stored, chain = conn.execute(_LAST_EVENT, [game]).fetchone() or _NOTHING
        recorded, head = conn.execute(_LAST_HEAD, [game]).fetchone() or _NOTHING
        if (stored, chain) != (recorded, head):
            raise GameDamaged(game, recorded, stored)
        count = conn.execute("SELECT count(*) FROM events WHERE game = ?", [game]).fetchone()[0]
        raise GameDamaged(game, recorded, stored, count)

    def check(self, game: str) -> int:
        """The game's length, once its last stored event is checked against its recorded head
        (seq and chain: two primary-key lookups, no hashing). GameDamaged if they differ (the
        message names the game and both lengths), GameNotFound if there is no such game.
        :meth:`verify` also rehashes every row."""
        with self._snapshot() as conn:
            stored, chain = conn.execute(_LAST_EVENT, [game]).fetchone() or _NOTHING
            recorded, head = conn.execute(_LAST_HEAD, [game]).fetchone() or _NOTHING
            if (stored, chain) != (recorded, head):
                raise GameDamaged(game, recorded, stored)
            if not stored and not self.has_game(game):
                raise GameNotFound(game)
        return stored

    def last_seq(self, game: str) -> int:
        row = self.conn.execute("SELECT max(seq) FROM events WHERE game = ?", [game]).fetchone()
        return row[0] or 0

    def has_game(self, game: str) -> bool:
        return self.conn.execute("SELECT 1 FROM games WHERE id = ?", [game]).fetchone() is not None

    def chains(self, game: str) -> list[str]:
        """The stored chain value of every event of ``game``, in seq order."""
        cursor = self.conn.execute("SELECT chain FROM events WHERE game = ? ORDER BY seq", [game])
        return [chain for (chain,) in cursor.fetchall()]

    def verify(self, game: str) -> int:
        """Recompute the hash chain of ``game`` and check that it ends at the game's recorded head;
        return its length, or raise StoreError naming the first event whose stored bytes no
        longer match or that is missing, or GameDamaged if the game was cut short (the database
        was changed outside warlog)."""
        prev, count = GENESIS, 0
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT seq, body, chain FROM events WHERE game = ? ORDER BY seq", [game]
            ).fetchall()
            recorded, head = conn.execute(_LAST_HEAD, [game]).fetchone() or _NOTHING
            if not rows and not recorded and not self.has_game(game):
                raise GameNotFound(game)
        for seq, body, chain in rows:
            count += 1
            if seq != count:
                raise StoreError(
                    f"game {game!r}, event seq {count} is missing (the next one stored is seq "
                    f"{seq}) — the database was changed outside warlog"
                )
            prev = link(prev, body.encode())
            if chain != prev:
                raise StoreError(
                    f"game {game!r}, event seq {seq}: hash chain broken — the database was "
                    "changed outside warlog"
                )
        if (count, prev) != (recorded, head):
            raise GameDamaged(game, recorded, count)
        return count

    def games(self) -> list[GameInfo]:
        """Every game, ordered by id, with its event count and outcome (from game_ended).

        The date played is read from the first event's body (one primary-key row per game), not
        from a column of ``games``: databases written before it existed need no migration."""
        rows = self._dicts(
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

    def _dicts(self, sql: str, params: Any = ()) -> Iterator[dict[str, Any]]:
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        for row in cursor:
            yield dict(zip(names, row))

    def close(self) -> None:
        self.conn.close()

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
