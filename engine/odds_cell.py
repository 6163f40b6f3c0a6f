"""Exact odds of a Frontier bombardment aimed at a cell, whether or not a unit stands in it.

A Frontier battery fires at a cell, not at a unit (frontier.artillery): a shell that falls
short, over or to a side (frontier.fall_of_shot) strikes whatever stands in that neighbour,
enemy or friend (the battery itself only where option bombard_adjacent lets it aim at the next
cell). So the question is asked of the cell: the
referee's own check decides whether the battery may fire there, its own ``apply`` rolls the
fall and the effect, and every unit a leaf touches is reported (odds.summarise). The unit
standing on the cell, if any, is the target, so aiming at a unit's cell answers exactly as
``odds.attack(state, battery, unit, "bombard")`` does.
"""

from __future__ import annotations

from typing import Any

from warlog.engine.geometry import Cell
from warlog.engine.odds import Odds, OddsError, _unit, leaves, summarise
from warlog.engine.odds_systems import _ordered
from warlog.engine.state import GameState
from warlog.events.orders import BombardOrder

SYSTEMS = ("frontier",)
"""Where a bombardment of an empty cell is an order (napoleonic's battery fires only at an
enemy's cell, napoleonic.artillery_fire: ask it with odds.attack)."""


def aimed_cell(state: GameState, cell: Any) -> Cell:
    """``cell`` as (x, y) on this board, or an OddsError naming the field."""
    ok = (isinstance(cell, (tuple, list)) and len(cell) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) for v in cell))
    if not ok:
        raise OddsError(f"cell: a cell is two whole numbers (x, y), not {cell!r}")
    x, y = cell
    grid = state.grid
    if not grid.contains((x, y)):
        raise OddsError(f"cell: ({x}, {y}) is off the board (x from 0 to {grid.width - 1}, "
                        f"y from 0 to {grid.height - 1}) (grid.cells)")
    return (x, y)


def bombard_cell(state: GameState, source_id: str, cell: Any) -> Odds:
    """The exact odds of the battery ``source_id`` firing at ``cell``, asked at its side's
    artillery phase (now, or its next one) as ``odds.attack`` asks a bombardment."""
    if state.rule_system not in SYSTEMS:
        raise OddsError(f"cell: a bombardment of a cell is Frontier's (frontier.artillery); in "
                        f"{state.rule_system} name the unit attacked (target)")
    aimed = aimed_cell(state, cell)
    battery = _unit(state, source_id, "attacker")
    order = BombardOrder(unit=battery.id, cell=aimed)
    view, resolve, two_way = _ordered(state, battery.side, "artillery", order, None, False)
    there = view.unit_at(aimed)
    found = leaves(view, resolve, grouped=True)
    return summarise(view, found, battery.id, there.id if there else None, "bombard", two_way,
                     None, cell=aimed)
