"""The README's first example ("The same seed gives the same game") run as written, in a fresh
folder: every command succeeds and every claim its comment makes is what the command prints,
so the numbers in the README cannot drift from the engine's (they had: 274 events and 79 orders
where verify printed 378 and 115)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from cli_run import no_ambient_db  # noqa: F401  (autouse: no WARLOG_DB, a fresh folder)
from typer.testing import CliRunner

from warlog.cli import app

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
SECTION = "The same seed gives the same game"


def example() -> list[tuple[list[str], str]]:
    """(arguments after `warlog`, the comment) of each line of the example block."""
    block = README.split(SECTION, 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.strip().splitlines():
        command, _, comment = line.partition("  #")
        words = shlex.split(command)
        assert words[0] == "warlog", line
        lines.append((words[1:], comment.strip()))
    return lines


def test_the_example_block_is_the_four_commands_it_claims():
    assert [args[0] for args, _ in example()] == ["simulate", "verify", "show", "log"]


def test_every_command_of_the_example_does_what_its_comment_says(tmp_path):
    runner = CliRunner()
    printed = {}
    for args, comment in example():
        result = runner.invoke(app, args, catch_exceptions=False)
        assert result.exit_code == 0, (args, result.output)
        printed[args[0]] = (args, comment, result.stdout)
    args, _, _ = printed["simulate"]
    assert Path(args[args.index("--out") + 1]).is_file()
    _, claim, said = printed["verify"]  # the comment is the line verify prints, word for word
    assert said.strip() == claim
    args, _, said = printed["show"]
    turn = args[args.index("--turn") + 1]
    assert f"— turn {turn}," in said
    args, claim, said = printed["log"]  # "why everything in turn 2 happened": turn 2, with rules
    turn = int(args[args.index("--turn") + 1])
    assert f"turn {turn}" in claim
    begun = re.findall(r"Turn (\d+): ", said)
    assert begun and set(begun) == {str(turn)}
    assert re.search(r"^ {9}ohw\.\S+: \S", said, re.MULTILINE)  # a rule's text, under its event
