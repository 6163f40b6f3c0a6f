"""The command server (warlog/app/server.py) and its client (warlog/launch.py), for real: a
server started in a temporary folder, and clients run as processes, whose output and exit codes
must be those of the same command run directly; a stale server, another environment or no
server at all leave the client to run the command itself, as before."""

from __future__ import annotations

import os
import platform
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner
from waits import LIMIT, Lines, wait_until

from warlog.app import server

BOT_GAME, TABLE_GAME = "served-bot-game", "served-table-game"
CLIENT = [sys.executable, "-c", "from warlog.launch import main; main()"]
DIRECT = [sys.executable, "-c", "from warlog.cli import main; main()"]


def env_for(folder: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("WARLOG_DB", "COLUMNS")}
    return {**env, "WARLOG_SERVER_DIR": str(folder), **extra}


def run(argv: list[str], folder: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env_for(folder, **extra), capture_output=True,
                          text=True, timeout=LIMIT, stdin=subprocess.DEVNULL)


def start(folder: Path, watch: list[str] = (), idle: float | None = None) -> int:
    """A server for ``folder`` started as `warlog serve start` would (from its own process: a
    fork of the test process would copy pytest's threads' locks)."""
    folder.mkdir(mode=0o700, exist_ok=True)
    code = ("import sys; from warlog.app import server; from warlog.serve_cmd import config; "
            f"c = config(); c.watch = {list(watch)!r}; c.idle = {idle or server.IDLE!r}; "
            "print(server.start(c))")
    done = run([sys.executable, "-c", code], folder, folder.parent)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """(server folder, working folder with bench.db): a bot game and a table game, and a
    running server, stopped at the end whatever happened."""
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario
    from warlog.events.sqlite_store import SQLiteEventStore

    work = tmp_path_factory.mktemp("served")
    folder = work / "server"
    db = work / "games.db"
    with SQLiteEventStore(db) as store:
        scenario = load_scenario("ancients-river-crossing")
        store.append(BOT_GAME, play_out(BOT_GAME, scenario, seed=1).events, 0)
    made = run([*DIRECT, "new", "ancients-river-crossing", "--game", TABLE_GAME, "--date",
                "2026-01-01", "--db", str(db)], folder, work)
    assert made.returncode == 0, made.stderr
    start(folder)
    try:
        yield folder, work
    finally:
        server.stop(str(folder))


def served_count(folder: Path) -> int:
    return server.status(str(folder))["served"]


def same_both_ways(args: list[str], folder: Path, work: Path, **extra: str):
    """The command served and run directly: the same stdout, stderr and exit code; it was
    served (the server's count went up by one)."""
    before = served_count(folder)
    served = run([*CLIENT, *args], folder, work, **extra)
    assert served_count(folder) == before + 1
    direct = run([*DIRECT, *args], folder, work, **extra)
    assert (served.returncode, served.stdout, served.stderr) == (
        direct.returncode, direct.stdout, direct.stderr)
    return served


def test_show_games_and_scenarios_are_what_a_direct_run_prints(place):
    folder, work = place
    shown = same_both_ways(["show", BOT_GAME, "--db", "games.db"], folder, work)
    assert shown.returncode == 0 and "Crossing at the Ford" in shown.stdout
    listed = same_both_ways(["games", "--db", "games.db"], folder, work)
    assert BOT_GAME in listed.stdout and TABLE_GAME in listed.stdout
    # the client's COLUMNS reaches rich's consoles, made in the server with none set
    narrow = same_both_ways(["scenarios"], folder, work, COLUMNS="50")
    assert max(len(line) for line in narrow.stdout.splitlines()) == 50


def test_an_order_served_writes_what_a_direct_order_writes(place):
    folder, work = place
    for copy in ("a.db", "b.db"):
        shutil.copyfile(work / "games.db", work / copy)
    before = served_count(folder)
    served = run([*CLIENT, "order", TABLE_GAME, "end", "--db", "a.db"], folder, work)
    direct = run([*DIRECT, "order", TABLE_GAME, "end", "--db", "b.db"], folder, work)
    assert served_count(folder) == before + 1
    assert served.returncode == direct.returncode == 0, served.stderr + direct.stderr
    assert served.stdout == direct.stdout and served.stdout
    logs = [run([*DIRECT, "log", TABLE_GAME, "--db", db], folder, work).stdout
            for db in ("a.db", "b.db")]
    assert logs[0] == logs[1] and "end" in logs[0]


def test_an_unknown_game_is_the_same_one_line_and_exit_1(place):
    folder, work = place
    failed = same_both_ways(["show", "no-such-game", "--db", "games.db"], folder, work)
    assert failed.returncode == 1
    assert failed.stderr.strip().splitlines() == ["error: no game 'no-such-game' in this database"]


READ_SYSCALL = {"x86_64": 0, "aarch64": 63}.get(platform.machine())


def _only_child(pid: int) -> int:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def _reads_stdin(pid: int) -> bool:
    """Whether ``pid`` is blocked in read(0, ...) (Linux's /proc/PID/syscall)."""
    return Path(f"/proc/{pid}/syscall").read_text().startswith(f"{READ_SYSCALL} 0x0 ")


@pytest.mark.skipif(READ_SYSCALL is None or not Path("/proc/self/syscall").exists(),
                    reason="needs Linux's /proc/PID/syscall to see the prompt waiting")
def test_record_reads_the_clients_stdin_and_ctrl_c_reaches_it(place):
    """`warlog record`'s prompt reads what the client is given, and Ctrl-C at the client stops
    the command as it stops a direct run: the same words, the same exit code."""
    folder, work = place
    for copy in ("r1.db", "r2.db"):
        shutil.copyfile(work / "games.db", work / copy)
    args = ["record", "--game", TABLE_GAME, "--db"]
    piped = [subprocess.run([*how, *args, db], cwd=work, env=env_for(folder),
                            input="orders\nquit\n", capture_output=True, text=True,
                            timeout=LIMIT)
             for how, db in ((CLIENT, "r1.db"), (DIRECT, "r2.db"))]
    assert piped[0].returncode == piped[1].returncode == 0
    assert piped[0].stdout.replace("r1.db", "DB") == piped[1].stdout.replace("r2.db", "DB")
    assert "legal orders" in piped[0].stdout and "left served-table-game" in piped[0].stdout
    ended = []
    for how, db in ((CLIENT, "r1.db"), (DIRECT, "r2.db")):
        proc = subprocess.Popen([*how, *args, db], cwd=work, env=env_for(folder), text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        lines = Lines(proc.stdout)
        lines.until(lambda line: "a number or an order" in line, "the record prompt")
        # Ctrl-C while the prompt waits for a line (not while it is still printing)
        reader = proc.pid if how is DIRECT else _only_child(server.status(str(folder))["pid"])
        wait_until(lambda: _reads_stdin(reader), "the prompt to wait for a line")
        proc.send_signal(signal.SIGINT)
        ended.append((proc.wait(timeout=LIMIT), lines.rest().replace(db, "DB")))
        proc.stdin.close()
    assert ended[0] == ended[1]
    assert server.status(str(folder))["running"] == 0


def test_status_counts_commands_and_their_cpu(place, monkeypatch):
    folder, work = place
    before = server.status(str(folder))
    run([*CLIENT, "show", BOT_GAME, "--db", "games.db"], folder, work)
    after = server.status(str(folder))
    assert after["served"] == before["served"] + 1 and after["running"] == 0
    assert after["children_cpu"] > before["children_cpu"]  # a fold and a board: never 0 s
    monkeypatch.setenv("WARLOG_SERVER_DIR", str(folder))
    said = CliRunner().invoke(_serve_app(), ["serve", "status"])
    assert said.exit_code == 0
    assert f"runs (pid {after['pid']}): {after['served']} commands served" in said.output


def test_a_client_with_another_environment_runs_the_command_itself(place):
    folder, work = place
    before = served_count(folder)
    done = run([*CLIENT, "version"], folder, work, PYTHONHASHSEED="123")
    assert done.returncode == 0 and done.stdout.strip() == "0.1.0"
    assert served_count(folder) == before


def test_no_server_means_the_command_runs_directly(tmp_path):
    empty = tmp_path / "none"
    empty.mkdir(mode=0o700)
    done = run([*CLIENT, "version"], empty, tmp_path)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "0.1.0", "")
    missing = run([*CLIENT, "show", "x", "--db", "nothing.db"], tmp_path / "absent", tmp_path)
    assert missing.returncode == 1 and missing.stderr.startswith("error:")


def test_a_changed_module_file_makes_the_server_stale_and_the_client_runs_it(tmp_path):
    folder, module = tmp_path / "server", tmp_path / "watched.py"
    module.write_text("# a module file the server loaded\n")
    start(folder, watch=[str(module)])
    try:
        assert run([*CLIENT, "version"], folder, tmp_path).stdout.strip() == "0.1.0"
        assert served_count(folder) == 1
        stamp = module.stat().st_mtime_ns
        os.utime(module, ns=(stamp + 10**9, stamp + 10**9))
        done = run([*CLIENT, "version"], folder, tmp_path)
        assert (done.returncode, done.stdout.strip()) == (0, "0.1.0")
        assert server.status(str(folder)) is None  # it stopped listening as it said "stale"
        wait_until(lambda: not (folder / server.PIDFILE).exists(), "the stale server to end")
    finally:
        server.stop(str(folder))


def test_an_idle_server_ends_by_itself(tmp_path):
    folder = tmp_path / "server"
    start(folder, idle=0.5)
    try:
        wait_until(lambda: not (folder / server.PIDFILE).exists(), "the idle server to end")
        assert server.status(str(folder)) is None and not (folder / server.SOCKET_NAME).exists()
    finally:
        server.stop(str(folder))


def test_serve_start_where_it_cannot_run_is_one_line_and_exit_1(monkeypatch, tmp_path):
    monkeypatch.setattr(server, "available", lambda: False)
    monkeypatch.setenv("WARLOG_SERVER_DIR", str(tmp_path / "server"))
    said = CliRunner().invoke(_serve_app(), ["serve", "start"])
    assert said.exit_code == 1
    assert said.output.strip().splitlines() == [
        "error: the command server is not available here (it needs fork, Unix sockets and "
        "descriptor passing)"]


def test_the_client_imports_none_of_the_command_line():
    code = ("import sys, warlog.launch; print(sorted(m for m in sys.modules if m.split('.')[0] "
            "in ('typer', 'rich', 'pydantic', 'click') or m.startswith('warlog.cli')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=LIMIT)
    assert done.stdout.strip() == "[]", done.stderr


def _serve_app():
    """`warlog serve` as warlog/cli.py builds it."""
    from warlog.cli import build

    return build({"serve"})


@pytest.mark.parametrize("where", ["a file", "under a file", "too deep", "shared"])
def test_a_server_folder_it_cannot_use_is_one_line_and_exit_1(where, monkeypatch, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    folder = {"a file": afile, "under a file": afile / "server", "too deep": tmp_path /
              ("x" * 120), "shared": shared}[where]
    monkeypatch.setenv("WARLOG_SERVER_DIR", str(folder))
    said = CliRunner().invoke(_serve_app(), ["serve", "start"])
    assert said.exit_code == 1 and "Traceback" not in said.output
    lines = said.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), said.output
    assert str(folder) in lines[0] or where == "too deep"
    assert not (tmp_path / ("x" * 120)).exists()  # nothing made for a path it refuses
