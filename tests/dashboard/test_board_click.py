"""The board a player clicks (dashboard/board_click.py): where a click lands is read back as a
cell on every grid kind (a click anywhere in a cell is that cell, off the board none), and a
click value the page did not send is no click."""

from __future__ import annotations

import math

import pytest
import streamlit as st

from figure_traces import games  # noqa: F401 - the fixture
from warlog.dashboard import board_click
from warlog.engine.geometry import make_grid


def _towards(centre, corner, share):
    return (centre[0] + share * (corner[0] - centre[0]), centre[1] + share * (corner[1] - centre[1]))


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_a_click_anywhere_in_a_cell_is_that_cell(kind):
    grid = make_grid(kind, 7, 5)
    for cell in grid.cells():
        centre = grid.centre(cell)
        assert board_click.cell_at(grid, centre) == cell
        for corner in grid.corners(cell):  # near each corner, inside the cell
            assert board_click.cell_at(grid, _towards(centre, corner, 0.9)) == cell, (cell, corner)


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_a_click_off_the_board_is_no_cell(kind):
    grid = make_grid(kind, 7, 5)
    xs = [x for cell in grid.cells() for x, _ in grid.corners(cell)]
    ys = [y for cell in grid.cells() for _, y in grid.corners(cell)]
    for point in [(min(xs) - 0.2, min(ys) - 0.2), (max(xs) + 0.2, sum(ys) / len(ys)),
                  (sum(xs) / len(xs), max(ys) + 0.3), (math.nan, 1.0), (math.inf, 1.0), None]:
        assert board_click.cell_at(grid, point) is None, point


@pytest.mark.parametrize("value, expected", [
    ({"x": 1.5, "y": 2, "n": 3}, (1.5, 2.0)),
    ({"x": "1.5", "y": 2}, None),
    ({"x": True, "y": 2}, None),
    ({"x": 1.5}, None),
    ([1.5, 2], None),
    ("click", None),
    (None, None),
])
def test_only_a_click_the_page_sends_is_a_click(value, expected, monkeypatch):
    monkeypatch.setattr(st, "session_state", {"board": {"click": value}})
    assert board_click.clicked("board") == expected
    monkeypatch.setattr(st, "session_state", {})
    assert board_click.clicked("board") is None


def test_a_click_in_a_units_cell_picks_the_unit_and_nowhere_else(games, monkeypatch):  # noqa: F811
    """Anywhere in a live unit's cell picks it (its counter, the cell's corner); an empty cell,
    a fallen unit's cell or off the board picks none."""
    events, tl = games["hex"]
    state = tl.state_at(len(events) - 1)
    grid = state.grid

    def click(point):
        x, y = point
        monkeypatch.setattr(st, "session_state", {"board": {"click": {"x": x, "y": y}}})
        return board_click.clicked_unit("board", state)

    for unit in state.alive():
        centre, corner = grid.centre(unit.cell), grid.corners(unit.cell)[2]
        assert click(centre) == unit.id
        assert click(_towards(centre, corner, 0.9)) == unit.id
    taken = {u.cell for u in state.alive()}
    empty = next(c for c in grid.cells() if c not in taken)
    assert click(grid.centre(empty)) is None
    fallen = [u for u in state.units.values() if u.removed and u.cell not in taken]
    assert fallen, "the game's last state has a unit fallen where no one stands"
    assert click(grid.centre(fallen[0].cell)) is None
    assert click((-3.0, -3.0)) is None
