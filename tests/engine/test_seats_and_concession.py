"""Two inputs at the table that are not orders: the seats changed (a game continued with other
players, a bot's side taken over by a person or the other way round) and a side conceding. verify
checks both where they stand and re-derives what follows from them."""

from __future__ import annotations

import copy

import pytest

from warlog.engine import analysis
from warlog.engine.bots import next_order, play_out
from warlog.engine.fold import replay
from warlog.engine.game import Game, concede, reseat, start
from warlog.engine.inputs import InputError
from warlog.engine.narration import narrate_all
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import search_sides, verify, what_was_checked
from warlog.events.model import parse_event
from warlog.app.forking import rest_points

SCENARIO = "ancients-river-crossing"


@pytest.fixture(scope="module")
def bot_game():
    return play_out("g", load_scenario(SCENARIO), seed=7).events


def _cut(events, fraction=0.5):
    """The game cut at a rest point about ``fraction`` of the way through."""
    points = rest_points(events)
    return [dict(e) for e in events[: points[int(len(points) * fraction)]]]


def _play(game: Game, orders: int, person=lambda g: g.legal_orders()[-1]) -> None:
    """``orders`` more orders: a bot's side by its bot, a person's by ``person``."""
    for _ in range(orders):
        if game.state.ended:
            return
        who = game.state.players[game.state.to_act]
        if who in ("aggressive", "cautious"):
            game.play(next_order(game.state), by=who)
        else:
            game.play(person(game), by=who)


def _person_game(seed: int = 3, dice: str = "seeded") -> Game:
    events = start("p", load_scenario(SCENARIO), seed=seed if dice == "seeded" else None,
                   players={"red": "Ann", "blue": "Bo"}, dice=dice)
    return Game(events)


# -- seats changed -------------------------------------------------------------------------


def test_a_bot_game_reseated_to_a_person_verifies_with_the_persons_orders_as_hers(bot_game):
    events = _cut(bot_game)
    game = Game(events)
    seated = reseat(game.state, {"red": "Ann", "blue": "cautious"}, by="Ann")
    assert seated["kind"] == "seats_changed" and seated["seq"] == len(events) + 1
    game = Game([*events, seated])
    assert game.state.players == {"red": "Ann", "blue": "cautious"}
    # Ann plays the last legal order each time: not what the aggressive bot would choose.
    _play(game, 30)
    ann = [e for e in game.events[len(events):] if e["kind"] == "order_given" and e["by"] == "Ann"]
    assert ann, "red had orders to give"
    report = verify(game.events)
    assert report.ok, report.mismatch
    assert report.bot_orders < report.orders  # Ann's were taken as hers, not re-chosen
    assert ("red", "aggressive") in report.bots  # it played before the change
    assert "the players' orders taken as their own" in what_was_checked(report)
    # After the change red's orders are a person's: one signed by the old bot is refused ...
    forged = copy.deepcopy(game.events)
    at = next(i for i, e in enumerate(forged) if e["seq"] == ann[0]["seq"])
    forged[at]["by"] = "aggressive"
    report = verify(forged)
    assert not report.ok and report.mismatch.seq == ann[0]["seq"]
    assert "aggressive bot, but red is played by 'Ann'" in report.mismatch.message
    # ... and without the seats change, the same orders are the bot's, re-chosen: they differ.
    without = [e for e in game.events if e["kind"] != "seats_changed"]
    for n, e in enumerate(without):
        e = dict(e, seq=n + 1, cause=e["cause"] - 1 if e["cause"] and e["cause"] > len(events)
                 else e["cause"])
        without[n] = {**e, "by": "aggressive"} if e.get("by") == "Ann" else e
    assert not verify(without).ok


def test_a_person_game_reseated_to_a_bot_verifies_only_with_the_bots_own_orders():
    game = _person_game()
    _play(game, 6)
    cut = len(game.events)
    game = Game([*game.events, reseat(game.state, {"red": "aggressive", "blue": "Bo"})])
    _play(game, 40)
    report = verify(game.events)
    assert report.ok, report.mismatch
    assert report.bots == (("red", "aggressive"),) and report.bot_orders > 0
    bot_orders = [i for i, e in enumerate(game.events)
                  if i > cut and e["kind"] == "order_given" and e["by"] == "aggressive"]
    # A bot order after the change, edited: verify names it, re-chosen by the bot.
    for i in bot_orders:
        legal = Game(game.events[:i]).legal_orders()
        other = next((o.model_dump(mode="json") for o in legal
                      if o.model_dump(mode="json") != game.events[i]["order"]), None)
        if other is not None:
            break
    forged = copy.deepcopy(game.events)
    forged[i]["order"] = other
    report = verify(forged)
    assert not report.ok and report.mismatch.seq == forged[i]["seq"]
    assert "the aggressive bot playing red orders" in report.mismatch.message
    # Before the change red's orders were Ann's: the bot is not asked about them.
    early = next(e for e in game.events[:cut] if e["kind"] == "order_given" and e["side"] == "red")
    assert early["by"] == "Ann"


def test_the_seats_are_those_of_the_point_in_the_log(bot_game):
    events = _cut(bot_game)
    seated = reseat(Game(events).state, {"red": "Ann", "blue": "Bo"})
    game = Game([*events, seated])
    _play(game, 5)
    assert replay(game.events, upto=len(events)).players == {"red": "aggressive",
                                                            "blue": "cautious"}
    assert replay(game.events).players == {"red": "Ann", "blue": "Bo"}


@pytest.mark.parametrize("players,problem", [
    ({"red": "Ann"}, "field 'players': no player for blue"),
    ({"red": "Ann", "blue": "Bo", "green": "Cy"}, "'green', which is not a side"),
    ({"red": "Ann", "blue": " Bo"}, "field 'players.blue'"),
    ({"red": "Ann", "blue": ""}, "field 'players.blue'"),
    (["red", "Ann"], "is not a mapping"),
])
def test_a_seats_change_names_every_side_and_only_the_sides(players, problem):
    game = _person_game()
    with pytest.raises(InputError) as info:
        reseat(game.state, players)
    assert problem in str(info.value)
    # The same event in a log is refused by verify, naming it.
    good = reseat(game.state, {"red": "Ann", "blue": "Bo"})
    report = verify([*game.events, {**good, "players": players}])
    assert not report.ok and report.mismatch.seq == good["seq"]
    assert problem in report.mismatch.message and "(seats_changed)" in report.mismatch.message


def test_a_bot_is_not_seated_with_manual_dice():
    game = _person_game(dice="manual")
    with pytest.raises(InputError, match="the dice are manual: bots play only with seeded dice"):
        reseat(game.state, {"red": "cautious", "blue": "Bo"})
    people = reseat(game.state, {"red": "Cy", "blue": "Bo"})  # people may take over
    assert verify([*game.events, people]).ok
    report = verify([*game.events, {**people, "players": {"red": "cautious", "blue": "Bo"}}])
    assert not report.ok and "bots play only with seeded dice" in report.mismatch.message


def test_a_seats_change_stands_only_where_the_game_waits_for_an_order(bot_game):
    events = _cut(bot_game)
    game = Game(events)
    _play(game, 12)
    # Inside an order's consequences (after its order_given): not a rest point.
    at = next(i for i in range(len(events), len(game.events))
              if game.events[i]["kind"] == "order_given"
              and game.events[i + 1]["kind"] != "order_given")
    inside = [dict(e) for e in game.events[: at + 1]]
    seated = reseat(Game(game.events[:at]).state, {"red": "Ann", "blue": "Bo"})
    inside.append({**seated, "seq": at + 2})
    report = verify(inside + [{**e, "seq": e["seq"] + 1} for e in game.events[at + 1:]])
    assert not report.ok and report.mismatch.seq == at + 2
    assert "seats_changed" in report.mismatch.message
    # After the end of the game: refused too.
    with pytest.raises(InputError, match="the game is over"):
        reseat(replay(bot_game), {"red": "Ann", "blue": "Bo"})
    seq = len(bot_game) + 1
    late = {**reseat(Game(events).state, {"red": "Ann", "blue": "Bo"}), "seq": seq,
            "turn": bot_game[-1]["turn"]}
    report = verify([*bot_game, late])
    assert not report.ok and "comes after the end of the game" in report.mismatch.message


def test_a_seats_change_is_an_event_like_any_other(bot_game):
    events = _cut(bot_game)
    seated = reseat(Game(events).state, {"red": "Ann", "blue": "search"}, by="Ann")
    assert parse_event(seated).players == {"red": "Ann", "blue": "search"}
    log = [*events, seated]
    assert narrate_all(log)[-1] == "The seats change (Ann): from here on red: Ann v blue: search."
    assert search_sides(log[0], log) == ["blue"] and search_sides(log[0]) == []
    assert len(rest_points(log)) == len(rest_points(events)) + 1
    # It changes no fact of the battle: the charts read the same as without it.
    assert analysis.exhaustion(log) == analysis.exhaustion(events)
    assert analysis.attrition(log) == analysis.attrition(events)


# -- a side concedes --------------------------------------------------------------------------


def test_a_concession_ends_the_game_and_the_other_side_wins():
    game = _person_game()
    _play(game, 4)
    side = game.state.to_act
    other = "blue" if side == "red" else "red"
    new = concede(game.state, other, by="Bo" if other == "blue" else "Ann")  # not to act
    assert [e["kind"] for e in new] == ["side_conceded", "game_ended"]
    assert new[0]["side"] == other and new[1]["cause"] == new[0]["seq"]
    assert new[1]["winner"] == side and new[1]["reason"] == f"{other} conceded"
    log = [*game.events, *new]
    state = replay(log)
    assert state.ended and state.winner == side and state.end_reason == f"{other} conceded"
    report = verify(log)
    assert report.ok and report.finished
    assert narrate_all(log)[-2:] == [
        f"{other} concedes ({'Bo' if other == 'blue' else 'Ann'}): the battle is given up.",
        f"Game over: {side} wins ({other} conceded)."]
    last = analysis.steps(log)[-1]
    assert last.first == len(game.events) and last.title.endswith(f"{other} concedes: game "
                                                                  f"over: {side} wins")
    assert analysis.exhaustion(log)[-1]["turn"] == game.state.turn


@pytest.mark.parametrize("field,value,said", [
    ("winner", "red", "winner is"),
    ("reason", "blue was tired", "reason is"),
    ("cause", None, "cause is"),
])
def test_a_tampered_end_after_a_concession_fails_verify(field, value, said):
    game = _person_game()
    _play(game, 4)
    log = [*game.events, *concede(game.state, "red", by="Ann")]
    log[-1] = {**log[-1], field: value if log[-1][field] != value else "blue"}
    report = verify(log)
    assert not report.ok and report.mismatch.seq == log[-1]["seq"]
    assert said in report.mismatch.message and "(game_ended)" in report.mismatch.message
    # A concession without its end: the rules go on to it.
    report = verify(log[:-1])
    assert not report.ok and "continue with a game_ended event" in report.mismatch.message


def test_a_game_that_is_over_cannot_be_conceded(bot_game):
    with pytest.raises(InputError, match="the game is over"):
        concede(replay(bot_game), "red")
    game = _person_game()
    _play(game, 2)
    log = [*game.events, *concede(game.state, "red")]
    with pytest.raises(InputError, match=r"the game is over \(red conceded\)"):
        concede(replay(log), "blue")
    again = concede(game.state, "blue")
    again = [{**e, "seq": e["seq"] + 2, "cause": e["cause"] and e["cause"] + 2} for e in again]
    report = verify(log + again)
    assert not report.ok and "comes after the end of the game" in report.mismatch.message


def test_only_a_persons_side_concedes_signed_by_its_player(bot_game):
    events = _cut(bot_game)
    with pytest.raises(InputError, match="played by the aggressive bot, and a bot does not"):
        concede(Game(events).state, "red")
    game = _person_game()
    for side, by, problem in [("green", None, "field 'side'"),
                              ("red", "Bo", "field 'by': the concession is signed by 'Bo'")]:
        with pytest.raises(InputError, match=problem):
            concede(game.state, side, by)
    good = concede(game.state, "red", "Ann")
    report = verify([*game.events, {**good[0], "by": "Bo"}, good[1]])
    assert not report.ok and "signed by 'Bo'" in report.mismatch.message
    # A bot side handed to a person first may concede.
    seated = reseat(Game(events).state, {"red": "Ann", "blue": "cautious"})
    state = Game([*events, seated]).state
    log = [*events, seated, *concede(state, "red", "Ann")]
    assert verify(log).ok and replay(log).winner == "blue"
