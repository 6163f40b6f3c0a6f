"""The Play page's logic (warlog/app/session.py, seats.py, start.py) on a real SQLite file: starting a game with
seats, a person against the tactician to the end, real dice given at the table, two pages on
one game, and the refusals the command line makes too."""

from __future__ import annotations

import pytest

from warlog.app.errors import GameMovedOn, OrderRefused, PlayError, SeatError
from warlog.app.seats import Seat, policies
from warlog.app.session import BotStep, Session, fallback_orders, issue_seat_links
from warlog.app.start import start_game
from warlog.app.table_dice import DiceNeeded
from warlog.engine.bots import POLICIES, SEARCH_POLICIES
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.orders import EndPhaseOrder
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.notation import format_order, parse_order

SCENARIO = "ancients-river-crossing"  # a small One Hour Wargames battle: 12 x 8, a few units


@pytest.fixture
def store(tmp_path):
    with SQLiteEventStore(tmp_path / "play.db") as s:
        yield s


@pytest.fixture
def scenario():
    return load_scenario(SCENARIO)


def first_choice(table: Session):
    """The person's move: the first order of the first unit that may act, else end the phase."""
    units = table.units_to_act()
    if units:
        return table.choices(units[0]).orders()[0]
    assert EndPhaseOrder() in table.choices(None).side
    return EndPhaseOrder()


def test_a_person_plays_the_tactician_to_the_end_and_the_game_verifies(store, scenario):
    gid = start_game(store, scenario, game_id="vs-bot", seats={
        "red": Seat.person("Ann"), "blue": Seat.of_bot("tactician")}, seed=7,
        played="2026-12-03")
    assert gid == "vs-bot"
    table = Session(store, gid)
    assert table.state.players == {"red": "Ann", "blue": "tactician"}
    assert table.state.dice_mode == "seeded"
    bot_steps = person_orders = 0
    for _ in range(5_000):
        seat = table.seat_to_act
        if seat is None:
            break
        if seat.bot:
            assert seat == Seat.of_bot("tactician")
            with pytest.raises(PlayError, match="bot"):
                table.give(EndPhaseOrder())
            side = table.state.to_act
            step = table.bot_step()
            assert step.events[0]["side"] == side
            assert isinstance(step, BotStep)
            assert step.events[0]["kind"] == "order_given"
            assert step.events[0]["by"] == "tactician"
            assert format_order(step.order) in step.reason
            assert step.reason.startswith(f"tactician ({side}): ")
            bot_steps += 1
        else:
            assert seat == Seat.person("Ann")
            with pytest.raises(PlayError, match="not a bot"):
                table.bot_step()
            new = table.give(first_choice(table))
            assert isinstance(new, list) and new[0]["by"] == "Ann"
            person_orders += 1
    else:
        pytest.fail("the game did not end")
    assert bot_steps and person_orders
    stored = store.read(gid)
    assert stored == table.events  # the table's view is the store's, nothing doubled
    assert table.state.ended and stored[-1]["kind"] == "game_ended"
    assert table.units_to_act() == [] and fallback_orders(table) == []
    report = verify(stored)
    assert report.ok, report.mismatch


def test_the_first_bot_moves_when_the_bot_side_opens(store, scenario):
    gid = start_game(store, scenario, seats={"red": Seat.of_bot("aggressive"),
                                        "blue": Seat.of_bot("cautious")}, seed=3)
    assert gid == f"{scenario.id}-1"
    table = Session(store, gid)
    for _ in range(20):
        table.bot_step()
    assert verify(store.read(gid)).ok


def manual_game(store, scenario) -> Session:
    gid = start_game(store, scenario, seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")},
                     dice="manual")
    return Session(store, gid)


def to_first_roll(table: Session) -> DiceNeeded:
    """Play the first choices until an order asks for dice."""
    for _ in range(500):
        result = table.give(first_choice(table))
        if isinstance(result, DiceNeeded):
            return result
    pytest.fail("no order rolled dice")


def test_manual_dice_are_asked_for_and_complete_the_order(store, scenario):
    table = manual_game(store, scenario)
    assert table.state.dice_mode == "manual"
    needed = to_first_roll(table)
    before = len(store.read(table.game_id))
    assert len(table.events) == before  # nothing of the waiting order is stored
    assert needed.given == ()
    (die,) = needed.dice
    assert die.number == 1 and die.sides == 6 and die.purpose
    assert needed.notation == format_order(needed.order)
    assert needed.label in needed.prompt() and die.purpose in needed.prompt()
    assert table.pending is not None and table.pending.order == needed.order
    # another order while it waits is refused, the waiting one is kept
    with pytest.raises(ValueError, match="waits for its dice"):
        table.give(EndPhaseOrder())
    result = table.dice([4])
    while isinstance(result, DiceNeeded):  # an order may roll more than one die
        assert result.dice[0].number == len(result.given) + 1
        result = table.dice([4])
    assert isinstance(result, list) and result[0]["kind"] == "order_given"
    assert result[0]["order"] == needed.order.model_dump(mode="json")
    rolls = [e for e in result if e["kind"] == "dice_rolled"]
    assert rolls and all(e["faces"] == [4] for e in rolls)
    assert rolls[0]["purpose"] == die.purpose
    assert store.read(table.game_id) == table.events
    assert table.pending is None
    assert verify(table.events).ok


def test_undo_before_the_dice_writes_order_retracted_and_a_note_is_kept(store, scenario):
    table = manual_game(store, scenario)
    needed = to_first_roll(table)
    retracted = table.undo()
    assert retracted["kind"] == "order_retracted"
    stored = store.read(table.game_id)
    assert stored[-1] == retracted
    assert table.pending is None
    with pytest.raises(ValueError, match="nothing to undo"):
        table.undo()
    # the same order can be given again; it asks for the same die
    again = table.give(needed.order)
    assert again == needed
    while isinstance(again, DiceNeeded):
        again = table.dice([5])
    assert again[0]["kind"] == "order_given"
    note = table.note("the ford is the key")
    assert note["kind"] == "note" and note["text"] == "the ford is the key"
    assert note["author"] == table.state.players[table.state.to_act]  # the person to act
    assert store.read(table.game_id)[-1] == note
    assert verify(store.read(table.game_id)).ok


def test_too_many_faces_store_nothing(store, scenario):
    table = manual_game(store, scenario)
    needed = to_first_roll(table)
    table.undo()
    count = len(store.read(table.game_id))
    with pytest.raises(ValueError, match="were given"):
        table.give(needed.order, [5] * 50)
    assert len(store.read(table.game_id)) == count and table.pending is None


def test_an_illegal_order_is_the_rules_one_line_refusal(store, scenario):
    gid = start_game(store, scenario, seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")},
                     seed=1)
    table = Session(store, gid)
    count = len(store.read(gid))
    other = next(u for u in table.state.units.values() if u.side != table.state.to_act)
    with pytest.raises(OrderRefused, match=" — rule ") as caught:
        table.give(parse_order(f"move {other.id} N 1".split()))
    assert "\n" not in str(caught.value)
    assert len(store.read(gid)) == count and table.pending is None


def test_a_second_page_on_the_same_game_is_told_it_moved_on(store, scenario):
    gid = start_game(store, scenario, seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")},
                     seed=11)
    first, second = Session(store, gid), Session(store, gid)
    order = first_choice(first)
    assert first_choice(second) == order
    made = first.give(order)
    assert isinstance(made, list)
    with pytest.raises(GameMovedOn, match="^The game moved on before your order arrived"):
        second.give(order)
    # the second table read the game again: it sees the first's order, once
    assert second.events == store.read(gid) == first.events
    given = [e for e in second.events if e["kind"] == "order_given"]
    assert len(given) == 1 and given[0]["seq"] == made[0]["seq"]
    assert second.refresh() is False  # nothing new since it reloaded
    # the first table is now the stale one; refresh brings it up to date
    assert isinstance(second.give(first_choice(second)), list)
    assert first.refresh() is True
    assert first.events == store.read(gid)
    assert [format_order(o) for _, o in fallback_orders(first)] == \
        [n for n, _ in fallback_orders(second)]
    assert verify(store.read(gid)).ok


def test_a_stale_bot_step_is_refused_and_nothing_is_doubled(store, scenario):
    gid = start_game(store, scenario, seats={"red": Seat.of_bot("tactician"),
                                        "blue": Seat.of_bot("tactician")}, seed=5)
    first, second = Session(store, gid), Session(store, gid)
    first.bot_step()
    with pytest.raises(GameMovedOn, match="^The game moved on before your order arrived"):
        second.bot_step()
    second.bot_step()  # after the reload, the next order
    assert first.refresh()
    assert first.events == second.events == store.read(gid)
    assert verify(store.read(gid)).ok


def test_choices_and_fallback_list_come_from_the_legal_orders(store, scenario):
    gid = start_game(store, scenario, seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")},
                     seed=2)
    table = Session(store, gid)
    legal = table.legal()
    assert table.legal() is legal  # worked out once per state
    listed = fallback_orders(table)
    assert [o for _, o in listed] == legal
    assert all(parse_order(n.split()) == o for n, o in listed)
    offered = [o for u in table.units_to_act() for o in table.choices(u).orders()]
    assert offered and all(o in legal for o in offered)
    table.give(first_choice(table))
    assert table.legal() is not legal


def test_start_refuses_what_the_command_line_refuses(store, scenario):
    with pytest.raises(SeatError, match="bot needs seeded dice"):
        start_game(store, scenario, seats={"red": Seat.person("Ann"),
                                      "blue": Seat.of_bot("tactician")}, dice="manual")
    with pytest.raises(SeatError, match="name of a bot policy"):
        start_game(store, scenario, seats={"red": Seat.person("tactician"),
                                      "blue": Seat.person("Bo")}, seed=1)
    with pytest.raises(SeatError, match="no bot is called"):
        start_game(store, scenario, seats={"red": Seat.of_bot("grandmaster"),
                                      "blue": Seat.person("Bo")}, seed=1)
    with pytest.raises(SeatError, match="no seat for blue"):
        start_game(store, scenario, seats={"red": Seat.person("Ann")}, seed=1)
    assert store.games() == []  # nothing was stored


def test_start_is_the_game_warlog_new_starts(store, scenario):
    from builders import table_game

    gid = start_game(store, scenario, game_id="mine", seats={"red": Seat.person("Ann"),
                                                        "blue": Seat.person("Bo")},
                seed=9, played="2026-12-03")
    table_game(store, scenario, "theirs", players={"red": "Ann", "blue": "Bo"}, dice="seeded",
               seed=9, played="2026-12-03")

    def without_ids(events):
        return [{k: v for k, v in e.items() if k not in ("game", "hash", "prev_hash")}
                for e in events]

    assert without_ids(store.read(gid)) == without_ids(store.read("theirs"))


def test_every_policy_has_a_word_on_strength_and_speed():
    """The words live beside each policy in engine/bots.POLICIES: a bot cannot come without
    them, and the seat picker lists exactly the released bots."""
    listed = dict(policies())
    assert list(listed) == list(POLICIES)
    for name, words in listed.items():
        assert words.strip() and "\n" not in words and ";" in words, name
    for name in SEARCH_POLICIES:
        assert "slow" in listed[name]


def test_a_seat_link_orders_only_for_its_side_and_a_page_without_one_watches(store, scenario):
    seats = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}
    gid = start_game(store, scenario, game_id="linked", seats=seats, seed=4, played="2026-12-03")
    links = issue_seat_links(store, gid, seats)
    assert set(links) == {"red", "blue"} and links["red"] != links["blue"]
    to_act = Session(store, gid).state.to_act
    other = "blue" if to_act == "red" else "red"
    mine, theirs, watcher = (Session(store, gid, links[to_act]), Session(store, gid, links[other]),
                             Session(store, gid))
    assert (mine.holds, theirs.holds, watcher.holds) == (to_act, other, None)
    assert mine.may_order() and not theirs.may_order() and not watcher.may_order()
    count = len(store.read(gid))
    for page in (theirs, watcher):
        with pytest.raises(SeatError, match=f"{to_act}'s orders are given from {to_act}'s own"):
            page.give(EndPhaseOrder())
    with pytest.raises(SeatError, match="watches"):
        watcher.note("from the gallery")
    assert len(store.read(gid)) == count  # nothing was written
    assert Session(store, gid, "not-a-token").holds is None
    mine.give(first_choice(mine))
    assert len(store.read(gid)) > count
    assert theirs.refresh()
    written = theirs.note("well played")  # a seat holder may write a note whoever is to act
    # ... signed by its own seat's player, never by the player whose turn it is
    assert written["author"] == theirs.state.players[other] != theirs.state.players[to_act]


@pytest.mark.parametrize("text", ["a\u202eb reversed", "bell\x07 and \x1b[31m escape",
                                  "x" * 100_000])
def test_a_note_the_record_refuses_is_one_line_and_stores_nothing(store, scenario, text):
    gid = start_game(store, scenario, game_id="notes", seed=4, played="2026-12-03",
                     seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    table = Session(store, gid)
    count = len(store.read(gid))
    with pytest.raises(PlayError) as refused:
        table.note(text)
    line = str(refused.value)
    assert "\n" not in line and len(line) < 400 and "Traceback" not in line
    assert "note" in line.lower() or "text" in line.lower()
    assert len(store.read(gid)) == count


def test_a_game_without_links_is_played_from_any_page(store, scenario):
    gid = start_game(store, scenario, game_id="hot-seat", seed=4, played="2026-12-03",
                     seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    table = Session(store, gid, "whatever")
    assert not table.linked and table.holds is None and table.may_order()
    with pytest.raises(SeatError, match="every side here is a bot"):
        issue_seat_links(store, gid, {"red": Seat.of_bot("random"), "blue": Seat.of_bot("random")})


def test_which_panel_the_turn_wants_and_who_may_order_follow_the_seats(store, scenario):
    seats = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}
    gid = start_game(store, scenario, game_id="panels", seats=seats, seed=4, played="2026-12-03")
    links = issue_seat_links(store, gid, seats)
    to_act = Session(store, gid).state.to_act
    other = "blue" if to_act == "red" else "red"
    mine, theirs, watcher = (Session(store, gid, links[to_act]), Session(store, gid, links[other]),
                             Session(store, gid))
    assert [p.turn_panel() for p in (mine, theirs, watcher)] == ["orders", "follow", "follow"]
    assert [p.person_may_order() for p in (mine, theirs, watcher)] == [True, False, False]
    assert [p.watches for p in (mine, theirs, watcher)] == [False, False, True]
    assert not mine.has_bot()
    bots = start_game(store, scenario, game_id="panels-bot", seed=4, played="2026-12-03",
                      seats={"red": Seat.of_bot("random"), "blue": Seat.person("Bo")})
    table = Session(store, bots)
    assert table.has_bot() and not table.watches  # a game without links: any page plays
    while table.seat_to_act.bot:
        assert table.turn_panel() == "bot" and not table.person_may_order()
        table.bot_step()
    assert table.turn_panel() == "orders" and table.person_may_order()
    table.concede("blue")
    assert table.turn_panel() is None and not table.person_may_order()


def test_the_selection_keeps_a_unit_that_may_act_and_picks_a_lone_one(store, scenario):
    gid = start_game(store, scenario, game_id="select", seed=4, played="2026-12-03",
                     seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    table = Session(store, gid)
    state = table.state
    acting = table.units_to_act()
    assert len(acting) > 1
    assert table.selectable(acting[1]) == acting[1]
    assert table.selectable(None) is None  # several may act: none is chosen for the player
    enemy = next(u for u in state.units.values() if u.side != state.to_act)
    assert table.selectable(enemy.id) is None
    assert table.selectable("no-such-unit") is None
    moved = acting[0]
    table.give(table.choices(moved).orders()[0])
    assert table.state.to_act == state.to_act and moved not in table.units_to_act()
    assert table.selectable(moved) is None  # it has acted: no longer selected
    # a phase with one unit left to act: that unit is selected for the player
    for _ in range(200):
        left = table.units_to_act()
        if len(left) == 1:
            assert table.selectable(None) == left[0]
            break
        table.give(first_choice(table))
    else:
        pytest.fail("no phase came down to one unit")


def test_an_input_on_an_older_board_is_known_to_come_too_late(store, scenario):
    gid = start_game(store, scenario, game_id="late", seed=4, played="2026-12-03",
                     seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    page, other = Session(store, gid), Session(store, gid)
    seen = page.last_seq()
    assert not page.behind() and not page.moved_since(seen) and not page.moved_since(None)
    other.give(first_choice(other))
    assert page.behind()  # looked, not read
    assert page.last_seq() == seen
    assert page.moved_since(None)  # read again: it moved on
    assert not page.behind() and page.last_seq() == other.last_seq()
    assert page.moved_since(seen)  # the board drawn at seen is gone
    assert not page.moved_since(page.last_seq())


# -- taking orders back ------------------------------------------------------------------------


def test_a_hot_seat_take_back_is_offered_for_the_side_that_ordered_and_is_immediate(store,
                                                                                     scenario):
    gid = start_game(store, scenario, game_id="tb-hot", seed=4, played="2026-12-03",
                     seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    table = Session(store, gid)
    assert table.take_back_sides() == {} and not table.take_back_needs_asking()
    side = table.state.to_act
    before = _position(table.state)
    table.give(first_choice(table))
    table.give(first_choice(table))
    assert table.take_back_sides() == {side: 2}
    with pytest.raises(SeatError, match="no one to ask"):
        table.ask_take_back(1)
    event = table.take_back(side, 2)
    assert event["by"] == table.state.players[side] and event["orders"] == 2
    assert table.take_back_sides() == {}
    assert _position(table.state) == before and table.state.to_act == side
    assert table.request_mark() is None  # no request file for a game without links
    assert verify(store.read(gid)).ok


def _position(state) -> str:
    """The position's checksum, its count of dice rolled left out (the dice go on forward)."""
    other = state.copy()
    other.dice_rolled = 0
    return other.checksum()


def test_against_a_bot_the_person_takes_back_at_once_and_the_bots_orders_never(store, scenario):
    gid = start_game(store, scenario, game_id="tb-bot", seed=4, played="2026-12-03",
                     seats={"red": Seat.person("Ann"), "blue": Seat.of_bot("random")})
    links = issue_seat_links(store, gid, {"red": Seat.person("Ann"),
                                          "blue": Seat.of_bot("random")})
    table = Session(store, gid, links["red"])
    assert not table.take_back_needs_asking()  # no other person to ask
    for _ in range(200):
        if table.seat_to_act.bot:
            break
        table.give(first_choice(table))
    table.bot_step()
    assert "blue" not in table.take_back_sides()
    with pytest.raises(SeatError, match="blue's orders are taken back from blue's own link"):
        table.take_back("blue", 1)


def test_two_seats_ask_refuse_and_agree_and_a_request_goes_stale(store, scenario):
    seats = {"red": Seat.person("Ann"), "blue": Seat.person("Bo")}
    gid = start_game(store, scenario, game_id="tb-two", seed=4, played="2026-12-03",
                     seats=seats)
    links = issue_seat_links(store, gid, seats)
    side = Session(store, gid).state.to_act
    other = "blue" if side == "red" else "red"
    mine, theirs, watcher = (Session(store, gid, links[side]), Session(store, gid, links[other]),
                             Session(store, gid))
    mine.give(first_choice(mine))
    assert mine.take_back_needs_asking() and mine.take_back_sides() == {side: 1}
    assert theirs.take_back_sides() == {}  # never the other side's orders
    with pytest.raises(SeatError, match="watches"):
        watcher.ask_take_back(1)
    with pytest.raises(PlayError, match="cannot take back: .*not 2"):
        mine.ask_take_back(2)  # the rule is checked before the other seat is asked
    assert theirs.request_mark() is None
    count = len(store.read(gid))
    asked = mine.ask_take_back(1)
    assert (asked.side, asked.orders, asked.at_seq) == (side, 1, mine.last_seq())
    assert theirs.request_mark() == asked.n  # the other page's watcher sees it
    theirs.refresh()
    assert theirs.take_back_asked() == asked and mine.take_back_asked() == asked
    with pytest.raises(SeatError, match="answered from the other side"):
        mine.answer_take_back(True)  # nobody agrees to their own request
    assert theirs.answer_take_back(False) is None
    assert theirs.take_back_asked() is None and mine.take_back_refused() is not None
    assert theirs.take_back_refused() is None  # said on the asker's page only
    assert len(store.read(gid)) == count  # a refusal writes nothing in the game
    with pytest.raises(PlayError, match="no take-back is asked"):
        theirs.answer_take_back(True)

    mine.ask_take_back(1)
    mine.note("thinking it over")  # the game moves on: the request stands no more
    assert theirs.request_mark() is not None
    with pytest.raises(PlayError, match="no take-back is asked"):
        theirs.answer_take_back(True)
    assert store.read(gid)[-1]["kind"] == "note"

    mine.ask_take_back(1)
    event = theirs.answer_take_back(True)
    assert event["kind"] == "orders_taken_back" and event["side"] == side
    assert event["by"] == seats[side].name  # signed by the asking side's player
    assert mine.refresh() and mine.state.to_act == side and mine.take_back_asked() is None
    assert mine.take_back_sides() == {}
    assert verify(store.read(gid)).ok


def test_a_persons_order_for_a_bots_side_is_refused_in_a_players_words(tmp_path):
    """Either face may offer it (the page, the table): the line names the bot and the rule,
    never the session's own method names."""
    from warlog.app.start import start_game
    from warlog.engine.scenario import load_scenario
    from warlog.events.orders import EndPhaseOrder
    from warlog.events.sqlite_store import SQLiteEventStore

    with SQLiteEventStore(tmp_path / "b.db") as store:
        scenario = load_scenario("ancients-river-crossing")
        start_game(store, scenario, game_id="b", dice="seeded", seed=1,
                   seats={"red": Seat.of_player("aggressive"),
                          "blue": Seat.of_player("aggressive")})
        table = Session(store, "b")
        side = table.state.to_act
        with pytest.raises(PlayError) as refused:
            table.give(EndPhaseOrder())
        assert str(refused.value) == (f"{side} is played by the aggressive bot, which gives its "
                                      "own orders: a person orders only a side a person plays")
        assert store.last_seq("b") == len(store.read("b"))  # nothing written
