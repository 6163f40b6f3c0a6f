"""A replay file's bytes as input from anyone: the limits, and reading under them.

events/replay_file.py reads the format (header, chained events, closing line) from the lines and
values this module hands it. Reading is defensive, because a replay file is input from anyone:

* only a regular file is opened (a named pipe or a device would block or never end), and it is
  read as a stream, one line at a time, so memory follows the events kept, not the file's bytes;
* every limit below is checked as the bytes come in (a gzip bomb stops at ``MAX_FILE_BYTES`` of
  decompressed data), and each has its own message;
* every value is checked before it is hashed or stored: nesting depth, whole numbers that fit a
  signed 64-bit integer (SQLite's), no fractions, list lengths;
* each problem is one ``ReplayError`` whose message names the file and the line.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from warlog.events.safe_files import FileKind, FileRefused, open_regular

_GZIP_MAGIC = b"\x1f\x8b"

# -- limits: each names what it bounds; every refusal says which one was hit ------------------

MAX_FILE_BYTES = 50 * 1024 * 1024
"""A replay file's size, and for a gzip file the size of its decompressed data too."""
MAX_LINE_BYTES = 1024 * 1024
"""One line (the header holds the whole scenario: a 40x40 board fits in a few dozen KB)."""
MAX_JSON_DEPTH = 20
"""Nesting of lists and objects in one line (a real header nests 5 deep)."""
MAX_LIST_ITEMS = 10_000
"""Items in any one list (a 40x40 board has 1,600 cells)."""
MIN_INT, MAX_INT = -(2**63), 2**63 - 1
"""Whole numbers are stored as SQLite integers: signed 64-bit."""


class ReplayError(ValueError):
    """A replay file that cannot be read or imported; the message names the file and line."""


def short_repr(value: Any, width: int = 60) -> str:
    """``repr(value)`` cut to ``width`` characters: messages stay one short line whatever a
    hostile file holds (repr also escapes newlines and control characters)."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


# -- reading: the bytes, one line at a time ----------------------------------------------------


def open_regular_file(path: Path, max_file_bytes: int) -> IO[bytes]:
    """Open ``path`` for reading only if it is a regular file within the size limit (a named
    pipe would block forever, a device never ends): events/safe_files.py's one guarded
    opener, its refusal as a ReplayError."""
    try:
        return open_regular(path, FileKind("a replay file", "replays", max_file_bytes))
    except FileRefused as exc:
        raise ReplayError(str(exc)) from None


def maybe_gunzip(raw: io.BufferedIOBase) -> tuple[IO[bytes], bool]:
    """The stream itself, or its decompressed data if it starts like a gzip file."""
    head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb"), True
    return raw, False


def read_lines(stream: IO[bytes], name: str | Path, gz: bool, max_file_bytes: int,
               max_line_bytes: int) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its line end), refusing data and lines over the limits."""
    total = number = 0
    while True:
        try:
            line = stream.readline(max_line_bytes + 2)  # room for "\r\n"
        except (OSError, EOFError, zlib.error) as exc:
            what = "the gzip data is damaged or cut short" if gz else "cannot read the file"
            raise ReplayError(f"{name}: {what} ({exc})") from None
        if not line:
            if number == 0:
                raise ReplayError(
                    f"{name}: the file is empty; a warlog replay starts with a header line")
            return
        number += 1
        total += len(line)
        if total > max_file_bytes:
            if gz:
                raise ReplayError(
                    f"{name}: decompresses to more than {max_file_bytes:,} bytes; replays "
                    f"larger than {max_file_bytes:,} bytes are refused")
            raise ReplayError(f"{name}: the file is larger than {max_file_bytes:,} bytes; "
                              "replays that large are refused")
        body = line[:-1] if line.endswith(b"\n") else line
        body = body.rstrip(b"\r")
        if len(body) > max_line_bytes:
            raise ReplayError(
                f"{name}: line {number} is longer than {max_line_bytes:,} bytes; refused"
            )
        yield number, body


# -- reading: the values of one line -------------------------------------------------------------


def _value_is_suspect(value: Any) -> bool:
    """Fast check of one parsed line: True if anything in it breaks a value limit."""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        container, depth = pop()
        if type(container) is dict:
            items = container.values()
        else:
            if len(container) > MAX_LIST_ITEMS:
                return True
            items = container
        for item in items:
            kind = type(item)
            if kind is dict or kind is list:
                if depth >= MAX_JSON_DEPTH:
                    return True
                push((item, depth + 1))
            elif kind is int:
                if not MIN_INT <= item <= MAX_INT:
                    return True
            elif kind is float:
                return True
    return False


def _value_problem(value: Any) -> str:
    """Where and why a line breaks a value limit (the slow walk, run only once one does)."""
    queue = deque([(value, 1, "")])  # breadth first: the shallowest problem is named
    while queue:
        container, depth, where = queue.popleft()
        pairs = (container.items() if type(container) is dict
                 else enumerate(container))
        if type(container) is list and len(container) > MAX_LIST_ITEMS:
            return (f"{where or 'the line'}: a list of {len(container):,} items; lists hold at "
                    f"most {MAX_LIST_ITEMS:,}")
        for key, item in pairs:
            at = f"{where}[{key}]" if type(container) is list else (
                f"{where}.{key}" if where else str(key))
            at = at if len(at) <= 60 else at[:28] + "..." + at[-29:]
            kind = type(item)
            if kind is dict or kind is list:
                if depth >= MAX_JSON_DEPTH:
                    return (f"{at}: nested more than {MAX_JSON_DEPTH} levels deep; replays nest "
                            f"at most {MAX_JSON_DEPTH}")
                queue.append((item, depth + 1, at))
            elif kind is int and not MIN_INT <= item <= MAX_INT:
                return (f"{at}: {short_repr(item)} is too large; whole numbers must fit in 64 bits "
                        f"({MIN_INT:,} to {MAX_INT:,})")
            elif kind is float:
                return (f"{at}: {short_repr(item)} is a fraction or too large a number; replays "
                        f"hold whole numbers that fit in 64 bits only")
    return "a value breaks a limit"  # not reached: the fast check and this walk agree


def parse_line(path: str | Path, number: int, line: bytes, what: str) -> dict[str, Any]:
    """Line ``number`` as a JSON object whose values are within the limits (``what``: what the
    line should hold, for the message)."""
    # Line 1 decides whether this is a replay at all; say so rather than "damaged".
    start = f"{path}: not a warlog replay: line 1" if number == 1 else f"{path}: line {number}"
    if not line.strip():
        raise ReplayError(f"{start} is empty; expected {what}")
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):
            raise ReplayError(f"{start} is nested more than {MAX_JSON_DEPTH} levels deep; "
                              f"replays nest at most {MAX_JSON_DEPTH}") from None
        damaged = "" if number == 1 else "; the file is truncated or damaged"
        raise ReplayError(
            f"{start} is not valid JSON ({exc.msg} at character {exc.pos + 1}){damaged}"
        ) from None
    if not isinstance(value, dict):
        raise ReplayError(f"{start} is a JSON {type(value).__name__}, expected {what}")
    if _value_is_suspect(value):
        raise ReplayError(f"{path}: line {number}: {_value_problem(value)}")
    repeated = _repeated_key(line, value)
    if repeated is not None:
        raise ReplayError(f"{path}: line {number}: the key {short_repr(repeated, 40)} appears twice "
                          "in one object; each key appears once (a reader keeping the other "
                          "value would see another game)")
    return value


def _repeated_key(line: bytes, value: dict[str, Any]) -> str | None:
    """A key written twice in one object of ``line``, if any (JSON parsers keep one of the two
    values, not all the same one). A line as warlog writes it is canonical, and no line with a
    repeated key is as short as the canonical form of what it parses to, so only a longer line
    (spaces, escapes, or a repeat) is parsed again, keeping every pair."""
    if len(line) == len(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)):
        return None
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen and not found:
                found.append(key)
            seen.add(key)
        return dict(items)

    json.loads(line, object_pairs_hook=pairs)
    return found[0] if found else None

