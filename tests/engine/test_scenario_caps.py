"""A scenario's size is capped where its cost grows (issue 19: a 40x40 board with 160 units
and 100 turns ran `simulate` past 45 s): the refusal is one line naming the field and the cap."""

from __future__ import annotations

import pytest

from warlog.engine.scenario import (MAX_GRID_SIDE, MAX_TURN_LIMIT, MAX_UNITS, ScenarioError,
                                    load_scenario, scenario_from_dict)


def _bundled() -> dict:
    data = load_scenario("ancients-river-crossing").model_dump(mode="json")
    data["terrain"] = {}
    data["victory"] = {**data["victory"], "objectives": []}
    return data


def _units(count: int, template: dict) -> list[dict]:
    return [dict(template, id=f"u{i}", side=("red", "blue")[i % 2],
                 cell=[i % MAX_GRID_SIDE, i // MAX_GRID_SIDE]) for i in range(count)]


def test_as_many_units_as_the_cap_load():
    data = _bundled()
    data["grid"] = {**data["grid"], "width": MAX_GRID_SIDE, "height": MAX_GRID_SIDE}
    data["units"] = _units(MAX_UNITS, data["units"][0])
    assert len(scenario_from_dict(data, source="big.toml").units) == MAX_UNITS


def test_one_unit_over_the_cap_is_one_line():
    data = _bundled()
    data["grid"] = {**data["grid"], "width": MAX_GRID_SIDE, "height": MAX_GRID_SIDE}
    data["units"] = _units(MAX_UNITS + 1, data["units"][0])
    with pytest.raises(ScenarioError) as refused:
        scenario_from_dict(data, source="big.toml")
    message = str(refused.value)
    assert message == f"big.toml: units: holds {MAX_UNITS + 1} items; at most {MAX_UNITS}"


@pytest.mark.parametrize("field, value, words", [
    ("grid.width", MAX_GRID_SIDE + 1, f"must be at most {MAX_GRID_SIDE}"),
    ("victory.turn_limit", MAX_TURN_LIMIT + 1, f"must be at most {MAX_TURN_LIMIT}"),
])
def test_board_side_and_turns_are_capped(field, value, words):
    data = _bundled()
    table, key = field.split(".")
    data[table] = {**data[table], key: value}
    with pytest.raises(ScenarioError, match=words):
        scenario_from_dict(data, source="big.toml")


def test_the_format_states_the_game_caps():
    """docs/replay-format.md names every cap of a game with its value."""
    from pathlib import Path

    from warlog.events.model import MAX_NOTES

    text = (Path(__file__).parents[2] / "docs" / "replay-format.md").read_text(encoding="utf-8")
    for name, value in [("MAX_GRID_SIDE", MAX_GRID_SIDE), ("MAX_UNITS", MAX_UNITS),
                        ("MAX_TURN_LIMIT", MAX_TURN_LIMIT), ("MAX_NOTES", MAX_NOTES)]:
        assert f"| `{name}` | {value:,} |" in text, name
