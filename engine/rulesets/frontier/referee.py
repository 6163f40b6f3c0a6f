"""Morschauser's "Frontier" (``frontier``) on a grid: the referee.

A turn: both sides' artillery fires (losses removed after every battery has fired), both roll
for the initiative, then each side moves all its units and fights its combats. Movement costs
points (roads half, rivers double, hills climbed in levels); a unit entering a cell in front of
an enemy stops and faces it, and one ending next to an enemy and facing it (making contact)
turns the enemy to face it, so the enemy faces the last to make contact. The artillery and the
combat are in frontier_fire.
"""

from __future__ import annotations

from typing import Any

from warlog.engine.flow import Context, phase_name
from warlog.engine.geometry import Cell
from warlog.engine.reach import FireZone
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.rulesets.common.legacy import LegacyState, LegacyUnit
from warlog.engine.rulesets.frontier import fire, luck
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets import order_kinds
from warlog.events import model
from warlog.events.orders import BombardOrder, EndPhaseOrder, FightOrder, Order, RouteOrder

SIDES = ("red", "blue")
ORDER_PHASE = {"bombard": "artillery", "route": "movement", "fight": "combat"}


class Frontier:
    system = "frontier"
    # Its records: the state and units the fold builds (the five built-in systems share them).
    State = LegacyState
    Unit = LegacyUnit
    # The orders it gives, as a player points at the board (engine/rulesets/order_kinds.py).
    orders = (order_kinds.ROUTE, order_kinds.BOMBARD, order_kinds.FIGHT, order_kinds.END_PHASE)
    automatic_phases = frozenset({"artillery_losses", "initiative"})
    checksum_rules = ("frontier.turn",)
    measure = "strength"  # the number on a unit: its strength (losses are whole units)
    side_order_phases = frozenset({"combat"})  # combats are ordered by target, not by unit

    def __init__(self) -> None:
        self.table = load_table("frontier")

    def luck_dice(self, events: list[dict[str, Any]], units: dict[str, Any]):
        """frontier.combat, frontier.fall_of_shot, frontier.effect: its dice weighed for the
        luck chart (frontier/luck.py), which reads no hits roll."""
        return luck.resolutions(events, units)

    def period(self, state: GameState) -> dict[str, Any]:
        return self.table["periods"][state.period]

    def row(self, state: GameState, unit: Unit) -> dict[str, Any]:
        return self.period(state)["units"][unit.type]

    # -- turn ----------------------------------------------------------------------------------
    def turn_steps(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        return tuple((phase, role or None) for phase, role in self.period(state)["steps"])

    def pregame(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        return ()

    def phase_rules(self, state: GameState, phase: str) -> tuple[str, ...]:
        return {"artillery": ("frontier.turn", "frontier.artillery"),
                "artillery_losses": ("frontier.turn",), "initiative": ("frontier.initiative",),
                "movement": ("frontier.turn", "frontier.move"),
                "combat": ("frontier.turn", "frontier.combat")}[phase]

    def begin_phase(self, ctx: Context) -> None:
        return None

    def resolve_phase(self, ctx: Context) -> None:
        if ctx.state.phase == "artillery_losses":
            fire.remove_marked(ctx)
            fire.check_annihilation(ctx)
        elif ctx.state.phase == "initiative":
            common.roll_initiative(ctx, "frontier.initiative")

    def end_turn(self, ctx: Context) -> None:
        return None

    def end_of_game(self, ctx: Context) -> None:
        """frontier.victory after the last turn: objectives held, then enemy units destroyed."""
        common.last_turn(ctx, "frontier.victory", "{winner} destroyed more enemy units")

    def strength(self, state: GameState, unit: Unit) -> tuple[int, int]:
        """Losses are whole units: a destroyed unit's strength is lost."""
        value = self.row(state, unit)["strength"]
        return value, value if unit.removed else 0

    def exhaustion_point(self, state: GameState, side: str, start: int) -> tuple[float, str | None]:
        return start / 3, None  # Frontier has no exhaustion rule: a reference line

    # -- the referee -------------------------------------------------------------------------
    def check(self, state: GameState, order: Order) -> None:
        if state.ended:
            raise IllegalOrder("frontier.victory", "the battle is over")
        if isinstance(order, EndPhaseOrder):
            return
        needed = ORDER_PHASE.get(order.type)
        if needed is None:
            raise IllegalOrder("frontier.turn", f"Frontier has no {order.type} order")
        if state.phase != needed:
            raise IllegalOrder("frontier.turn", f"a {order.type} order belongs to the "
                                                f"{phase_name(needed)} phase, not "
                                                f"{phase_name(state.phase)}")
        if isinstance(order, FightOrder):
            self._attackers(state, order)
            return
        unit = common.own_unit(state, order.unit, "frontier.turn")
        if isinstance(order, BombardOrder):
            self._check_bombard(state, unit, order)
        else:
            self._check_route(state, unit, order)

    def _check_bombard(self, state: GameState, unit: Unit, order: BombardOrder) -> None:
        row = self.row(state, unit)
        if row["class"] != "artillery":
            raise IllegalOrder("frontier.artillery", "only artillery fires in this phase")
        if unit.fired:
            raise IllegalOrder("frontier.artillery", f"{unit.id} has fired this turn")
        cell = tuple(order.cell)
        if not state.grid.contains(cell):
            raise IllegalOrder("grid.cells", f"{cell} is off the board")
        distance = state.grid.distance(unit.cell, cell)
        if distance > row["range"] or distance == 0:
            raise IllegalOrder("frontier.units", f"{cell} is {distance} cells away; "
                                                 f"{unit.type} reach {row['range']}")
        if distance < self.nearest_shot(state):
            raise IllegalOrder("grid.shooting", f"{cell} is next to {unit.id}: artillery "
                               "fire is shooting, at a cell not adjacent to the battery (units "
                               "side by side fight in combat, not by fire)")
        arc = state.options["arc_degrees"]
        if not state.grid.in_arc(unit.cell, unit.facing, cell, arc):
            raise IllegalOrder("grid.arc", f"{cell} is outside the {arc}-degree arc of "
                                           f"{unit.id} (facing {unit.facing})")
        if not self._enemy_in_reach(state, unit, row):
            grid = state.grid  # the in-arc enemies' distances, for the message
            seen = [grid.distance(unit.cell, e.cell) for e in state.alive(other_side(unit.side))
                    if grid.in_arc(unit.cell, unit.facing, e.cell, arc)]
            beside = " (one next to it is not: that is combat, not shooting)" if 1 in seen else ""
            raise IllegalOrder("frontier.artillery", f"{unit.id} has no enemy in range: a battery "
                                                     f"fires only when one is{beside}")

    def _enemy_in_reach(self, state: GameState, unit: Unit, row: dict[str, Any]) -> bool:
        """frontier.artillery: whether an enemy stands in the battery's arc within its reach
        (from nearest_shot to its range): it fires only then. The cheap test (distance) first:
        the arc is asked only of enemies in range."""
        near, grid, arc = self.nearest_shot(state), state.grid, state.options["arc_degrees"]
        return any(near <= grid.distance(unit.cell, e.cell) <= row["range"]
                   and grid.in_arc(unit.cell, unit.facing, e.cell, arc)
                   for e in state.alive(other_side(unit.side)))

    @staticmethod
    def nearest_shot(state: GameState) -> int:
        """frontier.artillery: the nearest cell a battery may aim at. Shooting is combat between
        units not adjacent (grid.shooting), so 2; 1 under ``bombard_adjacent`` (before schema 3).
        Every fall of shot lands next to the aimed cell, so from 2 cells on it never lands on the
        battery's own cell."""
        return 1 if state.options["bombard_adjacent"] else 2

    def fire_zone(self, state: GameState, unit: Unit) -> FireZone | None:
        row = self.row(state, unit)
        if row["class"] == "artillery":
            return FireZone(near=self.nearest_shot(state), far=row["range"],
                            arc=state.options["arc_degrees"],
                            what="artillery reach", rules=("frontier.artillery", "grid.arc"))
        return FireZone(near=1, far=1, arc=None, what="the cell it faces (combat)",
                        rules=("frontier.combat",), ahead_only=True)

    def _attackers(self, state: GameState, order: FightOrder) -> list[Unit]:
        target = common.enemy_unit(state, state.side, order.target, "frontier.combat")
        attackers = [u for u in state.alive(state.side)
                     if state.grid.step(u.cell, u.facing) == target.cell and not u.fought]
        if not attackers:
            raise IllegalOrder("frontier.combat", f"no unit of {state.side} is next to "
                                                  f"{target.id} and facing it with an attack left")
        return attackers

    def _check_route(self, state: GameState, unit: Unit, order: RouteOrder) -> None:
        if order.facing not in state.grid.facings:
            raise IllegalOrder("frontier.move", f"{order.facing!r} is not a side of a "
                                                f"{state.grid.kind} cell")
        if unit.acted:
            raise IllegalOrder("frontier.move", f"{unit.id} has already moved this turn")
        if unit.fired:
            raise IllegalOrder("frontier.artillery", f"{unit.id} fired this turn and may not move")
        if not order.path and order.facing == unit.facing:
            raise IllegalOrder("frontier.move", f"this order leaves {unit.id} as it is")
        end = self.walk(state, unit, [tuple(c) for c in order.path])
        fronting = self._fronting(state, unit, end) if order.path else []
        if fronting and state.grid.step(end, order.facing) not in {e.cell for e in fronting}:
            raise IllegalOrder("frontier.move", f"{unit.id} stops in front of "
                               f"{', '.join(e.id for e in fronting)} and must face it")

    def _fronting(self, state: GameState, unit: Unit, cell: Cell) -> list[Unit]:
        """Enemies whose front this cell is (adjacent, in their front aspect)."""
        return [e for e in state.alive(other_side(unit.side))
                if state.grid.distance(e.cell, cell) == 1
                and state.grid.aspect(e.cell, e.facing, cell) == "front"]

    def _engaged(self, state: GameState, unit: Unit) -> list[Unit]:
        """frontier.break_off: the adjacent enemy it faces (option break_off "retreat": the book's
        unit standing front to an enemy); before schema 3 ("slide") also those that face it. A
        move now is breaking off."""
        grid = state.grid
        ahead = grid.step(unit.cell, unit.facing)
        faced = state.options["break_off"] == "slide"
        return [e for e in state.alive(other_side(unit.side))
                if grid.distance(e.cell, unit.cell) == 1
                and (ahead == e.cell or faced and grid.step(e.cell, e.facing) == unit.cell)]

    def walk(self, state: GameState, unit: Unit, path: list[Cell]) -> Cell:
        """Check a route step by step (frontier.move, roads, rivers, hills, break-off); return
        where it ends. IllegalOrder for the first step the rules refuse."""
        judge = _Steps(self, state, unit)
        points, climbed, prev = 2 * judge.row["move"], 0, unit.cell
        for i, cell in enumerate(path):
            try:
                points, climbed = judge.step(prev, cell, points, climbed, last=i == len(path) - 1)
            except IllegalOrder as refused:
                crossed = any(state.terrain.get(c) == "river" for c in path[:i])
                if refused.rule == "frontier.units" and crossed:  # the river's double cost did it
                    raise IllegalOrder("frontier.rivers", refused.message) from None
                raise
            prev = cell
        return prev

    # -- consequences ------------------------------------------------------------------------
    def apply(self, ctx: Context, order: Order) -> bool:
        s = ctx.state
        if isinstance(order, BombardOrder):
            fire.bombard(ctx, self.table, s.units[order.unit], tuple(order.cell))
        elif isinstance(order, FightOrder):
            attackers = self._attackers(s, order)
            fire.fight(ctx, self.table, s.units[order.target], attackers, order.advance)
            fire.check_annihilation(ctx)
        elif isinstance(order, RouteOrder):
            self._apply_route(ctx, order)
        return False

    def _apply_route(self, ctx: Context, order: RouteOrder) -> None:
        s = ctx.state
        unit = s.units[order.unit]
        start = unit.facing
        path = tuple(tuple(c) for c in order.path)
        if path:
            rules = ["frontier.move", "frontier.units"]
            road = self.table["terrain"]["road"]
            if any(s.terrain.get(c, "open") in road for c in path):
                rules.append("frontier.roads")
            if any(s.terrain.get(c) == "river" for c in path):
                rules.append("frontier.rivers")
            if any(fire.level(s, c) for c in (unit.cell, *path)):
                rules.append("frontier.hills")
            if self._engaged(s, unit):
                rules.append("frontier.break_off")
            ctx.emit(model.UnitMoved, unit=unit.id, path=path, from_cell=unit.cell,
                     to_cell=path[-1], rules=tuple(rules))
        if order.facing != start:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=start, to_facing=order.facing,
                     used_move=not path, rules=("frontier.move",))
        unit = s.units[order.unit]
        ahead = s.units.get(getattr(s.unit_at(s.grid.step(unit.cell, unit.facing)), "id", ""))
        if ahead is not None and ahead.side != unit.side and self._turns_to(s, ahead, unit):
            ctx.emit(model.UnitTurned, unit=ahead.id, from_facing=ahead.facing,
                     to_facing=s.grid.facing_to(ahead.cell, unit.cell), rules=("frontier.combat",))

    @staticmethod
    def _turns_to(state: GameState, enemy: Unit, unit: Unit) -> bool:
        """frontier.combat: whether ``unit``, which has just ended its order next to ``enemy``
        and facing it (made contact), turns ``enemy`` to face it. The book: the enemy faces the
        last unit to make contact (option ``contact_facing`` "last"); before schema 3 only a
        contact in flank or rear turned it ("flank_rear")."""
        if state.options["contact_facing"] == "flank_rear":
            return state.grid.aspect(enemy.cell, enemy.facing, unit.cell) != "front"
        return state.grid.step(enemy.cell, enemy.facing) != unit.cell

    # -- every legal order -------------------------------------------------------------------
    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        if state.ended or state.phase is None or state.phase in self.automatic_phases:
            return []
        fights = []
        if state.phase == "combat" and unit is None:
            fights = [o for e in state.alive(other_side(state.side)) for advance in (False, True)
                      for o in [FightOrder(target=e.id, advance=advance)] if self._ok(state, o)]
        return common.side_orders(state, unit, lambda u: self._unit_orders(state, u), fights)

    def _unit_orders(self, state: GameState, u: Unit) -> list[Order]:
        if state.phase == "artillery" and self.row(state, u)["class"] == "artillery":
            if not self._enemy_in_reach(state, u, self.row(state, u)):
                return []  # _check_bombard refuses every cell then: no need to ask of each
            reach = self.row(state, u)["range"]
            near = self.nearest_shot(state)
            cells = [c for c in state.grid.cells()
                     if near <= state.grid.distance(u.cell, c) <= reach]
            return [o for o in (BombardOrder(unit=u.id, cell=c) for c in cells)
                    if self._ok(state, o)]
        if state.phase == "movement":
            return self._legal_routes(state, u)
        return []

    def _ok(self, state: GameState, order: Order) -> bool:
        return common.accepts(self, state, order)

    def _legal_routes(self, state: GameState, u: Unit) -> list[Order]:
        """Every distinct move: one route to each cell it may end on, with each facing it may end
        with there (a stop in front of an enemy faces that enemy). Routes are searched keeping,
        per cell, every way of reaching it not beaten on both points left and levels climbed."""
        if u.acted or u.fired:
            return []
        out: list[Order] = [RouteOrder(unit=u.id, facing=f) for f in state.grid.facings
                            if f != u.facing]
        judge = _Steps(self, state, u)
        labels: dict[Cell, list[tuple[int, int]]] = {u.cell: [(2 * judge.row["move"], 0)]}
        ended: dict[Cell, tuple[Cell, ...]] = {}
        frontier = [(u.cell, 2 * judge.row["move"], 0, ())]
        # a cell held by any unit, or impassable, refuses every step into it (the judge's first
        # checks, whether the unit stops there or not): skipped here without asking it twice
        closed = set(judge.occupant) | {c for c, t in state.terrain.items()
                                        if t in judge.impassable}
        while frontier:
            nxt = []
            for cell, points, climbed, path in frontier:
                for n in state.grid.neighbours(cell):
                    if n in closed or n in path or n == u.cell:
                        continue
                    # judge.step(cell, n, ..., last=True) then last=False, sharing what the two
                    # have in common (judge.enter): the rest is whether it may stop or pass there
                    try:
                        left, up = judge.enter(cell, n, points, climbed, last=True)
                    except IllegalOrder:
                        continue
                    route = (*path, n)
                    if judge.may_stop(n):
                        ended.setdefault(n, route)
                    if judge.may_pass(n) and not any(p >= left and c <= up
                                                     for p, c in labels.get(n, [])):
                        labels.setdefault(n, []).append((left, up))
                        nxt.append((n, left, up, route))
            frontier = nxt
        for n, route in ended.items():
            fronting = {e.cell for e in judge.fronting(n)}
            out += [RouteOrder(unit=u.id, path=route, facing=f) for f in state.grid.facings
                    if not fronting or state.grid.step(n, f) in fronting]
        return out


class _Steps:
    """Judges one unit's steps in one position: costs, terrain, hills, contact, break-off."""

    def __init__(self, ruleset: Frontier, state: GameState, unit: Unit) -> None:
        self.ruleset, self.state, self.unit = ruleset, state, unit
        self.row = ruleset.row(state, unit)
        self.road = ruleset.table["terrain"]["road"]
        self.impassable = ruleset.table["terrain"]["impassable"]
        self.engaged = ruleset._engaged(state, unit)
        self.others = [e for e in state.alive(other_side(unit.side)) if e not in self.engaged]
        self.occupant = {u.cell: u for u in state.alive()}  # looked up at every step
        self.every_road_cell = state.options["road_cost"] == "every"
        self.retreat = state.options["break_off"] == "retreat"
        # The cells next to an enemy it may not come into contact with, and next to the enemies
        # it breaks off from: a set look-up per step instead of a distance per enemy (equal:
        # the cells at distance 1 are exactly around()'s, on the board or not).
        around = state.grid.around
        self.near_others = ({c for e in self.others for c in around(e.cell)} if self.engaged
                            else set())
        self.near_engaged = {c for e in self.engaged for c in around(e.cell)}
        self._fronts: dict[Cell, list[Unit]] = {}

    def fronting(self, cell: Cell) -> list[Unit]:
        """Frontier._fronting for this position, found once per cell: a route search asks it
        of every cell it passes, and the units do not move while it searches (do not change the
        list)."""
        found = self._fronts.get(cell)
        if found is None:
            found = self._fronts[cell] = self.ruleset._fronting(self.state, self.unit, cell)
        return found

    def step(self, prev: Cell, cell: Cell, points: int, climbed: int, *, last: bool
             ) -> tuple[int, int]:
        """The points (in halves) and levels climbed after stepping from ``prev`` into ``cell``
        (``last``: and stopping there); IllegalOrder when the rules refuse the step."""
        found = self.enter(prev, cell, points, climbed, last=last)
        if last and not self.may_stop(cell):
            raise IllegalOrder("frontier.break_off", f"{self.unit.id} breaks off from "
                               f"{', '.join(e.id for e in self.engaged)} and retreats: it may not "
                               "end its move next to it again")
        if not last and not self.may_pass(cell):
            raise IllegalOrder("frontier.move", f"{self.unit.id} may not pass {cell}, in front "
                                                "of an enemy: it must stop there")
        return found

    def may_stop(self, cell: Cell) -> bool:
        """frontier.break_off: a unit breaking off and retreating may not end next to the enemy
        it left (step's check for a last step, once enter() has accepted it)."""
        return not (self.retreat and cell in self.near_engaged)

    def may_pass(self, cell: Cell) -> bool:
        """frontier.move: a unit may not pass a cell in front of an enemy (step's check for a
        step that is not the last, once enter() has accepted it)."""
        return not self.fronting(cell)

    def enter(self, prev: Cell, cell: Cell, points: int, climbed: int, *, last: bool
              ) -> tuple[int, int]:
        """step()'s checks but the last two (may_stop, may_pass): the same for a step that stops
        and one that goes on, but for the rule an own unit's cell is refused under. The route
        search asks them once for both."""
        s, unit, grid, row = self.state, self.unit, self.state.grid, self.row
        if grid.distance(prev, cell) != 1:
            raise IllegalOrder("grid.adjacent", f"{cell} is not next to {prev}: no diagonal moves")
        if not grid.contains(cell):
            raise IllegalOrder("grid.cells", f"{unit.id} would leave the board at {cell}")
        terrain, before = s.terrain.get(cell, "open"), s.terrain.get(prev, "open")
        if terrain in self.impassable:
            raise IllegalOrder("frontier.move", f"{cell} is {terrain}: impassable")
        occupant = self.occupant.get(cell)
        if occupant is not None and occupant.side != unit.side:
            raise IllegalOrder("grid.cells", f"{cell} is held by enemy {occupant.id}")
        if occupant is not None:
            raise IllegalOrder("grid.cells" if last else "frontier.move",
                               f"{cell} is held by {occupant.id}")
        # frontier.roads: every road cell costs half (option road_cost "every"); before schema 3
        # only a step from road to road did ("along"), the first road cell costing full
        on_road = terrain in self.road and (self.every_road_cell or before in self.road)
        if before in self.road and terrain not in self.road and points % 2:
            points -= 1  # frontier.roads: leaving the road loses a half
        cost = 1 if on_road else 4 if terrain == "river" else 2
        if cost > points:
            rule = "frontier.rivers" if terrain == "river" else (
                "frontier.roads" if before in self.road else "frontier.units")
            raise IllegalOrder(rule, f"{unit.type} have no movement left for {cell} "
                                     f"({row['move']} a turn; roads half, rivers double)")
        climbed += max(0, fire.level(s, cell) - fire.level(s, prev))
        if climbed > row["climb"]:
            raise IllegalOrder("frontier.hills", f"{unit.type} climb at most {row['climb']} "
                                                 "hill level(s) in a move")
        if self.engaged and cell in self.near_others:
            raise IllegalOrder("frontier.break_off", f"{unit.id} breaks off and may not come "
                                                     "into contact with another enemy")
        return points - cost, climbed
