"""warlog/terminal.py: nothing a log holds reaches the terminal as a control sequence, through
every way the CLI prints (markup, plain text, tables, columns, prompts, JSON, progress)."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.columns import Columns
from rich.markup import escape
from rich.table import Table

from warlog.progress import progress_bar
from warlog.terminal import SafeConsole, json_safe, terminal_safe

HOSTILE = "a\x1b[2Jb\x07c\u202ed\u200be\x9bf\udcffg\u2028h [bold]i[/bold] :skull:"
RAW = ("\x1b", "\x07", "\u202e", "\u200b", "\x9b", "\udcff", "\u2028")


def _console(terminal: bool = True) -> tuple[SafeConsole, io.StringIO]:
    buf = io.StringIO()
    return SafeConsole(file=buf, highlight=False, soft_wrap=True, force_terminal=terminal,
                       width=200), buf


def _without_styles(text: str) -> str:
    """The output less the SGR sequences rich itself writes for styles (bold, colours)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_terminal_safe_shows_each_unsafe_character_as_its_escape():
    assert terminal_safe(HOSTILE) == ("a\\x1b[2Jb\\x07c\\u202ed\\u200be\\x9bf\\udcffg\\u2028h "
                                      "[bold]i[/bold] :skull:")
    assert terminal_safe("line one\n\tline two é 战 📝") == "line one\n\tline two é 战 📝"


def test_json_safe_keeps_the_value_and_escapes_as_json():
    text = json.dumps({"n": "x\u202e\x9b\U000e0001"}, ensure_ascii=False)
    safe = json_safe(text)
    assert safe.isascii() or all(ch not in safe for ch in RAW)
    assert json.loads(safe) == json.loads(text)


@pytest.mark.parametrize("terminal", [True, False])
def test_every_way_of_printing_is_safe_and_markup_stays_literal(terminal):
    console, buf = _console(terminal)
    console.print(f"[bold]{escape(HOSTILE)}[/bold]")
    console.print(HOSTILE, markup=False)
    table = Table("a", title=escape(HOSTILE))
    table.add_row(escape(HOSTILE))
    console.print(table)
    console.print(Columns([escape(HOSTILE), "b"]))
    console.print_json(json.dumps({"n": HOSTILE.replace("\udcff", "")}))
    console.input(f"{escape(HOSTILE)} > ", stream=io.StringIO("x\n"))
    out = _without_styles(buf.getvalue())
    assert not any(raw in out for raw in RAW), out
    assert out.count("[bold]i[/bold] :skull:") >= 5  # markup and emoji codes as text
    assert "a\\x1b[2Jb" in out and '"a\\u001b[2Jb' in out


def test_a_progress_bar_label_is_safe():
    console, buf = _console(True)  # the bar moves the cursor with sequences of its own
    with progress_bar(HOSTILE, console=console) as progress:
        progress(1, 2)
    drawn = buf.getvalue()
    assert "\x1b[2Jb" not in drawn and not any(raw in drawn for raw in RAW[1:])
    assert "a\\x1b[2Jb" in drawn
    console, buf = _console(False)
    with progress_bar(HOSTILE, console=console) as progress:
        progress(1, 2)
    assert "a\\x1b[2Jb" in buf.getvalue() and "\x1b" not in buf.getvalue()
