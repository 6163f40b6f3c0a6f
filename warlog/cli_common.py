"""What every `warlog` command shares: its consoles, the --db option, one-line errors (never a
traceback for a user's mistake), and the database opened with any damage named.

The command modules (cli.py, tabletop_cmd.py, replay_cmd.py, odds_cmd.py, study_cmd.py,
whatif_cmd.py) import from here; cli.py registers them all on one Typer app.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Callable, Iterator

import typer
from rich.markup import escape
from typer.core import TyperGroup

from warlog.terminal import SafeConsole

# Every string printed goes through warlog/terminal.py: no control sequence from a log, a file
# or an argument reaches the terminal raw.
out = SafeConsole(highlight=False, soft_wrap=True)
err = SafeConsole(stderr=True, highlight=False, soft_wrap=True)


# Usage errors: click's, or the copy of click that recent typers carry (found through the class
# typer exports, so either works).
_USAGE_ERRORS = tuple(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class OneLineErrors(TyperGroup):
    """Every user error, a mistyped option as much as a refused order, is one line on stderr
    and exit code 1, whatever the command (click would box usage errors and exit 2)."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _USAGE_ERRORS as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # the help was printed: asked for
                return 0 if not standalone_mode else sys.exit(0)
            err.print(f"[red]error:[/red] {escape(exc.format_message())}")
            code = 1
        except typer.Abort:
            err.print("[red]error:[/red] aborted")
            code = 1
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


DbOption = Annotated[
    Path,
    typer.Option("--db", envvar="WARLOG_DB", help="SQLite database file (or set WARLOG_DB)."),
]
DEFAULT_DB = Path("warlog.db")

# -- the ranges of number options (typer's min and max: a value outside them is the parser's one
# line naming the option, before the command runs) -----------------------------------------

MAX_SEED = 2**63 - 1
"""Seeds are stored as SQLite integers (signed 64-bit): 0 to 2**63 - 1."""
MAX_GAMES = 1_000_000
"""simulate --games: the tasks of a study are held in memory before they run."""
MAX_PLAYOUTS = 100_000
"""whatif and winprob --playouts (a curve plays that many a turn)."""
MAX_WORKERS = 1024
"""--workers of a local Dask cluster: processes on one machine."""
SEED_RANGE = {"min": 0, "max": MAX_SEED}
WORKERS_RANGE = {"min": 1, "max": MAX_WORKERS}


def id_option(what: str) -> Callable[[Any], Any]:
    """A typer callback checking an option that gives an id or a name (a game id, a player's
    name) by events/ids.py's rule as it is parsed: a bad one is the parser's one line naming
    the option, before anything is opened."""
    from warlog.events.ids import IdError, check_id, normalised

    def check(value: Any) -> Any:
        if value is None:
            return value
        try:  # typed text is composed first (NFC): an accent typed apart is the same letter
            return check_id(normalised(value), what)
        except IdError as exc:
            raise typer.BadParameter(str(exc)) from None

    return check


def user_errors() -> tuple[type[Exception], ...]:
    """The errors a user's input can cause: each is shown as its one-line message (imported when
    needed, so a command that meets none of them does not load the engine)."""
    from warlog.engine.dice import DiceError
    from warlog.engine.fold import FoldError
    from warlog.engine.rules import IllegalOrder
    from warlog.engine.scenario import ScenarioError
    from warlog.events.ids import IdError
    from warlog.events.model import EventError
    from warlog.events.replay_file import ReplayError
    from warlog.events.safe_files import FileRefused
    from warlog.events.store import StoreError

    from warlog.app.notation import NotationError
    from warlog.app.study import StudyError

    return (ScenarioError, ReplayError, StoreError, IllegalOrder, EventError, DiceError,
            FoldError, NotationError, StudyError, IdError, FileRefused, OSError)


def fail(message: str) -> None:
    """Print ``message`` as one error line: as text, never as rich markup (it may quote a game
    id, a file name or a file's contents, any of which may look like markup)."""
    err.print(f"[red]error:[/red] {escape(' '.join(message.splitlines()))}")


@contextmanager
def friendly() -> Iterator[None]:
    """Turn a user's mistake into one readable line and exit code 1."""
    import sqlite3

    try:
        yield
    except user_errors() as exc:
        fail(str(exc))
        raise typer.Exit(1) from None
    except sqlite3.Error as exc:  # a damaged or busy database file, met outside database()
        fail(f"the database cannot be read ({exc})")
        raise typer.Exit(1) from None


def open_store(db: Path):
    """The SQLiteEventStore at ``db`` (a context manager). A database altered outside warlog
    (an object warlog did not make: the store then refuses every write) or one read as
    immutable is said on stderr, one line each, before the command's own output."""
    from warlog.events.sqlite_store import SQLiteEventStore

    store = SQLiteEventStore(db)
    if store.altered:
        err.print(escape(f"warning: {db}: the database was altered outside warlog ("
                         f"{'; '.join(store.altered)}): it is read as it is, and nothing will "
                         "be written to it"))
    if store.note:
        err.print(escape(f"note: {db}: {store.note}"))
    return store


def _damaged_row(store, game: str | None) -> str:
    """Which stored row holds JSON that does not parse (the first event of ``game``, or of any
    game, then the games' player lists), in words."""
    import sqlite3

    import orjson

    try:
        where, args = ("WHERE game = ? ", [game]) if game is not None else ("", [])
        rows = store.conn.execute(f"SELECT game, seq, body FROM events {where}ORDER BY game, seq",
                                args)
        for owner, seq, body in rows:
            try:
                orjson.loads(body)
            except orjson.JSONDecodeError as exc:
                return f"game {owner!r}, event seq {seq}: the stored event is not valid JSON " \
                       f"({exc.msg})"
        for owner, players in store.conn.execute("SELECT id, players FROM games ORDER BY id"):
            try:
                orjson.loads(players)
            except orjson.JSONDecodeError:
                return f"game {owner!r}: its stored players are not valid JSON"
    except sqlite3.Error:
        pass
    return "a stored row is not valid JSON"


def _broken_chain(store, game: str | None) -> str | None:
    """What the hash chain of ``game`` (or of every game) says was changed outside warlog, or
    None if every chain holds."""
    import sqlite3

    from warlog.events.store import StoreError

    try:
        games = [game] if game is not None and store.has_game(game) else \
            store.game_ids()  # from the log: a game whose games row was deleted is checked too
        for gid in games:
            try:
                store.verify(gid)
            except StoreError as exc:
                return str(exc)
    except (sqlite3.Error, ValueError) as exc:
        return f"it cannot be read ({exc})"
    return None


@contextmanager
def database(db: Path, game: str | None = None) -> Iterator:
    """The store at ``db``, with what a damaged file raises (a row whose JSON does not parse, a
    page SQLite cannot read, a row that parses but is not what warlog wrote) turned into one
    StoreError naming the database and, where it can, the game and event."""
    import sqlite3

    import orjson

    from warlog.events.store import StoreError

    with open_store(db) as store:
        try:
            yield store
        except orjson.JSONDecodeError:
            raise StoreError(f"{db}: the database is damaged: {_damaged_row(store, game)} "
                             "(it was changed outside warlog)") from None
        except sqlite3.OperationalError as exc:
            if "malformed JSON" in str(exc):
                raise StoreError(f"{db}: the database is damaged: {_damaged_row(store, game)} "
                                 "(it was changed outside warlog)") from None
            raise StoreError(f"{db}: cannot read the database ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{db}: the database file is damaged ({exc}); restore it from a "
                             "copy, or import the games' replay files into a new one") from None
        except (TypeError, KeyError, AttributeError, IndexError):
            # A row that parses but is not an event as warlog wrote it: a changed row breaks
            # its game's chain, and then that is the message. An intact chain means a bug.
            damage = _broken_chain(store, game)
            if damage is None:
                raise
            raise StoreError(f"{db}: the database is damaged: {damage}") from None


@contextmanager
def stored_damage(ref: str, db: Path) -> Iterator[None]:
    """Around reading a stored game (``ref`` not a file): a TypeError, KeyError, AttributeError
    or IndexError met on its way is the database's damage if the game's chain says it was
    changed outside warlog (one line saying so); otherwise it is a bug, and is raised."""
    from warlog.events.store import StoreError

    try:
        yield
    except (TypeError, KeyError, AttributeError, IndexError):
        if Path(ref).exists():
            raise
        with open_store(db) as store:
            damage = _broken_chain(store, ref)
        if damage is None:
            raise
        raise StoreError(f"{db}: the database is damaged: {damage}") from None


def slow_reason(events: list[dict], name: object) -> str | None:
    """Why re-deriving ``events`` takes minutes, in one line: a search bot played it (its orders
    are re-chosen by playing its playouts again); None for any other game (a second)."""
    from warlog.engine.verify import search_sides

    sides = search_sides(events[0], events) if events else []
    if not sides:
        return None
    return (f"re-deriving {name}: the search bot's orders ({' and '.join(sides)}) are "
            "re-chosen by playing its playouts again, which can take minutes")


@contextmanager
def slow_bar(label: str, noun: str, why: str | None) -> Iterator[Callable[[int, int], None]]:
    """A progress callback for work that takes minutes (``why`` says why): a bar on a terminal,
    else the one line ``why`` on stderr; for work of a second (``why`` None), nothing."""
    from warlog.progress import progress_bar

    if why and not err.is_terminal:
        err.print(why, markup=False)
    with progress_bar(label, noun=noun, console=err,
                      enabled=bool(why) and err.is_terminal) as progress:
        yield progress


@contextmanager
def rederiving(events: list[dict], name: object) -> Iterator[dict[str, Any]]:
    """verify's arguments for ``events``: nothing for most games (a second), but a game a search
    bot played takes minutes: a pool of processes, one a core, re-chooses its orders side by
    side, and the player sees a progress bar (``slow_bar``)."""
    why = slow_reason(events, name)
    with slow_bar(f"re-deriving {name}", "orders", why) as progress, \
            _choosers(why is not None) as pool:
        yield {"progress": progress, "pool": pool}


@contextmanager
def _choosers(wanted: bool) -> Iterator[Any]:
    """Processes for bots' choices (forkserver: no copy of this process's threads or locks),
    shut down, queued work dropped, however the block ends (Ctrl-C too); None on one core."""
    import os

    workers = os.cpu_count() or 1
    if not wanted or workers < 2:
        yield None
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"))
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def events_of(ref: str, db: Path) -> list[dict]:
    """A replay file's events, read with every check and re-derived before use (trust by
    default: nothing from a file reaches the engine's readers unless it follows from its own
    orders and dice), or a stored game's (the store checked it as it was appended: a stored
    game's command does not load the referee's machinery)."""
    path = Path(ref)
    if path.is_file() or (path.exists() and not path.is_dir()):  # a pipe or device: refused
        from warlog.engine.verify import require_rederived
        from warlog.events.replay_file import load_replay

        events = load_replay(path)
        with rederiving(events, ref) as how:
            require_rederived(events, ref, **how)
        return events
    with database(db, ref) as store:
        return store.read(ref)
