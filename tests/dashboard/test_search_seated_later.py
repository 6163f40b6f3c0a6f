"""A search bot seated part way through a game (a fork reseated, a seats change at the table)
makes verifying it slow just as one seated from the start does: the dashboard re-derives it in
the background and the command line says why it takes minutes. Each reads the whole log for the
seats, not only game_started."""

from __future__ import annotations

import pytest
from waits import LIMIT

from warlog.cli_common import slow_reason
from warlog.app import background
from warlog.dashboard import data
from warlog.engine.game import Game, reseat
from warlog.engine.scenario import load_scenario
from warlog.events.orders import EndPhaseOrder


@pytest.fixture(scope="module")
def reseated() -> list[dict]:
    """Ann and Bo play a phase, then blue is handed to the search bot."""
    game = Game.new("later", load_scenario("ancients-river-crossing"), seed=3,
                    players={"red": "Ann", "blue": "Bo"})
    game.play(EndPhaseOrder(), by="Ann")
    seated = reseat(game.state, {"red": "Ann", "blue": "search"}, by="Ann")
    return [*game.events, {**seated}]


def test_the_command_line_says_why_it_takes_minutes(reseated):
    said = slow_reason(reseated, "later")
    assert said is not None and "(blue)" in said
    assert slow_reason(reseated[:-1], "later") is None  # people only: a second


def test_the_dashboard_re_derives_it_in_the_background(reseated):
    report = data._report("search-seated-later", reseated)  # Pending, or done already
    # The page started the background job for it: asked again, the job is found, not begun.
    job = background.job("verify:search-seated-later", lambda progress: "begun by the test")
    job.future.result(timeout=LIMIT)
    assert job.result() != "begun by the test" and job.result().ok
    assert report == job.result() or (isinstance(report, data.Pending)
                                      and report.sides == ("blue",))
