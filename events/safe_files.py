"""Files a player names, in and out: regular files only, each kind of file under its own size.

Reading. A path on the command line may name a named pipe (``open`` blocks until a writer
comes, forever), a device (``/dev/zero`` never ends: a MemoryError; ``/dev/urandom`` neither),
a folder or a file of gigabytes. ``open_regular`` opens without blocking, checks the open
descriptor (not the name, which could be swapped between the check and the open) and its size
against the kind's limit, and only then reads; ``read_text`` also refuses bytes that are not
UTF-8, naming the line. Every file a command reads comes through here: replay files
(events/replay_input.py), record scripts, study files, the schema files compared before
writing.

Writing. ``check_output`` refuses an existing target that is not a regular file (a named pipe,
a device, a folder, a socket): writing replaces the target with a new file (write_bytes_atomic's
``os.replace``), and as root that replaced /dev/null. A missing folder is named too.

Each refusal is one ``FileRefused`` line naming the file and the reason.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO


class FileRefused(ValueError):
    """A file a command will not read or write; the message names the file and why."""


@dataclass(frozen=True)
class FileKind:
    """A kind of file a command reads: its name in messages ("a script", "scripts") and the
    largest such file read."""

    noun: str
    plural: str
    max_bytes: int


def node_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a named pipe")."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _mode(path: str | Path) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def _not_regular(path: str | Path, kind: FileKind, mode: int) -> str:
    return f"{path}: not {kind.noun}: it is {node_kind(mode)}, not a regular file"


def open_regular(path: str | Path, kind: FileKind) -> IO[bytes]:
    """``path`` opened for reading, if it is a regular file within ``kind.max_bytes``.

    Opened non-blocking and checked with ``fstat`` on the open descriptor: a named pipe would
    block ``open`` (and then ``read``) forever, a device never ends."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileRefused(f"{path}: cannot read the file: no such file") from None
    except OSError as exc:  # a socket cannot be opened at all: say what it is
        mode = _mode(path)
        if mode is not None and not stat.S_ISREG(mode):
            raise FileRefused(_not_regular(path, kind, mode)) from None
        raise FileRefused(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(_not_regular(path, kind, info.st_mode))
        if info.st_size > kind.max_bytes:
            raise FileRefused(f"{path}: file is {info.st_size:,} bytes; {kind.plural} larger "
                              f"than {kind.max_bytes:,} bytes are refused")
        if hasattr(os, "set_blocking"):  # a regular file: reads never block anyway
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path, kind: FileKind) -> bytes:
    """The bytes of a regular file within ``kind.max_bytes`` (read to at most one byte more:
    a file that grew after it was opened is refused too)."""
    with open_regular(path, kind) as handle:
        try:
            data = handle.read(kind.max_bytes + 1)
        except OSError as exc:
            raise FileRefused(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    return check_size(data, path, kind)


def check_size(data: bytes, where: str | Path, kind: FileKind) -> bytes:
    """``data`` (a file's bytes, read or received) if within ``kind.max_bytes``."""
    if len(data) > kind.max_bytes:
        raise FileRefused(f"{where}: the file is larger than {kind.max_bytes:,} bytes; "
                          f"{kind.plural} that large are refused")
    return data


def decode_text(data: bytes, where: str | Path, kind: FileKind) -> str:
    """``data`` decoded as UTF-8; bytes that are not UTF-8 are refused, naming the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileRefused(f"{where}: line {line:,} is not UTF-8 text; {kind.plural} are "
                          "UTF-8 text files") from None


def read_text(path: str | Path, kind: FileKind) -> str:
    """``read_bytes`` decoded as UTF-8 (``decode_text``)."""
    return decode_text(read_bytes(path, kind), path, kind)


def check_output(path: str | Path) -> Path:
    """``path`` as a Path, if a file may be written there: it does not exist yet, or it is a
    regular file (a link to one too), and its folder exists. A named pipe, a device, a folder
    or a socket is refused, never replaced."""
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FileRefused(f"{path}: cannot write there ({exc.strerror or exc})") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"{path}: not written: it is {node_kind(info.st_mode)}; output goes "
                          "to a regular file only (name a new or existing file)")
    folder = path.parent
    if not folder.is_dir():
        raise FileRefused(f"{path}: not written: the folder {folder} does not exist")
    return path
