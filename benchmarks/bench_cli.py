"""CLI benchmark: the CPU a store command costs (issue 9, part 6: under 0.5 s on a small database).

Run: ``.venv/bin/python benchmarks/bench_cli.py`` (about half a minute on 2 cores).

A player recording a game at the table runs a command for every order, so what counts is the
whole process: interpreter start, imports, opening the store, the work, the output. Each command
runs as its own process (``python -m warlog.cli ...``) on a small database (three bundled demo
games); its CPU time (user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``: the machine is
shared, so wall time would measure the neighbours) is the median of 7 runs. The reference, timed
in the same run and alternated with the commands, is the floor of any Python command over this
database: a process that starts the interpreter, opens the file with the standard sqlite3 module
and prints the list of games.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
RUNS = 7
BUDGET = 0.5
REFERENCE = ("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
             "print(db.execute('SELECT id FROM games ORDER BY id').fetchall())")


def cpu_of(argv: list[str]) -> float:
    """CPU seconds (user + system) of one child process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build(db: Path) -> tuple[str, str]:
    """Three small bot games, and a tabletop game waiting for an order: (finished, open)."""
    from warlog.engine.bots import play_out
    from warlog.engine.game import start
    from warlog.engine.scenario import load_scenario
    from warlog.events.sqlite_store import SQLiteEventStore

    with SQLiteEventStore(db) as store:
        for i, sid in enumerate(("ancients-river-crossing", "portable-zama", "frontier-ulundi")):
            events = play_out(f"g{i}", load_scenario(sid), seed=i).events
            store.append(f"g{i}", events, 0)
        opening = start("table", load_scenario("ancients-river-crossing"), seed=1)
        store.append("table", opening, 0)
    return "g0", "table"


def main() -> None:
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "small.db"
        finished, table = build(db)
        cli = [sys.executable, "-m", "warlog.cli"]
        commands = {
            "games": cli + ["games", "--db", str(db)],
            "show": cli + ["show", finished, "--db", str(db)],
            "orders": cli + ["orders", table, "--db", str(db)],
            "order (end phase)": cli + ["order", table, "end", "--db", str(db)],
        }
        reference = [sys.executable, "-c", REFERENCE, str(db)]
        times: dict[str, list[float]] = {name: [] for name in commands}
        times["reference"] = []
        with console.status("timing the commands…"):
            for _ in range(RUNS):
                for name, argv in commands.items():
                    times["reference"].append(cpu_of(reference))
                    times[name].append(cpu_of(argv))  # "end": the game moves on a phase a run
    ref = statistics.median(times["reference"])
    table_out = Table(title=f"store commands: CPU seconds per process (median of {RUNS})")
    table_out.add_column("command")
    table_out.add_column("CPU s", justify="right")
    table_out.add_column("ours / reference", justify="right")
    table_out.add_column(f"budget {BUDGET} s", justify="right")
    for name in commands:
        cpu = statistics.median(times[name])
        table_out.add_row(name, f"{cpu:.3f}", f"{cpu / ref:.1f}x",
                          "meets" if cpu < BUDGET else "MISSES")
    table_out.add_row("reference (python + sqlite3)", f"{ref:.3f}", "1.0x", "")
    console.print(table_out)


if __name__ == "__main__":
    main()
