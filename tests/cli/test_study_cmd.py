"""`warlog simulate --games N` and `warlog analyze` end to end (warlog/study_cmd.py), through
the same one-line-error command group as `warlog` itself: repeatable studies, one game as it
always was, analyze over study files, replay files and a database, 1 and 2 workers giving the
same numbers, Ctrl-C, and one-line errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import warlog.app.study
import warlog.study_cmd
from cli_run import no_ambient_db  # noqa: F401 (a fixture: fresh folder, no WARLOG_DB)
from job_helpers import AS_FROM_A_TERMINAL
from warlog.cli import app as warlog_app
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore
from waits import LIMIT, Lines, wait_until

SCENARIO = "ancients-river-crossing"  # small (4v4 on 12x8), ~20 ms a random game
RANDOM = ("--red", "random", "--blue", "random")
APP_SOURCE = """
import typer
from warlog.cli_common import OneLineErrors
from warlog.study_cmd import analyze, simulate
app = typer.Typer(cls=OneLineErrors, add_completion=False, pretty_exceptions_enable=False)
app.command("simulate")(simulate)
app.command("analyze")(analyze)
"""
namespace: dict = {}
# The app the tests drive: warlog's own one-line-error group with the two commands (they are
# registered in warlog.cli by its owner); a subprocess runs the same text.
exec(APP_SOURCE, namespace)
app: typer.Typer = namespace["app"]
runner = CliRunner()


def run(*args: str, ok: bool = True):
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert (result.exit_code == 0) == ok, result.output
    return result


def study(*args: str) -> dict:
    return json.loads(run(*args, "--json").stdout)


# -- simulate ----------------------------------------------------------------------------------


def test_a_study_run_twice_prints_the_same_and_another_seed_does_not():
    args = ("simulate", SCENARIO, "--games", "6", "--first", "both", *RANDOM)
    first, again = run(*args).output, run(*args).output
    assert first == again
    assert f"{SCENARIO}: 12 games, seeds 1-6" in first and "red wins" in first
    assert "Lopsided" in first
    assert run(*args, "--seed", "2").output != first
    data = study(*args)
    assert data["games"] == 12 and data["seeds"] == [1, 6]
    assert [g["key"]["first"] for g in data["groups"]] == ["blue", "red"]
    assert [g["n"] for g in data["groups"]] == [6, 6]


def test_one_game_is_simulate_as_it_always_was(tmp_path):
    scn = load_scenario(SCENARIO)
    game = play_out(f"{SCENARIO}-aggressive-cautious-s7", scn, seed=7)
    line = run("simulate", SCENARIO, "--seed", "7", "--games", "1", "--out", "a.jsonl").output
    s = game.state
    result = f"{s.winner} wins" if s.winner else "draw"
    assert line == (f"{s.game}: {result} ({s.end_reason}); {len(game.events)} events; "
                    "replay written to a.jsonl\n")
    assert Path("a.jsonl").read_bytes() == encode_replay(game.events)
    assert not Path("warlog.db").exists()  # a replay file asked for: nothing recorded
    # the command registered in warlog.cli says and writes the same
    runner.invoke(warlog_app, ["simulate", SCENARIO, "--seed", "7", "--out", "b.jsonl"])
    assert Path("b.jsonl").read_bytes() == Path("a.jsonl").read_bytes()
    # no replay file: recorded in warlog.db, as before
    run("simulate", SCENARIO, "--seed", "7")
    with SQLiteEventStore("warlog.db") as store:
        assert store.read(s.game) == game.events


def test_one_game_with_the_other_first_mover_is_its_own_game():
    scn = load_scenario(SCENARIO)
    other = "blue" if scn.first == "red" else "red"
    row = study("simulate", SCENARIO, "--first", other, *RANDOM, "--db", "g.db")
    assert row["first"] == other and row["game"] == f"{SCENARIO}-random-random-s1-{other}-first"
    with SQLiteEventStore("g.db") as store:
        assert store.read(row["game"])[0]["scenario"]["first"] == other


def test_swap_plays_both_seatings():
    data = study("simulate", SCENARIO, "--games", "3", "--red", "random", "--blue",
                 "aggressive", "--swap")
    assert [g["key"]["policies"] for g in data["groups"]] == ["aggressive v random",
                                                             "random v aggressive"]
    assert data["games"] == 6


# -- analyze -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rows.jsonl", "rows.csv"])
def test_analyze_over_a_study_file_gives_the_study_s_figures(name):
    args = ("simulate", SCENARIO, "--games", "4", "--first", "both", *RANDOM, "--out", name)
    simulated = study(*args)
    analyzed = study("analyze", name, "--by", "scenario,policies,first")
    assert analyzed["groups"] == simulated["groups"]
    assert analyzed["lopsided"] == simulated["lopsided"]


def test_analyze_over_replay_files_counts_each_game_as_played():
    outcomes = []
    for seed in (1, 2, 3):
        run("simulate", SCENARIO, "--seed", str(seed), "--red", "aggressive", "--blue", "random",
            "--out", f"g{seed}.jsonl")
        game = play_out("x", load_scenario(SCENARIO), seed=seed, red="aggressive",
                        blue="random")
        outcomes.append(game.state.winner or "draw")
    data = study("analyze", "g1.jsonl", "g2.jsonl", "g3.jsonl", "--by", "scenario")
    (g,) = data["groups"]
    assert data["games"] == 3 and g["n"] == 3
    assert {w: g[w]["k"] for w in ("red", "blue", "draw")} == \
        {w: outcomes.count(w) for w in ("red", "blue", "draw")}


def test_analyze_over_a_database_counts_unfinished_games_apart(tmp_path):
    db = "s.db"
    simulated = study("simulate", SCENARIO, "--games", "3", *RANDOM, "--store", "--db", db)
    run("simulate", SCENARIO, "--games", "3", *RANDOM, "--store", "--db", db)  # again: accepted
    unfinished = play_out("open", load_scenario(SCENARIO), seed=9, red="random",
                          blue="random").events[:80]
    with SQLiteEventStore(db) as store:
        assert len(store.games()) == 3
        store.append("open", unfinished, 0)
    data = study("analyze", "--db", db, "--by", "scenario,policies,first")
    assert data["games"] == 4 and data["unfinished"] == 1
    (g,) = data["groups"]
    assert g["n"] == 3 and g["unfinished"] == 1
    (sim,) = simulated["groups"]
    assert {k: g[k] for k in ("red", "blue", "draw", "turns", "lost", "curves")} == \
        {k: sim[k] for k in ("red", "blue", "draw", "turns", "lost", "curves")}
    text = run("analyze", "--db", db).output
    assert "1 game not finished: counted apart" in text and "+1 unfinished" in text


def test_analyze_reads_the_database_by_default_and_counts_a_game_once(monkeypatch):
    run("simulate", SCENARIO, "--games", "2", *RANDOM, "--store", "--out", "rows.jsonl")
    assert study("analyze")["games"] == 2  # no files: warlog.db
    both = study("analyze", "rows.jsonl", "--db", "warlog.db")
    assert (both["games"], both["duplicates"]) == (2, 2)
    monkeypatch.setenv("WARLOG_DB", "warlog.db")
    only_file = study("analyze", "rows.jsonl")  # FILES given: the environment's db is not read
    assert (only_file["games"], only_file["duplicates"]) == (2, 0)


# -- scale ---------------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_numbers_on_1_or_2_workers():
    args = ("simulate", SCENARIO, "--games", "4", "--first", "both", *RANDOM)
    one = study(*args, "--scheduler", "local", "--workers", "1")
    two = study(*args, "--scheduler", "local", "--workers", "2")
    assert one == two == study(*args, "--scheduler", "inprocess")


def _interrupt_at(monkeypatch, n: int) -> None:
    """Make the n-th game played raise KeyboardInterrupt, as Ctrl-C would in process."""
    played = [0]
    real = warlog.app.study.play_task

    def play(task):
        played[0] += 1
        if played[0] == n:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(warlog.app.study, "play_task", play)


def test_ctrl_c_stops_a_study_with_one_line(monkeypatch):
    _interrupt_at(monkeypatch, 5)
    result = run("simulate", SCENARIO, "--games", "12", *RANDOM, ok=False)
    assert result.exit_code == 130
    stopped = re.search(r"^stopped after (\d+) of 12 games$", result.output, re.M)
    assert stopped and int(stopped[1]) <= 4  # whole chunks finished before the fifth game
    assert "Traceback" not in result.output and "red wins" not in result.output


def test_ctrl_c_keeps_the_batches_already_recorded(monkeypatch):
    monkeypatch.setattr(warlog.study_cmd, "STORE_BATCH", 4)
    _interrupt_at(monkeypatch, 6)
    result = run("simulate", SCENARIO, "--games", "12", *RANDOM, "--store", "--db", "s.db",
                 ok=False)
    assert result.exit_code == 130
    stopped = re.search(r"^stopped after (\d+) of 12 games; 4 games recorded in s.db$",
                        result.output, re.M)
    assert stopped and 4 <= int(stopped[1]) <= 5
    with SQLiteEventStore("s.db") as store:
        assert [g.id for g in store.games()] == [f"{SCENARIO}-random-random-s{i}"
                                                 for i in range(1, 5)]


def test_ctrl_c_while_recording_keeps_what_was_recorded(monkeypatch):
    recorded = [0]
    real = warlog.study_cmd._record

    def record(store, events):
        if recorded[0] == 5:
            raise KeyboardInterrupt
        real(store, events)
        recorded[0] += 1

    monkeypatch.setattr(warlog.study_cmd, "_record", record)
    monkeypatch.setattr(warlog.study_cmd, "STORE_BATCH", 4)
    result = run("simulate", SCENARIO, "--games", "12", *RANDOM, "--store", "--db", "s.db",
                 ok=False)
    assert result.exit_code == 130
    assert "stopped after 5 of 12 games; 5 games recorded in s.db" in result.output
    assert "Traceback" not in result.output
    with SQLiteEventStore("s.db") as store:
        assert len(store.games()) == 5


def _session_alive(sid: int) -> list[str]:
    ps = subprocess.run(["ps", "-o", "stat=", "-s", str(sid)], capture_output=True, text=True,
                        timeout=LIMIT)
    return [s for s in ps.stdout.split() if not s.startswith("Z")]  # zombies are gone already


@pytest.mark.slow
def test_sigint_on_a_local_cluster_exits_130_and_leaves_no_process(tmp_path):
    """The real thing: a study on a local cluster in its own process group, SIGINT once its
    progress shows (a condition, not a sleep): one line, exit 130, no worker left behind."""
    env = {**os.environ, "PYTHONPATH": str(Path(warlog.__file__).parents[1])}
    code = APP_SOURCE + "app(prog_name='warlog')\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "simulate", SCENARIO, "--games", "3000", *RANDOM,
         "--scheduler", "local", "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
        **AS_FROM_A_TERMINAL)
    with proc:  # closes the pipes however the test leaves
        try:
            errors = Lines(proc.stderr)
            errors.until(lambda line: " of 3,000 games" in line
                         and not line.startswith(f"{SCENARIO}: 0 "),
                         "the study never showed progress")
            os.killpg(proc.pid, signal.SIGINT)
            rest = errors.rest("the study did not stop after SIGINT")
            assert proc.wait(timeout=LIMIT) == 130
            printed = proc.stdout.read()
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    lines = [x for x in rest.splitlines() if x.strip()]
    # a chunk may finish between the progress line read and the signal: progress lines only,
    # then the one line that says where it stopped
    assert all(re.fullmatch(rf"{SCENARIO}: [\d,]+ of 3,000 games", x) for x in lines[:-1]), rest
    assert re.fullmatch(r"stopped after [\d,]+ of 3,000 games", lines[-1]), rest
    assert printed == ""
    wait_until(lambda: _session_alive(proc.pid) == [],
               lambda: f"left running: {_session_alive(proc.pid)}")


# -- errors --------------------------------------------------------------------------------------


def _broken_replay() -> str:
    run("simulate", SCENARIO, "--out", "r.jsonl")
    data = Path("r.jsonl").read_bytes()
    Path("broken.jsonl").write_bytes(data.replace(b'"turn":1', b'"turn":2', 1))
    return "broken.jsonl"


@pytest.mark.parametrize("args,words", [
    (["simulate", SCENARIO, "--games", "0"],
     "Invalid value for '--games' / '-n': 0 is not in the range 1<=x<=1000000"),
    (["simulate", "no-such-scenario", "--games", "3"], "no bundled scenario"),
    (["simulate", SCENARIO, "--games", "3", "--red", "genius"], "choose one of"),
    (["simulate", SCENARIO, "--games", "3", "--first", "green"], "--first must be red, blue"),
    (["simulate", SCENARIO, "--games", "3", "--scheduler", "yarn"], "unknown scheduler 'yarn'"),
    (["simulate", SCENARIO, "--games", "3", "--workers", "0", "--scheduler", "local"],
     "Invalid value for '--workers': 0 is not in the range 1<=x<=1024"),
    (["analyze", "nothing.jsonl"], "nothing.jsonl: cannot read the file: no such file"),
    (["analyze"], "warlog.db: no such database"),
    (["analyze", "--db", "none.db"], "none.db: no such database"),
    (["analyze", "BROKEN"], "hash chain broken"),
    (["analyze", "NOTES", "--by", "scenario"], "neither a replay file nor a study file"),
    (["analyze", "NOTES", "--by", "scenario,seat"], "cannot group by 'seat'"),
])
def test_errors_are_one_line(args, words):
    if "BROKEN" in args:
        args = [_broken_replay() if a == "BROKEN" else a for a in args]
    Path("NOTES").write_text("not a game\n")
    result = run(*args, ok=False)
    assert result.exit_code == 1
    lines = [x for x in result.output.splitlines() if x.strip() and " of 3 games" not in x]
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], \
        result.output


TINY = """title = "Two foot"
rule_system = "ohw"
period = "ancients"
first = "red"
[grid]
kind = "square"
width = 6
height = 4
[sides.red]
name = "Red"
[sides.blue]
name = "Blue"
[[units]]
id = "r1"
side = "red"
type = "Infantry"
cell = [1, 1]
facing = "E"
[[units]]
id = "b1"
side = "blue"
type = "Infantry"
cell = [4, 1]
facing = "W"
[victory]
turn_limit = 3
"""


def test_one_game_a_search_bot_plays_says_why_it_takes_long():
    Path("two-foot.toml").write_text(TINY)
    searched = run("simulate", "two-foot.toml", "--red", "search", "--out", "s.jsonl")
    assert searched.stderr.startswith("playing two-foot-search-cautious-s1: the search bot "
                                      "(red: search) plays playouts at every move")
    assert "events; replay written to s.jsonl" in searched.stdout
    assert run("simulate", "two-foot.toml", "--out", "h.jsonl").stderr == ""  # a second: nothing
