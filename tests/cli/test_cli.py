"""The `warlog` command end to end: simulate, show, verify, export, import, and friendly errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.cli import app
from warlog.engine.analysis import steps
from warlog.events.chain import canonical, link
from warlog.events.replay_file import read_replay
from waits import LIMIT

runner = CliRunner()
SCENARIO = "ancients-river-crossing"




@pytest.fixture
def replay_file(tmp_path):
    path = tmp_path / "a.jsonl"
    run("simulate", SCENARIO, "--seed", "7", "--out", str(path))
    return path


def test_scenarios_lists_the_bundled_ones():
    listed = json.loads(run("scenarios", "--json").output)
    assert SCENARIO in [s["id"] for s in listed]
    assert {s["grid"]["kind"] for s in listed} == {"square", "hex", "brick"}
    text = run("scenarios").output
    assert SCENARIO in text and "Crossing" in text  # ids are never cut short


def test_simulate_twice_gives_byte_identical_files_that_verify(tmp_path, replay_file):
    again = tmp_path / "b.jsonl"
    run("simulate", SCENARIO, "--seed", "7", "--out", str(again))
    assert replay_file.read_bytes() == again.read_bytes()
    assert "OK" in run("verify", str(replay_file)).output
    other = tmp_path / "c.jsonl"
    run("simulate", SCENARIO, "--seed", "8", "--out", str(other))
    assert other.read_bytes() != replay_file.read_bytes()


def test_simulate_is_byte_identical_across_processes(tmp_path, replay_file):
    """Same seed, same bytes in a fresh interpreter (no hidden process state, no hash seed)."""
    path = tmp_path / "p.jsonl"
    env_cmd = [sys.executable, "-m", "warlog.cli", "simulate", SCENARIO, "--seed", "7",
               "--out", str(path)]
    subprocess.run(env_cmd, check=True, capture_output=True, timeout=LIMIT, env={"PYTHONHASHSEED": "123",
                   "PATH": "/usr/bin:/bin"})
    assert path.read_bytes() == replay_file.read_bytes()


def _rewrite(path, edit, *, rechain: bool):
    """Edit one event in a replay file, optionally recomputing the hash chain afterwards."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines)
    if rechain:
        prev = lines[0]["chain"]
        for line in lines[1:]:
            body = {k: v for k, v in line.items() if k != "chain"}
            line["chain"] = prev = link(prev, canonical(body))
    path.write_bytes(b"".join(canonical(line) + b"\n" for line in lines))


EDITS = {
    "die face": ("dice_rolled", lambda e: e.__setitem__("faces", [e["faces"][0] % 6 + 1])),
    "cell": ("unit_moved", lambda e: e.__setitem__("to_cell", [e["to_cell"][0], 0])),
    "hit count": ("hits_inflicted", lambda e: e.__setitem__("hits", e["hits"] + 1)),
}


@pytest.mark.parametrize("what", sorted(EDITS))
@pytest.mark.parametrize("rechain", [False, True], ids=["chain-broken", "chain-recomputed"])
def test_verify_names_the_edited_event(replay_file, what, rechain):
    kind, change = EDITS[what]
    edited = {}

    def edit(lines):
        target = next(line for line in lines[1:] if line.get("kind") == kind)
        change(target)
        edited["seq"] = target["seq"]

    _rewrite(replay_file, edit, rechain=rechain)
    result = run("verify", str(replay_file), ok=False)
    assert result.exit_code == 1
    assert f"seq {edited['seq']}" in result.output


def test_show_json_lists_turn_phase_side_and_units(replay_file):
    data = json.loads(run("show", str(replay_file), "--json").output)
    assert data["ended"] is True
    unit = data["units"][0]
    assert set(unit) >= {"id", "side", "type", "cell", "facing", "hits", "removed"}
    at_two = json.loads(run("show", str(replay_file), "--turn", "2", "--json").output)
    assert at_two["turn"] == 2 and {"phase", "side"} <= set(at_two)
    text = run("show", str(replay_file), "--turn", "1").output
    assert "r-inf-1" in text and "turn 1" in text


def test_import_export_round_trip_through_a_database(tmp_path, replay_file):
    db = tmp_path / "w.db"
    game = read_replay(replay_file).game
    assert game in run("import", str(replay_file), "--db", str(db)).output
    assert [g["id"] for g in json.loads(run("games", "--db", str(db), "--json").output)] == [game]
    out = tmp_path / "back.jsonl"
    run("export", game, "--out", str(out), "--db", str(db))
    assert out.read_bytes() == replay_file.read_bytes()
    again = run("import", str(replay_file), "--db", str(db), ok=False)
    assert "already in the database" in again.output
    json.loads(run("show", game, "--db", str(db), "--json").output)


def test_simulate_records_in_the_database_from_the_environment(tmp_path, monkeypatch):
    db = tmp_path / "env.db"
    monkeypatch.setenv("WARLOG_DB", str(db))
    run("simulate", SCENARIO, "--seed", "3")
    run("simulate", SCENARIO, "--seed", "3")  # the identical game again: accepted, not doubled
    listed = json.loads(run("games", "--json").output)
    assert [g["id"] for g in listed] == [f"{SCENARIO}-aggressive-cautious-s3"]


@pytest.mark.parametrize("args,words", [
    (["simulate", "no-such-scenario"], "bundled"),
    (["simulate", SCENARIO, "--red", "genius"], "choose one of"),
    (["show", "no-such-game"], "no game 'no-such-game'"),
    (["export", "nope", "--out", "x.jsonl"], "no game 'nope'"),
])
def test_user_errors_are_one_line_not_tracebacks(args, words):
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert words in result.output
    assert "Traceback" not in result.output


def test_verify_rejects_a_file_that_is_not_a_replay(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    result = run("verify", str(bad), ok=False)
    assert "FAIL" in result.output and "line 1" in result.output


def test_rules_lists_interpretations():
    out = run("rules", "ohw.removal").output
    assert "ohw.removal" in out and "hits_to_remove" in out


def test_verify_catches_a_header_that_disagrees_with_the_game(replay_file):
    from warlog.events.chain import GENESIS

    lines = [json.loads(line) for line in replay_file.read_text().splitlines()]
    lines[0]["options"] = {**lines[0]["options"], "hits_to_remove": 15}
    header = {k: v for k, v in lines[0].items() if k != "chain"}
    lines[0]["chain"] = prev = link(GENESIS, canonical(header))
    for line in lines[1:]:  # a forger who recomputes every link
        line["chain"] = prev = link(prev, canonical({k: v for k, v in line.items() if k != "chain"}))
    replay_file.write_bytes(b"".join(canonical(line) + b"\n" for line in lines))
    result = run("verify", str(replay_file), ok=False)
    assert "line 1" in result.output and "options" in result.output


def test_log_tells_the_game_with_its_rules(replay_file):
    rows = json.loads(run("log", str(replay_file), "--json").output)
    events = read_replay(replay_file).events
    assert [r["seq"] for r in rows] == [e["seq"] for e in events]
    for row, event in zip(rows, events):
        if event["kind"] == "hits_inflicted":  # the arithmetic, in words
            verb = "shoots" if event["attack"] == "shooting" else "fights"
            assert f"{event['source']} {verb} {event['target']}: die {event['die']}" in row["text"]
            assert f"{event['hits']} hit" in row["text"] and row["rules"] == event["rules"]
    # each event names its step as the Replay page counts them ("Step 12 of 97")
    told = steps(events)
    assert [r["step"] for r in rows] == [next(s.index + 1 for s in told if s.first <= i <= s.last)
                                         for i in range(len(events))]
    assert f"Step {len(told)} · {told[-1].title}" in run("log", str(replay_file)).output
    turn_two = json.loads(run("log", str(replay_file), "--turn", "2", "--json").output)
    assert turn_two and {r["turn"] for r in turn_two} == {2}
    text = run("log", str(replay_file), "--turn", "2", "--rules").output
    assert "ohw.turn: A game turn is the first player's turn" in text
    assert run("log", str(replay_file), "--turn", "99", ok=False).exit_code == 1


def test_a_tabletop_game_is_recorded_order_by_order(tmp_path):
    db = ["--db", str(tmp_path / "t.db")]
    started = run("new", SCENARIO, "--red", "Ann", *db).output
    assert f"started ancients-river-crossing-1 (Crossing at the Ford); next: warlog orders " \
           f"ancients-river-crossing-1 --db {db[1]}" in started  # the database it is in
    listed = run("orders", "ancients-river-crossing-1", "--unit", "r-inf-1", *db).output
    assert "turn 1, red (Ann) movement" in listed and "move r-inf-1 E 3" in listed
    out = run("order", "ancients-river-crossing-1", "move", "r-inf-1", "E", "3", *db).output
    assert "with the road bonus" in out
    refused = run("order", "ancients-river-crossing-1", "move", "r-inf-1", "E", "1", *db, ok=False)
    assert "already moved this turn (ohw.move.once)" in refused.output
    bad = run("order", "ancients-river-crossing-1", "fly", *db, ok=False)
    assert bad.exit_code == 1 and "not an order" in bad.output
    run("order", "ancients-river-crossing-1", "end", *db)
    no_die = run("order", "ancients-river-crossing-1", "shoot", "r-arc-1", "b-skm-1", *db, ok=False)
    assert "ohw.ancients.shooting" in no_die.output  # 9 cells: out of range, checked before dice
    game = json.loads(run("games", "--json", *db).output)[0]
    assert game["players"] == {"red": "Ann", "blue": "blue player"} and game["events"] == 6
    out_file = tmp_path / "t.jsonl"
    run("export", "ancients-river-crossing-1", "--out", str(out_file), *db)
    assert "OK" in run("verify", str(out_file)).output


def test_new_records_the_date_played_for_the_store_the_library_and_games(tmp_path):
    from dataclasses import asdict
    from datetime import date

    from warlog.dashboard.library_rows import matching, rows
    from warlog.events.sqlite_store import SQLiteEventStore

    db = ["--db", str(tmp_path / "d.db")]
    run("new", SCENARIO, "--date", "2026-11-02", *db)
    before = date.today().isoformat()
    run("new", SCENARIO, *db)  # no --date: today, read by the command, not by the engine
    after = date.today().isoformat()
    with SQLiteEventStore(db[1]) as store:
        infos = store.games()
        assert store.read(f"{SCENARIO}-1")[0]["played"] == "2026-11-02"
    assert infos[0].played == "2026-11-02" and infos[1].played in (before, after)
    table = rows([asdict(g) for g in infos])
    assert list(table[0])[:3] == ["game", "title", "date"] and table[0]["date"] == "2026-11-02"
    assert [r["game"] for r in matching(table, "2026-11-02")] == [f"{SCENARIO}-1"]
    assert json.loads(run("games", "--json", *db).output)[0]["played"] == "2026-11-02"
    listing = run("games", *db).output
    assert "2026-11-02" in listing and infos[1].played in listing
    assert "OK" in run("verify", f"{SCENARIO}-1", *db).output  # the date is no fact of battle


@pytest.mark.parametrize("bad", ["2026-13-45", "2.11.2026", "20261102"])
def test_a_malformed_date_is_one_line_naming_the_option_and_writes_nothing(tmp_path, bad):
    db = ["--db", str(tmp_path / "d.db")]
    run("new", SCENARIO, "--date", "2026-11-02", *db)
    before = run("games", "--json", *db).output
    result = runner.invoke(app, ["new", SCENARIO, "--date", bad, *db])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines() == [
        f"error: --date: a date is written YYYY-MM-DD, not '{bad}'"]
    assert run("games", "--json", *db).output == before  # still only the first game


def test_verify_a_stored_game_and_catch_an_edit_made_behind_warlogs_back(tmp_path, replay_file):
    import sqlite3

    db = tmp_path / "v.db"
    game = read_replay(replay_file).game
    run("import", str(replay_file), "--db", str(db))
    assert "OK" in run("verify", game, "--db", str(db)).output
    conn = sqlite3.connect(db)  # a forger drops the append-only trigger and edits a row
    conn.execute("DROP TRIGGER events_no_update")
    body = conn.execute("SELECT body FROM events WHERE game=? AND seq=5", (game,)).fetchone()[0]
    conn.execute("UPDATE events SET body=? WHERE game=? AND seq=5",
                 (body.replace('"turn":1', '"turn":2'), game))
    conn.commit()
    conn.close()
    result = run("verify", game, "--db", str(db), ok=False)
    assert "event seq 5" in result.output and "hash chain broken" in result.output
    assert "no game 'nope'" in run("verify", "nope", "--db", str(db), ok=False).output


def test_show_and_log_refuse_a_file_with_a_broken_event_cleanly(replay_file):
    def drop_a_field(lines):
        moved = next(line for line in lines[1:] if line.get("kind") == "unit_moved")
        del moved["to_cell"]

    _rewrite(replay_file, drop_a_field, rechain=True)
    for command in ("show", "log"):
        result = run(command, str(replay_file), ok=False)
        assert "to_cell" in result.output and "Traceback" not in result.output


def test_import_refuses_a_game_that_cannot_be_replayed(tmp_path, replay_file):
    def ghost_unit(lines):
        moved = next(line for line in lines[1:] if line.get("kind") == "unit_moved")
        moved["unit"] = "ghost"

    _rewrite(replay_file, ghost_unit, rechain=True)
    db = tmp_path / "i.db"
    result = run("import", str(replay_file), "--db", str(db), ok=False)
    assert "event seq 4 (unit_moved): unit is 'ghost' in the log" in result.output  # re-derived
    assert json.loads(run("games", "--db", str(db), "--json").output) == []


@pytest.mark.parametrize("system,period", [
    ("ohw", "ancients"), ("ohw", "dark_ages"), ("ohw", "medieval"), ("ohw", "pike_and_shot"),
    ("ohw", "horse_and_musket"), ("ohw", "machine_age"), ("ohw", "ww2"),
    ("portable", "ancient_battles"), ("frontier", "frontier"), ("density", "density")])
@pytest.mark.slow
def test_simulate_gives_a_game_that_verifies_in_every_period(tmp_path, system, period):
    listed = json.loads(run("scenarios", "--json").output)
    scenario = next(s["id"] for s in listed if s["period"] == period)
    path = tmp_path / f"{period}.jsonl"
    run("simulate", scenario, "--seed", "3", "--out", str(path))
    assert "OK" in run("verify", str(path)).output
    assert f"{system} {period}" in run("log", str(path)).output


def test_army_rolls_on_the_table_and_refuses_what_it_does_not_have():
    out = run("army", "--period", "medieval", "--units", "4", "--roll", "3").output
    assert "2 x Knights" in out and "1 x Levy" in out and "1 x Men-at-arms" in out  # A2 B0 C1 D1
    data = json.loads(run("army", "--period", "machine_age", "--units", "3", "--roll", "1",
                          "--tanks", "--json").output)
    assert data["types"] == ["Infantry", "Artillery", "Tanks"]  # A1 B1 C0 D1, D a Tank
    assert run("army", "--period", "ww2", "--units", "6", "--seed", "4").output == run(
        "army", "--period", "ww2", "--units", "6", "--seed", "4").output
    for args, words in ((["--units", "5"], "3, 4, 6 units"), (["--period", "napoleonic"], "unknown period")):
        argv = ["army", "--period", "ancients", "--units", "3", *args]
        result = runner.invoke(app, argv)
        assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output


def test_rules_lists_the_portable_wargame_and_frontier():
    out = run("rules", "portable").output
    assert "portable.exhaustion" in out and "portable.hit_table" in out and "ohw." not in out
    out = run("rules", "frontier").output
    assert "frontier.fall_of_shot" in out and "frontier.hills" in out and "portable." not in out


def test_rules_prints_notes_and_interpretations_of_a_period():
    out = run("rules", "ohw.horse_and_musket").output
    assert "ohw.horse_and_musket.regroup" in out and "Note:" in out and "yes" in out
    assert "ohw.ancients" not in out
    assert run("rules", "--markdown").output.startswith("# Rules reference")
    assert runner.invoke(app, ["rules", "ohw.nothing"]).exit_code == 1


def test_show_says_how_far_each_army_is_from_exhaustion(replay_file):
    out = run("show", str(replay_file), "--no-board").output
    line = next(l for l in out.splitlines() if l.startswith("Exhaustion"))
    assert "reference line at 1/3 of the starting strength, not a rule" in line
    assert "red lost" in line and "of 40" in line and "blue lost" in line


def test_a_note_is_appended_kept_in_the_replay_and_verified(tmp_path):
    db = tmp_path / "n.db"
    run("simulate", SCENARIO, "--seed", "7", "--db", str(db))
    game = json.loads(run("games", "--json", "--db", str(db)).output)[0]["id"]
    out = run("note", game, "40", "the ford was the key", "--author", "Ann", "--db", str(db)).output
    assert "note on event 40" in out
    assert "Note on event 40 (Ann): the ford was the key" in run("log", game, "--db", str(db)).output
    assert "OK" in run("verify", game, "--db", str(db)).output  # a note changes no fact
    path = tmp_path / "n.jsonl"
    run("export", game, "--out", str(path), "--db", str(db))
    assert b'"kind":"note"' in path.read_bytes() and "OK" in run("verify", str(path)).output
    for args, words in ((["0", "x"], "no event 0"), (["40", "  "], "needs some text")):
        result = runner.invoke(app, ["note", game, *args, "--db", str(db)])
        assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output


def test_report_writes_one_self_contained_html_file(tmp_path, replay_file):
    out = tmp_path / "battle.html"
    assert "wrote" in run("report", str(replay_file), "--out", str(out)).output
    page = out.read_text("utf-8")
    assert "<script src" not in page  # plotly's JavaScript is in the file itself
    assert "Crossing at the Ford" in page and "End of turn 3" in page
    assert "ohw.shoot.roll" in page and "Exhaustion" in page and "Luck" in page
    result = runner.invoke(app, ["report", "nope.jsonl", "--out", str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output


@pytest.mark.parametrize("argv", [
    ["rules", "nosuch"],
    ["show"],
    ["games", "--bogus"],
    ["show", "nosuch-game", "--db", "{db}"],
    ["simulate", "ancients-river-crossing", "--seed", "abc"],
])
def test_every_user_error_is_one_line_and_exit_1(argv, tmp_path):
    argv = [a.replace("{db}", str(tmp_path / "x.db")) for a in argv]
    result = CliRunner().invoke(app, argv)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output and "╭" not in result.output


def test_verify_upcasts_an_old_file_and_prints_ids_as_written(tmp_path):
    fixture = Path(__file__).resolve().parents[1] / "events" / "fixtures" / "v1-ancients-melee.jsonl"
    ok = CliRunner().invoke(app, ["verify", str(fixture)])
    assert ok.exit_code == 0 and "hash chain intact" in ok.output, ok.output
    odd = CliRunner().invoke(app, ["verify", "x[/red]y", "--db", str(tmp_path / "x.db")])
    assert odd.exit_code == 1 and "x[/red]y" in odd.output and "Traceback" not in odd.output


def test_show_refuses_a_turn_the_game_never_reached(tmp_path):
    db = str(tmp_path / "s.db")
    assert CliRunner().invoke(app, ["simulate", "ancients-river-crossing", "--seed", "1",
                                    "--db", db]).exit_code == 0
    from warlog.events.sqlite_store import SQLiteEventStore

    with SQLiteEventStore(db) as store:
        gid = store.games()[0].id
    bad = CliRunner().invoke(app, ["show", gid, "--turn", "99", "--db", db])
    assert bad.exit_code == 1 and "turn 99 is not in this game (turns 0 to" in bad.output
    assert CliRunner().invoke(app, ["show", gid, "--turn", "2", "--db", db]).exit_code == 0


def test_luck_prints_each_sides_dice_against_average_dice(tmp_path):
    from warlog.engine import analysis
    from warlog.events.sqlite_store import SQLiteEventStore

    db = str(tmp_path / "l.db")
    assert CliRunner().invoke(app, ["simulate", "portable-zama", "--seed", "3",
                                    "--db", db]).exit_code == 0
    with SQLiteEventStore(db) as store:
        gid = store.games()[0].id
        events = store.read(gid)
    shown = CliRunner().invoke(app, ["luck", gid, "--db", db])
    assert shown.exit_code == 0, shown.output
    for row in analysis.luck(events):
        assert f"{row['luck']:+.2f}" in shown.output and f"{row['expected_hits']:.2f}" in shown.output
    last = max(r["turn"] for r in analysis.luck_by_turn(events))
    assert f"\n│ {last} " in shown.output


def test_a_game_a_search_bot_played_says_why_its_check_takes_long(tmp_path, replay_file):
    from whatif_games import bot_game

    from warlog.events.replay_file import write_replay

    searched = tmp_path / "searched.jsonl"
    write_replay(searched, bot_game(seed=3, red="aggressive", blue="search"))
    for args in (["verify", str(searched)], ["import", str(searched)],
                 ["show", str(searched), "--no-board"], ["analyze", str(searched)]):
        said = run(*args).stderr
        assert said.startswith(f"re-deriving {searched}: the search bot's orders (blue) are "
                               "re-chosen by playing its playouts again"), (args, said)
    assert "re-deriving" not in run("verify", str(replay_file)).stderr  # aggressive v cautious
