"""`warlog whatif` and `warlog winprob` (warlog/whatif_cmd.py), driven as a player would: on a
replay file and on a stored game, with one-line errors, and Ctrl-C on a long job."""

from __future__ import annotations

import json
import sys

import pytest
import typer
from cli_run import no_ambient_db  # noqa: F401  (autouse: no WARLOG_DB, a fresh folder)
from job_helpers import interrupt_when_progress_shows, socket_without_listener
from typer.testing import CliRunner
from whatif_games import bot_game

from warlog.app import jobs
from warlog.cli_common import OneLineErrors
from warlog.events.analysis_store import AnalysisStore
from warlog.events.model import make_note
from warlog.events.replay_file import write_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.whatif_cmd import whatif, winprob

app = typer.Typer(cls=OneLineErrors, add_completion=False, pretty_exceptions_enable=False)
app.command()(whatif)
app.command()(winprob)
runner = CliRunner()


def run(*args: str, ok: bool = True):
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert (result.exit_code == 0) == ok, result.output
    return result


@pytest.fixture
def game_file(tmp_path):
    path = tmp_path / "mirror.jsonl"
    write_replay(path, bot_game(seed=3))
    return path


@pytest.fixture
def stored(tmp_path) -> tuple[str, str]:
    events = bot_game(seed=4)
    db = tmp_path / "games.db"
    with SQLiteEventStore(db) as store:
        store.append(events[0]["game"], events, 0)
    return str(db), events[0]["game"]


def test_whatif_on_a_replay_file_prints_the_odds_and_the_losses(game_file):
    text = run("whatif", str(game_file), "--at", "12", "--playouts", "20").stdout
    heading = " ".join(text.split())  # the heading wraps at a width COLUMNS gives
    assert "What if, from mirror-red-s3 step" in heading and "20 playouts" in heading
    for words in ("red wins", "blue wins", "draw", "strength lost from here", "mean end turn"):
        assert words in text
    first = json.loads(run("whatif", str(game_file), "--at", "12", "-n", "20", "--json").stdout)
    again = json.loads(run("whatif", str(game_file), "--at", "12", "-n", "20", "--json").stdout)
    assert first == again and first["n"] == 20 and first["seq"] <= 12
    assert first["red"]["p"] + first["blue"]["p"] + first["draw"]["p"] == pytest.approx(1)
    other = json.loads(run("whatif", str(game_file), "--at", "12", "-n", "20", "--seed", "2",
                           "--json").stdout)
    assert other != first


def test_whatif_on_a_stored_game_in_recorded_mode_with_other_policies(stored):
    db, game = stored
    out = json.loads(run("whatif", game, "--db", db, "--at", "30", "-n", "10", "--mode",
                         "recorded", "--red", "random", "--json").stdout)
    assert out["mode"] == "recorded" and out["policies"] == {"red": "random",
                                                             "blue": "aggressive"}


@pytest.mark.parametrize("args, message", [
    (["--at", "999"], "error: step 999 is not in the game: its events are numbered 1 to"),
    (["--red", "nobody"], "error: unknown policy 'nobody' for red; choose one of"),
    (["--mode", "chess"], "error: unknown mode 'chess': use bots or recorded"),
    (["--playouts", "0"], "error: Invalid value for '--playouts' / '-n': 0 is not in the "
                          "range 1<=x<=100000"),
    (["--scheduler", "cloud"], "error: unknown scheduler 'cloud': use auto, inprocess, local"),
    (["--workers", "0", "--scheduler", "local"], "error: Invalid value for '--workers': 0 is "
                                                 "not in the range 1<=x<=1024"),
])
def test_bad_settings_are_one_line(game_file, args, message):
    result = run("whatif", str(game_file), *args, ok=False)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1].startswith(message)
    assert "Traceback" not in result.output


def test_an_unknown_game_is_one_line(tmp_path):
    result = run("whatif", "no-such-game", "--db", str(tmp_path / "x.db"), ok=False)
    assert len(result.stderr.strip().splitlines()) == 1 and "no-such-game" in result.stderr


def test_a_scheduler_address_that_does_not_answer_is_one_line(game_file, monkeypatch):
    monkeypatch.setattr(jobs, "CONNECT_TIMEOUT", 1)
    with socket_without_listener() as address:
        result = run("whatif", str(game_file), "-n", "5", "--scheduler", address, ok=False)
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: cannot reach the Dask scheduler at {address} (")
    assert "Traceback" not in result.output


def test_a_real_scheduler_by_address_gives_the_inprocess_numbers(game_file):
    from distributed import LocalCluster

    args = ["whatif", str(game_file), "--at", "40", "-n", "12", "--json"]
    here = json.loads(run(*args, "--scheduler", "inprocess").stdout)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                      host="127.0.0.1") as cluster:
        there = json.loads(run(*args, "--scheduler", cluster.scheduler_address).stdout)
    assert there == here


def test_winprob_stores_the_curve_reuses_it_and_recomputes_once_the_game_grows(stored):
    db, game = stored
    first = run("winprob", game, "--db", db, "-n", "4")
    assert f"Win probability of {game}: 4 playouts per turn" in first.stdout
    assert "stored in" in first.stdout and "end" in first.stdout
    curve = json.loads(run("winprob", game, "--db", db, "-n", "4", "--json").stdout)
    assert curve["reused"] and curve["stored"] and curve["params"]["playouts"] == 4
    with AnalysisStore(db) as analyses:
        assert analyses.latest_curve(game, curve["last_seq"])["points"] == curve["points"]
    with SQLiteEventStore(db) as store:  # the game grows: a note at its last event
        events = store.read(game)
        store.append(game, [make_note(events, events[-1]["seq"], "well played", "ann")],
                     events[-1]["seq"])
    grown = json.loads(run("winprob", game, "--db", db, "-n", "4", "--json").stdout)
    assert not grown["reused"] and grown["last_seq"] == curve["last_seq"] + 1
    again = json.loads(run("winprob", game, "--db", db, "-n", "4", "--recompute",
                           "--json").stdout)
    assert not again["reused"] and again["points"] == grown["points"]


def test_winprob_on_a_replay_file_is_printed_not_stored(game_file):
    result = run("winprob", str(game_file), "-n", "3")
    assert "not stored" in result.stdout
    assert not (game_file.parent / "warlog.db").exists()


@pytest.mark.slow
def test_ctrl_c_on_a_long_whatif_stops_cleanly(game_file):
    argv = [sys.executable, "-m", "warlog.whatif_cmd", "whatif", str(game_file), "--at", "5",
            "--playouts", "20000", "--scheduler", "local", "--workers", "2"]
    result = interrupt_when_progress_shows(argv, "what-if: ", " of 20,000 playouts")
    assert result.returncode == 130, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("stopped after ") and last.endswith(" of 20,000 playouts")
    assert "Traceback" not in result.stderr


def test_a_side_kept_on_a_search_bot_is_named_before_the_wait(tmp_path):
    path = tmp_path / "searched.jsonl"
    write_replay(path, bot_game(seed=3, red="aggressive", blue="search"))
    slow = run("whatif", str(path), "--at", "150", "-n", "2")
    assert "blue keeps search, the bot that played it" in slow.stderr
    assert "--blue tactician for a quicker estimate" in slow.stderr
    assert "red keeps" not in slow.stderr
    asked = run("whatif", str(path), "--at", "150", "-n", "2", "--blue", "search")
    assert "keeps" not in asked.stderr
    assert "red aggressive v blue search" in " ".join(asked.stdout.split())
