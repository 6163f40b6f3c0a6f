"""Single-file JSONL replays: one game, one file, shareable and tamper-evident.

Line 1 is a header naming the format, its version, the game and everything needed to rebuild it
(rule system, period, options, the whole scenario, the seed), copied from the game's first event.
Every later line is one event as canonical JSON plus a ``"chain"`` key: sha256 of the previous
line's chain and the event's canonical bytes (the header's chain starts from GENESIS). The last
line closes the file: ``{"end": "warlog-replay", "events": N, "chain": ...}``, chained like the
rest. Editing any value on any line breaks the chain from that line on, and the error names the
line; a file cut short (even exactly at a line end) has no closing line and is refused.

A file whose name ends in ``.gz`` is written gzip-compressed (deterministically: no name, no
time); reading recognises gzip by its first bytes, whatever the name.

Writing is deterministic (sorted keys, no timestamps), so the same events give the same bytes, and
atomic (temp file in the same folder, then ``os.replace``), so a crash never leaves half a file.

Reading is defensive, because a replay file is input from anyone: events/replay_input.py opens
it, unpacks it and parses each line under named limits; this module adds the format's own (the
event count, a move's path, the game id) and names the line of every problem in a ``ReplayError``.

The chain proves a file was not changed after it was written, not that the game is genuine: a
forger can recompute every link. Whether the events follow from the game's orders and dice is
``warlog.engine.verify``'s question, which ``warlog import`` asks before anything is stored.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import warlog
from warlog.events.chain import GENESIS, CanonicalError, canonical, link
from warlog.events import fields, ids
from warlog.events.model import EventError, parse_event, to_dict
from warlog.events.replay_input import (
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    ReplayError,
    maybe_gunzip,
    open_regular_file,
    parse_line,
    read_lines,
    short_repr,
)
from warlog.events.safe_files import check_output
from warlog.events.store import EventStore, GameExists, StoreError
from warlog.events.upcast import UpcastError

FORMAT = "warlog-replay"
FORMAT_VERSION = 1
SUFFIX = ".jsonl"
GZIP_SUFFIX = ".gz"

# -- the format's own limits (the file's, a line's, a value's: events/replay_input.py) -------

MAX_PATH_CELLS = fields.MAX_PATH_CELLS  # stated with the path's type (events/fields.py)
MAX_EVENTS = 250_000
"""Events in one game (a 50 MB file of the smallest events holds fewer)."""
MAX_GAME_ID_CHARS = ids.MAX_ID_CHARS
"""Characters in a game id (events/ids.py: the one rule for ids)."""

HEADER_FIELDS = ("game", "rule_system", "period", "options", "scenario", "seed")
"""Header fields copied from the first event (game_started); import checks they still agree."""
HEADER_KEYS = ("format", "format_version", "warlog_version", *HEADER_FIELDS, "chain")
"""Every key of the header line, and no other (docs/replay-format.md: exactly these ten)."""
CLOSING_KEYS = ("end", "events", "chain")


class ChainError(ReplayError):
    """A line whose hash does not follow from the lines before it: the file was edited."""

    def __init__(self, path: str | Path, line: int, seq: int | None) -> None:
        self.path, self.line, self.seq = str(path), line, seq
        what = ("header" if line == 1 else
                f"event seq {seq}" if seq is not None else "closing line")
        super().__init__(
            f"{path}: line {line} ({what}): hash chain broken — the file was changed after it "
            "was written"
        )


@dataclass(frozen=True)
class Replay:
    """A replay as read from disk: its header and its events (without their chain keys)."""

    header: dict[str, Any]
    events: list[dict[str, Any]]

    @property
    def game(self) -> str:
        return self.header["game"]


# -- writing ---------------------------------------------------------------------------------


def make_header(first: dict[str, Any]) -> dict[str, Any]:
    """The header line for a game whose first event is ``first`` (game_started), chain included."""
    if first.get("kind") != "game_started":
        raise ReplayError(
            f"a replay starts with the game_started event, not {first.get('kind')!r}"
        )
    header: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "warlog_version": warlog.__version__,
        **{name: first.get(name) for name in HEADER_FIELDS},
    }
    header["chain"] = link(GENESIS, canonical(header))
    return header


def encode_replay(events: list[dict[str, Any]]) -> bytes:
    """The bytes of a replay file holding ``events`` (seqs 1, 2, ... of one game)."""
    if not events:
        raise ReplayError("cannot write a replay with no events")
    header = make_header(events[0])
    game, prev = header["game"], header["chain"]
    lines = [canonical(header)]
    for number, event in enumerate(events, start=1):
        if event.get("game") != game or event.get("seq") != number:
            raise ReplayError(
                f"cannot write replay of game {game!r}: event {number} is seq "
                f"{event.get('seq')!r} of game {event.get('game')!r}; expected seq {number}"
            )
        if "chain" in event:
            raise ReplayError(f"event seq {number} already has a 'chain' key; pass plain events")
        try:
            body = canonical(event)
        except CanonicalError as exc:
            raise ReplayError(f"event seq {number}: {exc}") from None
        prev = link(prev, body)
        lines.append(canonical({**event, "chain": prev}))
    closing = {"end": FORMAT, "events": len(events)}
    lines.append(canonical({**closing, "chain": link(prev, canonical(closing))}))
    return b"\n".join(lines) + b"\n"


def compress(data: bytes) -> bytes:
    """``data`` gzip-compressed the same way every time (no file name, no time stamp)."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def is_gzip_name(path: str | Path) -> bool:
    return str(path).endswith(GZIP_SUFFIX)


def _mode_for(path: Path) -> int:
    """The permissions a plain ``open(path, "wb")`` would leave: the file's own when it exists,
    else read-write for whoever the umask allows (a shared replay is readable by others, as any
    file the user saves; the temp file alone would make it 0600)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and ``os.replace``; only
    onto a regular file or a new one (``os.replace`` would put a file where a named pipe or a
    device was: events/safe_files.check_output refuses them, FileRefused)."""
    path = check_output(path)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_replay(path: str | Path, events: list[dict[str, Any]]) -> None:
    """Write ``events`` (a whole game, from its game_started) as a replay file at ``path``;
    gzip-compressed when the name ends in ``.gz``."""
    data = encode_replay(events)
    write_bytes_atomic(path, compress(data) if is_gzip_name(path) else data)


def export_game(store: EventStore, game_id: str, path: str | Path) -> None:
    """Write the stored game ``game_id`` to ``path`` as a replay file (``.gz``: compressed)."""
    write_replay(path, store.read(game_id))


# -- reading: the header, the chained events and the closing line ------------------------


def _canonical(path: str | Path, number: int, value: dict[str, Any]) -> bytes:
    try:
        return canonical(value)
    except CanonicalError as exc:
        raise ReplayError(f"{path}: line {number}: {exc}") from None


def _check_header(path: str | Path, header: dict[str, Any], check_chain: bool) -> None:
    if header.get("format") != FORMAT:
        raise ReplayError(
            f'{path}: not a warlog replay (line 1 has no "format": "{FORMAT}")'
        )
    version = header.get("format_version")
    if type(version) is not int or version < 1:
        raise ReplayError(f"{path}: line 1: format_version {short_repr(version)} is not a version "
                          "number")
    if version > FORMAT_VERSION:
        raise ReplayError(
            f"{path}: replay format_version {version} is newer than this warlog supports "
            f"({FORMAT_VERSION}); upgrade warlog (the file says it was written by warlog "
            f"{short_repr(header.get('warlog_version', '?'), 30)})"
        )
    if check_chain:
        body = {k: v for k, v in header.items() if k != "chain"}
        if header.get("chain") != link(GENESIS, _canonical(path, 1, body)):
            raise ChainError(path, 1, None)
    for name in HEADER_FIELDS:
        if name not in header:
            raise ReplayError(f"{path}: line 1: the header has no {name!r} field")
    unknown = sorted(set(header) - set(HEADER_KEYS), key=str)
    if unknown:
        raise ReplayError(f"{path}: line 1: the header has a field {short_repr(unknown[0], 40)} "
                          f"the format does not know; a header holds exactly "
                          f"{', '.join(HEADER_KEYS)}")
    try:
        ids.check_id(header["game"], "game id")  # the rule every game id is made under
    except ids.IdError as exc:
        raise ReplayError(f"{path}: line 1: {exc}") from None


Take = Callable[[dict[str, Any], int, dict[str, Any]], None]
"""What is done with each event read: take(header, line number, event)."""


def _scan(lines: Iterator[tuple[int, bytes]], name: str | Path, check_chain: bool,
          max_events: int, take: Take) -> dict[str, Any]:
    """Read the header, then hand each event (chain key removed, link checked) to ``take``
    with its line number, then check the closing line; return the header."""
    number, line = next(lines)
    header = parse_line(name, 1, line, "the replay header")
    _check_header(name, header, check_chain)
    prev = header.get("chain", GENESIS)
    count = 0
    for number, line in lines:
        record = parse_line(name, number, line, "one event")
        if "end" in record:  # the closing line: nothing may follow it
            if next(lines, None) is not None:
                raise ReplayError(f"{name}: line {number}: a closing line before the end of the "
                                  "file")
            chain = record.pop("chain", None)
            if check_chain and chain != link(prev, _canonical(name, number, record)):
                raise ChainError(name, number, None)
            unknown = sorted(set(record) - set(CLOSING_KEYS), key=str)
            if unknown:
                raise ReplayError(f"{name}: line {number}: the closing line has a field "
                                  f"{short_repr(unknown[0], 40)}; it holds exactly "
                                  f"{', '.join(CLOSING_KEYS)}")
            if record.get("end") != FORMAT:
                raise ReplayError(f"{name}: line {number}: the closing line names "
                                  f"{short_repr(record.get('end'))}, not {FORMAT!r}")
            if record.get("events") != count:
                raise ReplayError(
                    f"{name}: the closing line counts {short_repr(record.get('events'))} events, "
                    f"but the file holds {count}"
                )
            return header
        count += 1
        if count > max_events:
            raise ReplayError(f"{name}: line {number}: more than {max_events:,} events; games "
                              "that long are refused")
        chain = record.pop("chain", None)
        if check_chain:
            if chain != link(prev, _canonical(name, number, record)):
                raise ChainError(name, number, record.get("seq"))
            prev = chain
        take(header, number, record)
    raise ReplayError(
        f"{name}: the file stops after line {number} without its closing line: it was cut "
        "short (or is not a whole replay)"
    )


def _scan_file(path: Path, check_chain: bool, max_file_bytes: int, max_line_bytes: int,
               max_events: int, take: Take) -> dict[str, Any]:
    with open_regular_file(path, max_file_bytes) as raw:
        stream, gz = maybe_gunzip(raw)
        with stream:
            lines = read_lines(stream, path, gz, max_file_bytes, max_line_bytes)
            return _scan(lines, path, check_chain, max_events, take)


def _scan_bytes(data: bytes, name: str | Path, check_chain: bool, max_file_bytes: int,
                max_line_bytes: int, max_events: int, take: Take) -> dict[str, Any]:
    if len(data) > max_file_bytes:
        raise ReplayError(
            f"{name}: file is {len(data):,} bytes; replays larger than {max_file_bytes:,} bytes "
            "are refused"
        )
    stream, gz = maybe_gunzip(io.BufferedReader(io.BytesIO(data)))
    with stream:
        lines = read_lines(stream, name, gz, max_file_bytes, max_line_bytes)
        return _scan(lines, name, check_chain, max_events, take)


def read_replay(
    path: str | Path,
    *,
    check_chain: bool = True,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_events: int = MAX_EVENTS,
) -> Replay:
    """Read a replay file: limits, header, then each event line and its chain link.

    Events come back as parsed JSON dicts without their ``chain`` key; they are not validated
    against the schema here (``load_replay`` reads and validates in one pass).
    """
    events: list[dict[str, Any]] = []
    header = _scan_file(Path(path), check_chain, max_file_bytes, max_line_bytes, max_events,
                        lambda header, number, event: events.append(event))
    return Replay(header=header, events=events)


def parse_replay(
    data: bytes,
    name: str | Path = "replay",
    *,
    check_chain: bool = True,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_events: int = MAX_EVENTS,
) -> Replay:
    """read_replay for bytes already in memory (an upload); ``name`` is used in messages."""
    events: list[dict[str, Any]] = []
    header = _scan_bytes(data, name, check_chain, max_file_bytes, max_line_bytes, max_events,
                         lambda header, number, event: events.append(event))
    return Replay(header=header, events=events)


# -- checking the events against the schema and each other -------------------------------------


def _difference(a: Any, b: Any, where: str) -> tuple[str, Any, Any]:
    """The first place where ``a`` and ``b`` (unequal) differ, and both values there."""
    if type(a) is dict and type(b) is dict:
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{where}.{key}", a.get(key, "nothing"), b.get(key, "nothing")
            if a[key] != b[key]:
                return _difference(a[key], b[key], f"{where}.{key}")
    if type(a) is list and type(b) is list and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _difference(x, y, f"{where}[{index}]")
    return where, a, b


def _path_length(event: dict[str, Any]) -> int:
    """The longest list of cells the event moves through (a move's path, a route order's)."""
    longest = 0
    for holder in (event, event.get("order")):
        if type(holder) is dict and type(holder.get("path")) is list:
            longest = max(longest, len(holder["path"]))
    return longest


class _Checker:
    """Checks each event as it comes (schema, game, numbering) and keeps it normalized: upcast
    to the current schema, defaults filled in, as the canonical event dict."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.events: list[dict[str, Any]] = []
        self.written_first: dict[str, Any] | None = None

    def take(self, header: dict[str, Any], line: int, event: dict[str, Any]) -> None:
        self.header = header
        path, number, game = self.path, len(self.events) + 1, header["game"]
        seq = event.get("seq")
        if event.get("game") != game:
            raise ReplayError(
                f"{path}: line {line} (event seq {short_repr(seq, 24)}): belongs to game "
                f"{short_repr(event.get('game'))}, but this replay is of game {short_repr(game)}"
            )
        if seq != number:
            if type(seq) is not int:
                problem = "not a whole number"
            elif seq < number:
                problem = "a repeated or earlier seq"
            else:
                problem = f"a gap: seq {number} is missing"
            raise ReplayError(
                f"{path}: line {line}: event seq {short_repr(seq, 24)} where seq {number} was "
                f"expected ({problem}); events must be numbered 1, 2, 3, ... without gaps"
            )
        cells = _path_length(event)
        if cells > MAX_PATH_CELLS:
            raise ReplayError(f"{path}: line {line} (event seq {seq}): a path of {cells:,} "
                              f"cells; a move enters at most {MAX_PATH_CELLS}")
        try:
            normalized = to_dict(parse_event(event))
        except (EventError, UpcastError) as exc:
            raise ReplayError(f"{path}: line {line}: {exc}") from None
        if number == 1:
            if normalized["kind"] != "game_started":
                raise ReplayError(f"{path}: line {line}: the first event must be game_started, "
                                  f"not {normalized['kind']!r}")
            self.written_first = event  # as written: an older file's header matches its own
        self.events.append(normalized)

    def finish(self, header: dict[str, Any]) -> list[dict[str, Any]]:
        self.header = header
        if not self.events:
            raise ReplayError(f"{self.path}: the file has a header but no events")
        header, written = self.header, self.written_first
        for name in HEADER_FIELDS:
            if header[name] != written.get(name):
                where, said, says = _difference(header[name], written.get(name), name)
                raise ReplayError(
                    f"{self.path}: line 1: header {where!r} is {short_repr(said)} but the "
                    f"game_started event says {short_repr(says)}"
                )
        return self.events


def validate_replay(replay: Replay, path: str | Path = "replay") -> list[dict[str, Any]]:
    """Check a replay's events against the schema and each other; return them normalized
    (upcast to the current schema, defaults filled in) as canonical event dicts."""
    checker = _Checker(path, replay.header)
    for number, event in enumerate(replay.events, start=2):
        checker.take(replay.header, number, event)
    return checker.finish(replay.header)


def load_replay(path: str | Path, *, max_file_bytes: int = MAX_FILE_BYTES,
                max_line_bytes: int = MAX_LINE_BYTES,
                max_events: int = MAX_EVENTS) -> list[dict[str, Any]]:
    """read_replay and validate_replay in one pass over the file: each line is parsed, chained,
    checked and normalized as it is read, and only the normalized event is kept. Returns the
    game's events, as ``validate_replay`` does."""
    checker = _Checker(path, {})
    header = _scan_file(Path(path), True, max_file_bytes, max_line_bytes, max_events,
                        checker.take)
    return checker.finish(header)


def load_replay_bytes(data: bytes, name: str | Path = "replay", *,
                      max_file_bytes: int = MAX_FILE_BYTES, max_line_bytes: int = MAX_LINE_BYTES,
                      max_events: int = MAX_EVENTS) -> list[dict[str, Any]]:
    """load_replay for bytes already in memory (an upload); ``name`` is used in messages."""
    checker = _Checker(name, {})
    header = _scan_bytes(data, name, True, max_file_bytes, max_line_bytes, max_events,
                         checker.take)
    return checker.finish(header)


# -- importing -----------------------------------------------------------------------------------


def store_game(store: EventStore, events: list[dict[str, Any]], path: str | Path) -> str:
    """Append a checked game (``load_replay``'s events) to ``store`` as a new game, in one
    transaction; GameExists if its id is taken. Returns the game id."""
    game = events[0]["game"]
    if store.has_game(game):
        raise GameExists(game, store.last_seq(game), f"cannot import {path}")
    try:
        store.append(game, events, 0)
    except GameExists:
        raise
    except StoreError as exc:  # a phantom row, a full disk, a read-only file: name the file
        raise StoreError(f"cannot import {path}: {exc}") from None
    return game


def import_replay(store: EventStore, path: str | Path,
                  check: Callable[[list[dict[str, Any]]], object] | None = None) -> str:
    """Read and check the replay at ``path`` completely, then append it as a new game in one
    transaction; return the game id. Nothing is written if anything is wrong. ``check`` is run
    on the events first (the CLI re-derives them with the engine, which this layer does not
    know); whatever it raises stops the import."""
    events = load_replay(path)
    if check is not None:
        check(events)
    return store_game(store, events, path)
