"""Recording a game at the table (`warlog record`), from a script, and forking a game from any
point of another (`warlog fork`), end to end on real SQLite databases."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.cli import app
from warlog.engine.fold import replay
from warlog.engine.rules import catalogue
from warlog.engine.verify import retraction, verify
from warlog.events.orders import ShootOrder
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError
from warlog.app.forking import rest_points
from warlog.app.recorder import Recorder
from warlog.record_table import Table

from builders import mutated
from waits import LIMIT

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "ancients-river-crossing"
GAME = f"{SCENARIO}-1"

# Three turns of Crossing at the Ford: moves, shots with the real dice, a melee whose die comes
# with the `end` that starts it, one order taken back before its die, and a note.
SCRIPT = """\
# Crossing at the Ford, as written down at the table
move r-inf-1 E 3          # along the road: +1
move r-arc-1 E 2
end
end                       # red: nothing in range yet
move b-skm-1 W 3
move b-inf-1 W 2
end
end
move r-inf-2 E 2
end
shoot r-arc-1 b-skm-1     # announced ...
undo                      # ... and taken back before the die was rolled
note the archers wait for the slingers to come closer # a note keeps its # too
shoot r-arc-1 b-skm-1
dice 5
end
move b-cav-1 W 3
end
shoot b-skm-1 r-arc-1 dice 3
end
move r-inf-1 E 1
end
shoot r-arc-1 b-skm-1 dice 6
end
move b-inf-1 W 2 attack r-inf-1
end
end dice 4                # the melee phase follows: blue's die
"""

# The same orders with warlog rolling: nothing waits for dice, so nothing can be taken back.
AUTO_SCRIPT = "\n".join(
    line.split(" dice ")[0] for line in SCRIPT.splitlines()
    if not line.startswith(("undo", "dice", "shoot r-arc-1 b-skm-1     # announced"))) + "\n"

runner = CliRunner()




def stored(db: Path, game: str = GAME) -> list[dict]:
    with SQLiteEventStore(db) as store:
        return store.read(game)


def without_game(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "game"}


@pytest.fixture
def scripted(tmp_path) -> Path:
    """The script recorded into a.db; returns the database."""
    (tmp_path / "game.txt").write_text(SCRIPT)
    db = tmp_path / "a.db"
    out = run("record", SCENARIO, "--players", "red=Ann,blue=Bo", "--script", "game.txt",
              "--db", str(db)).output
    assert f"started {GAME} from game.txt: 23 orders, 1 withdrawn, 1 note;" in out
    assert "now turn 4, red (Ann) movement" in out
    return db


def test_a_scripted_game_exports_imports_verifies_and_keeps_its_undo_and_note(tmp_path, scripted):
    events = stored(scripted)
    [withdrawn] = [e for e in events if e["kind"] == "order_retracted"]
    assert (withdrawn["order"], withdrawn["side"], withdrawn["by"], withdrawn["phase"]) == (
        {"type": "shoot", "unit": "r-arc-1", "target": "b-skm-1"}, "red", "Ann", "shooting")
    [note] = [e for e in events if e["kind"] == "note"]
    assert note["text"] == ("the archers wait for the slingers to come closer "
                            "# a note keeps its # too")
    assert note["about"] == withdrawn["seq"] - 1  # the game as it stood: red's shooting begins
    dice = [e["faces"] for e in events if e["kind"] == "dice_rolled"]
    assert dice == [[5], [3], [6], [4]]
    state = replay(events)
    assert (state.units["b-skm-1"].removed, state.units["r-inf-1"].hits) == (True, 3)

    run("export", GAME, "--out", "game.jsonl", "--db", str(scripted))
    other = tmp_path / "b.db"
    run("import", "game.jsonl", "--db", str(other))
    for db in (scripted, other):
        assert "OK" in run("verify", GAME, "--db", str(db)).output
    assert "OK" in run("verify", "game.jsonl").output
    shown = [json.loads(run("show", GAME, "--json", "--db", str(db)).output)
             for db in (scripted, other)]
    assert shown[0] == shown[1] == state.public()
    assert stored(other) == events  # the withdrawn order and the note came along, byte for byte
    log = run("log", GAME, "--db", str(other)).output
    assert "red takes back an order before its dice are rolled (Ann): r-arc-1 shoots b-skm-1" in log
    assert "Note on event" in log


def test_a_script_carries_on_a_stored_game(tmp_path, scripted):
    (tmp_path / "more.txt").write_text("move r-inf-2 E 1\nend\nend dice 2  # red's melee\n")
    out = run("record", "--game", GAME, "--script", "more.txt", "--db", str(scripted)).output
    assert f"continued {GAME} from more.txt: 3 orders" in out
    assert "OK" in run("verify", GAME, "--db", str(scripted)).output


def test_an_illegal_order_in_a_script_names_the_file_the_line_and_the_rule(tmp_path):
    (tmp_path / "bad.txt").write_text(
        "move r-inf-1 E 3\n\n# red's archers\nmove r-arc-1 E 5\nend\n")
    result = run("record", SCENARIO, "--script", "bad.txt", "--db", "a.db", ok=False)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    text = " ".join(catalogue()["ohw.ancients.move"].text.split())
    assert lines[0].startswith("error: bad.txt line 4: illegal order 'move r-arc-1 E 5': ")
    assert f"rule ohw.ancients.move: {text}" in lines[0]
    events = stored(tmp_path / "a.db")  # line 1 is stored, nothing from line 4 on
    assert [e["order"] for e in events if e["kind"] == "order_given"] == [
        {"type": "move", "unit": "r-inf-1", "facing": "E", "distance": 3, "end_facing": None,
         "attack": None}]
    assert verify(events).ok


TO_THE_SHOT = SCRIPT.splitlines()[:11]  # up to red's shooting in turn 2: r-arc-1 has a target


@pytest.mark.parametrize("lines, number, problem", [
    (["undo"], 1, "nothing to undo: undo takes back an order before its dice are entered"),
    (["move r-inf-1 E 3", "undo"], 2, "the last order (move r-inf-1 E 3) is already recorded"),
    (["dice 4", "end"], 1, "the opening rolled 0 dice but 1 were given"),
    ([*TO_THE_SHOT, "shoot r-arc-1 b-skm-1", "end"], 13, "(line 12) still needs die number 1"),
    ([*TO_THE_SHOT, "shoot r-arc-1 b-skm-1"], 12, "the file ends before its die number 1"),
    ([*TO_THE_SHOT, "shoot r-arc-1 b-skm-1 dice 5,6"], 12, "rolls 1 dice but 2 were given"),
    ([*TO_THE_SHOT, "shoot r-arc-1 b-skm-1 dice 7"], 12, "a d6 shows 1 to 6, not '7'"),
    ([*TO_THE_SHOT, "dice 3"], 12, "no order is waiting for dice"),
    (["march r-inf-1 E"], 1, "'march r-inf-1 E': not an order"),
    (["note"], 1, "a note needs some text"),
    (["end", "end", "move r-inf-1 E 1"], 3, "r-inf-1 is red's"),
])
def test_a_bad_script_line_is_one_line_naming_it(tmp_path, lines, number, problem):
    (tmp_path / "s.txt").write_text("\n".join(lines) + "\n")
    result = run("record", SCENARIO, "--script", "s.txt", "--db", "a.db", "--game", "g",
                 ok=False)
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert f"s.txt line {number}: " in result.output and problem in result.output
    with SQLiteEventStore(tmp_path / "a.db") as store:
        if store.has_game("g"):
            assert verify(store.read("g")).ok  # what came before the bad line is stored whole


def test_a_script_gives_the_opening_its_dice(tmp_path):
    (tmp_path / "s.txt").write_text("# the Saxons' army\ndice 4\nend\n")
    run("record", "dark-ages-causeway-at-maldon", "--script", "s.txt", "--db", "a.db")
    events = stored(tmp_path / "a.db", "dark-ages-causeway-at-maldon-1")
    assert [e["faces"] for e in events if e["kind"] == "dice_rolled"] == [[4]]
    assert verify(events).ok
    (tmp_path / "t.txt").write_text("end\n")
    result = run("record", "dark-ages-causeway-at-maldon", "--script", "t.txt", "--db", "a.db",
                 ok=False)
    assert "t.txt line 1: the game opens with dice rolls" in result.output
    with SQLiteEventStore(tmp_path / "a.db") as store:
        assert not store.has_game("dark-ages-causeway-at-maldon-2")


# -- at the table --------------------------------------------------------------------------


def test_the_table_refuses_an_illegal_order_with_its_rule_and_takes_the_corrected_one(tmp_path):
    typed = "move r-inf-1 E 5\nmove r-inf-1 E 3\nquit\n"
    out = run("record", SCENARIO, "--players", "red=Ann,blue=Bo", "--db", "a.db",
              input=typed).output
    assert "turn 1 · red (Ann) · movement: 85 legal orders" in out
    assert "  r-inf-1: move (24), turn (3)\n" in out  # a summary: one line per unit
    assert "refused: Infantry moves at most 2 cells (3 along a road, ohw.terrain.road)" in out
    assert "ohw.ancients.move: " + catalogue()["ohw.ancients.move"].text.split()[0] in out
    assert "r-inf-1 moves 3 cells from (1, 2) to (4, 2), with the road bonus" in out
    assert f"left {GAME}: it stays in the database; carry on with: warlog record --game {GAME} " \
           "--db a.db" in out
    events = stored(tmp_path / "a.db")
    assert [e["order"]["distance"] for e in events if e["kind"] == "order_given"] == [3]
    assert verify(events).ok


def test_the_table_takes_numbers_dice_undo_and_notes_and_carries_on_a_game(tmp_path, scripted):
    """Carry on the scripted game at the table: red's turn 4, where red's melee needs a die."""
    typed = "\n".join([
        "orders r-arc-1",          # the list again, for one unit
        "board",
        "help",
        "move r-inf-1 E 1",        # r-inf-1 is in melee: refused
        "4",                       # an order by its number (r-inf-2 moves E 1, then faces S)
        "end",
        "end",                     # red's shooting over: the melee needs red's die
        "7",                       # not a face
        "undo",                    # take back the end before its die
        "note the melee waits for the real die",
        "dice 2",                  # no order waits for dice any more
        "end",
        "3",                       # the melee's die
        "quit",
    ]) + "\n"
    before = stored(scripted)
    out = run("record", "--game", GAME, "--db", str(scripted), input=typed).output
    assert f"carrying on with {GAME}" in out
    assert "82 legal orders (27 for r-arc-1)" in out
    assert "numbers   type an order's number" in out  # help: one line per word
    assert "refused: r-inf-1 is in melee and cannot leave it" in out
    assert "ohw.melee.locked: " + catalogue()["ohw.melee.locked"].text.split(";")[0] in out
    assert "red orders: r-inf-2 moves E 1, then faces S (Ann)." in out
    assert "dice for end, die number 1 (or undo) > " in out
    assert "a d6 shows 1 to 6, not '7'" in out
    assert "error: no order is waiting for dice" in out
    assert "r-inf-1 rolls 3 for melee." in out
    assert "turn 4 · blue (Bo) · movement" in out
    events = stored(scripted)
    new = events[len(before):]
    assert events[:len(before)] == before
    kinds = [e["kind"] for e in new]
    assert kinds.count("order_retracted") == 1 and kinds.count("note") == 1
    [withdrawn] = [e for e in new if e["kind"] == "order_retracted"]
    assert (withdrawn["order"], withdrawn["side"], withdrawn["by"], withdrawn["phase"]) == (
        {"type": "end_phase"}, "red", "Ann", "shooting")
    assert [e["faces"] for e in new if e["kind"] == "dice_rolled"] == [[3]]
    assert verify(events).ok


def test_the_table_asks_for_dice_until_the_rules_have_them_all(tmp_path):
    """The Portable Wargame's initiative follows the end of blue's missile machines: both sides
    roll, and the dice may be typed one at a time as they are read off the table."""
    out = run("record", "portable-issus", "--db", "a.db", input="end\nend\n5\n2\nquit\n").output
    assert "dice for end, die number 1 (or undo) > " in out
    assert "dice for end, die number 2 (so far 5) (or undo) > " in out
    assert "red wins the initiative and activates first this turn." in out
    assert "r-hcav-1: route (119)" in out  # each unit's orders summed up, then
    assert "orders [UNIT] lists orders, numbered" in out  # `orders UNIT` lists them
    events = stored(tmp_path / "a.db", "portable-issus-1")
    assert [e["faces"] for e in events if e["kind"] == "dice_rolled"] == [[5], [2]]
    assert verify(events).ok
    run("record", "portable-issus", "--db", "b.db", input="end\nend dice 5,2\nquit\n")
    assert stored(tmp_path / "b.db", "portable-issus-1") == events  # or all at once


def test_a_concurrent_writer_makes_the_append_fail_in_one_line_and_the_table_reloads(tmp_path):
    db = tmp_path / "a.db"
    run("new", SCENARIO, "--db", str(db))
    said: list[str] = []
    typed = iter(["move r-inf-1 E 3", "move r-inf-2 E 1", "end", "quit"])

    def ask(prompt: str) -> str:
        line = next(typed)
        if line == "move r-inf-2 E 1":  # someone else records an order first
            with SQLiteEventStore(db) as other:
                Recorder(other, GAME).give(other_order())
        return line

    def other_order():
        from warlog.events.orders import MoveOrder

        return MoveOrder(unit="r-skm-1", facing="E", distance=1)

    with SQLiteEventStore(db) as store:
        Table(Recorder(store, GAME), ask, lambda line: said.append(str(line)), "resume").run()
    errors = [s for s in said if s.startswith("[red]error")]
    assert len(errors) == 1 and "the game moved on" in errors[0]
    events = stored(db)
    assert [e["order"].get("unit") for e in events if e["kind"] == "order_given"] == [
        "r-inf-1", "r-skm-1", None]  # r-inf-2's order was decided on a stale game: not stored
    assert verify(events).ok


def test_a_stale_recorder_raises_concurrency_error_and_writes_nothing(tmp_path):
    db = tmp_path / "a.db"
    run("new", SCENARIO, "--db", str(db))
    with SQLiteEventStore(db) as store:
        rec = Recorder(store, GAME)
        run("order", GAME, "move", "r-inf-1", "E", "3", "--db", str(db))
        with pytest.raises(ConcurrencyError, match="reload and try again"):
            rec.give(rec.order_from("move r-inf-2 E 1"))
        assert rec.state.units["r-inf-1"].cell == (4, 2)  # reloaded
        rec.give(rec.order_from("move r-inf-2 E 1"))
        assert verify(store.read(GAME)).ok


# -- dice rolled by warlog -----------------------------------------------------------------


def test_auto_dice_games_verify_from_a_script_and_at_the_table(tmp_path):
    (tmp_path / "auto.txt").write_text(AUTO_SCRIPT)
    for db in ("a.db", "b.db"):
        run("record", SCENARIO, "--dice", "auto", "--seed", "11", "--script", "auto.txt",
            "--db", db)
        assert "OK" in run("verify", GAME, "--db", db).output
    assert stored(tmp_path / "a.db") != [] and [
        {k: v for k, v in e.items() if k != "played"} for e in stored(tmp_path / "a.db")] == [
        {k: v for k, v in e.items() if k != "played"} for e in stored(tmp_path / "b.db")]
    (tmp_path / "bad.txt").write_text("end\nshoot r-arc-1 b-skm-1 dice 4\n")
    result = run("record", SCENARIO, "--dice", "auto", "--script", "bad.txt", "--db", "c.db",
                 ok=False)
    assert "bad.txt line 2: this game rolls its own dice" in result.output
    typed = ("move r-arc-1 E 2\nend\nend\nmove b-skm-1 W 3\nend\nend\nend\n"
             "shoot r-arc-1 b-skm-1\nundo\nquit\n")
    out = run("record", SCENARIO, "--dice", "auto", "--db", "d.db", input=typed).output
    assert "seeded dice, seed " in out  # a random seed, recorded in the game
    assert "r-arc-1 rolls" in out and "nothing to undo" in out
    assert "OK" in run("verify", GAME, "--db", "d.db").output


def test_options_that_only_set_up_a_new_game_are_refused_on_resume(tmp_path, scripted):
    for args, problem in [
        (["--game", GAME, "--players", "red=X"], "--players only set up a new game"),
        (["medieval-between-the-woods", "--game", GAME], "is a game of 'ancients-river-crossing'"),
        ([], "give a scenario to start a game"),
        ([SCENARIO, "--dice", "loaded"], "--dice is manual or auto"),
        ([SCENARIO, "--seed", "3"], "--seed is for --dice auto"),
        ([SCENARIO, "--players", "green=Al"], "--players takes red=NAME,blue=NAME"),
        ([SCENARIO, "--players", "red=random"], "name of a bot policy"),
    ]:
        result = run("record", *args, "--db", str(scripted), ok=False, input="quit\n")
        assert problem in result.output and len(result.output.strip().splitlines()) == 1, (
            args, result.output)


# -- fork ----------------------------------------------------------------------------------


def test_fork_at_any_point_gives_a_game_that_verifies_in_the_old_ones_state(tmp_path, scripted):
    events = stored(scripted)
    points = rest_points(events)
    first = points[0]
    with SQLiteEventStore(scripted) as store:
        for at in sorted({first, first + 1, 20, 26, 27, 28, 29, 30, 31, 47, len(events) - 1,
                          len(events)}):
            result = run("fork", GAME, "--at", str(at), "--new-id", f"f{at}", "--db",
                         str(scripted))
            forked = store.read(f"f{at}")
            cut = len(forked)
            assert cut == max(k for k in points if k <= at)
            assert f"forked {GAME} at event {cut}" in result.output
            assert (f"cut back from {at}" in result.output) == (cut != at)
            assert all(e["game"] == f"f{at}" for e in forked)
            assert [{**e, "game": GAME} for e in forked] == events[:cut]
            store.verify(f"f{at}")  # its own hash chain
            assert verify(forked).ok
            assert without_game(replay(forked).public()) == without_game(
                replay(events, cut).public())
    assert "OK" in run("verify", "f29", "--db", str(scripted)).output
    assert stored(scripted, "f27")[-1]["kind"] == "phase_started"  # before the withdrawn order
    assert stored(scripted, "f28")[-1]["kind"] == "order_retracted"
    assert stored(scripted, "f29")[-1]["kind"] == "note"


def test_a_fork_carries_on_differently_and_still_verifies(tmp_path, scripted):
    out = run("fork", GAME, "--at", "27", "--db", str(scripted)).output
    assert f"as {GAME}-fork-1" in out and "turn 2, red (Ann) shooting" in out
    run("order", f"{GAME}-fork-1", "shoot", "r-arc-1", "b-skm-1", "--dice", "1", "--db",
        str(scripted))
    (tmp_path / "more.txt").write_text("end\nmove b-cav-1 W 3\nend\nend\n")
    run("record", "--game", f"{GAME}-fork-1", "--script", "more.txt", "--db", str(scripted))
    forked = stored(scripted, f"{GAME}-fork-1")
    assert verify(forked).ok and replay(forked).units["b-skm-1"].hits == 1
    assert stored(scripted) == stored(scripted)  # the old game is untouched
    assert replay(stored(scripted)).units["b-skm-1"].removed
    assert "-fork-2" in run("fork", GAME, "--at", "27", "--db", str(scripted)).output


@pytest.mark.parametrize("args, problem", [
    (["--at", "1"], "inside ancients-river-crossing-1's opening"),
    (["--at", "0"], "there is no event 0"),
    (["--at", "9999"], "there is no event 9999"),
    (["--at", "30", "--new-id", GAME], "is already in the database"),
])
def test_fork_refuses_what_it_cannot_do_in_one_line(scripted, args, problem):
    result = run("fork", GAME, *args, "--db", str(scripted), ok=False)
    assert problem in result.output and len(result.output.strip().splitlines()) == 1


def test_fork_of_a_game_not_in_the_database(tmp_path):
    result = run("fork", "nope", "--at", "3", "--db", "a.db", ok=False)
    assert "no game 'nope'" in result.output


# -- verify and the withdrawn order ----------------------------------------------------------


def test_verify_checks_a_withdrawn_order_where_it_stands(scripted):
    events = stored(scripted)
    i = next(i for i, e in enumerate(events) if e["kind"] == "order_retracted")
    state = replay(events, events[i - 1]["seq"])
    assert retraction(state, ShootOrder(unit="r-arc-1", target="b-skm-1"), "Ann") == events[i]
    for key in ("side", "turn", "phase", "game"):  # `by` is an input, as in an order
        bad = [*events[:i], {**events[i], key: mutated(events[i][key])}, *events[i + 1:]]
        report = verify(bad)
        assert not report.ok and report.mismatch.seq == events[i]["seq"], key
    bot = verify([*events[:i], {**events[i], "by": "aggressive"}, *events[i + 1:]])
    assert "a bot takes no order back" in bot.mismatch.message
    illegal = {**events[i], "order": {"type": "shoot", "unit": "r-inf-1", "target": "b-skm-1"}}
    report = verify([*events[:i], illegal, *events[i + 1:]])
    assert "the withdrawn order is illegal" in report.mismatch.message
    late = [*events[:i], *events[i + 1:]]
    late.insert(i + 3, {**events[i], "seq": events[i]["seq"] + 3})  # inside an order's consequences
    assert not verify(late).ok


# -- the README --------------------------------------------------------------------------------


def test_the_readme_example_runs_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("Recording a game at the table", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("WARLOG_DB", None)
    done = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, env=env, text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=LIMIT)
    assert done.returncode == 0, done.stdout + done.stderr
    for comment in re.findall(r"#\s*(OK [^\n]+)", block):
        assert comment.strip() in done.stdout, (comment, done.stdout)
    assert "left ford-what-if: it stays in the database" in done.stdout


def test_the_table_stops_when_the_game_is_over(tmp_path):
    """Both sides end every phase until the turn limit: the table says so and leaves."""
    out = run("record", SCENARIO, "--dice", "auto", "--seed", "2", "--db", "a.db",
              input="end\n" * 80).output
    assert "game over: " in out and f"{GAME} is stored" in out
    assert out.count("game over") == 1
    events = stored(tmp_path / "a.db")
    assert events[-1]["kind"] == "game_ended" and verify(events).ok


def test_the_prompt_completes_the_legal_orders_and_the_tables_words(tmp_path, scripted):
    """What tab completion offers at the table: every legal order in the notation (so a typed
    start completes to an order the rules accept) and undo, note, end, quit, orders."""
    from warlog.engine.game import legal_orders
    from warlog.events.sqlite_store import SQLiteEventStore
    from warlog.app.notation import format_order
    from warlog.app.recorder import Recorder
    from warlog.record_table import Table

    with SQLiteEventStore(scripted) as store:
        rec = Recorder(store, GAME)
        table = Table(rec, ask=lambda p: "quit", say=lambda m: None, resume="")
        offered = table.choices()
        wanted = {format_order(o) for o in legal_orders(rec.state)}
    assert wanted <= set(offered) and {"undo", "end", "quit"} <= set(offered)
    assert all(o in wanted or o.strip() in ("undo", "note", "end", "quit", "orders", "concede")
               for o in offered)


def test_one_legal_order_is_said_in_the_singular():
    out = run("record", SCENARIO, "--players", "red=Ann,blue=Bo", "--db", "a.db",
              input="end\nquit\n").output
    assert "turn 1 · red (Ann) · shooting: 1 legal order\n" in out  # nothing in range: end
