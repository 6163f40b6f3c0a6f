"""The Play page (AppTest, issue 22): a game started through the form's widgets, played by the
buttons beside the board and the list of every legal order, the bot let move, and what is
stored verifies; a start the command line would refuse shows one line and stores nothing.
(AppTest cannot click a plotly chart: the buttons and the list give the same orders.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from app_pages import open_page
from waits import LIMIT

from warlog.dashboard import bot_runner
from warlog.app.seats import Seat
from warlog.app.session import Session
from warlog.app.start import start_game
from warlog.engine.bots import bot_rng, get_policy, play_out
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.notation import format_order
from warlog.app.forking import fork, rest_points

SCENARIO = "ancients-river-crossing"


@pytest.fixture(scope="module")
def finished_game():
    return play_out("done-1", load_scenario(SCENARIO), seed=1)


@pytest.fixture
def play(finished_game, tmp_path, monkeypatch) -> tuple[AppTest, Path]:
    """The Play page over a database holding one finished game (so no demo games are seeded)."""
    db = tmp_path / "play.db"
    with SQLiteEventStore(db) as store:
        store.append(finished_game.state.game, finished_game.events, 0)
    at = open_page(monkeypatch, db, "views/play.py")
    return at, db


def stored(db: Path) -> dict[str, list]:
    with SQLiteEventStore(db) as store:
        return {info.id: store.read(info.id) for info in store.games()}


def bots_done(at: AppTest, db: Path, game: str) -> None:
    """Wait for the bots' run (a thread) to finish, then rerun the page as its poll would."""
    run = bot_runner.current(str(db), game)
    if run is not None:
        assert run.wait(LIMIT), "the bots' run did not finish"
    at.run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]


def fill_form(at: AppTest, blue: str, dice: str = "seeded", seed: int | None = 7,
              pace: str = "a step at a time") -> AppTest:
    at.session_state["play_pace"] = pace
    at.selectbox(key="play_scenario").set_value(SCENARIO)
    at.radio(key="play_seat_red").set_value("person")
    at.radio(key="play_seat_blue").set_value("bot").run()
    at.text_input(key="play_name_red").set_value("Ann")
    at.selectbox(key="play_policy_blue").set_value(blue)
    at.radio(key="play_dice_mode").set_value(dice)
    if seed is not None:
        at.number_input(key="play_seed").set_value(seed)
    at.run()
    assert not at.exception
    return at


def started_by_form(at: AppTest, db: Path, blue: str) -> str:
    """A game started through the form (red Ann, blue the ``blue`` bot): its id."""
    before = set(stored(db))
    fill_form(at, blue)
    at.button(key="play_start").click().run()
    return new_game(db, before)[0]


def button(at: AppTest, label_part: str):
    found = [b for b in at.button if label_part in (b.label or "")]
    assert found, f"no button like {label_part!r}: {[b.label for b in at.button]}"
    return found[0]


def new_game(db: Path, before: set[str]) -> tuple[str, list]:
    games = stored(db)
    (game,) = set(games) - before
    return game, games[game]


def test_a_game_is_started_played_by_buttons_and_the_list_and_the_bot_moves(play):
    at, db = play
    before = set(stored(db))
    assert not [s for s in at.selectbox if s.key == "play_continue"]  # done-1 has ended
    fill_form(at, "tactician")
    at.button(key="play_start").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    game, events = new_game(db, before)
    assert events[0]["kind"] == "game_started"
    assert at.session_state["play_game"] == game
    assert "Crossing at the Ford" in at.markdown[0].value

    def to_act() -> str:
        with SQLiteEventStore(db) as store:
            seat = Session(store, game).seat_to_act
            return "" if seat is None else ("bot" if seat.bot else "person")

    if to_act() == "bot":  # a step at a time: one order a click
        for _ in range(40):
            if to_act() != "bot":
                break
            at.button(key="play_bot").click().run()
            bots_done(at, db, game)
        assert at.caption and any("🤖" in c.value for c in at.caption)
    assert to_act() == "person"

    # an order from the list of every legal order
    count = len(stored(db)[game])
    fallback = at.selectbox(key="play_fallback")
    orders = [o for o in fallback.options if "end" not in o.lower()]
    fallback.set_value(orders[0] if orders else fallback.options[0]).run()
    at.button(key="play_fallback_go").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(stored(db)[game]) > count

    # the phase ended by the side's buttons, until the bot is to act
    for _ in range(20):
        if to_act() != "person":
            break
        count = len(stored(db)[game])
        side = [b for b in at.button if (b.key or "").startswith("play_side_")]
        assert side, [b.label for b in at.button]
        ends = [b for b in side if "end" in (b.label or "").lower()] or side
        ends[0].click().run()
        assert not at.exception
        assert not at.error, [e.value for e in at.error]
        assert len(stored(db)[game]) > count
    assert to_act() == "bot"

    # the bot moves, once; then at once until a person is to act, without a click
    count = len(stored(db)[game])
    at.button(key="play_bot").click().run()
    bots_done(at, db, game)
    assert sum(e["kind"] == "order_given" for e in stored(db)[game][count:]) == 1
    if to_act() == "bot":
        at.radio(key="play_pace").set_value("at once").run()
        bots_done(at, db, game)
    assert to_act() in ("person", "")

    events = stored(db)[game]
    report = verify(events)
    assert report.ok, report.mismatch
    assert ("blue", "tactician") in report.bots


def test_a_note_is_stored(play):
    at, db = play
    game = started_by_form(at, db, "random")
    at.text_input(key="play_note").set_value("a fine morning").run()
    at.button(key="play_note_go").click().run()
    assert not at.exception
    notes = [e for e in stored(db)[game] if e["kind"] == "note"]
    assert len(notes) == 1 and notes[0]["text"] == "a fine morning", notes


def test_a_plan_is_written_before_the_sides_first_order_and_offered_no_more(play):
    at, db = play
    game = started_by_form(at, db, "random")
    assert [t.key for t in at.text_area] == ["play_plan_red"]  # Ann's side; never the bot's
    at.button(key="play_plan_go_red").click().run()  # empty: refused, nothing stored
    assert not at.exception and "empty" in at.info[0].value
    at.text_area(key="play_plan_red").set_value("Hold the **ford**; turn their left").run()
    at.button(key="play_plan_go_red").click().run()
    assert not at.exception and not at.error
    plans = [e for e in stored(db)[game] if e["kind"] == "note"]
    assert [(p["plan"], p["side"], p["author"], p["text"]) for p in plans] == [
        (True, "red", "Ann", "Hold the **ford**; turn their left")]
    button(at, "end phase").click().run()  # red (Ann) acts first: its first order
    assert not at.exception
    assert any(e["kind"] == "order_given" and e["side"] == "red" for e in stored(db)[game])
    assert not [t for t in at.text_area if t.key == "play_plan_red"]  # a plan comes first only
    assert verify(stored(db)[game]).ok


def test_a_refused_start_shows_one_line_and_stores_nothing(play):
    at, db = play
    before = stored(db)
    fill_form(at, "tactician", dice="manual")
    at.button(key="play_start").click().run()
    assert not at.exception
    assert at.error and "seeded dice" in at.error[0].value
    assert stored(db).keys() == before.keys()
    assert "play_game" not in at.session_state


def test_an_unfinished_game_is_offered_to_continue(play):
    at, db = play
    game = started_by_form(at, db, "random")
    at.button(key="play_leave").click().run()
    assert not at.exception
    assert "play_game" not in at.session_state
    assert at.selectbox(key="play_continue").options == [f"{game} — Crossing at the Ford"]
    at.button(key="play_continue_go").click().run()
    assert not at.exception
    assert at.session_state["play_game"] == game


def test_an_ended_game_shows_its_result_and_opens_in_the_replay(play):
    at, _ = play
    at.session_state["play_game"] = "done-1"
    at.run()
    assert not at.exception
    assert at.success and "ended" in at.success[0].value
    at.button(key="play_to_replay").click().run()
    assert not at.exception
    assert at.session_state["game"] == "done-1"
    assert at.session_state["source"] == "Database"


def test_manual_dice_between_two_people_are_given_by_face_buttons(play):
    at, db = play
    before = set(stored(db))
    at.selectbox(key="play_scenario").set_value(SCENARIO)
    at.text_input(key="play_name_red").set_value("Ann")
    at.text_input(key="play_name_blue").set_value("Bo")
    at.radio(key="play_dice_mode").set_value("manual").run()
    at.button(key="play_start").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    game, _ = new_game(db, before)
    aggressive = get_policy("aggressive")
    for _ in range(120):  # both people play the aggressive bot's orders, until dice are wanted
        if "play_dice" in at.session_state and at.session_state["play_dice"] is not None:
            break
        with SQLiteEventStore(db) as store:
            state = Session(store, game).state
            assert not state.ended
            notation = format_order(aggressive.choose(state, bot_rng(state)))
        at.selectbox(key="play_fallback").set_value(notation).run()
        at.button(key="play_fallback_go").click().run()
        assert not at.exception
        assert not at.error, [e.value for e in at.error]
    needed = at.session_state["play_dice"]
    assert needed is not None, "no order wanted dice"
    count = len(stored(db)[game])
    assert at.info and "roll die 1" in at.info[0].value
    for _ in range(30):  # faces of 4 until the order is decided
        if at.session_state["play_dice"] is None:
            break
        faces = [b for b in at.button if (b.key or "").startswith("play_face_") and b.label == "4"]
        assert faces, [b.label for b in at.button]
        faces[0].click().run()
        assert not at.exception
        assert not at.error, [e.value for e in at.error]
    assert at.session_state["play_dice"] is None
    events = stored(db)[game]
    assert len(events) > count and any(e["kind"] == "dice_rolled" for e in events[count:])
    report = verify(events)
    assert report.ok, report.mismatch


def test_two_sessions_ordering_at_once_the_second_is_told_the_game_moved_on(play, monkeypatch):
    at, db = play
    before = set(stored(db))
    with SQLiteEventStore(db) as store:
        game = start_game(store, load_scenario(SCENARIO), game_id="both", seed=2,
                          seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    other = open_page(monkeypatch, db, "views/play.py")
    for page in (at, other):  # two browsers on one game, each showing the same board
        page.session_state["play_game"] = game
        page.run()
        assert not page.exception
    count = len(stored(db)[game])
    button(at, "end phase").click().run()  # the first one's order is stored
    assert not at.exception and not at.warning
    assert len(stored(db)[game]) > count
    after_first = stored(db)[game]
    button(other, "end phase").click().run()  # the second clicked the board it saw
    assert not other.exception
    assert other.warning and "The game moved on" in other.warning[0].value
    assert stored(db)[game] == after_first  # nothing doubled, nothing lost
    assert set(stored(db)) - before == {game}
    with SQLiteEventStore(db) as store:  # and the second page now shows the game as stored
        now = Session(store, game).state
    assert f"turn {now.turn} · {now.side}" in other.markdown[0].value


def test_a_game_for_two_browsers_gives_seat_links_and_each_page_holds_its_side(play,
                                                                                monkeypatch):
    at, db = play
    before = set(stored(db))
    at.selectbox(key="play_scenario").set_value(SCENARIO)
    at.text_input(key="play_name_red").set_value("Ann")
    at.text_input(key="play_name_blue").set_value("Bo")
    at.checkbox(key="play_two_browsers").check()
    at.button(key="play_start").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    game, _ = new_game(db, before)
    shown = " ".join(m.value for m in at.markdown)
    tokens = dict(re.findall(r"\*\*(red|blue)\*\*: `[^`]*\?play=" + re.escape(game)
                             + r"&seat=([^`]+)`", shown))
    assert set(tokens) == {"red", "blue"}, shown
    with SQLiteEventStore(db) as store:
        to_act = Session(store, game).state.to_act
    other = "blue" if to_act == "red" else "red"
    pages = {}
    for side in (to_act, other):  # each player opens their own link in their own browser
        page = open_page(monkeypatch, db, "views/play.py")
        page.query_params["play"], page.query_params["seat"] = game, tokens[side]
        page.run()
        assert not page.exception
        assert any(f"holds {side}'s seat" in c.value for c in page.caption)
        pages[side] = page
    assert [b for b in pages[to_act].button if (b.key or "").startswith("play_side_")]
    assert not [b for b in pages[other].button if (b.key or "").startswith("play_side_")]
    assert any("follows the moves" in i.value for i in pages[other].info)
    count = len(stored(db)[game])
    button(pages[to_act], "end phase").click().run()
    assert len(stored(db)[game]) > count


def test_a_fork_is_continued_with_seats_chosen_afresh(play):
    at, db = play
    with SQLiteEventStore(db) as store:
        events = store.read("done-1")
        middle = rest_points(events)[len(rest_points(events)) // 2]
        fork_id, _ = fork(store, "done-1", middle)
    at.session_state["play_game"] = fork_id
    at.session_state["play_reseat"] = True  # as the Replay page's "Continue from here" leaves it
    at.session_state["play_pace"] = "a step at a time"
    at.run()
    assert not at.exception
    assert at.radio(key="play_reseat_seat_red").value == "bot"  # the seats until now, offered
    at.radio(key="play_reseat_seat_red").set_value("person").run()
    at.text_input(key="play_reseat_name_red").set_value("Ann")
    at.radio(key="play_reseat_seat_blue").set_value("bot").run()
    at.selectbox(key="play_reseat_policy_blue").set_value("cautious")
    at.button(key="play_reseat_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    stored_fork = stored(db)[fork_id]
    changed = [e for e in stored_fork if e["kind"] == "seats_changed"]
    assert len(changed) == 1 and changed[0]["players"] == {"red": "Ann", "blue": "cautious"}
    assert "play_reseat" not in at.session_state
    report = verify(stored_fork)
    assert report.ok, report.mismatch


def test_a_person_concedes_and_the_other_side_wins(play):
    at, db = play
    before = set(stored(db))
    with SQLiteEventStore(db) as store:
        game = start_game(store, load_scenario(SCENARIO), game_id="given-up", seed=2,
                          seats={"red": Seat.person("Ann"), "blue": Seat.of_bot("random")})
    at.session_state["play_game"] = game
    at.run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "play_concede_blue"]  # a bot does not give up
    at.button(key="play_concede_red").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    events = stored(db)[game]
    assert [e["kind"] for e in events[-2:]] == ["side_conceded", "game_ended"]
    assert events[-1]["winner"] == "blue"
    assert at.success and "ended" in at.success[0].value
    assert verify(events).ok
    assert set(stored(db)) - before == {game}
