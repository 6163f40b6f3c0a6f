"""Start-up benchmark with the command server: what a short `warlog` command costs when
`warlog serve start` runs (warlog/app/server.py), beside the same command run directly, against
a bare interpreter (issue 39, item 6: within 5x of `python -c pass`).

Run: ``.venv/bin/python benchmarks/bench_startup_server.py`` (``--rounds N``, default 7).

The same database, commands and CPU accounting as benchmarks/bench_startup.py (whose functions
this imports). A served command runs the console script's client (`warlog.launch`); its cost is
counted whole: the client process's CPU (user + system, the RUSAGE_CHILDREN delta) plus the CPU
of the server's child that ran the command (the server's children's CPU, from `status` before
and after: the server reaps a child before it answers the client, so the figure is complete
when the client has exited). What is not counted is the server's own start (once, like a
player's) and its accept-and-fork per command (a few milliseconds in the server process).
Direct and served runs alternate in the same rounds, so a busy neighbour slows both alike.
Every served run must have been served (the server's count goes up by one), or the benchmark
stops: a client that fell back to running the command itself would be measured as served.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_startup import TARGET, commands, cpu_of, player_env, prepare, warlog  # noqa: E402

BARE = "python -c pass"
CLIENT = [sys.executable, "-c", "from warlog.launch import main; main()"]
"""What the console script `warlog` runs (pyproject: warlog.launch:main)."""


def served_argv(argv: list[str]) -> list[str]:
    """``argv`` (a direct `warlog ...` run) through the client: the same words after `warlog`."""
    return [*CLIENT, *argv[len(warlog()):]]


def server_env(folder: Path) -> dict[str, str]:
    return {**player_env(), "WARLOG_SERVER_DIR": str(folder / "server")}


def start_server(folder: Path) -> None:
    subprocess.run([sys.executable, "-c", "from warlog.app import server; "
                    "from warlog.serve_cmd import config; server.start(config())"],
                   env=server_env(folder), cwd=folder, check=True)


def server_status(folder: Path) -> dict:
    from warlog.app import server

    now = server.status(str(folder / "server"))
    if now is None:
        raise SystemExit("the command server is not running")
    return now


def served_cpu(argv: list[str], folder: Path) -> float:
    """The whole CPU of one served run: the client's and the child's that ran the command."""
    import resource

    before_server = server_status(folder)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True,
                          env=server_env(folder))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    after_server = server_status(folder)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    if after_server["served"] != before_server["served"] + 1:
        raise SystemExit(f"{' '.join(argv)} was not served (the client ran it itself)")
    client = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return client + after_server["children_cpu"] - before_server["children_cpu"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="runs of each command")
    rounds = parser.parse_args().rounds
    folder = Path(tempfile.mkdtemp(prefix="warlog-startup-server-"))
    os.chmod(folder, 0o700)
    try:
        db = prepare(folder)
        direct = commands(db)
        served = {name: served_argv(argv) for name, argv in direct.items() if name != BARE}
        for argv in direct.values():  # uncounted: writes the bytecode a player has cached
            cpu_of(argv, folder)
        start_server(folder)
        for argv in served.values():  # uncounted too: the first fork touches the most pages
            served_cpu(argv, folder)
        times: dict[str, list[float]] = {name: [] for name in direct}
        served_times: dict[str, list[float]] = {name: [] for name in served}
        for _ in range(rounds):
            for name, argv in direct.items():  # alternating: every command both ways a round
                times[name].append(cpu_of(argv, folder))
                if name in served:
                    served_times[name].append(served_cpu(served[name], folder))
        bare = statistics.median(times[BARE])
        print(f"CPU time of each command, median of {rounds} runs (user + system), against a "
              f"bare interpreter; target {TARGET:g}x. Served: client + the server's child")
        print(f"{'command':<24} {'direct s':>8} {'ratio':>7} {'served s':>9} {'ratio':>7}"
              "  verdict (served)")
        print(f"{BARE:<24} {bare:>8.3f} {1:>6.1f}x")
        for name in served:
            d, s = statistics.median(times[name]), statistics.median(served_times[name])
            verdict = "pass" if s / bare <= TARGET else "FAIL"
            print(f"{name:<24} {d:>8.3f} {d / bare:>6.1f}x {s:>9.3f} {s / bare:>6.1f}x  {verdict}")
    finally:
        from warlog.app import server

        server.stop(str(folder / "server"))
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
