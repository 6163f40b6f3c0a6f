"""Hostile databases (issue 9): a database is input from anyone too.

Each test names a failure that was reproduced before the fix (what warlog did then) and checks
what it does now: a stored event or games row that is not valid JSON, a row that parses but is
no event, damaged pages, or a stored game whose rule system was edited are each one line naming
the database and the game, with exit code 1, from every command that reads them; never a
traceback.
"""

from __future__ import annotations

import sqlite3

import orjson
import pytest

from warlog.events.chain import canonical

from hostile_helpers import _forge_rows, one_error_line, run

pytestmark = pytest.mark.usefixtures("no_ambient_db")


COMMANDS = ["show {g}", "games", "orders {g}", "log {g}", "export {g} --out o.jsonl"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_stored_event_whose_json_is_corrupt_is_one_line_naming_it(stored, command):
    """Before: orjson.JSONDecodeError tracebacks from show, games, orders, log and export."""
    db, game = stored
    _forge_rows(db, "UPDATE events SET body = '{\"broken' WHERE game = ? AND seq = 5", game)
    _forge_rows(db, "UPDATE events SET body = '{\"broken' WHERE kind = 'game_ended'")
    result = run(*command.format(g=game).split(), "--db", str(db), ok=False)
    one_error_line(result, str(db), "the database is damaged", f"game '{game}', event seq 5",
                   "not valid JSON")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_stored_row_that_parses_but_is_no_event_is_one_line_naming_it(stored, command):
    """Before: TypeError and AttributeError tracebacks (a body of `5`, a game_ended of `[1]`).
    Now the game's hash chain names the changed row."""
    db, game = stored
    _forge_rows(db, "UPDATE events SET body = '5' WHERE game = ? AND seq = 5", game)
    _forge_rows(db, "UPDATE events SET body = '[1]' WHERE kind = 'game_ended'")
    result = run(*command.format(g=game).split(), "--db", str(db), ok=False)
    one_error_line(result, str(db), "the database is damaged", f"game '{game}', event seq 5",
                   "hash chain broken")


def test_a_games_row_whose_json_is_corrupt_is_listed_as_its_log_says_and_fails_verify(stored):
    """Before: `games` failed on the games row's players. The list is now read from the log (the
    row only repeats its first event), and verify names the forged column."""
    db, game = stored
    before = run("games", "--json", "--db", str(db)).output
    _forge_rows(db, "UPDATE games SET players = '{oops'")
    assert run("games", "--json", "--db", str(db)).output == before
    result = run("verify", game, "--db", str(db), ok=False)
    assert result.output.strip().splitlines() == [
        f"FAIL game '{game}': column players of the games table says '{{oops' but the game's "
        "first event says '{\"blue\":\"cautious\",\"red\":\"aggressive\"}' — the database was "
        "changed outside warlog"]


def test_a_database_with_damaged_pages_is_never_a_traceback(stored, tmp_path):
    """Before: sqlite3.DatabaseError ("database disk image is malformed") tracebacks from
    games, show, orders, log and export, depending on the page."""
    db, game = stored
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    clean = db.read_bytes()
    failed = 0
    for page in sorted({2, 3, 4, pages // 2, pages - 1}):
        data = bytearray(clean)
        start = (page - 1) * size
        data[start:start + 200] = b"\xab" * 200
        db.write_bytes(bytes(data))
        for command in COMMANDS:
            result = run(*command.format(g=game).split(), "--db", str(db), ok=None)
            if result.exit_code:
                one_error_line(result, str(db))
                failed += 1
    assert failed  # some damage is found, and each time as one line


def test_an_unknown_rule_system_in_a_stored_game_is_one_line_from_orders(stored):
    """Before: `orders` died with ValueError: unknown rule system (the fold looked the event's
    system up in the tables without checking it against its scenario's)."""
    db, game = stored
    conn = sqlite3.connect(db)
    first = orjson.loads(conn.execute("SELECT body FROM events WHERE seq = 1").fetchone()[0])
    conn.close()
    _forge_rows(db, "UPDATE events SET body = ? WHERE seq = 1",
                canonical({**first, "rule_system": "chess"}).decode())
    for command in ("orders", "show", "log"):
        one_error_line(run(command, game, "--db", str(db), ok=False),
                       "rule_system is 'chess', but the game's scenario says 'ohw'")


def test_a_planted_trigger_fails_verify_and_refuses_an_order_but_the_games_still_list(stored):
    """Before (issue 30): guards replaced by no-ops of the same name and an AFTER INSERT ON heads
    trigger let a later order on one game delete another, and verify of the game ordered said OK.
    Now verify fails naming the trigger, and the games still list."""
    db, game = stored
    before = run("games", "--json", "--db", str(db)).output
    conn = sqlite3.connect(db)
    conn.executescript(
        "DROP TRIGGER events_no_delete; CREATE TRIGGER events_no_delete BEFORE DELETE ON events "
        "BEGIN SELECT 1; END; CREATE TRIGGER zz_bomb AFTER INSERT ON heads BEGIN "
        "DELETE FROM events WHERE game <> NEW.game; END")
    conn.close()
    result = run("verify", game, "--db", str(db), ok=False)
    # every command that opens it says so first, one line naming both objects; verify fails
    warning, verdict = result.output.strip().splitlines()
    assert warning.startswith(f"warning: {db}: the database was altered")
    assert "events_no_delete" in warning and "zz_bomb" in warning
    assert verdict == (f"FAIL {db}: the database was altered outside warlog: the trigger "
                       "events_no_delete was changed outside warlog (and 1 more)")
    listed = run("games", "--json", "--db", str(db))
    assert listed.stdout == before and "zz_bomb" in listed.stderr
