"""The terminal board: every cell three characters wide, units where the state puts them."""

from __future__ import annotations

import pytest
from rich.text import Text

from warlog.board_text import board_lines, legend, type_codes
from warlog.engine.bots import play_out
from warlog.engine.fold import replay
from warlog.engine.scenario import bundled_scenarios


def plain(line: str) -> str:
    return Text.from_markup(line).plain


@pytest.mark.parametrize("scenario", bundled_scenarios(), ids=lambda s: s.id)
def test_board_shows_each_live_unit_at_its_cell(scenario):
    events = play_out("b", scenario, seed=3).events
    state = replay(events, upto=events[len(events) // 3]["seq"])
    rows = [plain(line) for line in board_lines(state)]
    codes = type_codes(state)
    assert len(set(codes.values())) == len(codes)  # one letter a type, never shared
    assert all(f"{code} {name}" in legend(state) for name, code in codes.items()
               if any(u.type == name for u in state.units.values()))
    assert len(rows) == state.grid.height + 1
    offset = scenario.grid.kind != "square"
    for row, text in enumerate(rows[1:]):
        body = text[4 + (1 if offset and row % 2 else 0):]
        assert len(body) == 3 * state.grid.width
        cells = [body[3 * c: 3 * c + 3] for c in range(state.grid.width)]
        for col, mark in enumerate(cells):
            unit = state.unit_at((col, row))
            if unit is not None:
                assert mark[0] == unit.side[0].upper() and mark[1] == codes[unit.type]
            else:
                assert mark[0] != "R" and mark[0] != "B"
    assert "objective" in legend(state)


def test_removed_units_are_not_drawn():
    scenario = bundled_scenarios()[0]
    state = replay(play_out("b", scenario, seed=3).events)
    drawn = sum(plain(line).count(side) for line in board_lines(state)[1:] for side in ("R", "B"))
    assert drawn == len(state.alive())
