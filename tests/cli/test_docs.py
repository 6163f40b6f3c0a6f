"""The README documents every command and every option a scenario may set (sqlite-utils style)."""

from __future__ import annotations

from pathlib import Path

from typer.main import get_command
from typer.testing import CliRunner

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
    from warlog.engine.rulesets.tables import systems

    missing = [o for system in systems() for o in load_table(system)["options"]
               if f"`{o}`" not in README]
    assert not missing, f"README does not document options: {missing}"


def test_the_quick_start_is_exactly_two_commands_that_exist():
    quick = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("#")[0].strip() for line in quick.strip().splitlines()]
    assert lines == ["./dev dashboard", "./dev test"]
    assert (ROOT / "dev").stat().st_mode & 0o111
    assert "./dev test" in (ROOT / ".ci" / "run").read_text()


def test_the_rules_reference_is_generated_from_the_catalogue():
    """docs/rules.md is what `warlog rules --markdown` prints: regenerate it after changing the
    catalogue or the tables (`warlog rules --markdown > docs/rules.md`)."""
    from warlog.engine.rules import catalogue
    from warlog.engine.rules_doc import markdown

    text = (ROOT / "docs" / "rules.md").read_text("utf-8")
    assert text == markdown(), "docs/rules.md is stale: run warlog rules --markdown > docs/rules.md"
    assert all(f"`{rule}`" in text for rule in catalogue())


def test_the_repository_stands_alone():
    """Users never see the founding notes or the source files they were digested from: nothing
    the project ships points at them."""
    names = ["RULES" + ".md", "DESIGN" + ".md", "seeds" + "/", "../" + "shared"]
    skip = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis"}
    offenders = []
    for path in ROOT.rglob("*"):
        if any(part in skip for part in path.parts) or not path.is_file():
            continue
        if path.suffix not in (".py", ".md", ".toml", ".txt", ".cfg", ".sh", "") or path.stat().st_size > 2_000_000:
            continue
        text = path.read_text("utf-8", errors="replace")
        offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n in text]
    assert not offenders, offenders


def test_the_readme_tabletop_example_runs_as_written(tmp_path, monkeypatch):
    """Every line of the README's tabletop block, run as it is written, in a fresh folder."""
    block = README.split("Recording a game played on a real table", 1)[1]
    block = block.split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WARLOG_DB", raising=False)
    for line in lines:
        assert line.startswith("warlog ")
        done = CliRunner().invoke(app, line.split()[1:])
        assert done.exit_code == 0, f"{line}: {done.output}"
    assert "5 hits" in done.output
