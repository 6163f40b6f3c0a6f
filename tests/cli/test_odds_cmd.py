"""`warlog odds` end to end: two unit types on a minimal board, two units of a recorded game at
any event, JSON, and one-line errors naming the field and what it allows."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from cli_run import no_ambient_db, run  # noqa: F401 (no_ambient_db: a fixture)
from warlog.cli import app
from warlog.engine.fold import replay
from warlog.engine.odds import OddsError, attack, bombard_cell
from warlog.events.replay_file import load_replay
from warlog.odds_cmd import odds



@pytest.fixture(autouse=True)
def odds_command():
    """The command on the app for these tests only, until warlog/cli.py registers it (left
    registered, it would be an undocumented command for the README test)."""
    names = [c.name or c.callback.__name__ for c in app.registered_commands]
    if "odds" in names:
        yield
        return
    app.command()(odds)
    yield
    app.registered_commands[:] = [c for c in app.registered_commands if c.callback is not odds]


def test_two_unit_types_print_every_outcome_and_the_average():
    out = run("odds", "Infantry", "Cavalry", "--system", "ohw", "--period", "ancients",
              "--kind", "melee", "--aspect", "flank").output
    # (d6 + 2) x 2 for a flank attack (ohw.melee.flank): 6, 8, ..., 16, each 1/6; mean 11
    for hits in (6, 8, 10, 12, 14, 16):
        assert f"target: {hits} hits" in out
    assert out.count("16.7%") == 6
    assert "average hits 11" in out


def test_options_and_extras_go_through_option():
    data = json.loads(run("odds", "Cavalry", "Infantry", "--system", "ohw", "--period",
                          "ancients", "--kind", "melee", "--terrain", "hill", "--option",
                          "halving=once", "--json").output)
    # armour and defensive position, halved once (option halving = once): 1 1 2 2 3 3
    assert F(data["target_effect"]["mean"]["fraction"]) == 2
    charge = json.loads(run("odds", "Cataphracts", "Hoplites", "--system", "portable",
                            "--kind", "melee", "--option", "moved=1", "--choice", "lose",
                            "--json").output)
    # a charge after moving a cell: +2, so 3+ hits (portable.special.cataphracts)
    assert F(charge["target_effect"]["p_hit"]["fraction"]) == F(4, 6)
    assert charge["attacker_effect"]["unit"] == "attacker"


def test_the_barrage_and_the_hypothetical_extras():
    out = run("odds", "Infantry", "--system", "ohw", "--period", "machine_age", "--kind",
              "barrage", "--terrain", "woods").output
    # ohw.machine_age.barrage: the number on a d6, whatever the cover: 1 to 6, mean 7/2
    assert "barrage on Infantry (on woods)" in out
    assert out.count("16.7%") == 6 and "average hits 7/2" in out
    out = run("odds", "Infantry", "--system", "ohw", "--period", "machine_age", "--kind",
              "barrage", "--terrain", "woods", "--option", "barrage_cover=terrain").output
    # the reading before schema 3: halved by woods' cover: 1 1 2 2 3 3, mean 2
    assert out.count("33.3%") == 3 and "average hits 2" in out
    shot = json.loads(run("odds", "Archers", "Infantry", "--system", "density", "--kind", "shoot",
                          "--option", "disorder=1", "--json").output)
    # armour halves, a figure out of formation takes 1 off: 0 1 1 2 2 3, mean 3/2
    assert F(shot["target_effect"]["mean"]["fraction"]) == F(3, 2)
    fire = json.loads(run("odds", "Foot Artillery", "Infantry", "--system", "napoleonic",
                          "--kind", "bombard", "--distance", "3", "--option", "same_cell=true",
                          "--choice", "lose", "--json").output)
    # direct +1, same cell +1: 3+ hits
    assert F(fire["target_effect"]["p_hit"]["fraction"]) == F(4, 6)


def test_an_owed_choice_is_said_to_be_owed():
    out = run("odds", "Archers", "Heavy Infantry", "--system", "portable", "--kind",
              "shoot").output
    assert "owner chooses: retreat or -1 SP" in out
    assert "note:" in out and "choice lose" in out


@pytest.mark.parametrize(("args", "words"), [
    (["Knights", "Cavalry", "--system", "ohw", "--period", "ancients", "--kind", "melee"],
     "attacker: Ancients has no unit type 'Knights'; known: Infantry, Archers, Skirmishers, "
     "Cavalry"),
    (["Infantry", "Cavalry", "--system", "ohw", "--period", "roman", "--kind", "melee"],
     "period: 'roman' is not one of: ancients"),
    (["Infantry", "Cavalry", "--system", "chess", "--kind", "melee"],
     "system: unknown rule system 'chess'"),
    (["Infantry", "Cavalry", "--system", "ohw", "--period", "ancients", "--kind", "charge"],
     "kind: 'charge' is not one of: shoot, melee, barrage"),
    (["Infantry", "Cavalry", "--system", "ohw", "--period", "ancients"],
     "kind: name the attack with --kind (shoot, melee, barrage)"),
    (["Infantry", "Cavalry", "--system", "ohw", "--period", "ancients", "--kind", "melee",
      "--option", "speed=3"], "option: ohw has no option 'speed'"),
    (["Infantry", "Cavalry", "--system", "ohw", "--period", "ancients", "--kind", "melee",
      "--option", "halving"], "--option takes KEY=VALUE"),
    (["Infantry", "--system", "ohw", "--period", "machine_age", "--kind", "shoot"],
     "kind: one unit type alone is the target of a barrage (--kind barrage)"),
    (["Infantry", "Infantry", "--system", "ohw", "--period", "machine_age", "--kind",
      "barrage"], "attacker: the barrage has no attacking unit"),
    (["Archers", "Infantry", "--system", "density", "--kind", "shoot", "--option",
      "disorder=many"], "disorder: a whole number from 0 to 5, not 'many'"),
    (["Archers", "Cavalry", "--system", "ohw", "--period", "ancients", "--kind", "shoot",
      "--distance", "6"], "6 cells away; Archers shoot at most 4 (ohw.ancients.shooting)"),
])
def test_a_bad_question_is_one_line_naming_the_field(args, words):
    result = run("odds", *args, ok=False)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert words in lines[0]
    assert "Traceback" not in result.output


@pytest.fixture
def replay_path(tmp_path):
    path = tmp_path / "g.jsonl"
    run("simulate", "ancients-river-crossing", "--seed", "7", "--out", str(path))
    return path


def _a_recorded_shot(events):
    for i, e in enumerate(events):
        if e["kind"] == "order_given" and e["order"]["type"] == "shoot":
            return events[i - 1]["seq"], e["order"]["unit"], e["order"]["target"]
    raise AssertionError("the game has no shot")


def test_two_units_of_a_recorded_game_at_an_event(replay_path):
    events = load_replay(replay_path)
    seq, unit, target = _a_recorded_shot(events)
    data = json.loads(run("odds", str(replay_path), "--at", str(seq), "--unit", unit,
                          "--target", target, "--json").output)
    expected = attack(replay(events, seq), unit, target, "shoot")
    assert data["kind"] == "shoot"  # inferred: the two are not in contact
    assert [(o["outcome"], F(o["fraction"])) for o in data["outcomes"]] == list(expected.outcomes)
    assert F(data["target_effect"]["mean"]["fraction"]) == expected.mean
    table = run("odds", str(replay_path), "--at", str(seq), "--unit", unit, "--target",
                target).output
    assert f"after event {seq}" in table and "average hits" in table


def test_a_recorded_game_refuses_what_does_not_belong_to_it(replay_path):
    events = load_replay(replay_path)
    seq, unit, target = _a_recorded_shot(events)
    last = events[-1]["seq"]
    result = run("odds", str(replay_path), "--at", str(last + 5), "--unit", unit, "--target",
                 target, ok=False)
    assert f"--at: event {last + 5} is not in this game (1 to {last})" in result.output
    result = run("odds", str(replay_path), "--unit", unit, "--target", target, ok=False)
    assert f"the game is over at event {last}: give --at SEQ" in result.output
    result = run("odds", str(replay_path), "--at", str(seq), "--unit", unit, "--target",
                 "nobody", ok=False)
    assert "target: no unit 'nobody' on the board" in result.output
    result = run("odds", str(replay_path), "--unit", unit, "--target", target, "--system",
                 "ohw", ok=False)
    assert "are for two unit types" in result.output
    result = run("odds", str(replay_path), ok=False)
    assert "--unit (the attacker) and --target" in result.output


def test_a_game_from_the_database(tmp_path):
    db = str(tmp_path / "w.db")
    run("simulate", "ancients-river-crossing", "--seed", "7", "--db", db)
    game = json.loads(run("games", "--json", "--db", db).output)[0]["id"]
    path = tmp_path / "g.jsonl"
    run("export", game, "--out", str(path), "--db", db)
    seq, unit, target = _a_recorded_shot(load_replay(path))
    stored = run("odds", game, "--at", str(seq), "--unit", unit, "--target", target, "--json",
                 "--db", db).output
    from_file = run("odds", str(path), "--at", str(seq), "--unit", unit, "--target", target,
                    "--json").output
    assert json.loads(stored)["outcomes"] == json.loads(from_file)["outcomes"]


def test_the_barrage_of_a_recorded_game(tmp_path):
    path = tmp_path / "g.jsonl"
    run("simulate", "machine-age-hill-sixty", "--seed", "7", "--out", str(path))
    events = load_replay(path)
    seq = next(e["seq"] for e in events if e["kind"] == "barrage_planned")
    defender = next(e["defender"] for e in events if e["kind"] == "roles_chosen")
    target = next(u.id for u in replay(events, seq).alive(defender))
    data = json.loads(run("odds", str(path), "--at", str(seq), "--target", target, "--kind",
                          "barrage", "--json").output)
    # ohw.machine_age.barrage on a unit in a trench in the open: a d6 of hits, mean 7/2
    assert data["source"] is None and F(data["target_effect"]["mean"]["fraction"]) == F(7, 2)
    assert data["outcomes"] == [{"outcome": f"{target}: {n} hit" + "s" * (n > 1),
                                 "fraction": "1/6", "float": 1 / 6} for n in range(1, 7)]
    result = run("odds", str(path), "--at", str(seq), "--unit", target, "--target", target,
                 "--kind", "barrage", ok=False)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "attacker: the barrage has no attacking unit" in lines[0]


@pytest.fixture(scope="module")
def frontier_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("frontier") / "k.jsonl"
    run("simulate", "frontier-kandahar", "--seed", "1", "--out", str(path))
    return path


def _a_recorded_bombardment(events):
    for i, e in enumerate(events):
        if e["kind"] == "order_given" and e["order"]["type"] == "bombard":
            return events[i - 1]["seq"], e["order"]["unit"], tuple(e["order"]["cell"])
    raise AssertionError("the game has no bombardment")


def test_a_battery_firing_at_a_cell_of_a_recorded_game(frontier_path):
    events = load_replay(frontier_path)
    seq, battery, aimed = _a_recorded_bombardment(events)
    state = replay(events, seq)
    # the aimed cell holds the enemy: --cell answers as --target does
    at = ("odds", str(frontier_path), "--at", str(seq), "--unit", battery)
    by_cell = json.loads(run(*at, "--cell", f"{aimed[0]},{aimed[1]}", "--json").output)
    by_unit = attack(state, battery, state.unit_at(aimed).id, "bombard")
    assert by_cell == {"title": by_cell["title"], **by_unit.as_dict(), "cell": list(aimed)}
    # an empty neighbour of it the battery may fire at: the enemy there is nearby
    empty = next(c for c in state.grid.neighbours(aimed) if state.unit_at(c) is None
                 and _fires_at(state, battery, c))
    expected = bombard_cell(state, battery, empty)
    assert expected.target is None and state.unit_at(aimed).id in [e.unit for e in
                                                                    expected.others]
    table = run(*at, "--cell", f"{empty[0]},{empty[1]}").output
    assert f"{battery} bombard cell {empty[0]},{empty[1]}" in table
    assert f"nearby {state.unit_at(aimed).id}" in table
    rows = [[c.strip() for c in line.split("│")[1:3]] for line in table.splitlines()]
    assert [[label, str(p)] for label, p in expected.outcomes] == [r for r in rows if r]


def _fires_at(state, battery, cell):
    try:
        bombard_cell(state, battery, cell)
    except OddsError:
        return False
    return True


@pytest.mark.parametrize(("extra", "words"), [
    (["--cell", "x"], "cell: give the cell as X,Y (two whole numbers, e.g. 3,2), not 'x'"),
    (["--cell", "3"], "cell: give the cell as X,Y"),
    (["--cell", "3,2,1"], "cell: give the cell as X,Y"),
    (["--cell", "40,3"], "cell: (40, 3) is off the board (x from 0 to 13, y from 0 to 9)"),
    (["--cell", "3,2", "--target", "b-cmd"], "cell: --cell and --target both name"),
    (["--cell", "3,2", "--kind", "melee"], "kind: --cell is a battery's bombardment of a cell"),
    (["--cell", "3,2", "--choice", "lose"], "choice: a Frontier bombardment leaves no choice"),
])
def test_a_bad_cell_is_one_line_naming_the_field(frontier_path, extra, words):
    seq, battery, _ = _a_recorded_bombardment(load_replay(frontier_path))
    result = run("odds", str(frontier_path), "--at", str(seq), "--unit", battery, *extra,
                 ok=False)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error:"), \
        result.output
    assert words in lines[0] and "Traceback" not in result.output


def test_a_cell_belongs_to_a_battery_of_a_frontier_game(frontier_path, replay_path):
    seq, _, _ = _a_recorded_bombardment(load_replay(frontier_path))
    result = run("odds", str(frontier_path), "--at", str(seq), "--cell", "3,2", ok=False)
    assert "unit: a bombardment of a cell needs the battery (--unit)" in result.output
    seq, unit, _ = _a_recorded_shot(load_replay(replay_path))
    result = run("odds", str(replay_path), "--at", str(seq), "--unit", unit, "--cell", "3,2",
                 ok=False)
    assert "cell: a bombardment of a cell is Frontier's (frontier.artillery)" in result.output
    result = run("odds", "Infantry", "Cavalry", "--system", "ohw", "--period", "ancients",
                 "--kind", "melee", "--cell", "3,2", ok=False)
    assert "--at, --unit, --target and --cell are for a game" in result.output
