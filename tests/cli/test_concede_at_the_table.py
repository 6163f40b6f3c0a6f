"""`concede SIDE` at the `warlog record` prompt and in a script: the side gives up, signed by its
player as its orders are, the other side wins, and the game verifies; a bad side is one
line, and nothing is stored."""

from __future__ import annotations

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

SCENARIO = "ancients-river-crossing"
GAME = f"{SCENARIO}-1"


def stored(db, game=GAME):
    with SQLiteEventStore(db) as store:
        return store.read(game)


def test_a_side_concedes_at_the_table(tmp_path):
    typed = "move r-inf-1 E 1\nconcede blue\n"
    out = run("record", SCENARIO, "--players", "red=Ann,blue=Bo", "--db", "a.db",
              input=typed).output
    assert "blue concedes (Bo)" in out
    assert "game over: red wins (blue conceded)" in out
    events = stored(tmp_path / "a.db")
    assert [e["kind"] for e in events[-2:]] == ["side_conceded", "game_ended"]
    assert events[-2]["side"] == "blue" and events[-2]["by"] == "Bo"
    assert events[-1]["winner"] == "red"
    assert verify(events).ok


def test_a_bad_side_is_one_line_and_the_table_carries_on(tmp_path):
    typed = "concede purple\nmove r-inf-1 E 1\nquit\n"
    out = run("record", SCENARIO, "--players", "red=Ann,blue=Bo", "--db", "a.db",
              input=typed).output
    assert "error: cannot concede: field 'side': 'purple' is not a side" in out
    assert "Traceback" not in out and f"left {GAME}" in out
    kinds = [e["kind"] for e in stored(tmp_path / "a.db")]
    assert "side_conceded" not in kinds and kinds[-1] == "unit_moved"  # the table carried on


def test_a_script_line_concedes_and_a_line_after_it_is_refused_by_number(tmp_path):
    (tmp_path / "s.txt").write_text("move r-inf-1 E 1\nend\nconcede red  # Ann gives up\n")
    out = run("record", SCENARIO, "--players", "red=Ann,blue=Bo", "--script", "s.txt",
              "--db", "a.db").output
    assert "game over: blue (red conceded)" in out
    events = stored(tmp_path / "a.db")
    assert events[-2]["kind"] == "side_conceded" and events[-2]["by"] == "Ann"
    assert verify(events).ok

    (tmp_path / "more.txt").write_text("concede blue\n")
    result = run("record", "--game", GAME, "--script", "more.txt", "--db", "a.db", ok=False)
    assert "more.txt line 1:" in result.output and "the game is over" in result.output
    assert stored(tmp_path / "a.db") == events
