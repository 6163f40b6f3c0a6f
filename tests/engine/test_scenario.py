"""Scenario loading: bundled scenarios, round trips, and one test per kind of bad input, each
asserting the exact field path and the words a player would read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from warlog.engine.geometry import GRID_KINDS
from warlog.engine.rulesets.tables import load_table, option_specs, periods, systems, unit_types
from warlog.engine.scenario import (
    ScenarioError,
    bundled_scenarios,
    load_scenario,
    scenario_from_dict,
)

# A small valid scenario; units[0] r1, units[1] r2 (in woods), units[2] b1.
BASE = """\
title = "Test"
rule_system = "ohw"
period = "ancients"
first = "red"

[grid]
kind = "square"
width = 12
height = 8

[terrain]
woods = [[2, 3], [2, 4]]
river = [[6, 0], [6, 1]]
ford = [[6, 2]]

[sides.red]
name = "Rome"

[sides.blue]
name = "Carthage"

[[units]]
id = "r1"
side = "red"
type = "Infantry"
cell = [1, 3]
facing = "E"

[[units]]
id = "r2"
side = "red"
type = "Skirmishers"
cell = [2, 3]
facing = "E"

[[units]]
id = "b1"
side = "blue"
type = "Cavalry"
cell = [10, 3]
facing = "W"

[victory]
objectives = [[6, 2]]

[options]
hits_to_remove = 12
"""


def write(tmp_path: Path, text: str, name: str = "test.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def edit(old: str, new: str, base: str = BASE) -> str:
    assert base.count(old) == 1, f"the test's edit target {old!r} must occur once"
    return base.replace(old, new)


def unit_block(unit_id: str) -> str:
    """The text of one [[units]] table in BASE, to edit that unit only."""
    start = BASE.index(f'id = "{unit_id}"')
    return BASE[start : BASE.index("\n\n", start)]


def edit_unit(unit_id: str, old: str, new: str) -> str:
    return edit(unit_block(unit_id), edit(old, new, unit_block(unit_id)))


def error_for(tmp_path: Path, text: str) -> ScenarioError:
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert caught.value.source == str(path)
    return caught.value


# ---------------------------------------------------------------------------------------------
# Good input


def test_base_loads(tmp_path):
    scenario = load_scenario(write(tmp_path, BASE))
    assert scenario.id == "test"  # from the file name
    assert scenario.grid.kind == "square" and (scenario.grid.width, scenario.grid.height) == (12, 8)
    assert [unit.id for unit in scenario.units] == ["r1", "r2", "b1"]
    assert scenario.units[0].cell == (1, 3) and isinstance(scenario.units[0].cell, tuple)
    assert scenario.units[0].name is None
    assert scenario.victory.turn_limit == 15
    assert scenario.victory.objectives == ((6, 2),)
    assert scenario.side_names == {"red": "Rome", "blue": "Carthage"}


def test_options_hold_every_option_with_defaults(tmp_path):
    scenario = load_scenario(write(tmp_path, BASE))
    specs = option_specs("ohw", "ancients")
    assert list(scenario.options) == sorted(specs)
    assert scenario.options["hits_to_remove"] == 12
    assert scenario.options["halving"] == specs["halving"]["default"]


def test_terrain_at(tmp_path):
    scenario = load_scenario(write(tmp_path, BASE))
    assert scenario.terrain_at((2, 4)) == "woods"
    assert scenario.terrain_at((6, 2)) == "ford"
    assert scenario.terrain_at((6, 1)) == "river"
    assert scenario.terrain_at((0, 0)) == "open"
    assert scenario.terrain_at((99, 99)) == "open"


def test_id_defaults_to_a_cleaned_file_name(tmp_path):
    assert load_scenario(write(tmp_path, BASE, "My_Battle.toml")).id == "my-battle"
    assert load_scenario(write(tmp_path, 'id = "given"\n' + BASE)).id == "given"


def test_scenario_is_frozen(tmp_path):
    scenario = load_scenario(write(tmp_path, BASE))
    with pytest.raises(ValidationError):
        scenario.title = "Other"


def test_round_trip_through_json(tmp_path):
    scenario = load_scenario(write(tmp_path, BASE))
    dumped = json.loads(json.dumps(scenario.model_dump(mode="json")))
    again = scenario_from_dict(dumped, source="<event>")
    assert again == scenario
    assert again.model_dump(mode="json") == dumped
    assert again.terrain_at((2, 3)) == "woods"


def test_hex_facings(tmp_path):
    hexed = edit('kind = "square"', 'kind = "hex"', edit_unit("r1", 'facing = "E"', 'facing = "NE"'))
    assert load_scenario(write(tmp_path, hexed)).units[0].facing == "NE"


# ---------------------------------------------------------------------------------------------
# Bundled scenarios


def _placed(s, side: str) -> list[tuple[tuple[int, int], str]]:
    """(cell, facing) of a side's units as the scenario places them, rolled armies included."""
    if side in s.armies:
        return [(cell, s.armies[side].facing) for cell in s.armies[side].cells]
    return [(u.cell, u.facing) for u in s.units if u.side == side]


def test_every_bundled_scenario_loads_and_follows_the_brief():
    """At least one scenario per rule system and period, every grid kind; One Hour Wargames
    armies of army-table sizes, Portable Wargame armies of 6 to 10 with a Commander; every unit
    of its period's types."""
    scenarios = bundled_scenarios()
    assert [s.id for s in scenarios] == sorted(s.id for s in scenarios)
    assert {s.grid.kind for s in scenarios} == set(GRID_KINDS)
    assert {(s.rule_system, s.period) for s in scenarios} == {
        (system, p) for system in systems() for p in periods(system)}
    for s in scenarios:
        assert s.title and s.description
        prefix = s.period if s.rule_system == "ohw" else s.rule_system
        assert s.id.startswith(prefix.replace("_", "-")), s.id
        assert 1 <= len(s.victory.objectives) <= 3
        for side in ("red", "blue"):
            units = [unit for unit in s.units if unit.side == side]
            count = s.armies[side].units if side in s.armies else len(units)
            if s.rule_system == "ohw":
                assert s.victory.turn_limit == 15
                assert count in (3, 4, 6), (s.id, side)
            elif s.rule_system == "portable":
                assert 6 <= count <= 10 and any(u.type == "Commander" for u in units), (s.id, side)
            else:
                assert 5 <= count <= 10, (s.id, side)
            assert {unit.type for unit in units} <= set(unit_types(s.rule_system, s.period))


def test_bundled_files_are_named_after_their_ids():
    from importlib.resources import files

    names = sorted(e.name[:-5] for e in files("warlog.scenarios").iterdir() if e.name.endswith(".toml"))
    assert names == [s.id for s in bundled_scenarios()]


def test_bundled_terrain_covers_the_rules():
    kinds = {kind for s in bundled_scenarios() for kind in s.terrain}
    assert {"woods", "village", "hill", "river", "ford", "bridge", "road"} <= kinds
    assert kinds & {"marsh", "lake"}


def test_bundled_roads_have_a_straight_run():
    """The road bonus needs several road cells in a line (a row is straight on every grid)."""
    for s in bundled_scenarios():
        if "road" not in s.terrain or s.rule_system != "ohw":  # only One Hour Wargames has it
            continue
        road = set(load_table("ohw")["terrain"]["road"])
        runs = [
            sum(1 for col in range(s.grid.width) if s.terrain_at((col, row)) in road)
            for row in range(s.grid.height)
        ]
        assert max(runs) >= 4, s.id


def test_bundled_armies_face_each_other_from_opposite_edges():
    """Red deploys west facing east, blue east facing west. The Napoleonic battles begin with
    garrisons forward (a farm, two villages): there the armies need only stand apart."""
    for s in bundled_scenarios():
        red, blue = _placed(s, "red"), _placed(s, "blue")
        assert max(c[0] for c, _ in red) < min(c[0] for c, _ in blue), s.id
        if s.rule_system != "napoleonic":
            assert max(c[0] for c, _ in red) <= 2, s.id
            assert min(c[0] for c, _ in blue) >= s.grid.width - 3, s.id
        assert {f for _, f in red} == {"E"} and {f for _, f in blue} == {"W"}, s.id


def test_bundled_scenarios_use_their_periods_special_rules():
    """Each period's scenarios bring its special rules into play: the optional rules on, the
    year on both sides of 1860, a rolled army, terrain the period's hooks read."""
    by_period: dict[str, list] = {}
    for s in bundled_scenarios():
        if s.rule_system != "ohw":
            continue
        by_period.setdefault(s.period, []).append(s)
    assert any(s.options.get("square") for s in by_period["horse_and_musket"])
    years = {s.year for s in by_period["horse_and_musket"]}
    assert min(years) < 1860 <= max(years)
    assert any(s.options.get("tanks") for s in by_period["machine_age"])
    assert any(s.options.get("trenches") for s in by_period["machine_age"])
    assert any(s.armies for s in bundled_scenarios())
    for s in by_period["ww2"]:
        assert {"hill", "woods", "village"} <= set(s.terrain)  # sight and hull-down
    for s in by_period["pike_and_shot"] + by_period["medieval"]:
        assert {"woods", "village"} <= set(s.terrain)  # who may enter what


@pytest.mark.parametrize("scenario", bundled_scenarios(), ids=lambda s: s.id)
def test_bundled_round_trip(scenario):
    assert scenario_from_dict(scenario.model_dump(mode="json"), source="<event>") == scenario


def test_load_by_id_and_by_path():
    first = bundled_scenarios()[0]
    assert load_scenario(first.id) is first
    path = Path(__file__).parents[2] / "scenarios" / f"{first.id}.toml"
    assert load_scenario(path) == first
    assert load_scenario(str(path)) == first


def test_unknown_id_lists_the_bundled_ids():
    with pytest.raises(ScenarioError) as caught:
        load_scenario("no-such-battle")
    assert caught.value.field == ""
    for scenario in bundled_scenarios():
        assert scenario.id in caught.value.problem


def test_bundled_river_crossing_terrain():
    scenario = load_scenario("ancients-river-crossing")
    assert scenario.terrain_at((6, 2)) == "bridge"
    assert scenario.terrain_at((6, 5)) == "ford"
    assert scenario.terrain_at((6, 0)) == "river"
    assert scenario.terrain_at((0, 0)) == "open"


# ---------------------------------------------------------------------------------------------
# Bad input: one case per kind of problem, with the exact field and a key phrase.

BAD = [
    # missing required fields
    ("missing title", edit('title = "Test"\n', ""), "title", "required field is missing"),
    ("missing facing", edit_unit("r2", '\nfacing = "E"', ""), "units[1].facing", "required field is missing"),
    ("missing grid width", edit("width = 12\n", ""), "grid.width", "required field is missing"),
    # unknown fields
    ("unknown top field", 'colour = "red"\n' + BASE, "colour", "unknown field 'colour'; expected one of: id, title"),
    ("unknown unit field", edit_unit("b1", 'facing = "W"', 'facing = "W"\nmorale = 3'), "units[2].morale", "expected one of: id, side, type, cell, facing, name"),
    ("unknown side field", edit('name = "Rome"', 'name = "Rome"\ncolor = "red"'), "sides.red.color", "unknown field 'color'"),
    ("unknown victory field", edit("[victory]\n", "[victory]\nsudden_death = true\n"), "victory.sudden_death", "unknown field"),
    # wrong types
    ("title not text", edit('title = "Test"', "title = 5"), "title", "expected text, got 5"),
    ("width as text", edit("width = 12", 'width = "12"'), "grid.width", "expected a whole number, got '12'"),
    ("grid not a table", edit('[grid]\nkind = "square"\nwidth = 12\nheight = 8\n', "grid = 5\n"), "grid", "expected a table, got 5"),
    ("terrain not a list", edit("woods = [[2, 3], [2, 4]]", "woods = 3"), "terrain.woods", "expected a list"),
    ("options not a table", "options = 3\n" + edit("[options]\nhits_to_remove = 12\n", ""), "options", "expected a table, got 3"),
    # grid
    ("grid kind", edit('kind = "square"', 'kind = "octagon"'), "grid.kind", "unknown grid kind 'octagon'; use one of: square, hex, brick"),
    ("grid too wide", edit("width = 12", "width = 41"), "grid.width", "must be at most 40, got 41"),
    ("grid too short", edit("height = 8", "height = 1"), "grid.height", "must be at least 2, got 1"),
    # rule system and period
    ("unknown system", edit('rule_system = "ohw"', 'rule_system = "chess"'), "rule_system", "unknown rule system 'chess'; known: density, frontier, napoleonic, ohw, portable"),
    ("unknown period", edit('period = "ancients"', 'period = "modern"'), "period", "no period 'modern'; known: ancients"),
    # terrain
    ("unknown terrain", edit("[terrain]\n", "[terrain]\nswamp = [[1, 1]]\n"), "terrain.swamp", "unknown terrain kind 'swamp'; known: woods"),
    ("terrain off board", edit("woods = [[2, 3], [2, 4]]", "woods = [[2, 3], [12, 4]]"), "terrain.woods[1]", "(12, 4) is off the 12x8 board"),
    ("terrain cell not a pair", edit("woods = [[2, 3], [2, 4]]", 'woods = [[2, 3], "b4"]'), "terrain.woods[1]", "two whole numbers, got 'b4'"),
    ("two terrain kinds", edit("[terrain]\n", "[terrain]\nhill = [[2, 4]]\n"), "terrain.woods[1]", "(2, 4) is already hill"),
    # sides
    ("missing side", edit('[sides.blue]\nname = "Carthage"\n', ""), "sides.blue", "side 'blue' is missing"),
    ("extra side", edit('[sides.blue]', '[sides.green]\nname = "Gaul"\n\n[sides.blue]'), "sides.green", "unknown side 'green'"),
    ("first not a side", edit('first = "red"', 'first = "green"'), "first", "'green' is not a side"),
    ("side without units", edit_unit("b1", 'side = "blue"', 'side = "red"'), "units", "side blue (Carthage) has no units"),
    ("unit side unknown", edit_unit("b1", 'side = "blue"', 'side = "green"'), "units[2].side", "'green' is not a side"),
    # units
    ("duplicate id", edit_unit("b1", 'id = "b1"', 'id = "r1"'), "units[2].id", "duplicate unit id 'r1' (also units[0])"),
    ("bad unit id", edit_unit("r1", 'id = "r1"', 'id = "r 1"'), "units[0].id", "1 to 24 letters"),
    ("unknown type", edit_unit("r1", 'type = "Infantry"', 'type = "Hoplites"'), "units[0].type", "Ancients has no unit type 'Hoplites'; known: Infantry, Archers"),
    ("bad facing", edit_unit("r1", 'facing = "E"', 'facing = "NE"'), "units[0].facing", "'NE' is not a facing on a square grid; use one of: E, N, W, S"),
    ("unit off board", edit_unit("b1", "cell = [10, 3]", "cell = [14, 2]"), "units[2].cell", "(14, 2) is off the 12x8 board"),
    ("unit off board negative", edit_unit("b1", "cell = [10, 3]", "cell = [-1, 2]"), "units[2].cell", "(-1, 2) is off the 12x8 board"),
    ("cell with a float", edit_unit("r1", "cell = [1, 3]", "cell = [1.5, 3]"), "units[0].cell", "two whole numbers, got [1.5, 3]"),
    ("cell of three", edit_unit("r1", "cell = [1, 3]", "cell = [1, 3, 0]"), "units[0].cell", "two whole numbers"),
    ("cell of booleans", edit_unit("r1", "cell = [1, 3]", "cell = [true, 3]"), "units[0].cell", "two whole numbers"),
    ("two units on a cell", edit_unit("b1", "cell = [10, 3]", "cell = [1, 3]"), "units[2].cell", "(1, 3) is already occupied by r1"),
    ("unit on river", edit_unit("r1", "cell = [1, 3]", "cell = [6, 1]"), "units[0].cell", "(6, 1) is river, which is impassable"),
    ("infantry in woods", edit_unit("r1", "cell = [1, 3]", "cell = [2, 4]"), "units[0].cell", "Infantry may not enter woods, only Skirmishers (ohw.ancients.terrain)"),
    ("cavalry in woods", edit_unit("b1", "cell = [10, 3]", "cell = [2, 4]"), "units[2].cell", "Cavalry may not enter woods"),
    # victory
    ("objective off board", edit("objectives = [[6, 2]]", "objectives = [[6, 2], [3, 8]]"), "victory.objectives[1]", "(3, 8) is off the 12x8 board"),
    ("turn limit zero", edit("[victory]\n", "[victory]\nturn_limit = 0\n"), "victory.turn_limit", "must be at least 1"),
    # options
    ("unknown option", edit("hits_to_remove = 12", "fog = true"), "options.fog", "unknown option; known options: arc_degrees"),
    ("option below min", edit("hits_to_remove = 12", "hits_to_remove = 0"), "options.hits_to_remove", "below the minimum 1"),
    ("option wrong type", edit("hits_to_remove = 12", "pivot_is_move = 1"), "options.pivot_is_move", "expected true or false"),
    ("option bad choice", edit("hits_to_remove = 12", 'halving = "thirds"'), "options.halving", "not one of: each, once"),
    # id
    ("bad scenario id", 'id = "Bad Id"\n' + BASE, "id", "use lowercase letters, digits and dashes"),
]


@pytest.mark.parametrize(("text", "field", "phrase"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_input(tmp_path, text, field, phrase):
    error = error_for(tmp_path, text)
    assert error.field == field
    assert phrase in error.problem
    assert str(error) == f"{tmp_path / 'test.toml'}: {field}: {error.problem}"


def test_the_model_keeps_structure_errors_on_one_line(tmp_path):
    """A pydantic error must not leak its multi-line report into the player's message."""
    error = error_for(tmp_path, edit("width = 12", 'width = "12"'))
    assert "\n" not in str(error) and "pydantic" not in str(error)


def test_toml_syntax_error_gives_line_and_column(tmp_path):
    error = error_for(tmp_path, edit('period = "ancients"', "period = ancients"))
    assert error.field == ""
    assert "not valid TOML" in error.problem
    assert "line 3, column 10" in error.problem
    assert str(error) == f"{tmp_path / 'test.toml'}: {error.problem}"


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "absent.toml")


def test_not_utf8(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes('title = "Caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load_scenario(path)


def test_scenario_from_dict_reports_the_source():
    data = load_scenario("ancients-river-crossing").model_dump(mode="json")
    data["units"][3]["cell"] = [14, 2]
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(data, source="<game 7>")
    assert str(caught.value) == "<game 7>: units[3].cell: (14, 2) is off the 12x8 board"


def test_bundled_frontier_scenarios_have_artillery_hill_levels_a_river_and_a_road():
    for s in [s for s in bundled_scenarios() if s.rule_system == "frontier"]:
        assert any("Artillery" in u.type for u in s.units), s.id
        assert s.hill_levels and max(level for *_, level in s.hill_levels) >= 2, s.id
        assert {"river", "road", "hill"} <= set(s.terrain), s.id


def test_hill_levels_are_checked(tmp_path):
    text = BASE.replace('rule_system = "ohw"', 'rule_system = "ohw"\nhill_levels = [[0, 0, 2]]')
    with pytest.raises(ScenarioError, match="hill_levels: ohw does not use hill levels"):
        load_scenario(write(tmp_path, text))
