"""`warlog review` (warlog/review_cmd.py), driven as a player would: on a replay file and on a
stored game, as text in 80 columns, as JSON whose parts add up, as Markdown with the game's text
escaped, the same review on 1 and 2 workers, and bad input refused in one line."""

from __future__ import annotations

import json

import pytest
from cli_run import no_ambient_db  # noqa: F401  (autouse: no WARLOG_DB, a fresh folder)
from typer.testing import CliRunner

from warlog.cli import app
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.replay_file import write_replay
from warlog.events.sqlite_store import SQLiteEventStore

runner = CliRunner()
QUICK = ("--budget", "2", "--scheduler", "inprocess")


def run(*args: str, ok: bool = True):
    result = runner.invoke(app, ["review", *args], catch_exceptions=False,
                           env={"COLUMNS": "80"})
    assert (result.exit_code == 0) == ok, result.output
    return result


def _events(name: str = "[click](http://evil.example/x)") -> list[dict]:
    """A short bot game whose game id is Markdown a renderer would make a link of."""
    return play_out(name, load_scenario("ancients-river-crossing"), seed=5, red="aggressive",
                    blue="cautious").events


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return _events()


@pytest.fixture
def game_file(tmp_path, events):
    path = tmp_path / "battle.jsonl"
    write_replay(path, events)
    return path


def test_the_text_review_has_the_headline_accuracies_grades_and_moments(game_file):
    text = run(str(game_file), *QUICK).stdout
    lines = text.splitlines()
    assert lines[0] == "Review of [click](http://evil.example/x)"
    assert any(" won from " in line for line in lines[2:4])
    assert any(" lost from " in line for line in lines[2:4])
    assert sum(line.startswith(("red: accuracy", "blue: accuracy")) for line in lines) == 2
    assert "The moments that mattered:" in text
    assert max(len(line) for line in lines) <= 80


def test_json_parts_add_up_and_match_the_text(game_file):
    data = json.loads(run(str(game_file), *QUICK, "--json").stdout)
    parts = data["split"]
    assert abs(parts["start"] + parts["decisions"] + parts["dice"] - parts["result"]) < 1e-9
    assert data["ended"] and data["format"] == 1 and data["evaluator"].startswith("ev-")
    assert {o["grade"] for o in data["orders"]} <= {"best", "good", "inaccuracy", "mistake",
                                                     "blunder"}


def test_a_stored_game_and_a_file_of_it_give_the_same_review(tmp_path, events, game_file):
    db = tmp_path / "games.db"
    with SQLiteEventStore(db) as store:
        store.append(events[0]["game"], events, 0)
    stored = json.loads(run(events[0]["game"], "--db", str(db), *QUICK, "--json").stdout)
    from_file = json.loads(run(str(game_file), *QUICK, "--json").stdout)
    assert stored == from_file


def test_the_same_review_on_one_and_two_workers(game_file):
    one = json.loads(run(str(game_file), "--budget", "2", "--scheduler", "inprocess",
                         "--json").stdout)
    two = json.loads(run(str(game_file), "--budget", "2", "--scheduler", "local",
                         "--workers", "2", "--json").stdout)
    assert one == two


def test_markdown_escapes_the_games_text(tmp_path, game_file):
    out = tmp_path / "review.md"
    run(str(game_file), *QUICK, "--markdown", str(out))
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Review of \\[click\\]\\(http\u2060\\://evil\\.example/x\\)")
    assert "](http" not in text  # no link made of the game's id
    assert "| # | turn | side | order |" in text and "## Every decision" in text


def test_bad_input_is_refused_in_one_line(tmp_path, game_file):
    broken = tmp_path / "broken.jsonl"
    lines = game_file.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[12])
    if record.get("kind") == "dice_rolled":
        record["faces"] = [7]
    else:
        record["seq"] = 999
    broken.write_text("\n".join(lines[:12] + [json.dumps(record)] + lines[13:]) + "\n",
                      encoding="utf-8")
    for args in ([str(broken)], ["no-such-game"], [str(game_file), "--budget", "0"],
                 [str(game_file), "--markdown", str(tmp_path)]):
        result = run(*QUICK, *args, ok=False)
        assert "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
