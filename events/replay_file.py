"""Single-file JSONL replays: one game, one file, shareable and tamper-evident.

Line 1 is a header naming the format, its version, the game and everything needed to rebuild it
(rule system, period, options, the whole scenario, the seed), copied from the game's first event.
Every later line is one event as canonical JSON plus a ``"chain"`` key: sha256 of the previous
line's chain and the event's canonical bytes (the header's chain starts from GENESIS). The last
line closes the file: ``{"end": "warlog-replay", "events": N, "chain": ...}``, chained like the
rest. Editing any value on any line breaks the chain from that line on, and the error names the
line; a file cut short (even exactly at a line end) has no closing line and is refused.

Writing is deterministic (sorted keys, no timestamps), so the same events give the same bytes, and
atomic (temp file in the same folder, then ``os.replace``), so a crash never leaves half a file.
Reading is defensive: size limits first, then one clear error per problem, naming file and line.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

import warlog
from warlog.events.chain import GENESIS, CanonicalError, canonical, link
from warlog.events.model import EventError, parse_event, to_dict
from warlog.events.store import EventStore, GameExists
from warlog.events.upcast import UpcastError

FORMAT = "warlog-replay"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LINE_BYTES = 4 * 1024 * 1024
SUFFIX = ".jsonl"

HEADER_FIELDS = ("game", "rule_system", "period", "options", "scenario", "seed")
"""Header fields copied from the first event (game_started); import checks they still agree."""


class ReplayError(ValueError):
    """A replay file that cannot be read or imported; the message names the file and line."""


class ChainError(ReplayError):
    """A line whose hash does not follow from the lines before it: the file was edited."""

    def __init__(self, path: str | Path, line: int, seq: int | None) -> None:
        self.path, self.line, self.seq = str(path), line, seq
        what = "header" if line == 1 else (f"event seq {seq}" if seq is not None else "closing line")
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


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and ``os.replace``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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
    """Write ``events`` (a whole game, from its game_started) as a replay file at ``path``."""
    write_bytes_atomic(path, encode_replay(events))


def export_game(store: EventStore, game_id: str, path: str | Path) -> None:
    """Write the stored game ``game_id`` to ``path`` as a replay file."""
    write_replay(path, store.read(game_id))


# -- reading ---------------------------------------------------------------------------------


def _read_bytes(path: Path, max_file_bytes: int) -> bytes:
    """The file's bytes, refusing files over the size limit before reading them."""
    try:
        size = path.stat().st_size
        if size > max_file_bytes:
            raise ReplayError(
                f"{path}: file is {size:,} bytes; replays larger than {max_file_bytes:,} bytes "
                "are refused"
            )
        with path.open("rb") as handle:
            data = handle.read(max_file_bytes + 1)
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read the file ({exc.strerror})") from None
    if len(data) > max_file_bytes:  # the file grew while we read it
        raise ReplayError(f"{path}: the file grew past {max_file_bytes:,} bytes while read")
    return data


def _lines(name: str | Path, data: bytes, max_file_bytes: int, max_line_bytes: int) -> list[bytes]:
    """The lines without their newlines, refusing data and lines over the limits."""
    if len(data) > max_file_bytes:
        raise ReplayError(
            f"{name}: file is {len(data):,} bytes; replays larger than {max_file_bytes:,} bytes "
            "are refused"
        )
    if not data:
        raise ReplayError(f"{name}: the file is empty; a warlog replay starts with a header line")
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    lines = [line.rstrip(b"\r") for line in lines]
    for number, line in enumerate(lines, start=1):
        if len(line) > max_line_bytes:
            raise ReplayError(
                f"{name}: line {number} is longer than {max_line_bytes:,} bytes; refused"
            )
    return lines


def _json_object(path: str | Path, number: int, line: bytes, what: str) -> dict[str, Any]:
    # Line 1 decides whether this is a replay at all; say so rather than "damaged".
    start = f"{path}: not a warlog replay: line 1" if number == 1 else f"{path}: line {number}"
    if not line.strip():
        raise ReplayError(f"{start} is empty; expected {what}")
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        damaged = "" if number == 1 else "; the file is truncated or damaged"
        raise ReplayError(
            f"{start} is not valid JSON ({exc.msg} at character {exc.pos + 1}){damaged}"
        ) from None
    if not isinstance(value, dict):
        raise ReplayError(f"{start} is a JSON {type(value).__name__}, expected {what}")
    return value


def _check_header(path: str | Path, header: dict[str, Any], check_chain: bool) -> None:
    if header.get("format") != FORMAT:
        raise ReplayError(
            f'{path}: not a warlog replay (line 1 has no "format": "{FORMAT}")'
        )
    version = header.get("format_version")
    if type(version) is not int or version < 1:
        raise ReplayError(f"{path}: line 1: format_version {version!r} is not a version number")
    if version > FORMAT_VERSION:
        raise ReplayError(
            f"{path}: replay format_version {version} is newer than this warlog supports "
            f"({FORMAT_VERSION}); upgrade warlog (the file says it was written by warlog "
            f"{header.get('warlog_version', '?')})"
        )
    if check_chain:
        body = {k: v for k, v in header.items() if k != "chain"}
        if header.get("chain") != link(GENESIS, canonical(body)):
            raise ChainError(path, 1, None)
    for name in HEADER_FIELDS:
        if name not in header:
            raise ReplayError(f"{path}: line 1: the header has no {name!r} field")
    if not isinstance(header["game"], str) or not header["game"]:
        raise ReplayError(f"{path}: line 1: header 'game' must be a non-empty string")


def read_replay(
    path: str | Path,
    *,
    check_chain: bool = True,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Replay:
    """Read a replay file: size limits, header, then each event line and its chain link.

    Events come back as parsed JSON dicts without their ``chain`` key; they are not validated
    against the schema here (``validate_replay`` and ``import_replay`` do that).
    """
    path = Path(path)
    return parse_replay(_read_bytes(path, max_file_bytes), path, check_chain=check_chain,
                        max_file_bytes=max_file_bytes, max_line_bytes=max_line_bytes)


def parse_replay(
    data: bytes,
    name: str | Path = "replay",
    *,
    check_chain: bool = True,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Replay:
    """read_replay for bytes already in memory (an upload); ``name`` is used in messages."""
    lines = _lines(name, data, max_file_bytes, max_line_bytes)
    header = _json_object(name, 1, lines[0], "the replay header")
    _check_header(name, header, check_chain)
    prev = header.get("chain", GENESIS)
    events: list[dict[str, Any]] = []
    closing = _json_object(name, len(lines), lines[-1], "the closing line") if len(lines) > 1 else {}
    if closing.get("end") != FORMAT:
        raise ReplayError(
            f"{name}: the file stops after line {len(lines)} without its closing line: it was cut "
            "short (or is not a whole replay)"
        )
    for number, line in enumerate(lines[1:-1], start=2):
        event = _json_object(name, number, line, "one event")
        if "end" in event:
            raise ReplayError(f"{name}: line {number}: a closing line before the end of the file")
        chain = event.pop("chain", None)
        if check_chain:
            try:
                expected = link(prev, canonical(event))
            except CanonicalError as exc:
                raise ReplayError(f"{name}: line {number}: {exc}") from None
            if chain != expected:
                raise ChainError(name, number, event.get("seq"))
            prev = chain
        events.append(event)
    chain = closing.pop("chain", None)
    if check_chain and chain != link(prev, canonical(closing)):
        raise ChainError(name, len(lines), None)
    if closing.get("events") != len(events):
        raise ReplayError(
            f"{name}: the closing line counts {closing.get('events')!r} events, but the file holds "
            f"{len(events)}"
        )
    return Replay(header=header, events=events)


def validate_replay(replay: Replay, path: str | Path = "replay") -> list[dict[str, Any]]:
    """Check a replay's events against the schema and each other; return them normalized
    (upcast to the current schema, defaults filled in) as canonical event dicts."""
    header, game = replay.header, replay.game
    if not replay.events:
        raise ReplayError(f"{path}: the file has a header but no events")
    normalized: list[dict[str, Any]] = []
    for number, event in enumerate(replay.events, start=1):
        line = number + 1
        seq = event.get("seq")
        if event.get("game") != game:
            raise ReplayError(
                f"{path}: line {line} (event seq {seq}): belongs to game {event.get('game')!r}, "
                f"but this replay is of game {game!r}"
            )
        if seq != number:
            if type(seq) is not int:
                problem = "not a whole number"
            elif seq < number:
                problem = "a repeated or earlier seq"
            else:
                problem = f"a gap: seq {number} is missing"
            raise ReplayError(
                f"{path}: line {line}: event seq {seq!r} where seq {number} was expected "
                f"({problem}); events must be numbered 1, 2, 3, ... without gaps"
            )
        try:
            normalized.append(to_dict(parse_event(event)))
        except (EventError, UpcastError) as exc:
            raise ReplayError(f"{path}: line {line}: {exc}") from None
    first = normalized[0]
    if first["kind"] != "game_started":
        raise ReplayError(
            f"{path}: line 2: the first event must be game_started, not {first['kind']!r}"
        )
    written = replay.events[0]  # as written: an older file's header matches its own version
    for name in HEADER_FIELDS:
        if header[name] != written.get(name):
            raise ReplayError(
                f"{path}: line 1: header {name!r} is {header[name]!r} but the game_started "
                f"event says {written.get(name)!r}"
            )
    return normalized


def import_replay(store: EventStore, path: str | Path,
                  check: Callable[[list[dict[str, Any]]], object] | None = None) -> str:
    """Validate the replay at ``path`` completely, then append it as a new game in one
    transaction; return the game id. Nothing is written if anything is wrong. ``check`` is run
    on the events first (the CLI folds them with the engine, which this layer does not know);
    whatever it raises stops the import."""
    replay = read_replay(path)
    events = validate_replay(replay, path)
    if check is not None:
        check(events)
    game = replay.game
    if store.has_game(game):
        raise GameExists(game, store.last_seq(game), f"cannot import {path}")
    store.append(game, events, 0)
    return game
