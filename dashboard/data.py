"""Loading games for the dashboard, cached so that scrubbing never re-reads or re-folds a game.

Why it is shaped this way:

* The store is opened per call, not kept in ``st.cache_resource``: a sqlite3 connection belongs
  to the thread that opened it, and Streamlit runs each script run in its own thread. Opening
  the file costs well under a millisecond; what is worth caching is what we read from it.
* Event lists are cached keyed by (database, game, event count), so a game that grows (someone
  is still playing it) is read again, and a finished one never is.
* Everything cached per game (events, Timeline, projections, figures) is only read by the page,
  so it is shared with ``st.cache_resource``: ``st.cache_data`` would unpickle a fresh copy of a
  10,000-event list on every rerun, and the garbage those copies leave set off full collections
  (about 250 ms each) that broke the step-switch budget (benchmarks/bench_dashboard.py).
* Once a game is loaded its objects are frozen out of the garbage collector (``gc.freeze``):
  they live as long as the cache, and a full collection need not walk them on every rerun.
* ``parse_upload`` has no Streamlit in it: the page shows its ReplayError with ``st.error``, and
  tests call it directly.
* Trust by default: a file is added to the database (``import_upload``) only if it re-derives,
  as ``warlog import`` requires. A file opened only to watch it (``parse_upload``) is checked as
  a file and folded, not required to re-derive: the replay header says what was proven of the
  game on show (``verified_line``), whether it came from an upload or from the database.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
from functools import partial
from typing import Any

import streamlit as st

from warlog.app import background
from warlog.app.background import Progress
from warlog.engine import analysis, teaching
from warlog.engine.fold import FoldError, Timeline, replay
from warlog.engine.state import GameState
from warlog.engine.takeback import voided
from warlog.engine.verify import (Report, order_count, require_rederived, search_sides,
                                  verify, what_was_checked)
from warlog.events.replay_file import ReplayError, encode_replay, load_replay_bytes, store_game
from warlog.events.store import StoreError
from warlog.events.model import make_note
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.markup import WORD_JOINER, code_span, markdown_text  # noqa: F401 (the pages' names)

Event = dict[str, Any]
DEFAULT_DB = "warlog.db"
REPLAY_TYPES = ["jsonl", "gz"]  # what `warlog export` writes: NAME.jsonl, or NAME.jsonl.gz


def db_path() -> str:
    """The database the dashboard reads: $WARLOG_DB, or warlog.db in the working directory."""
    return os.environ.get("WARLOG_DB") or DEFAULT_DB


@st.cache_resource(show_spinner="Preparing the database (demo games on first run)…")
def ensure_database(path: str) -> int:
    """Create the database if needed and seed the demo games into an empty one (once per
    process and path); returns how many games were added."""
    from warlog.app.demo import ensure_demo_games

    with SQLiteEventStore(path) as store:
        return ensure_demo_games(store)


@st.cache_data(ttl=5, show_spinner=False)
def list_games(path: str) -> list[dict[str, Any]]:
    """The games in the database as plain dicts (id, title, events, ended, winner, reason...).
    A short ttl: games added by the CLI meanwhile show up within seconds."""
    with SQLiteEventStore(path) as store:
        return [dataclasses.asdict(info) for info in store.games()]


def sidebar_games(path: str) -> list[dict[str, Any]] | str:
    """The games of the database at ``path`` for a page's sidebar (its path and count shown
    there), or the one line saying why there are none to show: the database cannot be opened
    (a missing folder, a file that is no database) or holds no game."""
    import sqlite3

    try:
        ensure_database(path)
        games = list_games(path)
    except (StoreError, sqlite3.Error) as exc:
        return f"Cannot open the database {path}: {exc}"
    st.sidebar.caption(f"Database: {code_span(path)} · {len(games)} games")
    if not games:
        return f"There are no games in {path}."
    return games


@st.cache_resource(show_spinner=False, max_entries=32)
def read_events(path: str, game: str, count: int) -> list[Event]:
    """All events of ``game`` (shared: read only); ``count`` (its event count) is part of the
    cache key only."""
    with SQLiteEventStore(path) as store:
        return store.read(game)


@st.cache_resource(show_spinner=False, max_entries=8)
def state_now(path: str, game: str, count: int) -> GameState:
    """The state of ``game`` after its last stored event (shared: read only; ``count`` keys the
    cache): the board of a game offered to continue, before it is opened."""
    return replay(read_events(path, game, count))


def parse_upload(data: bytes, name: str = "upload.jsonl") -> list[Event]:
    """Validate the bytes of an uploaded replay file (``.jsonl``, or gzip-compressed) and
    return its events.

    Checks everything import checks of the file itself (the limits, header, hash chain, schema,
    numbering), then folds the whole game once, so a file the engine cannot replay is refused
    here with a message rather than failing later in the middle of the page. Whether it
    re-derives is ``verified_line``'s to say. Raises ReplayError with a readable message.
    """
    events = load_replay_bytes(data, name)
    try:
        Timeline(events)
    except (FoldError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ReplayError(f"{name}: the game cannot be replayed: {exc}") from None
    return events


@st.cache_resource(show_spinner=False, max_entries=8)
def load_upload(data: bytes, name: str) -> list[Event]:
    """parse_upload, cached on the file's bytes (reruns do not re-validate the same file)."""
    return parse_upload(data, name)


def source_key(*parts: Any) -> str:
    """A short stable key naming where a game came from (for caches and session state)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


@st.cache_resource(show_spinner=False, max_entries=16)
def timeline(key: str, _events: list[Event]) -> Timeline:
    """The game's Timeline, shared across reruns and sessions (read-only: state_at copies)."""
    built = Timeline(_events)
    gc.freeze()  # the game's events and snapshots: long-lived, not worth a collector's walk
    return built


@st.cache_resource(show_spinner="Preparing the questions…", max_entries=16)
def questions(key: str, _events: list[Event]) -> dict[int, teaching.Question]:
    """Teaching mode's question for every step that has one, by step index (computed once a
    game: legality questions ask the rule system, which is worth caching)."""
    tl, steps = timeline(key, _events), analysis.steps(_events)
    found = (teaching.question(_events, s, tl.state_at) for s in steps)
    return {q.step: q for q in found if q is not None}


@st.cache_resource(show_spinner=False, max_entries=16)
def projections(key: str, _events: list[Event]) -> dict[str, Any]:
    """Everything the page charts or lists that depends on the whole game, computed once."""
    steps = analysis.steps(_events)
    return {
        "steps": steps,
        "attrition": analysis.attrition(_events),
        "units": analysis.unit_timeline(_events),
        "luck": analysis.luck(_events),
        "exhaustion": analysis.exhaustion(_events),
        "notes": analysis.notes_by_step(_events, steps),
        "luck_turns": analysis.luck_by_turn(_events),
        "voided": voided(_events),  # seq -> the take-back that voided it: struck through
    }


@st.cache_resource(show_spinner=False, max_entries=64)
def attrition_chart(key: str, turn: int, _proj: dict[str, Any]):
    """The attrition figure with ``turn`` marked: one per (game, turn), built once. Shared, not
    copied: st.plotly_chart only reads the figure (building it costs more than the page)."""
    from warlog.app.pictures.charts import attrition_figure

    return attrition_figure(_proj["attrition"], current_turn=turn, per_unit_rows=_proj["units"])


@st.cache_resource(show_spinner=False, max_entries=64)
def exhaustion_chart(key: str, turn: int, _proj: dict[str, Any]):
    """The exhaustion figure with ``turn`` marked, built once per (game, turn)."""
    from warlog.app.pictures.charts import exhaustion_figure

    return exhaustion_figure(_proj["exhaustion"], current_turn=turn)


def add_note(path: str, game: str, about: int, text: str, author: str | None) -> dict[str, Any]:
    """Append a note about event ``about`` to a stored game (one transaction, refused if someone
    appended meanwhile); the caches see the new event count at once."""
    with SQLiteEventStore(path) as store:
        events = store.read(game)
        note = make_note(events, about, text, author)
        store.append(game, [note], events[-1]["seq"])
    list_games.clear()
    return note


@st.cache_data(show_spinner=False, max_entries=8)
def replay_bytes(path: str, game: str, count: int) -> bytes:
    """The exact replay file of a stored game (``count`` keys the cache)."""
    with SQLiteEventStore(path) as store:
        return encode_replay(store.read(game))


def import_upload(path: str, raw: bytes, name: str, progress: Progress | None = None) -> str:
    """Add an uploaded replay file to the database, trusted only if it re-derives: checked as
    ``warlog import`` checks it, then verified (orders and dice in, the same events out), by the
    same functions. Returns the game id; ReplayError or StoreError with a readable message
    otherwise, with nothing written. ``progress`` hears of each order re-derived of a game a
    search bot played (minutes); of any other game (a second), nothing."""
    events = load_replay_bytes(raw, name)
    slow = bool(events and search_sides(events[0], events))
    # NotRederived names the line and the first difference
    require_rederived(events, name, progress if slow else None)
    with SQLiteEventStore(path) as store:
        game = store_game(store, events, name)
    list_games.clear()
    return game


@dataclasses.dataclass(frozen=True)
class Pending:
    """A game a search bot played, still being re-derived in the background: ``done`` of its
    ``total`` orders so far; ``sides``: the sides the search bot played."""

    done: int
    total: int
    sides: tuple[str, ...]


@st.cache_resource(show_spinner="Re-deriving the game from its orders and dice…", max_entries=16)
def _rederived(key: str, _events: list[Event]) -> Report:
    return verify(_events)


def _report(key: str, events: list[Event]) -> Report | Pending:
    """verify's report on ``events`` (``key`` names them: source and length), once per server.
    A game a search bot played takes minutes (each of its orders is re-chosen by playing its
    playouts again), so it is re-derived in the background, and until then this is how far it
    has come; any other takes a second, here and now."""
    sides = search_sides(events[0], events) if events else []
    if not sides:
        return _rederived(key, events)
    running = background.job(f"verify:{key}", partial(verify, events))
    if running.finished:
        return running.result()
    total = running.total or order_count(events)  # not begun yet
    return Pending(running.done, total, tuple(sides))


@st.cache_resource(show_spinner=False, max_entries=16)
def _chain_error(identity: str, game: str | None, count: int) -> str | None:
    """What is wrong with a stored game's own hash chain (its rows, to its recorded head), if
    anything. An upload's chain was checked as it was read (parse_upload refuses a broken one)."""
    if identity != f"db:{db_path()}:{game}":
        return None
    try:
        with SQLiteEventStore(db_path()) as store:
            store.verify(game)
    except (StoreError, ValueError) as exc:
        return str(exc)
    return None


def upload_refusal(key: str, events: list[Event]) -> str | Pending | None:
    """Why an uploaded file may not be shown: it does not re-derive from its own orders and
    dice (an edited die, even with its hash chain recomputed). A file that merely stops inside
    an order (a game exported while it was being played) is shown, marked not verified. A game
    a search bot played is checked in the background: Pending until then. (The page's verified
    line reads the same report: the file is re-derived once.)"""
    report = _report(f"upload:{key}:{len(events)}", events)
    if isinstance(report, Pending):
        return report
    if report.ok or report.mismatch.message.startswith("the log stops after"):
        return None
    return (f"it does not re-derive from its own orders and dice: event seq "
            f"{report.mismatch.seq}: {report.mismatch.message}")


def verified_line(identity: str, events: list[Event]) -> str | Pending:
    """What is proven of the game on show, for the replay header as markdown-safe text
    (verify's wording, see engine.verify.what_was_checked): re-derived once per game and
    length. ``identity`` is the page's ``game_identity`` (``db:PATH:GAME`` or ``upload:KEY``).
    A game a search bot played is re-derived in the background: Pending until then."""
    report = _report(f"{identity}:{len(events)}", events)
    if isinstance(report, Pending):
        return report
    game = events[0].get("game") if events else None
    chain_error = _chain_error(identity, game, len(events))
    return markdown_text(what_was_checked(report, chain_error=chain_error))


@st.cache_resource(show_spinner=False, max_entries=64)
def luck_chart(key: str, turn: int, _proj: dict[str, Any]):
    """The luck-over-time figure with ``turn`` marked, built once per (game, turn)."""
    from warlog.app.pictures.charts import luck_figure

    return luck_figure(_proj["luck_turns"], current_turn=turn)


# -- the win-probability curve (stored by `warlog winprob` or the page's button) ---------------

DASHBOARD_PLAYOUTS = 16  # a turn, in process: a rough curve in seconds (the CLI does better)


def stored_curve(path: str, game: str, last_seq: int) -> dict[str, Any] | None:
    """The curve stored for this game at its present length, or None (a game that grew since
    has none until it is computed again). Not cached: one indexed query, and a curve computed
    by the CLI meanwhile shows at the next rerun."""
    from warlog.events.analysis_store import AnalysisStore

    with AnalysisStore(path) as store:
        return store.latest_curve(game, last_seq)


def compute_curve(path: str, events: list[Event], progress=None) -> dict[str, Any]:
    """Compute the game's curve in process with DASHBOARD_PLAYOUTS playouts a turn (the game's
    own bots, else the tactician), store it beside the game and return it."""
    from warlog.events.analysis_store import AnalysisStore
    from warlog.app.whatif_job import run_curve

    curve = run_curve(events, playouts=DASHBOARD_PLAYOUTS, seed=1, scheduler="inprocess",
                      progress=progress)
    with AnalysisStore(path) as store:
        store.save_curve(curve["game"], curve["params"], curve["last_seq"], curve)
    return curve


@st.cache_resource(show_spinner=False, max_entries=64)
def winprob_chart(key: str, turn: int, params: str, _curve: dict[str, Any]):
    """The win-probability figure with ``turn`` marked, built once per (game, turn, curve
    parameters)."""
    from warlog.app.pictures.charts import winprob_figure

    return winprob_figure(_curve, current_turn=turn)
