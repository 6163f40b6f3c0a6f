"""Study rows in and out of files: JSON lines or CSV written by `warlog simulate --games N
--out`, and what `warlog analyze` reads (study files and replay files alike).

A study file is input from anyone, like a replay: only a regular file is opened (under a size
limit, by events/safe_files.py), it is read a line at a time under a line-length limit, and
every row is checked against ``StudyRow`` before it is counted, each problem one StudyError
naming the file and line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from warlog.events.safe_files import FileKind, FileRefused, open_regular
from warlog.app.study import ROW_FIELDS, StudyError, check_row

MAX_LINE_BYTES = 1024 * 1024
"""One row of a study file (a row of a 15-turn game is about 700 bytes)."""
STUDY_FILE = FileKind("a study file", "study files", 512 * 1024 * 1024)
"""A study file is read a row at a time; 512 MiB holds the rows of about 700,000 games."""
TEXT_FIELDS = ("game", "scenario", "system", "period", "red", "blue", "first", "winner",
               "end_reason")
"""CSV cells read as text; every other cell is JSON (numbers, true/false, curves as lists)."""
OPTIONAL_TEXT = ("winner", "end_reason")


def is_csv(path: str | Path) -> bool:
    return str(path).lower().endswith(".csv")


def _csv_cell(field: str, value: Any) -> str:
    if value is None:
        return ""
    if field in TEXT_FIELDS:
        return str(value)
    return orjson.dumps(value).decode()


def encode_rows(rows: Sequence[dict[str, Any]], as_csv: bool) -> bytes:
    """Rows as JSON lines (one object a line, keys in schema order) or as CSV with a header."""
    if not as_csv:
        return b"".join(orjson.dumps({f: r[f] for f in ROW_FIELDS}) + b"\n" for r in rows)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(ROW_FIELDS)
    for r in rows:
        writer.writerow([_csv_cell(f, r[f]) for f in ROW_FIELDS])
    return text.getvalue().encode()


def write_rows(path: str | Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write rows to ``path`` atomically: CSV if it ends in .csv, else JSON lines."""
    from warlog.events.replay_file import write_bytes_atomic

    write_bytes_atomic(path, encode_rows(rows, is_csv(path)))


# -- reading -----------------------------------------------------------------------------------


def _open(path: Path) -> IO[bytes]:
    """The study file opened by events/safe_files.py's guarded opener (a regular file within
    STUDY_FILE's size: never a pipe or a device), its refusal as a StudyError."""
    try:
        return open_regular(path, STUDY_FILE)
    except FileRefused as exc:
        raise StudyError(str(exc)) from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a regular file, each line within MAX_LINE_BYTES."""
    with _open(path) as f:
        number = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise StudyError(f"{path}: line {number} is longer than "
                                 f"{MAX_LINE_BYTES:,} bytes")
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError:
                raise StudyError(f"{path}: line {number} is not UTF-8 text") from None


def _csv_value(field: str, cell: str, where: str) -> Any:
    if field in TEXT_FIELDS:
        return None if (cell == "" and field in OPTIONAL_TEXT) else cell
    if cell == "":
        return None
    try:
        return orjson.loads(cell)
    except orjson.JSONDecodeError:
        raise StudyError(f"{where}: {field}: {cell[:40]!r} is not a value") from None


def _csv_rows(path: Path) -> Iterator[dict[str, Any]]:
    lines = _lines(path)
    header: list[str] | None = None
    for number, text in lines:
        if not text.strip():
            continue
        (cells,) = list(csv.reader([text]))
        where = f"{path}: line {number}"
        if header is None:
            header = cells
            if tuple(header) != ROW_FIELDS:
                raise StudyError(f"{where}: the header is not a study file's "
                                 f"({', '.join(ROW_FIELDS[:3])}, ...)")
            continue
        if len(cells) != len(header):
            raise StudyError(f"{where}: {len(cells)} cells, the header has {len(header)}")
        yield check_row({f: _csv_value(f, c, where) for f, c in zip(header, cells)}, where)


def _json_rows(path: Path) -> Iterator[dict[str, Any]]:
    for number, text in _lines(path):
        if not text.strip():
            continue
        where = f"{path}: line {number}"
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise StudyError(f"{where}: not JSON ({exc})") from None
        yield check_row(data, where)


def kind_of(path: str | Path) -> str:
    """"replay", "csv" or "jsonl" (study rows), from the file's first bytes: a replay is gzip
    or starts with its header line; a study file ends in .csv or its first line is a row."""
    path = Path(path)
    with _open(path) as f:
        head = f.readline(MAX_LINE_BYTES)
    if head.startswith(b"\x1f\x8b"):
        return "replay"
    try:
        first = orjson.loads(head) if head.strip() else None
    except orjson.JSONDecodeError:
        first = None
    if isinstance(first, dict) and first.get("format") == "warlog-replay":
        return "replay"
    if is_csv(path):
        return "csv"
    if isinstance(first, dict) and "winner" in first and "scenario" in first:
        return "jsonl"
    raise StudyError(f"{path}: neither a replay file nor a study file (rows written by "
                     "warlog simulate --games N --out)")


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Every row of a study file (CSV or JSON lines), checked."""
    path = Path(path)
    return list(_csv_rows(path) if is_csv(path) else _json_rows(path))

