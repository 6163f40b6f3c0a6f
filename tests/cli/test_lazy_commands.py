"""The console script builds only the command asked for (warlog/cli.main, issue 39's start-up):
the same command, the same help and errors, without importing every other command's module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import waits
from typer.main import get_command

from warlog import cli

SCRIPT = Path(sys.executable).with_name("warlog")

PROBE = """
import sys
sys.argv = ["warlog", *sys.argv[1:]]
from warlog.cli import main
try:
    main()
except SystemExit:
    pass
others = sorted(m for m in ("warlog.review_cmd", "warlog.odds_cmd", "warlog.study_cmd",
                            "warlog.whatif_cmd", "warlog.replay_cmd", "warlog.tabletop_cmd")
                if m in sys.modules)
print("IMPORTED", ",".join(others))
"""


def probe(*args: str) -> tuple[str, str]:
    """Run main() with ``args`` in a fresh interpreter: (its output, the command modules it
    imported)."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=waits.LIMIT)
    out, _, imported = done.stdout.rpartition("IMPORTED ")
    return out + done.stderr, imported.strip()


def test_a_command_is_built_alone_and_runs_as_in_the_whole_application(tmp_path):
    db = tmp_path / "w.db"
    out, imported = probe("games", "--db", str(db))
    assert "scenario" in out and "result" in out
    assert imported == ""  # no other command's module
    out, imported = probe("review", "--help")
    assert "Usage: warlog review" in out and imported == "warlog.review_cmd,warlog.whatif_cmd"
    one = cli.build({"games"})
    assert list(get_command(one).commands) == ["games"]  # a group still: `warlog games`


def test_help_and_an_unknown_word_build_every_command():
    out, imported = probe("--help")
    assert all(panel in out for panel in (cli.PLAY, cli.REVIEW, cli.SHARE, cli.MANAGE))
    assert "warlog.review_cmd" in imported and "warlog.tabletop_cmd" in imported
    out, _ = probe("gmaes")
    assert "No such command 'gmaes'. Did you mean 'games'?" in out
    assert list(get_command(cli.app).commands) == [name for _, name, _ in cli.COMMANDS]


def test_the_installed_script_is_main():
    text = SCRIPT.read_text(encoding="utf-8")
    assert "from warlog.launch import main" in text  # the client, which runs warlog.cli:main
