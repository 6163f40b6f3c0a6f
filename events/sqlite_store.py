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
* Opening (WAL mode, many processes at once, files that cannot be written) is
  events/sqlite_open.py's. A store that can only be read refuses to append, and any write SQLite
  refuses (disk full, read-only, I/O error) is a StoreError that says so and that nothing was
  written.
* The database checks itself (events/sqlite_guard.py): an open compares its schema with what
  warlog makes, and a store whose database holds anything else (``altered``) refuses every
  write and fails ``verify``; each append confirms, before it commits, that exactly its rows
  and head were stored; every statement is bounded in steps (one line if it runs past).
* What the store lists and finds is derived from the log, never from the columns that repeat
  it: a game exists if its first event is stored, and its facts are read from that event's body
  and how it ended from its last event's body (the last one not a note). ``verify`` checks every
  repeated column against the bodies (events.sqlite_schema says which).
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from hashlib import sha256
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from warlog.events.chain import GENESIS, link
from warlog.events.ids import IdError, check_id, shown, skeleton
from warlog.events.sqlite_guard import (altered_error, bounded, confirm_append, limit_error,
                                        not_stored, ran_past, recheck, refusal)
from warlog.events.sqlite_open import IMMUTABLE, not_written, open_database
from warlog.events.sqlite_schema import (
    check_games_row,
    column_damage,
    event_columns,
    game_row,
)
from warlog.events.store import (
    ConcurrencyError,
    GameDamaged,
    GameExists,
    GameInfo,
    GameNotFound,
    PhantomGame,
    StoreError,
)



@cache
def _event_kinds() -> frozenset[str]:
    """Every kind of event a game may hold: read from the event models on the first append or
    check, not on import (they are pydantic models, about 50 ms to import: `warlog games`
    lists games without them)."""
    from warlog.events.model import event_kinds

    return frozenset(event_kinds())
_SORT = orjson.OPT_SORT_KEYS

_INSERT_ROWS = "INSERT INTO events (game, seq, turn, side, phase, kind, body, chain) VALUES "
_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)"
_MAX_CHUNK = 256  # rows a statement, at most (and never more variables than SQLite allows)
_INSERT_HEAD = "INSERT INTO heads (game, seq, chain) VALUES (?, ?, ?)"
_LAST_EVENT = "SELECT seq, chain FROM events WHERE game = ? ORDER BY seq DESC LIMIT 1"
_LAST_HEAD = "SELECT seq, chain FROM heads WHERE game = ? ORDER BY seq DESC LIMIT 1"
_NOTHING = (0, GENESIS)  # where a game with no events (and so no head) stands

_GAME_ROW = "SELECT * FROM games WHERE id = ?"
# A game's facts from its first event's body, one json_extract (one parse) for all of them.
_FIRST_FACTS = ("'$.rule_system', '$.period', '$.scenario.id', '$.scenario.title', '$.players', "
                "'$.played', '$.kind'")
# Every game (every first event, found by the partial index events_first), its facts, and its
# last event: a scan of a small index and two primary-key rows a game.
_LISTING = f"""
    SELECT f.game, json_extract(f.body, {_FIRST_FACTS}),
      (SELECT body FROM events e WHERE e.game = f.game ORDER BY e.seq DESC LIMIT 1)
    FROM events f WHERE f.seq = 1 ORDER BY f.game
"""
_LAST_NOT_NOTE = ("SELECT body FROM events WHERE game = ? AND json_extract(body, '$.kind') "
                  "IS NOT 'note' ORDER BY seq DESC LIMIT 1")


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
        self, path: str | Path, *, timeout: float = 5.0, check_same_thread: bool = True,
        readonly: bool = False,
    ) -> None:
        """Open (creating if needed) the database at ``path``. ``timeout`` is how long an append
        (or the first open of a new file) waits for another writer's lock;
        ``check_same_thread=False`` lets one store be shared by threads that take turns (e.g. a
        cached dashboard resource); ``readonly=True`` opens an existing file for reading only
        (as its permissions or its disk may impose anyway: then ``self.readonly`` is True too
        if the schema needed completing)."""
        self.path = str(path)
        self._db = None
        opened = open_database(self.path, timeout=timeout, check_same_thread=check_same_thread,
                               readonly=readonly)
        self.conn, self.readonly = opened.conn, opened.readonly
        # Opened immutable (a WAL file in a folder that cannot be written): say IMMUTABLE.
        self.immutable = opened.immutable
        self.note = IMMUTABLE if opened.immutable else None
        # One line an object warlog did not make as it is (sorted): writes refused, verify fails.
        self.altered: list[str] = opened.altered
        self._schema_version: int | None = None  # read by the first append (recheck)
        self._why_read_only = ("the database was opened read-only" if readonly else
                               "the database cannot be written (its file, folder or disk is "
                               "read-only)")

    @property
    def db(self):
        """The connection as a sqlite-utils Database, made when first needed: importing
        sqlite-utils pulls in pandas, numpy and pyarrow wherever they are installed (about a
        second of CPU), so reads and appends use ``conn`` (and opening makes its own to create
        the schema)."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    # -- writing -----------------------------------------------------------------------------

    def append(self, game: str, events: list[dict[str, Any]], expected_seq: int) -> int:
        """Append ``events`` to ``game`` in one transaction and return the new last seq.

        ``expected_seq`` is the seq of the last event the writer has seen (0 for a new game, whose
        first event must be ``game_started``). If the game has moved on, ConcurrencyError; if the
        batch is malformed, StoreError; if the stored game does not end at its recorded head,
        GameDamaged; if SQLite cannot write (disk full, read-only, I/O error), StoreError saying
        so. Either way nothing is written. The new head is recorded in the same transaction as
        the events. A new game's games row is written after its events (the schema's
        ``games_follow_events`` requires its first event to be stored).
        """
        self._check_batch(game, events, expected_seq)
        what = f"append to game {game!r}"
        if self.altered:
            raise refusal(self.path, what, self.altered)
        if self.readonly:
            raise StoreError(f"{self.path}: cannot append to game {game!r}: "
                             f"{self._why_read_only}; nothing was written")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: cannot append to game {game!r}: "
                             f"{not_written(exc)}; nothing was written") from None
        try:
            self.altered, self._schema_version = recheck(
                self.conn, self.path, what, self.altered, self._schema_version)
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
            new_row = self._new_game_row(game, events[0], rows[0][7]) if expected_seq == 0 else None
            changes = conn.total_changes
            _insert_rows(conn, rows)
            if new_row is not None:
                conn.execute(f"INSERT INTO games ({', '.join(new_row)}) "
                             f"VALUES ({', '.join(':' + k for k in new_row)})", new_row)
            conn.execute(_INSERT_HEAD, (game, rows[-1][1], rows[-1][7]))
            if not confirm_append(conn, game, rows, changes, new_row is not None):
                raise not_stored(self.path, game)
            conn.commit()
        except sqlite3.IntegrityError as exc:
            self._rollback()
            raise StoreError(f"cannot append to game {game!r}: {exc}") from None
        except sqlite3.Error as exc:
            self._rollback()
            if ran_past(exc):
                raise limit_error(self.path) from None
            raise StoreError(f"{self.path}: cannot append to game {game!r}: "
                             f"{not_written(exc)}; nothing was written") from None
        except BaseException:
            self._rollback()
            raise
        return expected_seq + len(events)

    @contextmanager
    def writing(self, what: str) -> Iterator[sqlite3.Connection]:
        """One write transaction beside the log (the seat links: events/seat_links.py), refused
        as an append is before anything is written (the database altered, read again under the
        lock; read-only; busy): a StoreError saying ``cannot {what}`` and why. Committed if the
        block ends normally, rolled back otherwise."""
        if self.altered:
            raise refusal(self.path, what, self.altered)
        if self.readonly:
            raise StoreError(f"{self.path}: cannot {what}: {self._why_read_only}; nothing was "
                             "written")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                self.altered, self._schema_version = recheck(
                    conn, self.path, what, self.altered, self._schema_version)
                yield conn
                conn.commit()
            except BaseException:
                self._rollback()
                raise
        except sqlite3.Error as exc:
            if ran_past(exc):
                raise limit_error(self.path) from None
            raise StoreError(f"{self.path}: cannot {what}: {not_written(exc)}; nothing was "
                             "written") from None

    def _rollback(self) -> None:
        try:
            self.conn.rollback()
        except sqlite3.Error:  # a failed write may have ended the transaction already
            pass

    def _new_game_row(self, game: str, first: dict[str, Any], first_chain: str
                      ) -> dict[str, Any] | None:
        """The games row to insert for a new game, or None if the table already holds exactly
        that row (a game whose events were removed outside warlog, added again). PhantomGame if
        it holds another row under that id."""
        row = game_row(game, first, first_chain)
        held = self._game_row(self.conn, game)
        if held is None:
            self._refuse_look_alike(game)
            return row
        if held == row:
            return None
        raise PhantomGame(game, adding=True)

    def _refuse_look_alike(self, game: str) -> None:
        """StoreError if a held game's id reads the same as ``game`` (their confusable skeletons,
        UTS #39, are equal: an all-Cyrillic "ѕсаре" beside "scape"). Only where one of the two
        is not ASCII: two ASCII ids are told apart by their bytes (``game-l`` is not
        ``game-1``), and ids of one script are already checked letter by letter."""
        held = [row[0] for row in self.conn.execute("SELECT id FROM games")]
        candidates = held if not game.isascii() else [h for h in held if not h.isascii()]
        if not candidates:
            return
        mine = skeleton(game)
        for other in sorted(candidates):
            if other != game and skeleton(other) == mine:
                raise StoreError(f"cannot add the game {shown(game)}: it reads the same as the "
                                 f"game {shown(other)} this database holds; choose another id; "
                                 "nothing was written")

    @staticmethod
    def _game_row(conn: sqlite3.Connection, game: str) -> dict[str, Any] | None:
        cursor = conn.execute(_GAME_ROW, [game])
        found = cursor.fetchone()
        return None if found is None else dict(zip([d[0] for d in cursor.description], found))

    @staticmethod
    def _check_batch(game: str, events: list[dict[str, Any]], expected_seq: int) -> None:
        """Cheap checks that need no lock: a non-empty list, a sane expected_seq, a first event."""
        if not isinstance(game, str) or not game:
            raise StoreError(f"game id must be a non-empty string, not {game!r}")
        if expected_seq == 0:  # a new game: its id follows the one rule for ids (events/ids.py)
            try:
                check_id(game, "game id")
            except IdError as exc:
                raise StoreError(f"cannot add the game: {exc}; nothing was written") from None
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
        dumps, sort, hasher, kinds = orjson.dumps, _SORT, sha256, _event_kinds()
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

    @bounded
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
                self._not_found(conn, game)
        return events

    def _damage(self, conn: sqlite3.Connection, game: str) -> None:
        """Raise GameDamaged for ``game``, with what its head records and what is stored."""
        stored, chain = conn.execute(_LAST_EVENT, [game]).fetchone() or _NOTHING
        recorded, head = conn.execute(_LAST_HEAD, [game]).fetchone() or _NOTHING
        if (stored, chain) != (recorded, head):
            raise GameDamaged(game, recorded, stored)
        count = conn.execute("SELECT count(*) FROM events WHERE game = ?", [game]).fetchone()[0]
        raise GameDamaged(game, recorded, stored, count)

    @bounded
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
                self._not_found(conn, game)
        return stored

    @bounded
    def last_seq(self, game: str) -> int:
        row = self.conn.execute("SELECT max(seq) FROM events WHERE game = ?", [game]).fetchone()
        return row[0] or 0

    @bounded
    def has_game(self, game: str) -> bool:
        """True if the game's first event is stored (a games row alone is no game)."""
        found = self.conn.execute("SELECT 1 FROM events WHERE game = ? AND seq = 1", [game])
        return found.fetchone() is not None

    @bounded
    def game_ids(self) -> list[str]:
        """The id of every game whose first event is stored, in order (from the events, not the
        games table: a game whose games row was removed is here, a phantom row is not)."""
        rows = self.conn.execute("SELECT game FROM events WHERE seq = 1 ORDER BY game")
        return [gid for (gid,) in rows]

    def _not_found(self, conn: sqlite3.Connection, game: str) -> None:
        """Raise GameNotFound for ``game``, or PhantomGame if only a games row holds its id."""
        if self._game_row(conn, game) is not None:
            raise PhantomGame(game)
        raise GameNotFound(game)

    @bounded
    def chains(self, game: str) -> list[str]:
        """The stored chain value of every event of ``game``, in seq order."""
        cursor = self.conn.execute("SELECT chain FROM events WHERE game = ? ORDER BY seq", [game])
        return [chain for (chain,) in cursor.fetchall()]

    @bounded
    def verify(self, game: str) -> int:
        """Recompute the hash chain of ``game``, check that it ends at the game's recorded head,
        and that every column repeating a fact of the log says what the log says; return its
        length. StoreError naming the first event whose stored bytes no longer match, that is
        missing, or whose row's columns differ from its body (naming the column), or the games
        row's column that differs from the first event (or that the row is missing);
        GameDamaged if the game was cut short (the database was changed outside warlog);
        DatabaseAltered if the database holds what warlog did not make (its games prove nothing)."""
        if self.altered:
            raise altered_error(self.path, self.altered)
        prev, count, first = GENESIS, 0, None
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT seq, turn, side, phase, kind, body, chain FROM events WHERE game = ? "
                "ORDER BY seq", [game]
            ).fetchall()
            recorded, head = conn.execute(_LAST_HEAD, [game]).fetchone() or _NOTHING
            held = self._game_row(conn, game)
            if not rows and not recorded:
                self._not_found(conn, game)
        loads, facts = orjson.loads, event_columns
        with _gc_paused():  # a dict an event: see _gc_paused
            for seq, turn, side, phase, kind, body, chain in rows:
                count += 1
                if seq != count:
                    raise StoreError(
                        f"game {game!r}, event seq {count} is missing (the next one stored is "
                        f"seq {seq}) — the database was changed outside warlog"
                    )
                prev = link(prev, body.encode())
                if chain != prev:
                    raise StoreError(
                        f"game {game!r}, event seq {seq}: hash chain broken — the database was "
                        "changed outside warlog"
                    )
                columns = (game, seq, turn, side, phase, kind)
                try:
                    event = loads(body)
                    same = facts(event) == columns
                except (orjson.JSONDecodeError, AttributeError):  # not JSON, not an object
                    same = False
                if not same:
                    raise StoreError(column_damage(game, seq, columns, body))
                if first is None:
                    first = event
        if (count, prev) != (recorded, head):
            raise GameDamaged(game, recorded, count)
        check_games_row(game, held, first, rows[0][-1])
        return count

    @bounded
    def games(self) -> list[GameInfo]:
        """Every game, ordered by id, with its length and outcome, all read from the log.

        A game is listed if its first event is stored (a games row alone is a phantom, not a
        game; a game whose games row was removed is still one). Its facts come from that
        event's body, its length and how it ended from its last event's body (or the last that
        is not a note: only notes may follow a game_ended). The columns that repeat them may
        have been changed outside warlog; ``verify`` checks those. A game whose first or last
        event is not what warlog writes is one StoreError naming its damage."""
        infos = []
        with self._snapshot() as conn:
            for gid, first, last in conn.execute(_LISTING).fetchall():
                facts, end = orjson.loads(first), orjson.loads(last)
                seq = end.get("seq") if isinstance(end, dict) else None
                if isinstance(end, dict) and end.get("kind") == "note":
                    found = conn.execute(_LAST_NOT_NOTE, [gid]).fetchone()
                    end = orjson.loads(found[0]) if found else None
                if (facts[6] != "game_started" or not all(isinstance(v, str) for v in facts[:2])
                        or not isinstance(end, dict) or type(seq) is not int):
                    raise self._damaged(gid)
                rule_system, period, scenario_id, title, players, played, _ = facts
                ended = end.get("kind") == "game_ended"
                infos.append(
                    GameInfo(
                        id=gid,
                        rule_system=rule_system,
                        period=period,
                        scenario_id=scenario_id,
                        title=title,
                        players=players or {},
                        played=played,
                        events=seq,
                        ended=ended,
                        winner=end.get("winner") if ended else None,
                        reason=end.get("reason") if ended else None,
                    )
                )
        return infos

    def _damaged(self, game: str) -> StoreError:
        """The error for a game whose stored first or last event is no event warlog wrote: what
        ``verify`` finds changed, with the database's name."""
        try:
            self.verify(game)
        except StoreError as exc:
            return StoreError(f"{self.path}: the database is damaged: {exc}")
        return StoreError(f"{self.path}: the database is damaged: game {game!r} does not begin "
                          "with a game_started event")

    # -- lifetime ----------------------------------------------------------------------------

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
