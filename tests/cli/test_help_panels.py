"""`warlog --help` in an 80-column terminal: every command listed once, in one of four panels a
player would look in, each with a summary that is one whole sentence on one line (typer lists a
docstring's first paragraph and wraps it, so a long first paragraph shows cut mid-sentence)."""

from __future__ import annotations

import inspect
import re

from typer.main import get_command
from typer.testing import CliRunner

from warlog.cli import app

PANELS = ("Play and record", "Review and analyse", "Share", "Manage")
PANEL_TOP = re.compile(r"^╭─ (.+?) ─+╮$")
ROW = re.compile(r"^│ (\S+)? +(.*?) *│$")


def _help_panels() -> tuple[list[str], dict[str, list[tuple[str, list[str]]]]]:
    """The help's lines and, by panel title, each command with its description's lines."""
    result = CliRunner().invoke(app, ["--help"], prog_name="warlog", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    panels: dict[str, list[tuple[str, list[str]]]] = {}
    current = None
    for line in lines:
        top = PANEL_TOP.match(line)
        if top:
            current = panels.setdefault(top.group(1), [])
            continue
        row = ROW.match(line)
        if current is None or not row:
            continue
        name, text = row.groups()
        if name:
            current.append((name, [text]))
        elif current:  # a description's continuation line
            current[-1][1].append(text)
    return lines, panels


def _summary(command) -> str:
    """What the help list should show for ``command``: its short help, else the first
    paragraph of its docstring, on one line."""
    text = command.short_help or inspect.cleandoc(command.help or "").split("\n\n")[0]
    return " ".join(text.split())


def test_every_command_is_listed_once_under_one_of_the_four_panels():
    _, panels = _help_panels()
    command_panels = {title: rows for title, rows in panels.items() if title != "Options"}
    assert list(command_panels) == list(PANELS)
    listed = [name for rows in command_panels.values() for name, _ in rows]
    assert sorted(listed) == sorted(get_command(app).commands)
    assert len(listed) == len(set(listed))


def test_commands_sit_where_a_player_would_look_for_them():
    _, panels = _help_panels()
    where = {name: title for title, rows in panels.items() for name, _ in rows}
    assert {where[c] for c in ("new", "order", "takeback", "record", "note", "fork")} == {
        "Play and record"}
    assert {where[c] for c in ("show", "log", "review", "luck", "odds", "whatif",
                               "simulate", "analyze", "rules")} == {"Review and analyse"}
    assert {where[c] for c in ("export", "import", "verify", "report", "schema")} == {"Share"}
    assert {where[c] for c in ("games", "scenarios", "dashboard", "version")} == {"Manage"}


def test_each_summary_is_one_whole_sentence_on_one_line():
    lines, panels = _help_panels()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    commands = get_command(app).commands
    for title in PANELS:
        for name, text in panels[title]:
            assert len(text) == 1, f"{name}: its summary wraps onto {len(text)} lines: {text}"
            summary = text[0]
            assert summary.endswith("."), f"{name}: {summary!r} is not a whole sentence"
            assert summary[0].isupper(), f"{name}: {summary!r} does not start a sentence"
            assert summary == _summary(commands[name]), f"{name}: the list shows {summary!r}"


def test_a_long_docstring_keeps_its_body_in_the_commands_own_help():
    result = CliRunner().invoke(app, ["luck", "--help"], prog_name="warlog",
                                env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "Weigh each side's dice against what average dice give." in result.output
    assert "cumulative turn by turn" in result.output  # the body, after the summary
