"""The README documents every command and every option a scenario may set (sqlite-utils style)."""

from __future__ import annotations

from pathlib import Path

from typer.main import get_command

from warlog.cli import app
from warlog.engine.rulesets.tables import load_table

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_every_command_is_in_the_readme():
    commands = sorted(get_command(app).commands)
    assert len(commands) >= 9
    missing = [c for c in commands if f"`warlog {c}" not in README]
    assert not missing, f"README does not document: {missing}"


def test_every_option_is_in_the_readme():
    missing = [o for o in load_table("ohw")["options"] if f"`{o}`" not in README]
    assert not missing, f"README does not document options: {missing}"


def test_the_quick_start_is_exactly_two_commands_that_exist():
    quick = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("#")[0].strip() for line in quick.strip().splitlines()]
    assert lines == ["./dev dashboard", "./dev test"]
    assert (ROOT / "dev").stat().st_mode & 0o111
    assert "./dev test" in (ROOT / ".ci" / "run").read_text()
