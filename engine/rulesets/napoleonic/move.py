"""Napoleonic movement: allowances and their penalties, stacking, contact and breaking contact,
formation changes. One judge per unit and position walks every route, the referee's and the
legal-order search's alike, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from warlog.engine.geometry import Cell
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.state import GameState, Unit


def row(state: GameState, unit: Unit, table: Mapping[str, Any]) -> Mapping[str, Any]:
    return table["periods"][state.period]["units"][unit.type]


def formation(state: GameState, unit: Unit, table: Mapping[str, Any]) -> str | None:
    """How the unit stands: its formation, else the first its type takes (None: it has none)."""
    if unit.formation is not None:
        return unit.formation
    taken = row(state, unit, table)["formations"]
    return taken[0] if taken else None


def is_commander(state: GameState, unit: Unit, table: Mapping[str, Any]) -> bool:
    return row(state, unit, table)["class"] == "commander"


def occupant(state: GameState, cell: Cell, table: Mapping[str, Any]) -> Unit | None:
    """The unit standing on ``cell``: the fighting unit where a commander shares it."""
    here = [u for u in state.alive() if u.cell == cell]
    fighting = [u for u in here if not is_commander(state, u, table)]
    return (fighting or here or [None])[0]


def commander_with(state: GameState, unit: Unit, table: Mapping[str, Any]) -> Unit | None:
    """A friendly Commander sharing ``unit``'s cell (it gives its bonus)."""
    return next((u for u in state.alive(unit.side) if u.cell == unit.cell and u.id != unit.id
                 and is_commander(state, u, table)), None)


def enemies_next_to(state: GameState, unit: Unit, cell: Cell) -> list[Unit]:
    return [e for e in state.alive() if e.side != unit.side
            and state.grid.distance(cell, e.cell) == 1]


def reform_cost(state: GameState, unit: Unit, table: Mapping[str, Any]) -> int:
    """napoleonic.move.reform_penalty: a formation change costs a cell (Skirmishers exempt)."""
    return 0 if row(state, unit, table)["class"] == "skirmishers" else 1


def shot_costs_a_cell(state: GameState) -> bool:
    """Whether a battery's artillery-phase shot costs a cell of its move (option
    fired_horse_artillery): by the source's own rule for artillery (napoleonic.move.fired_artillery)
    it does not; only foot artillery is stopped by it."""
    return state.options["fired_horse_artillery"] == "shot_and_limber"


def allowance(state: GameState, unit: Unit, table: Mapping[str, Any]) -> int:
    """Cells the unit may still move this turn: its move, less a cell for a formation change
    (reform_penalty), and under option fired_horse_artillery = shot_and_limber a cell for a
    battery's shot (napoleonic.move.fire_penalty)."""
    left = row(state, unit, table)["move"] - unit.moved_cells
    if unit.fired and shot_costs_a_cell(state):
        left -= 1
    if unit.reformed:
        left -= reform_cost(state, unit, table)
    return left


def may_move(state: GameState, unit: Unit, table: Mapping[str, Any]) -> None:
    """The reasons a unit may not move at all now, whatever the route."""
    r = row(state, unit, table)
    if unit.acted:
        raise IllegalOrder("napoleonic.move.once", f"{unit.id} has moved this turn")
    stands = formation(state, unit, table)
    if stands == "square":
        raise IllegalOrder("napoleonic.move.square", f"{unit.id} is in square and may not move")
    if r["class"] == "artillery" and unit.fired and not r.get("horse"):
        raise IllegalOrder("napoleonic.move.fired_artillery", f"{unit.id} fired in the artillery "
                                                              "phase: foot artillery that fired "
                                                              "may not move this turn")
    if r["class"] == "artillery" and stands == "unlimbered":
        raise IllegalOrder("napoleonic.limber", f"{unit.id} is unlimbered: a battery limbers up "
                                                "(a formation order) before it moves")


def facings_toward(state: GameState, unit: Unit, cell: Cell) -> list[str]:
    """The sides of ``cell`` that face an enemy adjacent to it, in the grid's facing order."""
    grid = state.grid
    toward = {grid.facing_to(cell, e.cell) for e in enemies_next_to(state, unit, cell)}
    return [f for f in grid.facings if f in toward]


def contact_enemy(state: GameState, unit: Unit) -> Unit | None:
    """The adjacent enemy the unit faces (napoleonic.move.break_contact), if any."""
    ahead = state.grid.step(unit.cell, unit.facing)
    return next((e for e in enemies_next_to(state, unit, unit.cell) if e.cell == ahead), None)


class Steps:
    """Judges single steps of one unit's move in one position: the board, terrain, stacking
    (napoleonic.move.stacking), contact, and breaking contact."""

    def __init__(self, state: GameState, unit: Unit, table: Mapping[str, Any]) -> None:
        self.state, self.unit, self.table = state, unit, table
        period = table["periods"][state.period]
        self.entry = period.get("entry", {})
        self.impassable = table["terrain"]["impassable"]
        self.commander = is_commander(state, unit, table)
        self.held: dict[Cell, list[Unit]] = {}
        for u in state.alive():
            if u.id != unit.id:
                self.held.setdefault(u.cell, []).append(u)
        enemies = [u for u in state.alive() if u.side != unit.side]
        self.contact = {n for e in enemies for n in state.grid.neighbours(e.cell)}
        self.faced = contact_enemy(state, unit) if unit.cell in self.contact else None
        # Breaking contact: every step away from the enemy it faces (option break_contact =
        # away; first_step: only the first), and no cell next to any other enemy.
        self.every_step_away = state.options["break_contact"] == "away"
        # (only read when it faces an enemy: not built for a unit out of contact, the most)
        self.others = set() if self.faced is None else {
            n for e in enemies if e.id != self.faced.id for n in state.grid.neighbours(e.cell)}

    def problem(self, prev: Cell, cell: Cell, *, first: bool, last: bool) -> IllegalOrder | None:
        """Why the unit may not step from ``prev`` into ``cell`` (``last``: and stop there)."""
        s, unit = self.state, self.unit
        problem = common.ground_problem(s, unit, prev, cell, self.impassable, self.entry,
                                        "napoleonic.defaults")
        if problem is not None:
            return problem
        here = self.held.get(cell, [])
        if any(u.side != unit.side for u in here):
            return IllegalOrder("napoleonic.move.stacking", f"{cell} is held by the enemy: no unit "
                                                            "passes through or stops on an enemy")
        if here and not last:
            return IllegalOrder("napoleonic.move.stacking", f"{cell} is held by {here[0].id}: no "
                                                            "unit passes through another")
        if here and not self._may_share(here):
            return IllegalOrder("napoleonic.move.stacking", f"{cell} is held by {here[0].id}: one "
                                                            "unit to a cell (commanders excepted)")
        if self.faced is not None:
            nearer = s.grid.distance(cell, self.faced.cell) <= s.grid.distance(prev,
                                                                                self.faced.cell)
            if nearer and first:
                return IllegalOrder("napoleonic.move.break_contact", f"{unit.id} faces "
                                    f"{self.faced.id}: it may only move away from it")
            if nearer and self.every_step_away:
                return IllegalOrder("napoleonic.move.break_contact", f"breaking contact, every "
                                    f"step takes {unit.id} farther from {self.faced.id}: {cell} "
                                    f"is not farther than {prev}")
            if cell in self.others:
                return IllegalOrder("napoleonic.move.break_contact", f"breaking contact, {unit.id} "
                                    f"may not pass {cell}, next to another enemy")
        elif first and unit.cell in self.contact:
            return IllegalOrder("napoleonic.move.break_contact", f"{unit.id} is in contact and "
                                "does not face its enemy: it may only turn to face it")
        return None

    def _may_share(self, here: list[Unit]) -> bool:
        """A commander joins a friendly unit's cell (option stacking = either_joins: a unit
        may also join a lone commander's)."""
        mine = [is_commander(self.state, u, self.table) for u in here]
        if len(here) != 1:
            return False
        if self.state.options["stacking"] == "commanders_join":
            return self.commander and not mine[0]
        return self.commander != mine[0]

    def walk(self, path) -> list[Cell]:
        """The cells a route enters; IllegalOrder for a step the rules refuse, and for a route
        that goes on after entering a cell next to an enemy (napoleonic.move.contact)."""
        cells, prev = [], self.unit.cell
        for i, cell in enumerate(path):
            cell = tuple(cell)
            problem = self.problem(prev, cell, first=i == 0, last=i == len(path) - 1)
            if problem is not None:
                raise problem
            cells.append(cell)
            prev = cell
            if cell in self.contact and i < len(path) - 1:
                raise IllegalOrder("napoleonic.move.contact", f"{self.unit.id} stops at {cell}, "
                                   "next to an enemy: a move ends where it makes contact")
        return cells

    def contact_facings(self, cells: list[Cell]) -> list[str]:
        """The sides a route ending in contact may end facing: each toward an adjacent enemy
        (napoleonic.move.contact; with several, the player chooses); empty when not in contact.
        A turn in place next to an enemy faces one too (napoleonic.move.break_contact; option
        break_contact = first_step: any side)."""
        if not cells and not self.every_step_away:
            return []
        end = cells[-1] if cells else self.unit.cell
        if end not in self.contact:
            return []
        return facings_toward(self.state, self.unit, end)

    def routes(self, reach: int) -> Iterator[tuple[Cell, ...]]:
        """One shortest route to every cell the unit can end its move on (breadth first, in
        facing order, so the same route every time)."""
        return common.shortest_routes(
            self.state.grid, self.unit.cell, reach,
            lambda prev, cell, first, last: self.problem(prev, cell, first=first,
                                                         last=last) is None,
            self.contact)
