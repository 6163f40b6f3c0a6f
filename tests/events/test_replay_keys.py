"""Every key of a replay line is the format's (issue 19): the header holds exactly its ten keys,
the closing line its three, and no object repeats a key. Before: an extra header key was
accepted though the format says exactly ten, and a line with a decoy ``winner`` before the real
one imported, so a reader keeping the first value saw another winner."""

from __future__ import annotations

import pytest

from hostile_helpers import one_error_line, rechain, run

pytestmark = pytest.mark.usefixtures("no_ambient_db")


def _import(tmp_path, data: bytes):
    path = tmp_path / "keys.jsonl"
    path.write_bytes(data)
    db = tmp_path / "w.db"
    result = run("import", str(path), "--db", str(db), ok=None)
    return result, path, db


def test_an_extra_header_key_is_refused(tmp_path, records):
    records[0]["comment"] = "hello"
    result, path, db = _import(tmp_path, rechain(records))
    one_error_line(result, str(path), "line 1", "'comment'", "exactly format, format_version")
    assert not db.exists()


def test_an_extra_closing_key_is_refused(tmp_path, records):
    records[-1]["signed"] = "me"
    result, path, db = _import(tmp_path, rechain(records))
    one_error_line(result, str(path), f"line {len(records)}", "'signed'", "exactly end, events")
    assert not db.exists()


def _with_decoy(data: bytes, line_number: int, key: str, decoy: bytes) -> bytes:
    """``data`` with ``"key":decoy,`` written before the line's own ``key``: its chain still
    holds for a reader that keeps the last value (orjson does)."""
    lines = data.split(b"\n")
    line = lines[line_number - 1]
    assert line.startswith(b"{")
    lines[line_number - 1] = b'{"' + key.encode() + b'":' + decoy + b"," + line[1:]
    return b"\n".join(lines)


@pytest.mark.parametrize("line_of", ["header", "event", "closing"])
def test_a_key_written_twice_is_refused(tmp_path, records, line_of):
    data = rechain(records)
    number = {"header": 1, "event": 5, "closing": len(records)}[line_of]
    key = {"header": "seed", "event": "turn", "closing": "events"}[line_of]
    result, path, db = _import(tmp_path, _with_decoy(data, number, key, b"99"))
    one_error_line(result, str(path), f"line {number}", f"the key '{key}' appears twice")
    assert not db.exists()


def test_a_decoy_in_a_nested_object_is_refused(tmp_path, records):
    data = rechain(records)
    lines = data.split(b"\n")
    # the header's scenario object: a decoy title before the real one
    lines[0] = lines[0].replace(b'"scenario":{', b'"scenario":{"title":"Decoy",', 1)
    result, path, db = _import(tmp_path, b"\n".join(lines))
    one_error_line(result, str(path), "line 1", "the key 'title' appears twice")


def test_spacing_and_key_order_are_still_read(tmp_path, records, game):
    """What the format normalises stays accepted: a line written with spaces and another key
    order is the same object."""
    data = rechain(records)
    lines = data.split(b"\n")
    lines[3] = lines[3].replace(b",", b", ").replace(b'":', b'": ')
    result, path, db = _import(tmp_path, b"\n".join(lines))
    assert result.exit_code == 0, result.output
