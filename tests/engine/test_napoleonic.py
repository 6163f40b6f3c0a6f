"""The napoleonic system beyond its golden games: scenario checks for formations and shared
cells, the unit state its checksums carry, and what a selected unit reaches."""

from __future__ import annotations

import tomllib

import pytest

from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.reach import unit_reach
from warlog.engine.scenario import ScenarioError, load_scenario, scenario_from_dict

BASE = """
id = "t"
title = "t"
rule_system = "napoleonic"
period = "napoleonic"
first = "red"
grid = { kind = "square", width = 8, height = 6 }
sides = { red = { name = "Red" }, blue = { name = "Blue" } }
units = [
  { id = "r-cmd", side = "red", type = "Commander", cell = [1, 1], facing = "E" },
  { id = "r-inf", side = "red", type = "Infantry", cell = [1, 1], facing = "E", formation = "column" },
  { id = "r-art", side = "red", type = "Foot Artillery", cell = [1, 3], facing = "E" },
  { id = "b-inf", side = "blue", type = "Infantry", cell = [6, 1], facing = "W" },
]
"""


def scenario(**changes):
    data = tomllib.loads(BASE)
    for i, unit in changes.items():
        data["units"][int(i[1:])].update(unit)
    return scenario_from_dict(data, source="t.toml")


def test_a_commander_shares_a_friends_cell_and_units_start_in_their_formation():
    s = scenario()
    state = Timeline(play_out("t", s, seed=1).events[:3]).state_at(0)
    assert state.units["r-cmd"].cell == state.units["r-inf"].cell
    assert state.units["r-inf"].formation == "column"


@pytest.mark.parametrize("change,field,words", [
    ({"u1": {"formation": "limbered"}}, "units[1].formation", "Infantry takes no formation"),
    ({"u0": {"formation": "line"}}, "units[0].formation", "none (leave it out)"),
    ({"u2": {"cell": [1, 1]}}, "units[2].cell", "already occupied by r-cmd"),
    ({"u3": {"cell": [1, 1]}}, "units[3].cell", "already occupied"),
    ({"u1": {"density": 3}}, "units[1].density", "no formation density"),
])
def test_bad_formations_and_shared_cells_are_refused_naming_the_field(change, field, words):
    with pytest.raises(ScenarioError) as exc:
        scenario(**change)
    assert exc.value.field == field and words in exc.value.problem


def test_moved_cells_and_aim_join_napoleonic_checksums_only():
    nap = Timeline(play_out("n", load_scenario("napoleonic-hougoumont"), seed=2).events).final
    ohw = Timeline(play_out("o", load_scenario("ancients-river-crossing"), seed=2).events).final
    for state in (nap, ohw):
        before = state.checksum()
        unit = next(iter(state.units.values()))
        unit.moved_cells += 1
        changed = state.checksum() != before
        unit.moved_cells -= 1
        assert changed == (state.rule_system == "napoleonic")
        assert state.checksum() == before


def test_only_an_unlimbered_battery_has_an_artillery_zone():
    state = Timeline(play_out("z", scenario(), seed=1).events[:3]).state_at(2)
    battery = state.units["r-art"]
    zone = unit_reach(state, battery.id).zone
    assert zone.what == "artillery range" and (zone.near, zone.far) == (1, 6)
    battery.formation = "limbered"
    assert unit_reach(state, battery.id).zone is None
    musket = unit_reach(state, "r-inf").zone
    assert (musket.near, musket.far, musket.what) == (2, 2, "musketry range")
