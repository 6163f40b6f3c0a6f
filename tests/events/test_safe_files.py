"""events/safe_files.py: the one guarded reader and the check before every write (issue 19).
Real files, a real named pipe, device and socket; nothing is ever opened that could block."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from warlog.events.replay_file import write_bytes_atomic
from warlog.events.safe_files import (FileKind, FileRefused, check_output, open_regular,
                                      read_bytes, read_text)

KIND = FileKind("a script", "scripts", 1000)


@pytest.fixture
def nodes(tmp_path):
    """A named pipe, a folder, a socket and a device, by name (the device: /dev/zero)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    sock = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    yield {"a named pipe": fifo, "a folder": tmp_path, "a socket": sock,
           "a device": Path("/dev/zero")}
    server.close()


@pytest.mark.parametrize("kind", ["a named pipe", "a folder", "a socket", "a device"])
def test_only_a_regular_file_is_read(nodes, kind):
    path = nodes[kind]
    with pytest.raises(FileRefused, match=f"^{path}: not a script: it is {kind}, not a regular"):
        read_text(path, KIND)


def test_a_file_over_its_kinds_limit_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big"
    with big.open("wb") as handle:
        handle.truncate(KIND.max_bytes + 1)  # sparse: nothing is read
    with pytest.raises(FileRefused, match="file is 1,001 bytes; scripts larger than 1,000"):
        open_regular(big, KIND)
    (tmp_path / "small").write_bytes(b"x" * KIND.max_bytes)
    assert read_bytes(tmp_path / "small", KIND) == b"x" * KIND.max_bytes


def test_bytes_that_are_not_utf8_are_named_by_line(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"end\nend\n\xff\xfe\n")
    with pytest.raises(FileRefused, match="s.txt: line 3 is not UTF-8 text; scripts are UTF-8"):
        read_text(path, KIND)


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(FileRefused, match="nowhere: cannot read the file: no such file"):
        read_text(tmp_path / "nowhere", KIND)


@pytest.mark.parametrize("kind", ["a named pipe", "a folder", "a socket", "a device"])
def test_output_onto_anything_but_a_regular_file_is_refused_and_the_node_stays(nodes, kind):
    """Before: write_bytes_atomic os.replace'd the node with a regular file (as root, a
    device: /dev/null itself). The device here is /dev/zero: nothing is written to it now,
    and the check is what stops it."""
    path = nodes[kind]
    before = os.stat(path)
    with pytest.raises(FileRefused, match=f"^{path}: not written: it is {kind}; output goes"):
        write_bytes_atomic(path, b"data")
    after = os.stat(path)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert after.st_ino == before.st_ino
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_output_into_a_missing_folder_names_the_folder(tmp_path):
    with pytest.raises(FileRefused, match="not written: the folder .*nowhere does not exist"):
        write_bytes_atomic(tmp_path / "nowhere" / "out.jsonl", b"x")


def test_a_regular_file_a_link_to_one_or_a_new_name_is_written(tmp_path):
    (tmp_path / "old").write_bytes(b"old")
    (tmp_path / "link").symlink_to(tmp_path / "old")
    for name in ("old", "link", "new"):
        assert check_output(tmp_path / name) == tmp_path / name
        write_bytes_atomic(tmp_path / name, name.encode())
        assert (tmp_path / name).read_bytes() == name.encode()
