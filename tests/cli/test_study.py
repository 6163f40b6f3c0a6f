"""Balance-study arithmetic (warlog/app/study.py): Wilson intervals against hand-computed values,
aggregation of made-up rows against numbers worked out by hand, the lopsided rule, and the
rows real games give."""

from __future__ import annotations

import orjson
import pytest

from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.app.study import (GameTask, StudyError, aggregate, check_row, describe, game_id,
                          lopsided, parse_by, play_task, summarize, wilson)

RIVER = "ancients-river-crossing"  # ohw: no exhaustion rule
AXONA = "portable-the-axona"  # portable: an exhaustion rule


def row(winner="red", *, scenario="s", red="random", blue="random", first="red", turns=3,
        lost=(0, 0), units=None, strength=None, exhaustion=False, exhausted=(None, None),
        finished=True, game=None, seed=1):
    """A made-up study row (curves default to flat ones as long as the game)."""
    units = units or ([0] * (turns + 1), [0] * (turns + 1))
    strength = strength or ([0] * (turns + 1), [0] * (turns + 1))
    return check_row({
        "game": game or f"{scenario}-{red}-{blue}-{first}-{winner}-{turns}-{seed}",
        "scenario": scenario, "system": "ohw", "period": "ancients", "red": red, "blue": blue,
        "first": first, "seed": seed, "finished": finished,
        "winner": winner if finished else None, "end_reason": "made up" if finished else None,
        "turns": turns, "events": 10 * turns, "start_red": 10, "start_blue": 10,
        "lost_red": lost[0], "lost_blue": lost[1], "exhaustion": exhaustion,
        "exhausted_red": exhausted[0], "exhausted_blue": exhausted[1],
        "units_lost_red": units[0], "units_lost_blue": units[1],
        "strength_lost_red": strength[0], "strength_lost_blue": strength[1],
    }, "test")


# -- Wilson ------------------------------------------------------------------------------------


def test_wilson_interval_matches_the_hand_computation():
    """8 of 10, z = 1.959964: p = 0.8, z^2 = 3.841459, denominator 1 + z^2/10 = 1.3841459;
    centre (0.8 + 0.1920729) / 1.3841459 = 0.716740; half-width
    z * sqrt(0.8 * 0.2 / 10 + 3.841459 / 400) / 1.3841459 = 1.959964 * 0.1600114 / 1.3841459
    = 0.226578; so 0.490162 to 0.943318."""
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.490162, abs=2e-6)
    assert high == pytest.approx(0.943318, abs=2e-6)


def test_wilson_stays_inside_zero_and_one_and_knows_nothing_of_no_trials():
    """0 of 5: low is 0 and high z^2/(n+z^2) = 3.841459 / 8.841459 = 0.434482; 5 of 5 mirrors
    it. No trials: the whole range."""
    assert wilson(0, 5) == (0.0, pytest.approx(0.434482, abs=1e-6))
    assert wilson(5, 5) == (pytest.approx(1 - 0.434482, abs=1e-6), 1.0)
    assert wilson(0, 0) == (0.0, 1.0)


# -- aggregate ---------------------------------------------------------------------------------


def test_aggregate_counts_rates_lengths_losses_and_curves_by_hand():
    rows = [
        row("red", turns=2, lost=(1, 4), units=([0, 0, 1], [0, 1, 2]),
            strength=([0, 1, 1], [0, 2, 4])),
        row("red", turns=4, lost=(3, 2), units=([0, 0, 0, 1, 1], [0, 0, 1, 1, 1]),
            strength=([0, 1, 2, 3, 3], [0, 0, 1, 2, 2])),
        row("blue", turns=3, lost=(2, 0)),
        row("draw", turns=6, lost=(0, 0)),
        row(None, turns=1, finished=False),  # counted apart, in no figure
    ]
    (g,) = aggregate(rows, by=("scenario",))
    assert g["key"] == {"scenario": "s"}
    assert (g["n"], g["unfinished"]) == (4, 1)
    assert (g["red"]["k"], g["blue"]["k"], g["draw"]["k"]) == (2, 1, 1)
    assert g["red"]["rate"] == 0.5 and g["draw"]["rate"] == 0.25
    assert (g["red"]["low"], g["red"]["high"]) == tuple(round(x, 4) for x in wilson(2, 4))
    assert (g["red_of_decisive"]["k"], g["red_of_decisive"]["n"]) == (2, 3)
    # lengths 2, 4, 3, 6: mean 3.75, median 3.5, range 2-6
    assert g["turns"] == {"mean": 3.75, "median": 3.5, "min": 2, "max": 6}
    assert g["lost"] == {"red": 1.5, "blue": 1.5}  # (1+3+2+0)/4, (4+2+0+0)/4
    curves = g["curves"]
    assert curves["turn"] == list(range(7))
    # blue's units lost: [0,1,2] carried at 2, [0,0,1,1,1] at 1, and two flat games
    assert curves["units_lost"]["blue"] == [0, 0.25, 0.75, 0.75, 0.75, 0.75, 0.75]
    assert curves["strength_lost"]["red"] == [0, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0]
    assert curves["exhausted"] == {"red": None, "blue": None}  # no game's system has the rule


def test_aggregate_share_exhausted_by_turn_counts_only_games_with_the_rule():
    rows = [row("blue", turns=3, exhaustion=True, exhausted=(2, None)),
            row("blue", turns=3, exhaustion=True, exhausted=(None, None)),
            row("red", turns=3, exhaustion=False, exhausted=(None, None))]
    (g,) = aggregate(rows, by=("scenario",))
    assert g["curves"]["exhausted"] == {"red": [0, 0, 0.5, 0.5], "blue": [0, 0, 0, 0]}


def test_aggregate_groups_by_the_keys_asked_sorted_and_counts_unfinished_apart():
    rows = [row("red", first="red"), row("blue", first="blue"), row("red", first="blue"),
            row(None, first="blue", finished=False), row("red", red="aggressive")]
    groups = aggregate(rows, by=("policies", "first"))
    assert [g["key"] for g in groups] == [
        {"policies": "aggressive v random", "first": "red"},
        {"policies": "random v random", "first": "blue"},
        {"policies": "random v random", "first": "red"},
    ]
    assert [(g["n"], g["unfinished"]) for g in groups] == [(1, 0), (2, 1), (1, 0)]
    only_open = aggregate([row(None, finished=False)], by=("scenario",))[0]
    assert (only_open["n"], only_open["unfinished"], only_open["turns"]) == (0, 1, None)
    assert only_open["red"]["rate"] is None


def test_by_keys_are_checked():
    assert parse_by("scenario, first,scenario") == ("scenario", "first")
    with pytest.raises(StudyError, match="cannot group by 'seat'; choose from scenario"):
        parse_by("scenario,seat")
    with pytest.raises(StudyError):
        aggregate([row()], by=("colour",))


# -- lopsided ----------------------------------------------------------------------------------


def test_lopsided_flags_a_lopsided_group_and_not_a_balanced_one():
    """9 red wins of 10 decisive games: Wilson 59.6%-98.2%, above 50%. 6 of 10: 31%-83%,
    50% inside."""
    lop = [row("red", scenario="lop", seed=i) for i in range(9)] + [row("blue", scenario="lop")]
    lop += [row("draw", scenario="lop", seed=i) for i in range(3)]
    even = [row("red", scenario="even", seed=i) for i in range(6)]
    even += [row("blue", scenario="even", seed=i) for i in range(4)]
    flagged = lopsided(aggregate(lop + even, by=("scenario",)))
    assert [f["key"] for f in flagged] == [{"scenario": "lop"}]
    assert flagged[0]["favours"] == "red"
    assert flagged[0]["why"] == ("red won 9 of 10 decisive games (90%, 95% interval 60%-98%); "
                                 "3 of 13 drawn")


def test_lopsided_names_blue_with_its_own_interval_and_ignores_draws():
    """Blue 5 of 5 decisive games and 20 draws: blue's share 57%-100%, flagged (draws count
    neither way). The fewest wins that can flag a group: n of n has lower bound n/(n + z^2):
    4/7.8415 = 51.0% (flagged), 3/6.8415 = 43.8% (not)."""
    blue5 = [row("blue", scenario="b5", seed=i) for i in range(5)]
    blue5 += [row("draw", scenario="b5", seed=i) for i in range(20)]
    four = [row("red", scenario="r4", seed=i) for i in range(4)]
    three = [row("red", scenario="r3", seed=i) for i in range(3)]
    flagged = lopsided(aggregate(blue5 + four + three, by=("scenario",)))
    assert [(f["key"]["scenario"], f["favours"]) for f in flagged] == [("b5", "blue"),
                                                                       ("r4", "red")]
    assert flagged[0]["why"] == ("blue won 5 of 5 decisive games (100%, 95% interval "
                                 "57%-100%); 20 of 25 drawn")


def test_describe_puts_a_group_key_in_words():
    assert describe({"scenario": "s", "policies": "a v b", "first": "blue"}) == \
        "s, a v b, blue first"
    assert describe({}) == "all games"


# -- rows of real games -------------------------------------------------------------------------


def test_summarize_a_finished_game_agrees_with_its_state():
    scn = load_scenario(RIVER)
    game = play_out("g", scn, seed=4, red="random", blue="aggressive")
    r = summarize(game.events)
    s = game.state
    assert (r["game"], r["scenario"], r["system"], r["period"]) == ("g", RIVER, "ohw", "ancients")
    assert (r["red"], r["blue"], r["first"], r["seed"]) == ("random", "aggressive", scn.first, 4)
    assert r["finished"] and r["winner"] == (s.winner or "draw")
    assert r["end_reason"] == s.end_reason
    assert (r["turns"], r["events"]) == (s.turn, len(game.events))
    for side in ("red", "blue"):
        assert len(r[f"units_lost_{side}"]) == r["turns"] + 1
        assert r[f"strength_lost_{side}"][-1] == r[f"lost_{side}"]
        assert r[f"units_lost_{side}"][-1] == sum(
            1 for u in s.units.values() if u.side == side and u.removed)
    assert r["exhaustion"] is False and r["exhausted_red"] is None
    assert check_row(r, "x") == r  # the row is its own schema's
    assert len(orjson.dumps(r)) < 2_000  # small enough to ship back instead of the game


def test_summarize_a_game_cut_short_is_unfinished():
    events = play_out("g", load_scenario(RIVER), seed=4, red="random", blue="random").events
    cut = events[: len(events) // 2]
    r = summarize(cut)
    assert (r["finished"], r["winner"], r["end_reason"]) == (False, None, None)
    assert r["turns"] == cut[-1]["turn"] and r["events"] == len(cut)


def test_summarize_records_exhaustion_where_the_system_has_the_rule():
    events = play_out("g", load_scenario(AXONA), seed=2, red="aggressive",
                      blue="aggressive").events
    r = summarize(events)
    assert r["exhaustion"] is True
    declared = {e["side"]: e["turn"] for e in events if e["kind"] == "army_exhausted"}
    assert {s: r[f"exhausted_{s}"] for s in ("red", "blue")} == \
        {s: declared.get(s) for s in ("red", "blue")}


def test_play_task_moves_the_first_mover_and_names_the_game_after_it():
    scn = load_scenario(RIVER)
    other = "blue" if scn.first == "red" else "red"
    moved = play_task(GameTask(scn, 3, "random", "random", other))
    assert moved["first"] == other
    assert moved["game"] == f"{RIVER}-random-random-s3-{other}-first"
    own = play_task(GameTask(scn, 3, "random", "random", scn.first))
    assert own["game"] == game_id(RIVER, "random", "random", 3) == f"{RIVER}-random-random-s3"


def test_play_task_ships_the_events_when_asked_and_they_are_the_game():
    scn = load_scenario(RIVER)
    row_, blob = play_task(GameTask(scn, 5, "random", "random", scn.first, keep_events=True))
    events = play_out(f"{RIVER}-random-random-s5", scn, seed=5, red="random",
                      blue="random").events
    assert orjson.loads(blob) == events
    assert row_ == summarize(events)


@pytest.mark.parametrize("change,words", [
    ({"winner": "green"}, "winner"),
    ({"turns": "15"}, "turns"),
    ({"extra": 1}, "extra"),
    ({"units_lost_red": [0, "x"]}, "units_lost_red.1"),
])
def test_check_row_refuses_a_malformed_row_naming_the_field(change, words):
    data = {**row(), **change}
    with pytest.raises(StudyError, match=f"here: not a study row: {words}"):
        check_row(data, "here")


def test_the_sign_test_counts_only_the_seeds_one_policy_won():
    from warlog.app.study import sign_test

    assert sign_test(0, 0) == 1.0  # no seed told them apart
    assert sign_test(3, 3) == 1.0
    assert sign_test(0, 5) == 2 / 32  # five of five one way: 1/32 each tail, both tails
    assert sign_test(1, 9) == sign_test(9, 1) == 2 * (1 + 10) / 1024  # 0 or 1 of 10
    assert sign_test(4, 6) == 2 * (1 + 10 + 45 + 120 + 210) / 1024  # 0.754
    assert sign_test(5, 131) < 1e-30 < sign_test(40, 55) < 0.2 < sign_test(1, 1)
