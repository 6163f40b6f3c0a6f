"""`warlog record`'s prompt at the table (issue 39, item 4): a short summary after each order,
order numbers that hold for the whole phase, the board after each resolution, and a help that
names every word, and `takeback [N]` (issue 39, item 3). The Table, holding the application's
session, is driven by a scripted ``ask``, on a real SQLite database."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable

import pytest
from rich.columns import Columns
from rich.text import Text

from warlog.app.notation import format_order
from warlog.app.recorder import Recorder
from warlog.app.seats import Seat
from warlog.app.start import start_game
from warlog.engine import vocabulary
from warlog.engine.game import legal_orders
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.session import Session
from warlog.record_table import Table

SCENARIO = "ancients-river-crossing"
BOARD_TOP = "    " + "".join(f"{c:^3}" for c in range(3))  # the column numbers' first cells


@pytest.fixture
def store(tmp_path):
    with SQLiteEventStore(tmp_path / "a.db") as opened:
        yield opened


def new_game(store, dice: str = "manual", scenario: str = SCENARIO, seed: int | None = None
             ) -> str:
    seats = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}
    return start_game(store, load_scenario(scenario), seats=seats, game_id="g", dice=dice,
                      seed=seed, played="2026-01-01")


class Script:
    """A table driven by typed lines (or a function choosing each line from the table); what it
    said is kept as plain text, one line per entry (a list in columns: one entry per order)."""

    def __init__(self, store, lines: Iterable[str] | Callable[[Table, str], str]) -> None:
        self.said: list[str] = []
        self.marks: list[int] = []  # where each typed line's answer starts in ``said``
        typed = iter(lines) if not callable(lines) else None

        def ask(prompt: str) -> str:
            self.marks.append(len(self.said))
            if typed is None:
                return lines(self.table, prompt)  # type: ignore[operator]
            return next(typed, "quit")

        self.table = Table(Session(store, "g", every_seat=True), ask, self.say, "resume")

    def say(self, thing) -> None:
        items = thing.renderables if isinstance(thing, Columns) else [thing]
        self.said.extend(Text.from_markup(str(item)).plain for item in items)

    def run(self) -> Script:
        self.table.run()
        return self

    def answer(self, k: int) -> list[str]:
        """What the table said after the k-th typed line (0-based)."""
        return self.said[self.marks[k]:self.marks[k + 1]]


def numbered(lines: list[str]) -> dict[str, int]:
    """An order list's lines ("  12 move r-inf-1 E 3") as notation -> number."""
    found = [re.fullmatch(r"\s*(\d+) (.+?)\s*", line) for line in lines]
    return {m.group(2): int(m.group(1)) for m in found if m}


def test_the_summary_has_one_line_per_unit_that_may_act_and_is_short(store):
    new_game(store)
    said = Script(store, ["orders", "quit"]).run()
    rec = said.table.rec
    legal = legal_orders(rec.state)
    acting = vocabulary.units_to_act(rec.state, legal)
    summary = said.said[:said.marks[0]]
    assert summary[0] == f"turn 1 · red (Ann) · movement: {len(legal)} legal orders"
    unit_lines = [line for line in summary if re.match(r"  [a-z]+-[a-z0-9-]+: ", line)]
    assert [line.split(":")[0].strip() for line in unit_lines] == acting
    assert "  r-inf-1: move (24), turn (3)" in unit_lines  # 27 orders in a few words
    assert "  for the side: " + str(len(legal)) + " end" in summary
    assert len(summary) <= len(acting) + 3 and len(legal) > 8 * len(summary)
    assert set(numbered(said.answer(0))) == {format_order(o) for o in legal}  # `orders`: all


def test_a_number_names_the_same_order_all_phase_and_a_stale_one_is_refused_naming_it(store):
    new_game(store)
    first = Script(store, ["orders r-arc-1", "orders r-inf-1", "orders r-skm-1", "quit"]).run()
    arc, inf, skm_before = (numbered(first.answer(k)) for k in range(3))
    n_arc, n_inf = arc["move r-arc-1 E 2"], inf["move r-inf-1 E 1"]
    said = Script(store, ["move r-inf-1 E 3", str(n_inf), str(n_arc), "orders r-skm-1",
                          "quit"])
    said.table.legal()  # the phase is numbered as the table opens
    events_before = len(said.table.rec.events)
    said.run()
    rec = said.table.rec
    refused = said.answer(1)
    assert refused == [f"refused: {n_inf} (move r-inf-1 E 1) is no longer legal: r-inf-1 has "
                       "already moved this turn — rule ohw.move.once: Each unit may move once "
                       "per turn, any number of cells up to its maximum."]
    given = [e["order"] for e in rec.events[events_before:] if e["kind"] == "order_given"]
    assert given == [
        {"type": "move", "unit": "r-inf-1", "facing": "E", "distance": 3, "end_facing": None,
         "attack": None},
        {"type": "move", "unit": "r-arc-1", "facing": "E", "distance": 2, "end_facing": None,
         "attack": None}]  # the number read before r-inf-1 moved still named this order
    # renumbering the legal orders after each order would have named another one
    after_move = [format_order(o) for o in legal_orders(replay_to(rec, "r-arc-1"))]
    assert after_move.index("move r-arc-1 E 2") + 1 != n_arc
    skm = numbered(said.answer(3))  # r-skm-1's orders: the old keep their numbers, new are last
    old = {text: n for text, n in skm.items() if text in skm_before}
    new = {text: n for text, n in skm.items() if text not in skm_before}
    assert old == {text: n for text, n in skm_before.items() if text in skm}
    assert new and min(new.values()) > 85  # 85 orders were numbered as the phase began


def replay_to(rec: Recorder, unit: str):
    """The state just before ``unit``'s order was given (its order_given event)."""
    from warlog.engine.fold import replay

    seq = next(e["seq"] for e in rec.events
               if e["kind"] == "order_given" and e["order"].get("unit") == unit)
    return replay(rec.events, seq - 1)


@pytest.mark.parametrize("typed", [["orders r-arc-1"], ["r-arc-1"]])
def test_orders_unit_lists_exactly_that_units_legal_orders(store, typed):
    new_game(store)
    said = Script(store, [*typed, "orders nobody", "quit"]).run()
    state = said.table.rec.state
    listed = numbered(said.answer(0))
    wanted = {format_order(o) for o in legal_orders(state) if getattr(o, "unit", None) == "r-arc-1"}
    assert set(listed) == wanted and len(wanted) == 15
    assert said.answer(0)[0].endswith("85 legal orders (15 for r-arc-1)")
    assert said.answer(1)[0].startswith("error: no unit 'nobody' in this game")


SHOOTING = ["move r-inf-1 E 3", "move r-arc-1 E 2", "end", "end", "move b-skm-1 W 3",
            "move b-inf-1 W 2", "end", "end", "move r-inf-2 E 2", "end"]


def test_the_board_follows_an_order_that_rolled_dice_and_board_draws_it_with_a_legend(store):
    new_game(store)
    said = Script(store, [*SHOOTING, "shoot r-arc-1 b-skm-1", "5", "board", "quit"]).run()
    boards = [i for i, line in enumerate(said.said) if line.startswith(BOARD_TOP)]
    assert len(boards) == 2  # after the dice, and on demand: never after a plain move
    roll = said.answer(len(SHOOTING) + 1)
    assert roll[0].strip().endswith("red orders: r-arc-1 shoots b-skm-1 (Ann).")
    top = next(i for i, line in enumerate(roll) if line.startswith(BOARD_TOP))
    assert any("rolls 5" in line for line in roll[:top])  # the events' lines, then the board
    height = said.table.rec.state.grid.height
    assert [line[:3] for line in roll[top + 1:top + 1 + height]] == [
        f"{r:>3}" for r in range(height)]
    assert "RA→" in "".join(roll[top:top + 1 + height])  # red's archers, facing east
    drawn = said.answer(len(SHOOTING) + 2)
    assert drawn[0].startswith(BOARD_TOP) and "facing E" in drawn[-1]  # with its legend


@pytest.mark.parametrize("scenario, kind", [(SCENARIO, "move r-inf-1 E 1"),
                                            ("portable-issus", "end")])
def test_help_names_every_word_on_a_line_of_its_own(store, scenario, kind):
    new_game(store, scenario=scenario)
    for word in ("help", "?"):
        said = Script(store, [word, "quit"]).run()
        lines = said.answer(0)
        firsts = [line.split()[0] for line in lines]
        for expected in ("numbers", "notation", "UNIT", "orders", "end", "dice", "undo",
                         "takeback", "note", "board", "concede", "help,", "quit", "more:"):
            assert firsts.count(expected) == 1, (expected, lines)
        notation = next(line for line in lines if line.startswith("notation"))
        assert f"e.g. {kind}" in notation
        assert "holds for the whole phase" in lines[firsts.index("numbers")]
        assert "takeback 2" in lines[firsts.index("takeback")]  # with an example
        assert "takeback" in lines[firsts.index("undo")]  # undo points to it
        assert "README.md" in lines[-1]


def test_a_whole_game_recorded_at_the_prompt_by_numbers_verifies(store):
    """Both players give orders by number, a few a phase, read the real dice one at a time,
    look at a unit's orders now and then; the game runs to its end and verifies."""
    new_game(store)
    rng = random.Random(7)
    shifted = []

    def play(table: Table, prompt: str) -> str:
        if prompt.startswith("dice for"):
            return str(rng.randint(1, 6))
        legal = table.legal()
        choice = rng.random()
        if choice < 0.25 or len(legal) == 1:
            return "end"
        if choice < 0.3:
            return "orders " + rng.choice(sorted({o.unit for o in legal
                                                  if getattr(o, "unit", None)}))
        order = rng.choice([o for o in legal if o.type != "end_phase"])
        number = table.numbers.number(order)
        shifted.append(number != legal.index(order) + 1)
        return str(number)

    said = Script(store, play).run()
    events = store.read("g")
    assert events[-1]["kind"] == "game_ended" and "game over" in said.said[-1]
    assert sum(e["kind"] == "order_given" for e in events) > 100
    assert any(shifted)  # some numbers were not the order's place in the list of the moment
    assert not any(line.startswith(("refused", "error")) for line in said.said)
    assert verify(events).ok


# -- takeback [N] ----------------------------------------------------------------------------


def cell_of(store, unit: str) -> tuple[int, int]:
    from warlog.engine.game import Game

    return tuple(Game(store.read("g")).state.units[unit].cell)


def test_takeback_with_a_number_puts_the_side_back_and_the_game_goes_on_and_verifies(store):
    new_game(store)
    start_inf, start_arc = cell_of(store, "r-inf-1"), cell_of(store, "r-arc-1")
    said = Script(store, ["move r-inf-1 E 3", "move r-arc-1 E 2", "takeback 2",
                          "move r-arc-1 E 1", "quit"]).run()
    events = store.read("g")
    took = [e for e in events if e["kind"] == "orders_taken_back"]
    assert len(took) == 1 and took[0]["orders"] == 2 and took[0]["side"] == "red"
    first_move = next(e for e in events if e["kind"] == "order_given")
    assert took[0]["back_to"] == first_move["seq"]
    answer = said.answer(2)
    assert answer[0] == (f"Red (Ann) takes back 2 orders (from event {first_move['seq']}): the "
                         "game goes back to turn 1, red's movement phase.")
    assert answer[1] == "turn 1 · red (Ann) · movement: 85 legal orders"  # the summary again
    assert cell_of(store, "r-inf-1") == start_inf  # back where it stood, and not moved again
    assert cell_of(store, "r-arc-1") != start_arc  # the order given after it stands
    assert verify(events).ok


def test_takeback_is_refused_in_one_line_once_the_other_side_has_ordered_since(store):
    new_game(store)
    said = Script(store, ["move r-inf-1 E 3", "end", "end", "move b-skm-1 W 3", "takeback 2",
                          "takeback none", "quit"]).run()
    assert said.answer(4) == ["error: cannot take back: blue can take back 1 order here, not "
                              "2: red has ordered since"]
    assert said.answer(5) == ["error: takeback takes a number of orders (1 or more), e.g. "
                              "takeback 2, not 'none'"]
    assert not any(e["kind"] == "orders_taken_back" for e in store.read("g"))  # nothing written


def test_numbers_hold_in_a_phase_after_a_takeback_and_start_afresh_when_the_phase_went_back(
        store):
    new_game(store)
    said = Script(store, ["orders", "move r-inf-1 E 3", "takeback", "orders", "end", "orders",
                          "takeback", "orders", "quit"]).run()
    before, same_phase = numbered(said.answer(0)), numbered(said.answer(3))
    assert same_phase == before  # taken back in its phase: every order keeps its number
    shooting = numbered(said.answer(5))
    assert shooting == {"end": 1}  # the shooting phase was numbered afresh
    back = numbered(said.answer(7))
    # back in the movement phase: numbered as a new phase is, 1 to 85 in the order of the list
    fresh = {format_order(o): i for i, o in enumerate(legal_orders(said.table.rec.state), 1)}
    assert back == fresh and len(back) == 85
    assert verify(store.read("g")).ok


def test_a_script_takes_orders_back_too(store, tmp_path):
    from warlog.record import run_script

    new_game(store)
    path = tmp_path / "s.txt"
    path.write_text("move r-inf-1 E 3\nmove r-arc-1 E 2\ntakeback 2  # both\nend\n"
                    "takeback\nmove r-arc-1 E 1\n")
    result = run_script(store, path, "g", None, {})
    assert (result.orders, result.taken_back) == (4, 3)
    events = store.read("g")
    assert [e["orders"] for e in events if e["kind"] == "orders_taken_back"] == [2, 1]
    assert verify(events).ok
