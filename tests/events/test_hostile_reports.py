"""What warlog says of hostile input (issue 9): its faces, and verify's report.

User strings holding rich markup (a game id, a note) are stored and printed as written by every
command; verify never raises, whatever it is given, and says in words what a report proves; the
dashboard adds only games that re-derive, reads gzip, escapes what it shows, and says whether
the game shown was verified.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from warlog.engine.bots import bot_rng, get_policy
from warlog.engine.dice import ManualDice
from warlog.engine.game import Game, start
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import Report, verify, what_was_checked
from warlog.events import replay_file
from warlog.events.replay_file import ReplayError, encode_replay, load_replay_bytes
from warlog.events.sqlite_store import SQLiteEventStore

from hostile_helpers import SCENARIO, _forge_rows, nth, rechain, run
from waits import LIMIT

pytestmark = pytest.mark.usefixtures("no_ambient_db")


# -- 1. rich markup in user strings ------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["x[/red]y", "x[bold]y", "[link=file:///etc]z"])
def test_a_game_id_with_markup_is_stored_and_printed_as_written(tmp_path, records, game_id):
    """Before: `import` stored the game, then crashed printing it (MarkupError for x[/red]y), or
    printed it wrong (x[bold]y came out as "xy"), and so did games, show, log and orders."""
    for record in records[:-1]:
        record["game"] = game_id
    path = tmp_path / "markup.jsonl"
    path.write_bytes(rechain(records))
    db = ["--db", str(tmp_path / "m.db")]
    assert f"imported {game_id} into" in run("import", str(path), *db).output
    assert game_id in run("games", *db).output
    assert game_id in run("orders", game_id, *db).output
    assert run("show", game_id, *db).exit_code == 0
    assert run("log", game_id, *db).exit_code == 0
    out = tmp_path / "again.jsonl"
    assert f"{game_id} written to" in run("export", game_id, "--out", str(out), *db).output
    assert out.read_bytes() == path.read_bytes()
    again = run("import", str(out), *db, ok=False)  # an error quoting the id: as text too
    assert f"game {game_id!r} is already in the database" in again.output


def test_notes_with_markup_are_told_as_written(tmp_path):
    db = ["--db", str(tmp_path / "n.db")]
    run("simulate", SCENARIO, "--seed", "7", *db)
    game = json.loads(run("games", "--json", *db).output)[0]["id"]
    run("note", game, "40", "[/red] the [bold]ford[/bold]", *db)
    assert "[/red] the [bold]ford[/bold]" in run("log", game, *db).output


# -- 2. verify never raises --------------------------------------------------------------------


def test_verify_never_raises_whatever_it_is_given(game):
    """Before: KeyError ('dice'), TypeError (players not a mapping, a number for a log, a list
    for an event), StopIteration (a key missing where the rules give None), AttributeError."""
    raw = [{k: v for k, v in e.items()} for e in game[:80]]
    moved = next(i for i, e in enumerate(raw) if e["kind"] == "unit_moved")
    cases: list[Any] = [
        [], 5, None, "log", [None], ["x"], [{}], [{"kind": "game_started"}],
        [{**raw[0], "players": 5}, *raw[1:]],
        [{**raw[0], "scenario": "x"}, *raw[1:]],
        [{**raw[0], "dice": "loaded"}, *raw[1:]],
        [raw[0], [1, 2], *raw[2:]],
        [*raw[:moved], {k: v for k, v in raw[moved].items() if k != "stopped_by"},
         *raw[moved + 1:]],
        [*raw[:3], {**raw[3], "order": {}}, *raw[4:]],
        [*raw[:3], {**raw[3], "order": None}, *raw[4:]],
        [*raw[:3], {**raw[3], "seq": "4"}, *raw[4:]],
    ]
    rng = random.Random(5)
    pool = [None, 0, -1, 2**70, "x", [], {}, [1, 2], {"a": None}, True, 1.5]
    for _ in range(150):  # random damage to random fields of a real log
        log = [dict(e) for e in raw]
        for _ in range(rng.randrange(1, 4)):
            event = rng.choice(log)
            event[rng.choice(sorted(event))] = rng.choice(pool)
        cases.append(log)
    for case in cases:
        report = verify(case)
        assert isinstance(report, Report) and not report.ok, case
        assert report.mismatch.seq >= 1 and "\n" not in report.mismatch.message


# -- 3. what verify proves, in words -----------------------------------------------------------


def _choice(state):
    """An order a person might give: what the cautious bot would, asked from outside."""
    return get_policy("cautious").choose(state, bot_rng(state))


def test_what_was_checked_says_what_a_report_proves(game):
    bots = what_was_checked(verify(game))
    assert bots.startswith(f"Verified: hash chain intact; {len(game)} events re-derived")
    assert "seeded dice re-rolled from the seed" in bots
    assert "every order re-chosen by its bot (red: aggressive, blue: cautious)" in bots

    scenario = load_scenario(SCENARIO)
    people = Game(start("p", scenario, seed=3, players={"red": "Ann", "blue": "Bo"}))
    for _ in range(30):
        people.play(_choice(people.state), by=people.state.players[people.state.to_act])
    words = what_was_checked(verify(people.events), chain=False)
    assert words.startswith("Verified: ") and "hash chain" not in words
    assert "seeded dice re-rolled" in words and "orders taken as the players' own" in words
    assert "proven legal, not chosen" in words

    table = Game(start("t", scenario, dice="manual", players={"red": "Ann", "blue": "Bo"}))
    for _ in range(30):
        table.play(_choice(table.state), by=table.state.players[table.state.to_act],
                   dice=ManualDice([4] * 12))
    words = what_was_checked(verify(table.events))
    assert "dice taken as the players rolled them (manual dice)" in words
    assert "proves only that it is consistent with the rules" in words

    forged = [dict(e) for e in game]
    die = next(e for e in forged if e["kind"] == "dice_rolled")
    die["faces"] = [die["faces"][0] % 6 + 1]
    words = what_was_checked(verify(forged))
    assert words.startswith("Not verified: the hash chain is intact, but the game does not "
                            f"re-derive: event seq {die['seq']} (dice_rolled): faces is")
    assert what_was_checked(verify(game), chain_error="seq 5 broken").startswith(
        "Not verified: the hash chain is broken: seq 5 broken")


# -- 4. the dashboard takes files the same way -------------------------------------------------


def test_the_dashboard_adds_only_what_re_derives_and_reads_gzip(tmp_path, game, records):
    from warlog.dashboard import data

    db = tmp_path / "d.db"
    die = nth(records, "dice_rolled", 2)
    die["faces"] = [die["faces"][0] % 6 + 1]
    with pytest.raises(ReplayError, match=f"forged.jsonl: line {die['seq'] + 1}: refused: the "
                                          "game does not re-derive"):
        data.import_upload(str(db), rechain(records), "forged.jsonl")
    packed = replay_file.compress(encode_replay(game))
    assert data.parse_upload(packed, "g.jsonl.gz") == game
    assert data.import_upload(str(db), packed, "g.jsonl.gz") == "hostile"
    with SQLiteEventStore(db) as store:
        assert store.read("hostile") == game and [g.id for g in store.games()] == ["hostile"]
    line = data.verified_line("upload:x", game)
    assert line.startswith(f"Verified\\: hash chain intact; {len(game)} events re\\-derived")
    assert data.markdown_text("x[/red]*y*_z_ :red[a] $b$") == \
        "x\\[/red\\]\\*y\\*\\_z\\_ \\:red\\[a\\] \\$b\\$"
    assert load_replay_bytes(packed, "g.jsonl.gz") == game


def test_the_replay_header_says_what_was_verified(tmp_path, monkeypatch, game):
    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
    db = tmp_path / "page.db"
    with SQLiteEventStore(db) as store:
        store.append("hostile", game, 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(app, default_timeout=LIMIT).run()
    assert not at.exception
    said = [c.value for c in at.caption if c.value.startswith("Verified")]
    assert said and "seeded dice re\\-rolled from the seed" in said[0], \
        [c.value for c in at.caption]
    _forge_rows(db, "UPDATE events SET body = replace(body, '\"turn\":1', '\"turn\":2') "
                    "WHERE game = 'hostile' AND seq = 5")
    from warlog.dashboard import data

    data.read_events.clear()  # a running dashboard keeps what it read: a fresh one
    data._rederived.clear()
    data._chain_error.clear()
    at = AppTest.from_file(app, default_timeout=LIMIT).run()
    said = [c.value for c in at.caption if c.value.startswith("Not verified")]
    assert said and "hash chain is broken" in said[0], [c.value for c in at.caption]
