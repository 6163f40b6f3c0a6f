"""Running the command line in process for the CLI tests, with no database from the
environment and a fresh working folder (import ``no_ambient_db`` to use the fixture)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from warlog.cli import app

runner = CliRunner()


def run(*args: str, ok: bool = True, input: str | None = None):
    """Invoke ``warlog ARGS``; assert it succeeded (or, with ok=False, that it failed)."""
    result = runner.invoke(app, list(args), input=input, catch_exceptions=False)
    assert (result.exit_code == 0) == ok, result.output
    return result


@pytest.fixture(autouse=True)
def no_ambient_db(monkeypatch, tmp_path):
    monkeypatch.delenv("WARLOG_DB", raising=False)
    monkeypatch.chdir(tmp_path)
