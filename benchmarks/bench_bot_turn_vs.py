"""A bot's whole turn on the Play page, this checkout against another, alternated turn by turn.

Run: ``.venv/bin/python benchmarks/bench_bot_turn_vs.py OTHER_CHECKOUT [--turns N]``, where
OTHER_CHECKOUT is a warlog checkout with its own ``.venv`` (e.g. ``git worktree add /tmp/old
<commit>``, its .venv installed there with ``pip install -e . --no-deps``).

Why: ``bench_play.py --only bot-turn`` measures one server against its target; a change's effect
is a ratio against the code before it, measured in the same run, so the machine's load weighs on
both alike. Each candidate has its own server over its own copy of the same games (a One Hour
Wargames battle, a person against the tactician), its own tab, and the turns alternate (A, B,
B, A, ...: neither always goes first; the tab measured is brought to the front, as a tab behind
another is not painted and its turn would wait). Each server's first bot turn is left out of the figures
(it pays a worker pool's start where there is one). Wall time from the person's "end phase" to
the bot's last order drawn on the board (bench_play.one_bot_turn), and the ratio of medians.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from rich.table import Table as RichTable

from bench_play import (BOT_TURNS, CHROMIUM, LIMIT_S, ROOT, SHARED_ARGS, bot_turn_db, console,
                        one_bot_turn, pct, start_server, stop_server)


class Candidate:
    """One checkout's server, its database and its tab, and the turns measured on it."""

    def __init__(self, name: str, root: Path, tmp: Path, games: int) -> None:
        self.name, self.root = name, root
        here = tmp / name
        here.mkdir()
        self.db = bot_turn_db(here, games)
        python = sys.executable if root == ROOT else str(root / ".venv" / "bin" / "python")
        self.proc, self.url, _ = start_server(self.db, here, root=root, python=python)
        self.games = iter(range(1, games + 1))
        self.page, self.game, self.first = None, "", True
        self.turns: list[float] = []

    def turn(self, context) -> None:
        """Play on until one bot turn has been measured (opening the next game as one ends)."""
        while True:
            if self.page is None:
                self.game = f"bot-turn-{next(self.games)}"
                self.page = context.new_page()
                self.page.set_default_timeout(LIMIT_S * 1000)
                self.page.goto(f"{self.url}/play?play={self.game}")
            self.page.bring_to_front()  # a tab behind another is not painted: it would wait
            measured = one_bot_turn(self.page, self.db, self.game)
            if measured is None:  # the game ended
                self.page.close()
                self.page = None
                continue
            if self.first:
                self.first = False
                continue
            self.turns.append(measured[0])
            return


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        console.print(__doc__)
        return 2
    other = Path(argv[0]).resolve()
    turns = int(argv[argv.index("--turns") + 1]) if "--turns" in argv else BOT_TURNS["full"]
    if not (other / ".venv" / "bin" / "python").exists():
        console.print(f"{other} has no .venv: install warlog there first")
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="warlog-bench-vs-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["XDG_CONFIG_HOME"] = str(tmp / "xdg-config")
        os.environ["XDG_CACHE_HOME"] = str(tmp / "xdg-cache")
        this = Candidate("this", ROOT, tmp, 2 + turns)
        that = Candidate("other", other, tmp, 2 + turns)
        load = [os.getloadavg()[0]]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=SHARED_ARGS,
                                            timeout=LIMIT_S * 1000)
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                for i in range(turns):
                    pair = (this, that) if i % 2 == 0 else (that, this)
                    for candidate in pair:
                        candidate.turn(context)
                    console.print(f"turn {i + 1}/{turns}: this {this.turns[-1]:.2f} s, "
                                  f"other {that.turns[-1]:.2f} s")
                browser.close()
        finally:
            stop_server(this.proc)
            stop_server(that.proc)
        load.append(os.getloadavg()[0])
    table = RichTable(title=f"a bot's whole turn at once, {turns} turns each, alternated")
    for col in ("checkout", "p50 s", "p95 s", "worst s"):
        table.add_column(col)
    for c in (this, that):
        table.add_row(f"{c.name} ({c.root})", f"{statistics.median(c.turns):.2f}",
                      f"{pct(c.turns, 95):.2f}", f"{max(c.turns):.2f}")
    console.print(table)
    console.print(f"ratio of medians, other / this: "
                  f"{statistics.median(that.turns) / statistics.median(this.turns):.1f}x; "
                  f"load {load[0]:.1f} -> {load[1]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
