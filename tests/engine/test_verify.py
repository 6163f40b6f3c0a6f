"""verify re-derives every consequence: any edited value is caught at the event that holds it."""

from __future__ import annotations

import copy

import pytest

from warlog.engine.bots import play_out
from warlog.engine.game import Game, start
from warlog.engine.dice import ManualDice
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import search_sides, verify
from warlog.events.orders import EndPhaseOrder, ShootOrder

from builders import mutated, tiny_scenario


@pytest.fixture(scope="module")
def events():
    return play_out("g", load_scenario("ancients-river-crossing"), seed=7).events


def first(events, kind):
    return next(i for i, e in enumerate(events) if e["kind"] == kind)


def test_an_untouched_game_verifies(events):
    report = verify(events)
    assert report.ok and report.finished and report.orders > 10


def test_progress_is_told_each_order_out_of_the_orders_in_the_log(events):
    told = []
    report = verify(events, progress=lambda done, total: told.append((done, total)))
    orders = sum(e["kind"] == "order_given" for e in events)
    assert report.ok and told == [(n, orders) for n in range(orders + 1)]


def test_the_sides_a_search_bot_played_are_named_as_slow_to_verify(events):
    assert search_sides(events[0]) == []  # aggressive v cautious: a second
    searched = {**events[0], "players": {"blue": "deep-search", "red": "search"}}
    assert search_sides(searched) == ["red", "blue"]
    assert search_sides({**events[0], "players": {"red": "Ann", "blue": "search"}}) == ["blue"]
    assert search_sides({"players": ["red"]}) == [] and search_sides("x") == []


@pytest.mark.parametrize("kind,field,change", [
    ("dice_rolled", "faces", lambda v: [v[0] % 6 + 1]),
    ("unit_moved", "to_cell", lambda v: [v[0], v[1] + 1]),
    ("hits_inflicted", "total", lambda v: v + 1),
    ("hits_inflicted", "hits", lambda v: v + 1),
    ("order_given", "order", lambda v: {**v, "distance": max(0, v.get("distance", 1) - 1)}),
    ("melee_joined", "aspect", lambda v: "rear" if v != "rear" else "front"),
    ("state_checksum", "sha256", lambda v: "0" * 64),
    ("game_ended", "winner", lambda v: "blue" if v != "blue" else "red"),
    ("phase_started", "turn", lambda v: v + 1),
])
def test_any_edited_value_is_named_at_its_event(events, kind, field, change):
    edited = copy.deepcopy(events)
    i = first(edited, kind) if kind != "phase_started" else 5
    while field not in edited[i] or (kind == "order_given" and edited[i]["order"]["type"] != "move"):
        i += 1
    edited[i][field] = change(edited[i][field])
    report = verify(edited)
    assert not report.ok
    assert report.mismatch.seq == edited[i]["seq"], report.mismatch.message


def test_truncated_and_extended_logs_are_reported(events):
    last_order = max(i for i, e in enumerate(events) if e["kind"] == "order_given")
    paused = verify(events[:last_order])  # stopped between two orders: fine, just unfinished
    assert paused.ok and not paused.finished
    torn = verify(events[:last_order + 1])  # an order without its consequences: damaged
    assert not torn.ok and "the log stops after" in torn.mismatch.message
    extra = verify(events + [dict(events[-1], seq=events[-1]["seq"] + 1)])
    assert not extra.ok and "after the end" in extra.mismatch.message
    cut = [e for e in events if e["seq"] != events[3]["seq"]]
    assert not verify(cut).ok


def test_a_manual_dice_game_verifies_from_its_recorded_dice():
    scenario = tiny_scenario([("a", "red", "Archers", (1, 1), "E"),
                              ("x", "blue", "Cavalry", (4, 1), "W")])
    game = Game(start("m", scenario, dice="manual"))
    game.play(EndPhaseOrder())
    game.play(ShootOrder(unit="a", target="x"), dice=ManualDice([3]))
    assert verify(game.events).ok
    edited = copy.deepcopy(game.events)
    hits = first(edited, "hits_inflicted")
    edited[hits]["hits"] += 1
    assert verify(edited).mismatch.seq == edited[hits]["seq"]


def test_an_order_the_rules_refuse_is_reported_as_illegal(events):
    edited = copy.deepcopy(events)
    i = next(i for i, e in enumerate(edited) if e["kind"] == "order_given"
             and e["order"]["type"] == "move" and e["by"] == "aggressive")
    edited[i]["order"]["distance"] = 9
    edited[i]["by"] = "human"
    for e in edited:  # as if a person, not a bot, had played red
        if e["kind"] == "game_started":
            e["players"] = {"red": "human", "blue": "cautious"}
    report = verify(edited)
    assert not report.ok and report.mismatch.seq == edited[i]["seq"]
    assert "illegal" in report.mismatch.message


@pytest.fixture(scope="module")
def bot_game():
    return play_out("m", tiny_scenario(
        [("a", "red", "Archers", (1, 1), "E"), ("i", "red", "Infantry", (1, 3), "E"),
         ("x", "blue", "Cavalry", (6, 1), "W"), ("y", "blue", "Skirmishers", (6, 3), "W")],
        terrain={"woods": [[4, 3]], "road": [[2, 1], [3, 1]]}, turn_limit=6),
        seed=4, red="aggressive", blue="random").events


@pytest.mark.slow
def test_every_value_of_every_event_is_checked_where_it_stands(bot_game):
    """Past the first event (the game's definition), every single edited value of a bot game
    (about 1,400 edits) is reported at the event that holds it: re-rolled dice and re-chosen bot
    orders included."""
    edits = 0
    for i in range(1, len(bot_game)):
        for field in sorted(bot_game[i]):
            edited = copy.deepcopy(bot_game)
            edited[i][field] = mutated(edited[i][field])
            report = verify(edited)
            assert not report.ok, (i, field)
            assert report.mismatch.seq == bot_game[i]["seq"], report.mismatch.message
            edits += 1
    assert edits > 1000


def test_notes_in_the_middle_of_a_game_change_nothing_and_verify():
    """A note is a comment appended to the log: the game goes on after it with the next seq,
    and verify re-derives everything around it; a note about a later event is reported."""
    from warlog.engine.bots import next_order
    from warlog.engine.game import Game
    from warlog.engine.scenario import load_scenario
    from warlog.events.model import make_note

    game = Game.new("n", load_scenario("ancients-river-crossing"), seed=4,
                    players={"red": "aggressive", "blue": "cautious"})
    for _ in range(30):
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    before = game.state.checksum()
    note = make_note(game.events, 12, "a good start")
    game = Game([*game.events, note])
    assert game.state.checksum() == before
    for _ in range(30):
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    assert verify(game.events).ok
    bad = [dict(e) for e in game.events]
    i = next(i for i, e in enumerate(bad) if e["kind"] == "note")
    bad[i]["about"] = bad[i]["seq"] + 5
    report = verify(bad)
    assert not report.ok and "does not come before it" in report.mismatch.message


# -- bots' orders re-chosen in other processes (verify's pool) ---------------------------------


@pytest.fixture(scope="module")
def pool():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("forkserver")) as workers:
        yield workers


def overruled(seed: int, at: int) -> list[dict]:
    """A mirror game red's search bot plays, overruled once, at the ``at``-th of its orders that
    had another legal one, by that one signed as the bot's: every consequence follows, but the
    bot chose otherwise."""
    from whatif_games import mirror_scenario

    from warlog.engine.bots import next_order
    from warlog.engine.game import legal_orders

    g = Game.new("overruled", mirror_scenario(), seed=seed,
                 players={"red": "search", "blue": "aggressive"})
    n = 0
    while not g.state.ended:
        order = next_order(g.state)
        others = [o for o in legal_orders(g.state) if o != order]
        if g.state.to_act == "red" and others:  # a choice to overrule
            n += 1
            if n == at:
                order = others[0]
        g.play(order, by=g.state.players[g.state.to_act])
    return g.events


def test_a_pool_gives_the_report_verify_gives_alone(pool):
    honest = overruled(3, at=0)
    assert verify(honest, pool=pool) == verify(honest) and verify(honest).ok
    forged = overruled(3, at=4)
    alone = verify(forged)
    assert not alone.ok and "the search bot playing red orders" in alone.mismatch.message
    told = []
    assert verify(forged, lambda done, total: told.append(done), pool=pool) == alone
    assert told[0] == 0 and told == sorted(told)


def test_with_a_pool_the_first_difference_wins_whichever_kind(pool):
    forged = overruled(5, at=8)  # at event 62, after dice rolled from event 40 on
    bot_at = verify(forged).mismatch.seq
    rolls = [i for i, e in enumerate(forged) if e["kind"] == "dice_rolled"]
    for index in (next(i for i in rolls if forged[i]["seq"] > bot_at),  # a die after the bot's
                  next(i for i in rolls if forged[i]["seq"] < bot_at)):  # and one before it
        edited = copy.deepcopy(forged)
        edited[index]["faces"] = [7 - f for f in edited[index]["faces"]]
        alone = verify(edited)
        assert alone.mismatch.seq == min(bot_at, edited[index]["seq"])
        assert verify(edited, pool=pool) == alone
