"""Start-up benchmark: what a short `warlog` command costs against a bare interpreter (issue 39,
item 6: within 5x of `python -c pass`).

Run: ``.venv/bin/python benchmarks/bench_startup.py`` (``--rounds N``, default 7; about 30 s).

A player at the table runs `warlog order GAME end` for every phase, and `warlog games` or
`warlog show GAME` between them: what they wait for is mostly the interpreter starting and the
modules it imports, not the work. Each command runs fresh as a subprocess on a throwaway
database in a temporary folder, the commands alternating round by round (so a busy neighbour
slows all of them alike); a command's cost is its process's CPU time (user + system, the delta
of ``resource.getrusage(RUSAGE_CHILDREN)``: the machine is shared, wall time would measure the
neighbours), the median over the rounds, shown as a ratio to `python -c pass` timed in the same
rounds. Each command runs two ways: directly (no command server: a fresh interpreter imports
everything) and served (`warlog serve start`, warlog/app/server.py: the console script hands the
command to a server that has imported everything once and forks a child for it). A served run
is counted whole: the client process's CPU plus the CPU of the server's child that ran the
command (the server reaps it before it answers, and its ``status`` adds its children's CPU up);
not counted are the server's own start (once a session, like a player's) and its accept and
fork (a few milliseconds in the server). Every served run must have been served (the server's
count goes up by one), or the benchmark stops. Then the ten imports with the most cumulative
time in a direct `warlog show`, from ``python -X importtime``: where a fresh start's time goes.

A player's installed warlog has its bytecode cached (pip compiles it at install; a first run
writes it), so the commands run once uncounted with bytecode writing allowed, whatever
PYTHONDONTWRITEBYTECODE the caller's shell sets: otherwise every module changed since the last
cache would be compiled from source in every counted run, which no player pays.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET = 5.0
"""A command may cost at most this many times a bare interpreter's start."""
SCENARIO = "ancients-river-crossing"
BOT_GAME = "bench-bot-game"
TABLE_GAME = "bench-table-game"


def warlog() -> list[str]:
    """How to run `warlog` as a player does: the console script beside this interpreter (not
    ``-m warlog.cli``, which imports the module a second time as __main__)."""
    script = Path(sys.executable).with_name("warlog")
    if script.is_file():
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "import sys; from warlog.cli import app; sys.exit(app())"]


NO_SERVER = "/nonexistent/warlog-no-command-server"
"""A command server folder that cannot exist: a direct run is never served, even where a
player's own server runs."""
BARE = "python -c pass"


def player_env() -> dict[str, str]:
    """This environment, with bytecode caching as a player's machine has it (on), and no
    command server."""
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "WARLOG_SERVER_DIR": NO_SERVER}


def cpu_of(argv: list[str], cwd: Path) -> float:
    """The CPU seconds (user + system) of one run of ``argv``, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=player_env())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def prepare(folder: Path) -> Path:
    """A database holding one finished bot game and one tabletop game waiting for an order."""
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario
    from warlog.events.sqlite_store import SQLiteEventStore

    db = folder / "bench.db"
    with SQLiteEventStore(db) as store:
        events = play_out(BOT_GAME, load_scenario(SCENARIO), seed=1).events
        store.append(BOT_GAME, events, 0)
    subprocess.run([*warlog(), "new", SCENARIO, "--game", TABLE_GAME, "--date", "2026-01-01",
                    "--db", str(db)], cwd=folder, check=True, capture_output=True)
    return db


def commands(db: Path) -> dict[str, list[str]]:
    w = warlog()
    return {
        BARE: [sys.executable, "-c", "pass"],
        "warlog version": [*w, "version"],
        "warlog games": [*w, "games", "--db", str(db)],
        "warlog show GAME": [*w, "show", BOT_GAME, "--db", str(db)],
        # each run ends one more phase of the tabletop game: a fresh order every time
        "warlog order GAME end": [*w, "order", TABLE_GAME, "end", "--db", str(db)],
    }


def top_imports(db: Path, folder: Path, count: int = 10) -> list[tuple[int, int, str]]:
    """(cumulative µs, depth, module) of the ``count`` imports with the most cumulative time in
    one run of `warlog show`."""
    w = warlog()
    argv = [w[0], "-X", "importtime", *w[1:], "show", BOT_GAME, "--db", str(db)]
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=True,
                          env=player_env())
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        rows.append((int(cumulative), depth, name.strip()))
    return sorted(rows, reverse=True)[:count]


def server_env(folder: Path) -> dict[str, str]:
    """A player's environment with the benchmark's own command server."""
    return {**player_env(), "WARLOG_SERVER_DIR": str(folder / "server")}


def server_status(folder: Path) -> dict:
    from warlog.app import server

    now = server.status(str(folder / "server"))
    if now is None:
        raise SystemExit("the command server is not running")
    return now


def served_cpu(argv: list[str], folder: Path) -> float:
    """The whole CPU of one served run: the client's and the child's that ran the command."""
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


def measure(folder: Path, db: Path, rounds: int) -> tuple[dict, dict]:
    """Median CPU seconds of every command run directly, and of every `warlog` one served."""
    direct = commands(db)
    served = {name: argv for name, argv in direct.items() if name != BARE}
    for argv in direct.values():  # uncounted: writes the bytecode a player has cached
        cpu_of(argv, folder)
    subprocess.run([sys.executable, "-c", "from warlog.app import server; "
                    "from warlog.serve_cmd import config; server.start(config())"],
                   env=server_env(folder), cwd=folder, check=True)
    for argv in served.values():  # uncounted too: the first fork touches the most pages
        served_cpu(argv, folder)
    times: dict[str, list[float]] = {name: [] for name in direct}
    served_times: dict[str, list[float]] = {name: [] for name in served}
    for _ in range(rounds):
        for name, argv in direct.items():  # alternating: every command both ways a round
            times[name].append(cpu_of(argv, folder))
            if name in served:
                served_times[name].append(served_cpu(argv, folder))
    return ({name: statistics.median(t) for name, t in times.items()},
            {name: statistics.median(t) for name, t in served_times.items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="runs of each command")
    rounds = parser.parse_args().rounds
    folder = Path(tempfile.mkdtemp(prefix="warlog-startup-"))
    os.chmod(folder, 0o700)  # the command server's folder lives in it: only ours
    try:
        db = prepare(folder)
        direct, served = measure(folder, db, rounds)
        bare = direct[BARE]
        print(f"CPU time of each command, median of {rounds} runs (user + system), against a "
              f"bare interpreter; target {TARGET:g}x. Served: client + the server's child")
        print(f"{'command':<24} {'direct s':>8} {'ratio':>6}  {'verdict':<7} {'served s':>8} "
              f"{'ratio':>6}  verdict")
        print(f"{BARE:<24} {bare:>8.3f} {1:>5.1f}x")
        for name in served:
            d, s = direct[name], served[name]
            print(f"{name:<24} {d:>8.3f} {d / bare:>5.1f}x  {_verdict(d / bare):<7} "
                  f"{s:>8.3f} {s / bare:>5.1f}x  {_verdict(s / bare)}")
        print("\nTop 10 imports of a direct `warlog show` by cumulative time (-X importtime):")
        for cumulative, depth, name in top_imports(db, folder):
            print(f"  {cumulative / 1000:>7.1f} ms  {'  ' * depth}{name}")
    finally:
        from warlog.app import server

        server.stop(str(folder / "server"))
        shutil.rmtree(folder, ignore_errors=True)


def _verdict(ratio: float) -> str:
    return "pass" if ratio <= TARGET else "FAIL"


if __name__ == "__main__":
    main()
