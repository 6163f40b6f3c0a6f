"""The board draws a rule system's own state through the system's hooks and records, naming no
system (issue 40): a unit's formation and density in its hover, the density allowance's
arithmetic, the trenches; and each system's showcase scenario for the README's pictures."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from figure_traces import traces
from warlog.app.pictures import board
from warlog.engine.fold import Timeline
from warlog.engine.rulesets import get_ruleset, showcase, systems
from warlog.engine.scenario import bundled_scenarios

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _end_state(stem: str):
    events = [orjson.loads(line)
              for line in (GOLDEN / f"{stem}.events.jsonl").read_bytes().splitlines()]
    return Timeline(events).state_at(len(events) - 1)


def _hovers(state) -> dict[str, str]:
    fig = board.board_figure(state)
    return {uid: hover for t in traces(fig, "units") for uid, hover in zip(t.customdata, t.hovertext)}


def test_a_density_unit_shows_its_density_its_disorder_and_its_allowance_arithmetic():
    state = _end_state("density-friends-turn-reform-hex")
    hovers = _hovers(state)
    period = get_ruleset(state.rule_system).period(state)
    checked = 0
    for unit in state.alive():
        hover = hovers[unit.id]
        assert f"density {unit.density}, {unit.disordered} figures out of formation" in hover
        inches = period["move_inches"] - unit.density
        assert f"({period['move_inches']} - {unit.density} = {inches} inches" in hover
        assert "moves up to" not in hover  # not a row's cells: density.move's own words
        checked += 1
    assert checked >= 2


def test_a_unit_in_formation_names_it_once_and_a_plain_unit_names_none():
    state = _end_state("napoleonic-formations-square")
    hovers = _hovers(state)
    formed = [u for u in state.alive() if u.formation is not None]
    assert formed
    for unit in formed:
        assert board.html.escape(unit.formation) in hovers[unit.id]
        assert hovers[unit.id].count(f"<i>{unit.formation}") <= 1
    plain = _end_state("machine-age-trench-cells-hex")
    for unit in plain.alive():
        assert "figures out of formation" not in _hovers(plain)[unit.id]


def test_the_trenches_are_drawn_where_the_system_says_and_nowhere_else():
    trenched = _end_state("machine-age-trench-cells-hex")
    cells = get_ruleset(trenched.rule_system).trench_cells(trenched)
    assert cells
    roles = [t.meta["role"] for t in board.board_figure(trenched).data]
    assert roles.count("trenches") == 1
    other = _end_state("napoleonic-formations-square")
    assert not hasattr(get_ruleset(other.rule_system), "trench_cells")
    assert "trenches" not in [t.meta["role"] for t in board.board_figure(other).data]


@pytest.mark.parametrize("system", systems())
def test_every_system_shows_off_one_of_its_own_bundled_scenarios(system):
    scenario = next((sc for sc in bundled_scenarios() if sc.id == showcase(system)), None)
    assert scenario is not None, f"{system}'s showcase {showcase(system)!r} is not bundled"
    assert scenario.rule_system == system
