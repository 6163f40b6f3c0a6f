"""Helpers shared by the hostile-input tests (test_hostile_*.py): running the command line and
reading its one-line refusals, forging replay files whose hash chain holds whatever was edited,
and changing a database's rows behind the store's back. Their fixtures (``game``, ``records``,
``stored``, ``no_ambient_db``) are in this folder's conftest.py."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from warlog.cli import app
from warlog.events.chain import GENESIS, canonical, link

runner = CliRunner()
SCENARIO = "ancients-river-crossing"


def rechain(records: list[dict[str, Any]]) -> bytes:
    """The file of ``records`` with every link and the closing count recomputed: a forger's
    file, whose chain holds whatever was edited. Writes what orjson will not (too deep)."""
    prev, lines = GENESIS, []
    for index, record in enumerate(records):
        body = {k: v for k, v in record.items() if k != "chain"}
        if index == len(records) - 1:
            body["events"] = len(records) - 2
        text = _dump(body)
        prev = link(prev, text)
        lines.append(_dump({**body, "chain": prev}))
    return b"\n".join(lines) + b"\n"


def _dump(value: Any) -> bytes:
    try:
        return canonical(value)
    except ValueError:
        import sys

        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(10_000)
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
        finally:
            sys.setrecursionlimit(limit)


def run(*args: str, ok: bool | None = True):
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{args}: raised {result.exception!r}: {result.output}"
    assert "Traceback" not in result.output
    if ok is not None:
        assert (result.exit_code == 0) == ok, result.output
    return result


def one_error_line(result, *words: str) -> str:
    """The command failed with exactly one line, holding every one of ``words``."""
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def nth(records, kind: str, n: int = 0) -> dict[str, Any]:
    return [r for r in records[1:-1] if r.get("kind") == kind][n]


def _forge_rows(db: Path, sql: str, *args) -> None:
    conn = sqlite3.connect(db)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute(sql, args)
    conn.commit()
    conn.close()
