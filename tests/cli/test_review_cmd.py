"""`warlog review` (warlog/review_cmd.py), driven as a player would: on a replay file and on a
stored game, as text in 80 columns, as JSON whose parts add up, as Markdown with the game's text
escaped, the same review on 1 and 2 workers, and bad input refused in one line; a stored game's
review stored beside it, read back instead of computed, reviewed again (and said why) when the
evaluator, the settings or the game changed, and nothing stored by a review stopped midway."""

from __future__ import annotations

import json
import sqlite3

import pytest
from cli_run import no_ambient_db  # noqa: F401  (autouse: no WARLOG_DB, a fresh folder)
from typer.testing import CliRunner

from warlog.app import review_job
from warlog.cli import app
from warlog.engine.bots import play_out
from warlog.engine.evaluator import load_weights
from warlog.engine.review import Budget
from warlog.engine.scenario import load_scenario
from warlog.events.analysis_store import AnalysisStore
from warlog.events.model import make_note
from warlog.events.replay_file import write_replay
from warlog.events.sqlite_schema import REVIEW_TABLE
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.reviews import review_params

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
    assert "The battle in chapters, and the moments that mattered:" in text
    assert max(len(line) for line in lines) <= 80


def test_the_text_tells_the_plans_and_the_battle_in_chapters(tmp_path):
    """A side's plan (as written, Markdown and all, as plain text), then each chapter with the
    moments that mattered indented under it; every moment of the review under one chapter."""
    from warlog.engine.bots import next_order
    from warlog.engine.game import Game

    game = Game.new("planned", load_scenario("ancients-river-crossing"), seed=5,
                    players={"red": "aggressive", "blue": "cautious"})
    game = Game(game.events + [make_note(game.events, 1, "Hold the [ford]", "Ann",
                                         plan_of="red")])
    while not game.state.ended:
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    path = tmp_path / "planned.jsonl"
    write_replay(path, game.events)
    data = json.loads(run(str(path), *QUICK, "--json").stdout)
    lines = run(str(path), *QUICK).stdout.splitlines()
    start = lines.index("What was planned:")
    assert lines[start + 1] == "  red (Ann), as of event 1: Hold the [ford]"
    assert lines[start + 2].startswith("  blue: no plan written")
    at = lines.index("The battle in chapters, and the moments that mattered:")
    story = lines[at + 1:]
    chapters = [x for x in story if x.startswith("  ") and not x.startswith("    ")]
    moments = [x for x in story if x.startswith("    Turn ")]
    assert chapters[0].startswith("  Deployment and approach")
    assert chapters[-1].startswith("  The end: ")
    assert len(moments) == len(data["moments"]) > 0


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


def test_auto_keeps_a_game_in_process_until_a_cluster_pays_for_its_start(events, monkeypatch):
    """A decision's search costs milliseconds, a cluster's start seconds: ``auto`` reviews a game
    of up to IN_PROCESS_UP_TO decisions in process, a longer one on a cluster; asked for one,
    a game gets the scheduler asked for."""
    asked = []

    def record(fn, tasks, *, scheduler, workers):
        asked.append((len(tasks), scheduler))
        return [fn(t) for t in tasks]

    review_job.run_review("g", events, budget=Budget(candidates=1), runner=record)
    review_job.run_review("g", events, budget=Budget(candidates=1), scheduler="local",
                          runner=record)
    monkeypatch.setattr(review_job, "IN_PROCESS_UP_TO", asked[0][0] - 1)
    review_job.run_review("g", events, budget=Budget(candidates=1), runner=record)
    assert [s for _, s in asked] == ["inprocess", "local", "auto"]


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


# ---- a stored game's review is stored beside it (issue 38) ----------------------------------

@pytest.fixture(scope="module")
def short(events) -> list[dict]:
    """The game up to where it waits for an order past its 60th event: a game that goes on,
    two dozen decisions (quick to review)."""
    cut = next(i for i, e in enumerate(events) if i >= 60 and e["kind"] == "order_given")
    return events[:cut]


@pytest.fixture
def stored_db(tmp_path, short) -> str:
    db = tmp_path / "games.db"
    with SQLiteEventStore(db) as store:
        store.append(short[0]["game"], short, 0)
    return str(db)


def _no_search(monkeypatch) -> None:
    """From here on, a review that is computed fails the test: what prints was stored."""
    def refuse(*args, **kwargs):
        raise AssertionError("the review was computed again")

    monkeypatch.setattr(review_job, "run_review", refuse)


def _keys(db: str, game: str) -> list:
    with AnalysisStore(db) as store:
        return store.review_keys(game)


def test_a_stored_games_review_is_stored_and_asked_again_is_read_not_computed(
        stored_db, short, monkeypatch):
    game, last = short[0]["game"], short[-1]["seq"]
    first = run(game, "--db", stored_db, *QUICK)
    assert first.stdout.rstrip().splitlines()[-1] == f"stored in {stored_db}"
    computed = json.loads(run(game, "--db", stored_db, *QUICK, "--recompute", "--json").stdout)
    _no_search(monkeypatch)
    again = run(game, "--db", stored_db, *QUICK)
    assert again.stdout.rstrip().splitlines()[-1] == (f"already stored in {stored_db} "
                                                      "(--recompute to review it again)")
    assert again.stdout.splitlines()[:-1] == first.stdout.splitlines()[:-1]
    assert again.stderr == ""  # nothing computed: no progress, no reason given
    assert json.loads(run(game, "--db", stored_db, *QUICK, "--json").stdout) == computed
    with AnalysisStore(stored_db) as store:  # what the dashboard reads
        assert store.latest_review(game, last) == computed
        assert store.latest_review(game, last - 1) is None
    assert [seq for _, seq in _keys(stored_db, game)] == [last]  # --recompute replaced it


def test_recompute_reviews_again_and_stores_the_new_one(stored_db, short, monkeypatch):
    game = short[0]["game"]
    run(game, "--db", stored_db, *QUICK)
    calls = []
    real = review_job.run_review

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(review_job, "run_review", counted)
    run(game, "--db", stored_db, *QUICK)
    assert calls == []
    result = run(game, "--db", stored_db, *QUICK, "--recompute")
    assert calls == [1] and result.stdout.rstrip().endswith(f"stored in {stored_db}")


def test_a_review_by_another_evaluator_is_reviewed_again_and_said_so(stored_db, short):
    game, last = short[0]["game"], short[-1]["seq"]
    current = load_weights()["version"]
    old = json.loads(run(game, "--db", stored_db, *QUICK, "--json").stdout)
    older = {**old, "evaluator": "ev-000000000000"}
    with AnalysisStore(stored_db) as store:  # what an older warlog stored (it is gone now)
        store.conn.execute(f"DELETE FROM {REVIEW_TABLE}")
        store.conn.commit()
        store.save_review(game, review_params(Budget.of(2), 0, "ev-000000000000"), last, older)
    result = run(game, "--db", stored_db, *QUICK, "--json")
    assert result.stderr.splitlines()[0] == ("the stored review was made by evaluator "
                                             "ev-000000000000: reviewed again")
    assert json.loads(result.stdout)["evaluator"] == current
    with AnalysisStore(stored_db) as store:
        assert store.latest_review(game, last, evaluator=current)["evaluator"] == current
        assert {p["evaluator"] for p, _ in store.review_keys(game)} == {current,
                                                                        "ev-000000000000"}


def test_other_settings_or_a_grown_game_are_reviewed_again_and_said_so(stored_db, short):
    game, last = short[0]["game"], short[-1]["seq"]
    run(game, "--db", stored_db, *QUICK)
    other_budget = run(game, "--db", stored_db, "--budget", "1", "--scheduler", "inprocess")
    assert other_budget.stderr.splitlines()[0] == ("the stored review was made with budget 2: "
                                                   "reviewed again")
    other_seed = run(game, "--db", stored_db, *QUICK, "--seed", "7")
    assert other_seed.stderr.splitlines()[0] == ("the stored review was made with seed 0: "
                                                 "reviewed again")
    assert len(_keys(stored_db, game)) == 3  # each kept under its own settings
    with SQLiteEventStore(stored_db) as store:  # the game grows: a note at its last event
        store.append(game, [make_note(short, last, "well played", "ann")], last)
    grown = run(game, "--db", stored_db, *QUICK, "--json")
    assert grown.stderr.splitlines()[0] == (f"the stored review covers the game to step {last} "
                                            f"and it now ends at step {last + 1}: "
                                            "reviewed again")
    assert json.loads(grown.stdout)["upto"] == last + 1
    assert (review_params(Budget.of(2), 0, load_weights()["version"]), last + 1) \
        in _keys(stored_db, game)


def _stop_after(monkeypatch, n: int, stop: type[BaseException]) -> list:
    """Make the review stop inside its n+1-th decision, as a Ctrl-C or a crash would."""
    judged = []
    real = review_job.judge_task

    def judge(task):
        if len(judged) == n:
            raise stop("stopped midway")
        judged.append(task.index)
        return real(task)

    monkeypatch.setattr(review_job, "judge_task", judge)
    return judged


def test_ctrl_c_mid_review_is_one_line_and_stores_nothing(stored_db, short, monkeypatch):
    game = short[0]["game"]
    run(game, "--db", stored_db, *QUICK, "--seed", "3")  # another review, which must stay
    before = _keys(stored_db, game)
    judged = _stop_after(monkeypatch, 5, KeyboardInterrupt)
    result = run(game, "--db", stored_db, *QUICK, ok=False)
    assert result.exit_code == 130 and len(judged) == 5
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("stopped after ") and last.endswith(" decisions")
    assert "Traceback" not in result.output and "stored in" not in result.stdout
    assert _keys(stored_db, game) == before


def test_an_error_mid_review_stores_nothing_and_no_table(stored_db, short, monkeypatch):
    _stop_after(monkeypatch, 3, RuntimeError)
    with pytest.raises(RuntimeError, match="stopped midway"):
        run(short[0]["game"], "--db", stored_db, *QUICK)
    conn = sqlite3.connect(stored_db)
    try:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                            (REVIEW_TABLE,)).fetchone() is None
    finally:
        conn.close()


def test_a_replay_files_review_is_not_stored_and_says_so(short, tmp_path):
    path = tmp_path / "short.jsonl"
    write_replay(path, short)
    result = run(str(path), *QUICK)
    assert result.stdout.rstrip().splitlines()[-1] == ("a replay file: the review is not stored "
                                                       "(import the game to keep it)")
    assert not (tmp_path / "warlog.db").exists()


def test_a_database_that_refuses_the_review_still_prints_it(stored_db, short):
    conn = sqlite3.connect(stored_db)
    conn.execute("CREATE TRIGGER zz_spy AFTER INSERT ON heads BEGIN SELECT 1; END")
    conn.commit()
    conn.close()
    result = run(short[0]["game"], "--db", stored_db, *QUICK)
    assert result.stdout.startswith("Review of ") and "stored in" not in result.stdout
    note = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert len(note) == 1 and "zz_spy" in note[0] and note[0].endswith("nothing was written")
    assert _keys(stored_db, short[0]["game"]) == []


@pytest.mark.parametrize("damage", [
    lambda r: {**r, "orders": [{k: v for k, v in o.items() if k != "text"} for o in r["orders"]]},
    lambda r: {**r, "moments": [{"index": 10_000}]},
    lambda r: {**r, "headline": {"red": 3}},
    lambda r: {**r, "format": 99},
    lambda r: [r],
])
def test_a_stored_review_changed_outside_warlog_is_reviewed_again(stored_db, short, damage):
    """A database is a file people share: a stored review whose JSON was edited (keys gone,
    wrong types, a moment about no decision) would break the printing half way; it is reviewed
    again, and one line says why."""
    game, last = short[0]["game"], short[-1]["seq"]
    good = json.loads(run(game, "--db", stored_db, *QUICK, "--json").stdout)
    with AnalysisStore(stored_db) as store:
        store.conn.execute(f"UPDATE {REVIEW_TABLE} SET review = ?",
                           (json.dumps(damage(good)),))
        store.conn.commit()
    result = run(game, "--db", stored_db, *QUICK)
    assert "Traceback" not in result.output
    assert result.stderr.splitlines()[0] == ("the stored review could not be read (made by "
                                             "another version of warlog, or changed outside "
                                             "it): reviewed again")
    assert json.loads(run(game, "--db", stored_db, *QUICK, "--json").stdout) == good
