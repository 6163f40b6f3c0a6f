"""warlog/app/whatif_job.py: what-if and win-probability curves run through warlog.app.jobs: the same
seed gives the same numbers on any workers, and a mirror-image battle gives mirrored odds."""

from __future__ import annotations

import pytest
from whatif_games import bot_game, mirror_scenario

from warlog.engine import whatif
from warlog.engine.game import start
from warlog.app.whatif_job import (
    PlayoutTask,
    _tasks,
    run_curve,
    run_whatif,
    turn_starts,
    turning_points,
)


@pytest.fixture(scope="module")
def game() -> list[dict]:
    return bot_game(seed=3)


def _overlap(a, b) -> bool:
    return a.low <= b.high and b.low <= a.high


def test_a_mirror_image_battle_gives_mirrored_odds_whoever_moves_first():
    n = 160
    red_first = run_whatif(start("m-red", mirror_scenario("red"), seed=1), 1, playouts=n,
                           seed=11, red="aggressive", blue="aggressive", scheduler="inprocess")
    blue_first = run_whatif(start("m-blue", mirror_scenario("blue"), seed=1), 1, playouts=n,
                            seed=12, red="aggressive", blue="aggressive", scheduler="inprocess")
    a, b = red_first.estimate, blue_first.estimate
    assert a.n == b.n == n
    # The side moving first does as well (within the intervals) in either seat ...
    assert _overlap(a.red, b.blue) and _overlap(a.blue, b.red) and _overlap(a.draw, b.draw)
    assert _overlap(a.lost["red"], b.lost["blue"]) and _overlap(a.lost["blue"], b.lost["red"])
    # ... and moving first matters here, so the pairing above is not true of any two runs:
    # red's chances with the first move and without do not overlap.
    assert not _overlap(a.red, b.red)


def test_the_same_seed_gives_the_same_numbers_in_process_and_on_1_or_2_workers(game):
    step = whatif.waiting_points(game)[5]
    runs = [run_whatif(game, step, playouts=70, seed=5, scheduler=s, workers=w)
            for s, w in (("inprocess", None), ("local", 1), ("local", 2))]
    assert runs[0].estimate == runs[1].estimate == runs[2].estimate
    other = run_whatif(game, step, playouts=70, seed=6, scheduler="inprocess")
    assert other.estimate != runs[0].estimate


def test_a_playouts_seed_depends_on_the_job_seed_step_and_index_only(game):
    few = _tasks(game, 20, 5, seed=9, mode="bots", policies={"red": "random", "blue": "random"})
    many = _tasks(game, 20, 12, seed=9, mode="bots", policies={"red": "random", "blue": "random"})
    assert [t.seed for t in few] == [t.seed for t in many[:5]]
    assert len({t.seed for t in many}) == 12
    later = _tasks(game, 30, 5, seed=9, mode="bots", policies={"red": "random", "blue": "random"})
    assert {t.seed for t in later}.isdisjoint(t.seed for t in few)
    assert all(isinstance(t, PlayoutTask) and t.prefix[-1]["seq"] == 20 for t in few)


def test_whatif_reports_the_step_it_played_from(game):
    points = whatif.waiting_points(game)
    i = next(i for i in range(len(points) - 1) if points[i + 1] - points[i] > 2)
    result = run_whatif(game, points[i] + 1, playouts=4, seed=1, scheduler="inprocess")
    assert (result.asked, result.seq) == (points[i] + 1, points[i])
    assert result.turn == next(e["turn"] for e in game if e["seq"] == points[i] + 1)  # its order
    assert result.policies == {"red": "aggressive", "blue": "aggressive"}
    assert result.as_dict()["n"] == 4


@pytest.mark.parametrize("kwargs, message", [
    ({"playouts": 0}, "--playouts must be at least 1, not 0"),
    ({"mode": "chess"}, "unknown mode 'chess'"),
    ({"red": "nobody"}, "unknown policy 'nobody' for red"),
])
def test_bad_settings_are_one_line_errors(game, kwargs, message):
    with pytest.raises(whatif.WhatIfError, match=message):
        run_whatif(game, 5, **{"scheduler": "inprocess", **kwargs})


def test_the_curve_has_a_point_per_turn_the_result_and_the_same_playouts_as_a_whatif(game):
    curve = run_curve(game, playouts=6, seed=4, scheduler="inprocess")
    starts = turn_starts(game)
    assert [(p["turn"], p["seq"]) for p in curve["points"][:-1]] == starts
    assert [t for t, _ in starts] == sorted({e["turn"] for e in game if e["kind"] == "order_given"})
    for turn, seq in starts:  # the position just before the turn's first order
        nxt = next(i for i, e in enumerate(game) if e["seq"] == seq) + 1
        assert game[nxt]["kind"] == "order_given" and game[nxt]["turn"] == turn
    final = curve["points"][-1]
    assert final["final"] and final[game[-1]["winner"]] == {"p": 1.0, "low": 1.0, "high": 1.0}
    assert (curve["game"], curve["last_seq"]) == (game[0]["game"], game[-1]["seq"])
    assert curve["params"] == {"playouts": 6, "seed": 4, "mode": "bots", "red": "aggressive",
                               "blue": "aggressive"}
    turn, seq = starts[1]
    alone = run_whatif(game, seq, playouts=6, seed=4, scheduler="inprocess").estimate.as_dict()
    assert {k: alone[k] for k in ("red", "blue", "draw")} == \
        {k: curve["points"][1][k] for k in ("red", "blue", "draw")}


def _pt(turn: int, red: float, blue: float) -> dict:
    return {"turn": turn, "red": {"p": red}, "blue": {"p": blue}}


def test_turning_points_are_big_swings_and_changes_of_leader():
    points = [_pt(1, 0.50, 0.40), _pt(2, 0.55, 0.35), _pt(3, 0.30, 0.60), _pt(4, 0.28, 0.62),
              _pt(5, 0.40, 0.38), _pt(6, 0.90, 0.05), _pt(7, 0.75, 0.10), _pt(8, 0.44, 0.46),
              _pt(9, 0.48, 0.45)]
    found = turning_points(points)
    assert [(t["turn"], t["to_turn"], t["why"]) for t in found] == [
        (2, 3, "leader changed"),  # 0.55 -> 0.30 (0.25) and the lead went to blue
        (4, 5, "leader changed"),  # 0.28 -> 0.40: a swing of 0.12 only, but red leads again
        (5, 6, "swing of 0.50"),
        (7, 8, "leader changed"),  # 0.75 -> 0.44
    ]  # 6 -> 7 moved 0.15 with red still ahead; 8 -> 9 changed leader by a flicker of 0.04
    assert found[2]["from"] == 0.40 and found[2]["to"] == 0.90
    assert turning_points([_pt(1, 0.5, 0.5), _pt(2, 0.6, 0.35)]) == []  # a tie is no leader
    # Draws falling away: P(red) moves 0.05, P(blue) 0.30 — the game turned all the same.
    [blue] = turning_points([_pt(4, 0.20, 0.50), _pt(5, 0.15, 0.80)])
    assert (blue["turn"], blue["why"], round(blue["change"], 2)) == (4, "swing of 0.30", -0.05)


def test_a_game_still_in_its_first_turn_has_one_point_now():
    events = start("fresh", mirror_scenario("red"), seed=1)
    assert turn_starts(events) == [(events[-1]["turn"], events[-1]["seq"])]
    curve = run_curve(events, playouts=3, seed=1, scheduler="inprocess")
    assert [p["seq"] for p in curve["points"]] == [events[-1]["seq"]]
    assert not curve["points"][0]["final"] and curve["turning_points"] == []
