"""`warlog record` in a real terminal (issue 39): a game recorded by keystrokes sent to a tmux
pane, read back from the screen, with an end of phase taken back at the prompt and the game
carried on; then `warlog verify` passes and the log holds the take-back. Why a terminal: the
prompt's readline, rich's output to a tty and the exit on `quit` are what a player meets, and
CliRunner's piped input meets none of them. Every wait is for text to appear (tests/waits.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from waits import LIMIT, wait_until
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

TMUX = Path("/usr/bin/tmux")
GAME = "ancients-river-crossing-1"

pytestmark = pytest.mark.skipif(not TMUX.exists(), reason="tmux is not installed")


class Pane:
    """A tmux server of the test's own (its own socket) running one command in a 100x40 pane
    that stays on screen after the command exits."""

    def __init__(self, socket: str, command: str, cwd: Path) -> None:
        self.socket = socket
        self.env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
        self.tmux("new-session", "-d", "-x", "100", "-y", "40", "-s", "rec", "-c", str(cwd),
                  command, ";", "set-option", "-t", "rec", "remain-on-exit", "on")

    def tmux(self, *args: str) -> str:
        done = subprocess.run([str(TMUX), "-u", "-L", self.socket, *args], env=self.env,
                              capture_output=True, text=True, check=True, timeout=LIMIT)
        return done.stdout

    def screen(self) -> str:
        """Everything the pane has shown, its scrollback too, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "rec")

    def type(self, line: str, then: str, times: int = 1) -> None:
        """Type ``line`` and Enter, then wait until ``then`` is on the screen ``times`` times."""
        self.tmux("send-keys", "-t", "rec", "-l", line)
        self.tmux("send-keys", "-t", "rec", "Enter")
        self.wait_for(then, times)

    def wait_for(self, text: str, times: int = 1) -> None:
        wait_until(lambda: self.screen().count(text) >= times,
                   lambda: f"{text!r} x{times} on the screen:\n{self.screen()}")

    def exited(self) -> bool:
        return self.tmux("display-message", "-p", "-t", "rec", "#{pane_dead}").strip() == "1"

    def close(self) -> None:
        subprocess.run([str(TMUX), "-L", self.socket, "kill-server"], env=self.env,
                       capture_output=True, timeout=LIMIT)


def test_a_game_recorded_by_keystrokes_takes_back_an_end_of_phase_and_verifies(tmp_path):
    db = tmp_path / "table.db"
    command = (f"{sys.executable} -m warlog.cli record ancients-river-crossing "
               f"--players red=Ann,blue=Bo --db {db}")
    pane = Pane(f"warlog-test-{os.getpid()}-{tmp_path.name}", command, tmp_path)
    try:
        pane.wait_for("started ancients-river-crossing-1")
        pane.wait_for("movement > ")  # the prompt
        pane.type("move r-inf-1 E 3", "r-inf-1 moves 3 cells")
        pane.type("move r-arc-1 E 2", "r-arc-1 moves 2 cells")
        pane.type("end", "red's shooting phase begins")
        pane.type("takeback", "Red (Ann) takes back 1 order")
        screen = pane.screen()
        said = " ".join(screen[screen.rindex("Red (Ann) takes back"):].split())  # unwrapped
        assert "the game goes back to turn 1, red's movement phase." in said
        pane.type("move r-skm-1 E 1", "red orders: r-skm-1 moves E 1")
        pane.type("end", "red's shooting phase begins", times=2)
        pane.type("end", "blue's movement phase begins")
        pane.type("move b-skm-1 W 3", "b-skm-1 moves 3 cells")
        pane.type("takeback 2", "error: cannot take back: blue can take back 1 order here")
        pane.type("quit", f"left {GAME}: it stays in the database")
        wait_until(pane.exited, "warlog record did not exit after quit")
        assert "Traceback" not in pane.screen()
    finally:
        pane.close()
    assert "OK" in run("verify", GAME, "--db", str(db)).output
    with SQLiteEventStore(db) as store:
        events = store.read(GAME)
    took = [e for e in events if e["kind"] == "orders_taken_back"]
    ends = [e for e in events if e["kind"] == "order_given" and e["order"]["type"] == "end_phase"]
    assert len(took) == 1 and took[0]["back_to"] == ends[0]["seq"]  # red's first end
    assert took[0]["side"] == "red" and took[0]["by"] == "Ann"
    assert verify(events).ok
