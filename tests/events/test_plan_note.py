"""A side's plan (issue 38's after-action report): a note kind written before that side's
first order, checked where it is made (events/model.make_note), where a log is verified
(engine/inputs.expected_note) and on the command line (`warlog note ... --plan SIDE`)."""

from __future__ import annotations

import functools
import json

from typer.testing import CliRunner

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.cli import app
from warlog.engine.bots import next_order
from warlog.engine.game import Game
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.model import first_decision, make_note, parse_event, to_dict

SCENARIO = "ancients-river-crossing"


@functools.cache
def _opening() -> tuple[dict, ...]:
    return tuple(Game.new("plans", load_scenario(SCENARIO), seed=3,
                          players={"red": "aggressive", "blue": "cautious"}).events)


def _play_until(events: list[dict], side: str) -> list[dict]:
    """The bots play on until ``side`` has given an order."""
    game = Game(events)
    while first_decision(game.events, side) is None:
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    return game.events


def test_a_plan_names_its_side_and_a_plain_note_keeps_its_bytes():
    events = list(_opening())
    plan = make_note(events, 1, "  Hold the ford; turn their left  ", "Ann", plan_of="red")
    assert plan["plan"] is True and plan["side"] == "red" and plan["text"] == (
        "Hold the ford; turn their left")
    assert to_dict(parse_event(plan)) == plan  # it reads back as written
    plain = make_note(events, 1, "a comment")
    assert "plan" not in plain and plain["side"] is None  # as every note before plans existed


def test_a_plan_comes_before_the_sides_first_order_only():
    mover = Game(list(_opening())).state.to_act
    other = "blue" if mover == "red" else "red"
    events = _play_until(list(_opening()), mover)
    first = first_decision(events, mover)
    assert first is not None and first_decision(events, other) is None
    try:
        make_note(events, 1, "too late", plan_of=mover)
    except ValueError as exc:
        assert f"event {first}" in str(exc) and "before a side's first order" in str(exc)
    else:
        raise AssertionError("a plan after the side's first order was accepted")
    assert make_note(events, 1, "still in time", plan_of=other)["side"] == other
    for side in ("green", "", "Red"):
        try:
            make_note(events, 1, "x", plan_of=side)
        except ValueError as exc:
            assert "red or blue" in str(exc)
        else:
            raise AssertionError(f"a plan of {side!r} was accepted")


def test_verify_accepts_a_plan_in_time_and_refuses_one_moved_after_the_first_order():
    opening = list(_opening())
    with_plan = opening + [make_note(opening, 1, "Flank march", plan_of="blue")]
    played = _play_until(with_plan, "blue")
    assert verify(played).ok
    # A hand-edited log: the same plan written after blue's first order.
    without = _play_until(opening, "blue")
    late = make_note(without, 1, "Flank march")  # a plain note, then made a plan by hand
    late = {**late, "plan": True, "side": "blue"}
    report = verify(without + [late])
    assert not report.ok and report.mismatch.seq == late["seq"]
    assert "blue's plan, written after blue's first order" in report.mismatch.message
    unnamed = {**late, "side": None}  # a plan that names no side
    report = verify(without + [unnamed])
    assert not report.ok and "names the side" in report.mismatch.message


def test_warlog_note_plan_on_the_command_line(tmp_path):
    db = tmp_path / "p.db"
    run("simulate", SCENARIO, "--seed", "7", "--db", str(db))
    game = json.loads(run("games", "--json", "--db", str(db)).output)[0]["id"]
    refused = CliRunner().invoke(app, ["note", game, "1", "Hold", "--plan", "red", "--db",
                                       str(db)])
    assert refused.exit_code != 0 and "before a side's first order" in refused.output
    assert "Traceback" not in refused.output
    wrong = CliRunner().invoke(app, ["note", game, "1", "Hold", "--plan", "green", "--db",
                                     str(db)])
    assert wrong.exit_code != 0 and "red or blue" in wrong.output
