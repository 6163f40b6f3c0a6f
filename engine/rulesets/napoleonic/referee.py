"""The Napoleonic grid rules (``napoleonic``): formations, commanders, 5+ to hit. The referee.

Each player turn is artillery fire, movement, musketry and melee (napoleonic.defaults: the
source names only the artillery phase). Formations (line, column, square; a battery limbered or
unlimbered) are unit state changed by orders; a commander shares a unit's cell and gives it his
bonus. Movement and its penalties are in napoleonic_move, the three kinds of combat and the
hits table in napoleonic_fire; the tables (units, modifiers) are napoleonic/table.toml.
"""

from __future__ import annotations

from typing import Any

from warlog.engine.flow import Context, phase_name
from warlog.engine.geometry import Cell
from warlog.engine.reach import FireZone
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.rulesets.common.legacy import LegacyState, LegacyUnit
from warlog.engine.rulesets.napoleonic import fire
from warlog.engine.rulesets.napoleonic import move
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets import order_kinds
from warlog.engine.rulesets.common import events as shared_events
from warlog.events import model
from warlog.events.orders import (
    BombardOrder,
    EndPhaseOrder,
    FormationOrder,
    HitChoiceOrder,
    MeleeOrder,
    Order,
    RouteOrder,
    ShootOrder,
)

PHASE_ORDERS = {"artillery": (BombardOrder,), "movement": (RouteOrder, FormationOrder),
                "musketry": (ShootOrder,), "melee": (MeleeOrder, RouteOrder)}
PHASE_RULES = {"artillery": "napoleonic.artillery_fire", "movement": "napoleonic.move.once",
               "musketry": "napoleonic.fire", "melee": "napoleonic.melee"}


class Napoleonic:
    system = "napoleonic"
    # Its records: the state and units the fold builds (the five built-in systems share them).
    State = LegacyState
    Unit = LegacyUnit
    # The orders it gives, as a player points at the board (engine/rulesets/order_kinds.py).
    orders = (order_kinds.ROUTE, order_kinds.SHOOT, order_kinds.MELEE, order_kinds.HIT_CHOICE,
              order_kinds.FORMATION, order_kinds.BOMBARD, order_kinds.END_PHASE)
    automatic_phases: frozenset[str] = frozenset()
    measure = "strength"
    checksum_rules = ("napoleonic.defaults",)
    unit_state = ("moved_cells", "aimed", "aimed_turn")

    def __init__(self) -> None:
        self.table = load_table("napoleonic")

    # -- tables and turn -----------------------------------------------------------------------
    def row(self, state: GameState, unit: Unit) -> Any:
        return move.row(state, unit, self.table)

    def turn_steps(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        steps = self.table["periods"][state.period]["steps"]
        return tuple((phase, role or None) for phase, role in steps)

    def pregame(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        return ()

    def phase_rules(self, state: GameState, phase: str) -> tuple[str, ...]:
        return ("napoleonic.defaults", PHASE_RULES[phase])

    def begin_phase(self, ctx: Context) -> None:
        return None

    def resolve_phase(self, ctx: Context) -> None:
        return None

    def end_turn(self, ctx: Context) -> None:
        return None

    def end_of_game(self, ctx: Context) -> None:
        common.last_turn(ctx, "napoleonic.victory", "removed more enemy units")

    def strength(self, state: GameState, unit: Unit) -> tuple[int, int]:
        sp = self.row(state, unit)["sp"]
        return sp, min(unit.hits, sp)

    def exhaustion_point(self, state: GameState, side: str, start: int) -> tuple[float, str | None]:
        return start / 3, None  # no exhaustion rule: a reference line

    def fire_zone(self, state: GameState, unit: Unit) -> FireZone | None:
        row, arc = self.row(state, unit), state.options["arc_degrees"]
        if row["class"] == "artillery" and move.formation(state, unit, self.table) == "unlimbered":
            return FireZone(near=1, far=row["range"], arc=arc, what="artillery range",
                            rules=("napoleonic.artillery_fire", "grid.arc"))
        if row["range"] and row["class"] != "artillery":
            return FireZone(near=2, far=row["range"], arc=arc, what="musketry range",
                            rules=("napoleonic.fire", "grid.shooting", "grid.arc"))
        return None

    # -- the referee -------------------------------------------------------------------------
    def check(self, state: GameState, order: Order) -> None:
        if state.ended:
            raise IllegalOrder("napoleonic.victory", "the battle is over")
        if common.settles_choice(state, order, "napoleonic.hits_table"):
            return
        if isinstance(order, EndPhaseOrder):
            return
        allowed = PHASE_ORDERS.get(state.phase or "", ())
        if not isinstance(order, allowed):
            raise IllegalOrder(PHASE_RULES.get(state.phase or "", "napoleonic.defaults"),
                               f"no {order.type} order in the {phase_name(state.phase)} phase")
        unit = common.own_unit(state, order.unit, "napoleonic.defaults")
        if isinstance(order, BombardOrder):
            self._check_artillery(state, unit, tuple(order.cell))
        elif isinstance(order, FormationOrder):
            self._check_formation(state, unit, order.formation)
        elif isinstance(order, RouteOrder) and state.phase == "melee":
            self._check_advance(state, unit, order)
        elif isinstance(order, RouteOrder):
            self._check_route(state, unit, order)
        elif isinstance(order, ShootOrder):
            self._check_musketry(state, unit, order.target)
        else:
            self._check_melee(state, unit, order.target)

    def _enemy(self, state: GameState, unit: Unit, target_id: str, rule: str) -> Unit:
        """The enemy ``target_id``, or the unit of its cell that takes a blow there."""
        target = common.enemy_unit(state, unit.side, target_id, rule)
        return move.occupant(state, target.cell, self.table)

    def _check_artillery(self, state: GameState, unit: Unit, cell: Cell) -> None:
        row = self.row(state, unit)
        if row["class"] != "artillery":
            raise IllegalOrder("napoleonic.artillery_fire", "only artillery fires in this phase")
        if move.formation(state, unit, self.table) != "unlimbered":
            raise IllegalOrder("napoleonic.limber", f"{unit.id} is limbered: a battery fires "
                                                    "only unlimbered")
        if unit.fired:
            raise IllegalOrder("napoleonic.artillery_fire", f"{unit.id} has fired this turn")
        if not state.grid.contains(cell):
            raise IllegalOrder("grid.cells", f"{cell} is off the board")
        target = move.occupant(state, cell, self.table)
        if target is None or target.side == unit.side:
            raise IllegalOrder("napoleonic.artillery_fire", f"there is no enemy on {cell}: a "
                                                            "battery fires at an enemy's cell")
        distance = state.grid.distance(unit.cell, cell)
        if distance > row["range"]:
            raise IllegalOrder("napoleonic.defaults", f"{cell} is {distance} cells away; "
                                                      f"{unit.type} reach {row['range']}")
        self._check_arc(state, unit, cell)
        if not fire.from_the_edge(state, unit, cell, self.table):
            raise IllegalOrder("napoleonic.fire.enclosed", f"{unit.id} is inside "
                               f"{state.terrain[unit.cell]}: it fires only from the edge")

    def _check_arc(self, state: GameState, unit: Unit, cell: Cell) -> None:
        arc = state.options["arc_degrees"]
        if not state.grid.in_arc(unit.cell, unit.facing, cell, arc):
            raise IllegalOrder("grid.arc", f"{cell} is outside the {arc}-degree arc of {unit.id} "
                                           f"(facing {unit.facing})")

    def _check_formation(self, state: GameState, unit: Unit, wanted: str) -> None:
        taken = self.row(state, unit)["formations"]
        if wanted not in taken:
            raise IllegalOrder("napoleonic.formations", f"{unit.type} takes no formation "
                               f"{wanted!r}" + (f" (only {', '.join(taken)})" if taken else ""))
        if move.formation(state, unit, self.table) == wanted:
            raise IllegalOrder("napoleonic.formations", f"{unit.id} is already {wanted}")
        if unit.reformed:
            raise IllegalOrder("napoleonic.move.reform_penalty", f"{unit.id} has changed "
                               "formation this turn: at the start or the end of its move, once")
        if move.allowance(state, unit, self.table) < move.reform_cost(state, unit, self.table):
            raise IllegalOrder("napoleonic.move.reform_penalty", f"{unit.id} has no cell of its "
                               "move left: a formation change costs one")

    def _check_route(self, state: GameState, unit: Unit, order: RouteOrder) -> None:
        if order.facing not in state.grid.facings:
            raise IllegalOrder("napoleonic.move.facing", f"{order.facing!r} is not a side of a "
                                                         f"{state.grid.kind} cell")
        move.may_move(state, unit, self.table)
        if not order.path and order.facing == unit.facing:
            raise IllegalOrder("napoleonic.move.once", f"this order leaves {unit.id} as it is")
        reach = move.allowance(state, unit, self.table)
        if len(order.path) > reach:
            raise IllegalOrder("napoleonic.defaults", f"{unit.id} may move {max(reach, 0)} cells "
                               f"now ({unit.type} {self.row(state, unit)['move']}, less a cell for "
                               "firing and for a formation change)")
        steps = move.Steps(state, unit, self.table)
        forced = steps.contact_facings(steps.walk(order.path))
        if forced and order.facing not in forced and not order.path:
            raise IllegalOrder("napoleonic.move.break_contact", f"{unit.id} is next to an enemy: "
                               f"in place it may only turn to face one ({' or '.join(forced)})")
        if forced and order.facing not in forced:
            raise IllegalOrder("napoleonic.move.contact", f"{unit.id} stops next to an enemy and "
                               f"turns to face it: end facing {' or '.join(forced)}")

    def _check_advance(self, state: GameState, unit: Unit, order: RouteOrder) -> None:
        path = [tuple(c) for c in order.path]
        if len(path) != 1 or (unit.id, path[0]) not in state.offers:
            raise IllegalOrder("napoleonic.advance", f"{unit.id} may only advance into a cell its "
                               "beaten enemy left, in the melee phase")
        if order.facing not in state.grid.facings:
            raise IllegalOrder("napoleonic.move.facing", f"{order.facing!r} is not a side of a "
                                                         f"{state.grid.kind} cell")
        if state.options["advance_facing"] == "enemy":
            forced = move.facings_toward(state, unit, path[0])
            if forced and order.facing not in forced:
                raise IllegalOrder("napoleonic.advance.facing", f"{unit.id} advances next to an "
                                   f"enemy and turns to face it: end facing {' or '.join(forced)}")

    def _check_musketry(self, state: GameState, unit: Unit, target_id: str) -> None:
        row = self.row(state, unit)
        if not row["range"] or row["class"] == "artillery":
            raise IllegalOrder("napoleonic.fire", f"{unit.type} do not fire muskets")
        if unit.shot:
            raise IllegalOrder("napoleonic.fire", f"{unit.id} has fired this turn")
        if move.allowance(state, unit, self.table) < 1:
            raise IllegalOrder("napoleonic.move.fire_penalty", f"{unit.id} moved its whole "
                               "allowance: a unit that fires moves a cell less")
        target = self._enemy(state, unit, target_id, "napoleonic.fire")
        distance = state.grid.distance(unit.cell, target.cell)
        if distance <= 1:
            raise IllegalOrder("grid.shooting", f"{target.id} is adjacent: adjacent units fight "
                                                "in melee")
        if distance > row["range"]:
            raise IllegalOrder("napoleonic.defaults", f"{target.id} is {distance} cells away; "
                                                      f"{unit.type} fire {row['range']}")
        self._check_arc(state, unit, target.cell)
        if not fire.from_the_edge(state, unit, target.cell, self.table):
            raise IllegalOrder("napoleonic.fire.enclosed", f"{unit.id} is inside "
                               f"{state.terrain[unit.cell]}: it fires only from the edge")
        if not fire.sees(state, unit, target.cell, self.table):
            raise IllegalOrder("grid.los", f"{unit.id} has no line of sight to {target.id} (fire "
                               "reaches 2 cells into woods, villages and fortifications)")

    def _check_melee(self, state: GameState, unit: Unit, target_id: str) -> None:
        row = self.row(state, unit)
        if row["class"] not in ("infantry", "cavalry", "skirmishers"):
            raise IllegalOrder("napoleonic.melee", f"{unit.type} do not attack in melee")
        if move.formation(state, unit, self.table) == "square":
            raise IllegalOrder("napoleonic.melee", f"{unit.id} is in square: it defends, it "
                                                   "does not attack")
        if unit.fought:
            raise IllegalOrder("napoleonic.melee", f"{unit.id} has fought this turn (it may "
                                                   "fight again only after an advance)")
        target = self._enemy(state, unit, target_id, "napoleonic.melee")
        if state.grid.step(unit.cell, unit.facing) != target.cell:
            raise IllegalOrder("napoleonic.melee", f"{unit.id} must be next to {target.id} and "
                                                   "face it to attack")

    # -- consequences ------------------------------------------------------------------------
    def apply(self, ctx: Context, order: Order) -> bool:
        s = ctx.state
        if isinstance(order, HitChoiceOrder):
            self._apply_choice(ctx, order)
        elif isinstance(order, BombardOrder):
            battery, cell = s.units[order.unit], tuple(order.cell)
            target = move.occupant(s, cell, self.table)
            mods = fire.artillery_modifiers(s, battery, target, self.table)
            fire.roll_fire(ctx, "artillery", battery, target, mods,
                           ["napoleonic.artillery_fire", "grid.arc",
                            *fire.situation_rules(s, battery, target, mods, self.table)],
                           self.table)
        elif isinstance(order, FormationOrder):
            unit = s.units[order.unit]
            ctx.emit(shared_events.FormationChanged, unit=unit.id,
                     from_formation=move.formation(s, unit, self.table),
                     to_formation=order.formation,
                     rules=("napoleonic.formations", "napoleonic.move.reform_penalty"))
        elif isinstance(order, RouteOrder):
            self._apply_route(ctx, order)
        elif isinstance(order, ShootOrder):
            shooter = s.units[order.unit]
            target = move.occupant(s, s.units[order.target].cell, self.table)
            mods = fire.musketry_modifiers(s, shooter, target, self.table)
            rules = ["napoleonic.fire", "grid.los", "grid.arc", "grid.shooting"]
            if shooter.moved:
                rules.append("napoleonic.move.fire_penalty")
            fire.roll_fire(ctx, "musketry", shooter, target, mods,
                           rules + fire.situation_rules(s, shooter, target, mods, self.table),
                           self.table)
        elif isinstance(order, MeleeOrder):
            attacker = s.units[order.unit]
            fire.melee(ctx, attacker, move.occupant(s, s.units[order.target].cell, self.table),
                       self.table)
        return False

    def _apply_route(self, ctx: Context, order: RouteOrder) -> None:
        s = ctx.state
        unit = s.units[order.unit]
        start, facing, turning = unit.facing, order.facing, "napoleonic.move.facing"
        if s.phase == "melee":  # napoleonic.advance
            cell = tuple(order.path[0])
            faces = s.options["advance_facing"] == "enemy" and move.facings_toward(s, unit, cell)
            if faces:
                turning = "napoleonic.advance.facing"
            ctx.emit(model.UnitMoved, unit=unit.id, path=(cell,), from_cell=unit.cell,
                     to_cell=cell, rules=("napoleonic.advance", turning) if faces
                     else ("napoleonic.advance",))
        elif order.path:
            steps = move.Steps(s, unit, self.table)
            cells = steps.walk(order.path)
            rules = ["napoleonic.move.once", "napoleonic.move.facing", "napoleonic.move.stacking"]
            if steps.faced is not None:
                rules.append("napoleonic.move.break_contact")
            if unit.fired:
                rules.append("napoleonic.move.fire_penalty" if move.shot_costs_a_cell(s)
                             else "napoleonic.move.fired_artillery")
            if unit.reformed:
                rules.append("napoleonic.move.reform_penalty")
            if steps.contact_facings(cells):
                rules.append("napoleonic.move.contact")
                turning = "napoleonic.move.contact"
            ctx.emit(model.UnitMoved, unit=unit.id, path=tuple(cells), from_cell=unit.cell,
                     to_cell=cells[-1], rules=tuple(rules))
        elif s.options["break_contact"] == "away" and move.enemies_next_to(s, unit, unit.cell):
            turning = "napoleonic.move.break_contact"  # in place, in contact: to face an enemy
        if facing != start:  # a turn in place moves no cell (option turn_in_place)
            in_place_moves = s.options["turn_in_place"] == "a_move"
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=start, to_facing=facing,
                     used_move=not order.path and in_place_moves, rules=(turning,))

    def _apply_choice(self, ctx: Context, order: HitChoiceOrder) -> None:
        s = ctx.state
        owed = s.pending[0]
        unit = s.units[order.unit]
        cell = unit.cell
        if order.choice == "lose":
            fire.lose_strength(ctx, unit, self.table)
        else:
            ctx.emit(shared_events.UnitRetreated, unit=unit.id, from_cell=cell,
                     to_cell=tuple(owed["retreat_to"]), rules=("napoleonic.hits_table",))
        if s.phase != "melee":
            return
        if s.units[owed["attacker"]].side == s.side:
            fire.offer_advance(ctx, owed["attacker"], unit.id, cell, self.table)
        elif order.choice == "lose" and s.options["advance_after_own_hit"]:
            # The attacker was hit too and stood its ground: it still won if its enemy (the
            # cell it faces, where it fought) is gone (napoleonic.advance).
            fire.offer_advance(ctx, unit.id, owed["attacker"], s.grid.step(cell, unit.facing),
                               self.table, rules=("napoleonic.advance", "napoleonic.advance.winner"))

    # -- every legal order -------------------------------------------------------------------
    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        if state.ended or state.phase is None:
            return []
        choices = common.owed_choices(state, unit)
        if choices is not None:
            return choices
        return common.side_orders(state, unit, lambda u: self._unit_orders(state, u))

    def _unit_orders(self, state: GameState, u: Unit) -> list[Order]:
        orders = [o for o in self._candidates(state, u) if common.accepts(self, state, o)]
        if state.phase == "movement":
            orders += self._legal_routes(state, u)
        return orders

    def _candidates(self, state: GameState, u: Unit):
        enemies = state.alive(other_side(u.side))
        if state.phase == "artillery":
            yield from (BombardOrder(unit=u.id, cell=c) for c in
                        dict.fromkeys(e.cell for e in enemies))
        elif state.phase == "movement":
            yield from (FormationOrder(unit=u.id, formation=f)
                        for f in self.row(state, u)["formations"])
            yield from (RouteOrder(unit=u.id, facing=f) for f in state.grid.facings
                        if f != u.facing)
        elif state.phase == "musketry":
            yield from (ShootOrder(unit=u.id, target=e.id) for e in enemies)
        elif state.phase == "melee":
            yield from (MeleeOrder(unit=u.id, target=e.id) for e in enemies)
            yield from (RouteOrder(unit=u.id, path=(cell,), facing=f)
                        for who, cell in state.offers if who == u.id for f in state.grid.facings)

    def _legal_routes(self, state: GameState, u: Unit) -> list[Order]:
        """One route to each cell the unit may end on, with each facing it may end with (a
        stop in contact faces the enemy, whatever the order says)."""
        try:
            move.may_move(state, u, self.table)
        except IllegalOrder:
            return []
        reach = move.allowance(state, u, self.table)
        steps = move.Steps(state, u, self.table)
        orders: list[Order] = []
        for path in steps.routes(reach):
            facings = steps.contact_facings(list(path)) or list(state.grid.facings)
            orders += [RouteOrder(unit=u.id, path=path, facing=f) for f in facings]
        return orders
