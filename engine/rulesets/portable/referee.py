"""The Portable Wargame: Ancient Battles (``portable``, Bob Cordery) on a grid: the referee.

The unit table is data (portable/table.toml). A turn: the missile machines fire, both sides roll for
the initiative, then each side activates its units one at a time: a unit moves, or moves and
shoots, or moves and attacks in melee (infantry may also attack, a shot or a melee, and then
move: options.attack_then_move), and Legionaries with pila throw them before their attack
(options.pila_throw). Combat, the hit table, strength points and exhaustion are in
portable_combat. Every army's exhaustion point is recorded before the first turn; the moment an
army reaches it an ``army_exhausted`` event says so, and from the next turn on the army may not
attack or move toward the enemy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from warlog.engine.flow import Context, phase_name
from warlog.engine.geometry import Cell
from warlog.engine.reach import FireZone
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.rulesets.common.legacy import LegacyState, LegacyUnit
from warlog.engine.rulesets.portable import combat
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets import order_kinds
from warlog.engine.rulesets.common import events as shared_events
from warlog.engine.rulesets.portable import events
from warlog.events import model
from warlog.events.orders import (
    EndPhaseOrder,
    HitChoiceOrder,
    MeleeOrder,
    Order,
    RouteOrder,
    ShootOrder,
)

SIDES = ("red", "blue")
UNIT_ORDERS = (RouteOrder, ShootOrder, MeleeOrder)


class PortableWargame:
    system = "portable"
    # Its records: the state and units the fold builds (the five built-in systems share them).
    State = LegacyState
    Unit = LegacyUnit
    # The orders it gives, as a player points at the board (engine/rulesets/order_kinds.py).
    orders = (order_kinds.ROUTE, order_kinds.SHOOT, order_kinds.MELEE, order_kinds.HIT_CHOICE, order_kinds.END_PHASE)
    automatic_phases = frozenset({"initiative", "muster"})
    measure = "strength"  # what the number on a unit counts
    checksum_rules = ("portable.turn",)

    def __init__(self) -> None:
        self.table = load_table("portable")

    # -- tables and turn -----------------------------------------------------------------------
    def period(self, state: GameState) -> dict[str, Any]:
        return self.table["periods"][state.period]

    def row(self, state: GameState, unit: Unit) -> dict[str, Any]:
        return self.period(state)["units"][unit.type]

    def kind(self, state: GameState, unit: Unit) -> str:
        return self.row(state, unit)["class"]

    def turn_steps(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        return tuple((phase, role or None) for phase, role in self.period(state)["steps"])

    def pregame(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        return (("muster", None),)

    def phase_rules(self, state: GameState, phase: str) -> tuple[str, ...]:
        return {"muster": ("portable.exhaustion",), "initiative": ("portable.initiative",),
                "missile_machines": ("portable.turn", "portable.missile_machines"),
                "activation": ("portable.turn", "portable.activation")}[phase]

    def begin_phase(self, ctx: Context) -> None:
        return None

    def resolve_phase(self, ctx: Context) -> None:
        s = ctx.state
        if s.phase == "muster":
            strength = {side: combat.army_strength(s, side, self.table)[0] for side in SIDES}
            points = {side: -(-strength[side] // 3) for side in SIDES}
            ctx.emit(events.ExhaustionPoints, strength=strength, points=points,
                     rules=("portable.exhaustion",))
        elif s.phase == "initiative":
            common.roll_initiative(ctx, "portable.initiative")

    def end_turn(self, ctx: Context) -> None:
        combat.both_exhausted(ctx, self.table)

    def end_of_game(self, ctx: Context) -> None:
        combat.last_turn(ctx, self.table)

    def strength(self, state: GameState, unit: Unit) -> tuple[int, int]:
        return combat.max_sp(state, unit, self.table), combat.counted_loss(state, unit, self.table)

    def exhaustion_point(self, state: GameState, side: str, start: int) -> tuple[float, str | None]:
        return state.exhaustion.get(side, -(-start // 3)), "portable.exhaustion"

    def exhausted(self, state: GameState, side: str) -> bool:
        """Exhaustion binds from the turn after the army reached its point."""
        return side in state.exhausted and state.turn > state.exhausted[side]

    # -- the referee -------------------------------------------------------------------------
    def check(self, state: GameState, order: Order) -> None:
        if state.ended:
            raise IllegalOrder("portable.victory", "the battle is over")
        if common.settles_choice(state, order, "portable.hit_table"):
            return
        if isinstance(order, EndPhaseOrder):
            return
        if not isinstance(order, UNIT_ORDERS):
            raise IllegalOrder("portable.turn", f"the Portable Wargame has no {order.type} order")
        unit = common.own_unit(state, order.unit, "portable.turn")
        if state.phase == "missile_machines":
            if not isinstance(order, ShootOrder) or self.kind(state, unit) != "machine":
                raise IllegalOrder("portable.missile_machines", "only Missile Machines act in the "
                                   "missile-machine phase, and only to shoot")
        elif state.phase != "activation":
            raise IllegalOrder("portable.turn", f"no orders in the {phase_name(state.phase)} phase")
        elif unit.done:
            raise IllegalOrder("portable.activation", f"{unit.id} has been activated this turn")
        if isinstance(order, RouteOrder):
            self._check_route(state, unit, order)
        elif isinstance(order, ShootOrder):
            self._check_shoot(state, unit, order)
        else:
            self._check_melee(state, unit, order)

    def _may_attack(self, state: GameState, unit: Unit, *, volley: bool = False) -> None:
        """Why the unit may not attack now (``volley``: throw pila before its attack)."""
        if self.exhausted(state, unit.side):
            raise IllegalOrder("portable.exhaustion", f"{unit.side}'s army is exhausted: it may "
                                                      "hold its ground but not attack")
        if unit.fought and volley:
            raise IllegalOrder("portable.pila_throw", f"{unit.id} has already attacked this "
                               "turn: Legionaries throw their pila before their attack")
        if unit.fought:
            raise IllegalOrder("portable.activation", f"{unit.id} has already attacked this turn")
        if self.kind(state, unit) == "commander":
            raise IllegalOrder("portable.units", "a Commander does not attack")

    def _check_shoot(self, state: GameState, unit: Unit, order: ShootOrder) -> None:
        row, kind = self.row(state, unit), self.kind(state, unit)
        volley = self._pila_volley(state, unit)
        self._may_attack(state, unit, volley=volley)
        target = common.enemy_unit(state, unit.side, order.target, "portable.resolution")
        distance = state.grid.distance(unit.cell, target.cell)
        if kind == "machine" and state.phase != "missile_machines":
            raise IllegalOrder("portable.missile_machines", "Missile Machines shoot only in the "
                                                            "missile-machine phase")
        reach, near = row["range"], 2
        if row.get("pila") and reach < 2:  # portable.pila: once per battle, at range 2
            if not state.options.get("pila"):
                raise IllegalOrder("portable.pila", f"{unit.type} throw pila 2 cells only under "
                                                    "an optional rule this game leaves off "
                                                    "(options.pila)")
            if unit.pila_used:
                raise IllegalOrder("portable.pila",
                                   f"{unit.id} has thrown its pila: once per battle")
            reach, near = 2, 1 if volley else 2
        if reach < 2:
            raise IllegalOrder("portable.units", f"{unit.type} have no missiles (attack range "
                                                 "adjacent only)")
        if distance < near:
            raise IllegalOrder("grid.shooting", f"{target.id} is adjacent: attack it in melee"
                               + (" (in this game pila are the attack, and fly 2 cells: "
                                  "options.pila_throw)" if row.get("pila") else ""))
        if distance > reach:
            raise IllegalOrder("portable.units", f"{target.id} is {distance} cells away; "
                                                 f"{unit.type} reach {reach}")
        arc = state.options["arc_degrees"]
        if not state.grid.in_arc(unit.cell, unit.facing, target.cell, arc):
            raise IllegalOrder("grid.arc", f"{target.id} is outside the {arc}-degree arc of "
                                           f"{unit.id} (facing {unit.facing})")

    def fire_zone(self, state: GameState, unit: Unit) -> FireZone | None:
        row = self.row(state, unit)
        reach, what, rules = row["range"], "missile range", ("portable.units", "grid.arc")
        near = 2
        if row.get("pila") and reach < 2 and state.options.get("pila") and not unit.pila_used:
            reach, what, rules = 2, "pila (once per battle)", ("portable.pila", "grid.arc")
            if self._pila_volley(state, unit):
                near, what = 1, "pila (once per battle, before the attack)"
                rules = ("portable.pila", "portable.pila_throw", "grid.arc")
        if reach < 2:
            return None
        return FireZone(near=near, far=reach, arc=state.options["arc_degrees"], what=what,
                        rules=rules)

    def _pila_volley(self, state: GameState, unit: Unit) -> bool:
        """portable.pila_throw: this unit's pila are thrown before its attack (they are not the
        attack itself), at up to 2 cells."""
        row = self.row(state, unit)
        return (bool(row.get("pila")) and row["range"] < 2 and bool(state.options.get("pila"))
                and state.options["pila_throw"] == "before_attack")

    def _check_melee(self, state: GameState, unit: Unit, order: MeleeOrder) -> None:
        self._may_attack(state, unit)
        target = common.enemy_unit(state, unit.side, order.target, "portable.resolution")
        if self.kind(state, unit) == "machine":
            raise IllegalOrder("portable.missile_machines", "Missile Machines shoot only in the "
                                                            "missile-machine phase")
        if state.grid.distance(unit.cell, target.cell) != 1:
            raise IllegalOrder("grid.adjacent", f"{target.id} is not adjacent to {unit.id}")

    def _check_route(self, state: GameState, unit: Unit, order: RouteOrder) -> None:
        if order.facing not in state.grid.facings:
            raise IllegalOrder("portable.move", f"{order.facing!r} is not a side of a "
                                                f"{state.grid.kind} cell")
        self._may_move(state, unit)
        if not order.path and order.facing == unit.facing:
            raise IllegalOrder("portable.activation", f"this order leaves {unit.id} as it is")
        if len(order.path) > self.row(state, unit)["move"]:
            raise IllegalOrder("portable.units", f"{unit.type} move at most "
                                                 f"{self.row(state, unit)['move']} cells")
        cells, _ = self.walk(state, unit, order.path)
        if cells and not self._may_end(state, unit, cells[-1]):
            raise IllegalOrder("portable.exhaustion", f"{unit.side}'s army is exhausted: it "
                               "may not move toward the enemy")

    def _may_end(self, state: GameState, unit: Unit, end: Cell) -> bool:
        """portable.exhaustion: an exhausted army's unit may not end nearer the enemy."""
        if not self.exhausted(state, unit.side):
            return True
        return self._nearest(state, unit, end) >= self._nearest(state, unit, unit.cell)

    def _may_move(self, state: GameState, unit: Unit) -> None:
        """The reasons a unit may not move at all now, whatever the route."""
        p = self.period(state)
        if unit.acted:
            raise IllegalOrder("portable.activation", f"{unit.id} has already moved this turn")
        infantry = unit.type in p["infantry"]
        if state.options["attack_then_move"] == "infantry_melee" and unit.shot:
            raise IllegalOrder("portable.infantry_attack_move", f"{unit.id} has shot this turn: "
                               "in this game no unit moves after shooting, and only infantry "
                               "after a melee attack (options.attack_then_move)")
        if unit.fought and not infantry:
            raise IllegalOrder("portable.infantry_attack_move", f"{unit.id} has attacked this "
                               f"turn, and {unit.type} are not infantry: a unit that is not "
                               "infantry may not attack and then move")
        charged = state.units.get(unit.charged or "")
        if (self.kind(state, unit) == "mounted" and charged is not None and not charged.removed
                and state.grid.distance(unit.cell, charged.cell) == 1):
            raise IllegalOrder("portable.mounted_melee", f"{unit.type} that attacked "
                               f"{charged.id} in melee may not withdraw: only retreat or fall")

    def _nearest(self, state: GameState, unit: Unit, cell: Cell) -> int:
        return min((state.grid.distance(cell, e.cell) for e in state.alive(other_side(unit.side))),
                   default=0)

    def walk(self, state: GameState, unit: Unit, path) -> tuple[list[Cell], bool]:
        """The cells a route enters, as far as it goes (portable.move: a unit entering a cell
        next to an enemy stops there), and whether it stopped short; IllegalOrder for a step the
        rules refuse."""
        judge = _Steps(state, unit, self.table)
        cells, prev = [], unit.cell
        for i, cell in enumerate(path):
            cell = tuple(cell)
            problem = judge.problem(prev, cell, last=i == len(path) - 1)
            if problem is not None:
                raise problem
            cells.append(cell)
            prev = cell
            if cell in judge.contact and i < len(path) - 1:
                return cells, True
        return cells, False

    # -- consequences ------------------------------------------------------------------------
    def apply(self, ctx: Context, order: Order) -> bool:
        s = ctx.state
        if isinstance(order, HitChoiceOrder):
            self._apply_choice(ctx, order)
            return False
        if isinstance(order, UNIT_ORDERS) and s.phase == "activation" and s.active != order.unit:
            ctx.emit(events.UnitActivated, unit=order.unit, rules=("portable.activation",))
        if isinstance(order, RouteOrder):
            self._apply_route(ctx, order)
        elif isinstance(order, ShootOrder):
            self._apply_shoot(ctx, order)
        elif isinstance(order, MeleeOrder):
            self._apply_melee(ctx, order)
        return False

    def _apply_route(self, ctx: Context, order: RouteOrder) -> None:
        s = ctx.state
        unit = s.units[order.unit]
        start = unit.facing
        if order.path:
            cells, stopped = self.walk(s, unit, order.path)
            rules = ["portable.move", "portable.units", "portable.activation"]
            if any(s.terrain.get(c, "open") in self.period(s).get("entry", {}) for c in cells):
                rules.append("portable.terrain")
            if unit.fought:
                rules.append("portable.infantry_attack_move")
            ctx.emit(model.UnitMoved, unit=unit.id, path=tuple(cells), from_cell=unit.cell,
                     to_cell=cells[-1], stopped_by="portable.move" if stopped else None,
                     rules=tuple(rules))
        if order.facing != start:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=start, to_facing=order.facing,
                     used_move=not order.path, rules=("portable.move",))

    def _apply_shoot(self, ctx: Context, order: ShootOrder) -> None:
        s = ctx.state
        unit, target = s.units[order.unit], s.units[order.target]
        row = self.row(s, unit)
        distance = s.grid.distance(unit.cell, target.cell)
        if self.kind(s, unit) == "machine":
            kind, rules = "missile_machine", ["portable.missile_machines"]
        elif self._pila_volley(s, unit):
            kind, rules = "pila_volley", ["portable.pila", "portable.pila_throw", row["rule"]]
        elif row.get("pila") and row["range"] < 2:
            kind, rules = "pila", ["portable.pila", row["rule"]]
        else:
            kind, rules = "shooting", ["portable.units"]
            if "rule" in row:
                rules.append(row["rule"])
        rules += (["grid.shooting", "grid.distance", "grid.arc"] if distance > 1
                  else ["grid.adjacent", "grid.arc"] if kind == "pila_volley" else [])
        if combat.roll_attack(ctx, kind, unit, target, [], rules):
            combat.take_hit(ctx, s.units[target.id], s.units[unit.id], self.table)

    def _apply_melee(self, ctx: Context, order: MeleeOrder) -> None:
        s = ctx.state
        unit, target = s.units[order.unit], s.units[order.target]
        aspect = s.grid.aspect(target.cell, target.facing, unit.cell)
        facing = s.grid.facing_to(unit.cell, target.cell)
        if facing is not None and facing != unit.facing:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing, to_facing=facing,
                     rules=("portable.resolution",))
        attack_mods = combat.melee_modifiers(s, unit, target, self.table, striking_back=False,
                                             aspect=aspect)
        rules = ["grid.adjacent"] + (["portable.mounted_melee"]
                                     if self.kind(s, unit) == "mounted" else [])
        hit = combat.roll_attack(ctx, "melee", unit, target, attack_mods, rules)
        back = False
        if self.kind(s, target) != "commander":
            back_mods = combat.melee_modifiers(s, unit, target, self.table, striking_back=True,
                                               aspect=aspect)
            back = combat.roll_attack(ctx, "strike_back", s.units[target.id], s.units[unit.id],
                                      back_mods, ["grid.adjacent"])
        if hit:
            combat.take_hit(ctx, s.units[target.id], s.units[unit.id], self.table)
        if back and not s.ended:
            combat.take_hit(ctx, s.units[unit.id], s.units[target.id], self.table)

    def _apply_choice(self, ctx: Context, order: HitChoiceOrder) -> None:
        s = ctx.state
        owed = s.pending[0]
        unit = s.units[order.unit]
        if order.choice == "retreat":
            ctx.emit(shared_events.UnitRetreated, unit=unit.id, from_cell=unit.cell,
                     to_cell=tuple(owed["retreat_to"]), rules=("portable.hit_table",))
        else:
            combat.lose_strength(ctx, unit, self.table)

    # -- every legal order -------------------------------------------------------------------
    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        if state.ended or state.phase is None or state.phase in self.automatic_phases:
            return []
        choices = common.owed_choices(state, unit)
        if choices is not None:
            return choices
        return common.side_orders(state, unit, lambda u: [
            *(o for o in self._candidates(state, u) if self._ok(state, o)),
            *self._legal_routes(state, u)])

    def _ok(self, state: GameState, order: Order) -> bool:
        return common.accepts(self, state, order)

    def _candidates(self, state: GameState, u: Unit) -> Iterator[Order]:
        enemies = state.alive(other_side(u.side))
        for e in enemies:
            yield ShootOrder(unit=u.id, target=e.id)
            if state.phase == "activation":
                yield MeleeOrder(unit=u.id, target=e.id)
        if state.phase == "activation" and not u.acted and not u.done:
            yield from (RouteOrder(unit=u.id, facing=f) for f in state.grid.facings
                        if f != u.facing)

    def _legal_routes(self, state: GameState, u: Unit) -> list[Order]:
        """Every distinct move: the unit-wide conditions checked once, then one route to each
        cell it may end on (the routes are walked by the referee's own step judge)."""
        if state.phase != "activation" or u.done:
            return []
        try:
            self._may_move(state, u)
        except IllegalOrder:
            return []
        return [RouteOrder(unit=u.id, path=path, facing=f) for path in self.routes(state, u)
                if self._may_end(state, u, path[-1]) for f in state.grid.facings]

    def routes(self, state: GameState, u: Unit) -> Iterator[tuple[Cell, ...]]:
        """One shortest route to every cell the unit can end its move on (breadth first, in
        facing order, so the same route every time). Each step is judged once, by the same
        judge as the referee's walk."""
        judge = _Steps(state, u, self.table)
        return common.shortest_routes(
            state.grid, u.cell, self.row(state, u)["move"],
            lambda prev, cell, first, last: judge.problem(prev, cell, last=last) is None,
            judge.contact)


class _Steps:
    """Judges single steps of one unit's move in one position (portable.move, portable.terrain,
    grid.cells), with the enemy and contact cells worked out once."""

    def __init__(self, state: GameState, unit: Unit, table) -> None:
        self.state, self.unit = state, unit
        self.entry = table["periods"][state.period].get("entry", {})
        self.impassable = table["terrain"]["impassable"]
        self.occupant = {u.cell: u for u in state.alive()}
        enemies = [c for c, u in self.occupant.items() if u.side != unit.side]
        self.contact = {n for c in enemies for n in state.grid.neighbours(c)}

    def problem(self, prev: Cell, cell: Cell, *, last: bool) -> IllegalOrder | None:
        """Why the unit may not step from ``prev`` into ``cell`` (``last``: and stop there)."""
        s, unit = self.state, self.unit
        problem = common.ground_problem(s, unit, prev, cell, self.impassable, self.entry,
                                        "portable.terrain")
        if problem is not None:
            return problem
        occupant = self.occupant.get(cell)
        if occupant is not None and occupant.side != unit.side:
            return IllegalOrder("grid.cells", f"{cell} is held by enemy {occupant.id}")
        if occupant is not None and not last:
            return IllegalOrder("portable.move", f"{cell} is held by {occupant.id}: no unit "
                                                 "passes through another")
        if occupant is not None and occupant.id != unit.id:
            return IllegalOrder("grid.cells", f"{cell} is occupied: a move ends on an empty cell")
        return None
