"""`warlog takeback GAME [--orders N] [--side SIDE]` (issue 39, item 3): a side's last orders taken
back in one command, beside `warlog order`, printing the line the table prints; a refusal is one
line naming the reason, and nothing is written."""

from __future__ import annotations

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.engine.game import Game
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

SCENARIO = "ancients-river-crossing"
GAME = f"{SCENARIO}-1"


def stored(db="a.db"):
    with SQLiteEventStore(db) as store:
        return store.read(GAME)


def new_game() -> None:
    run("new", SCENARIO, "--red", "Ann", "--blue", "Bo", "--db", "a.db")


def order(*words: str) -> str:
    return run("order", GAME, *words, "--db", "a.db").output


def test_takeback_puts_the_side_back_then_an_order_is_given_again_and_the_game_verifies():
    new_game()
    start = Game(stored()).state.units["r-inf-1"].cell
    order("move", "r-inf-1", "E", "3")
    order("move", "r-arc-1", "E", "2")
    first = next(e for e in stored() if e["kind"] == "order_given")
    out = run("takeback", GAME, "--orders", "2", "--db", "a.db").output
    assert out.strip() == (f"Red (Ann) takes back 2 orders (from event {first['seq']}): the game "
                           "goes back to turn 1, red's movement phase.")  # the replay's words
    events = stored()
    assert events[-1]["kind"] == "orders_taken_back" and events[-1]["by"] == "Ann"
    assert Game(events).state.units["r-inf-1"].cell == start
    said = order("move", "r-inf-1", "E", "2")  # told from the position after the take-back
    assert "r-inf-1 moves 2 cells" in said and "turn 1, red (Ann) movement" in said
    assert "OK" in run("verify", GAME, "--db", "a.db").output
    assert verify(stored()).ok


def test_an_end_of_phase_is_taken_back_by_the_side_that_gave_it():
    new_game()
    order("end")
    order("end")  # red's shooting: blue's movement begins
    out = run("takeback", GAME, "--db", "a.db").output  # the side that ordered last: red
    assert out.strip().endswith("the game goes back to turn 1, red's shooting phase.")
    assert Game(stored()).state.to_act == "red"


def test_a_refusal_is_one_line_and_nothing_is_written():
    new_game()
    order("move", "r-inf-1", "E", "3")
    order("end")
    order("end")
    order("move", "b-skm-1", "W", "3")
    count = len(stored())
    for args, line in [
        (["--side", "red"], "error: cannot take back: red has no order to take back: blue has "
                            "ordered since"),
        (["--orders", "2"], "error: cannot take back: blue can take back 1 order here, not 2: "
                            "red has ordered since"),
        (["--side", "green"], "error: cannot take back: field 'side': 'green' is not a side; "
                              "the sides are red and blue"),
    ]:
        result = run("takeback", GAME, *args, "--db", "a.db", ok=False)
        assert result.output.strip() == line
    assert len(stored()) == count
