"""Ancient battles with formation density (``density``) on a grid: the referee.

A player turn: the phasing side's units each take one action (move, shoot or reform; a unit in
contact with an enemy may not act), then every pair in contact fights a melee, then units with
enough hits are removed. A unit's density decides how far it moves and how likely it is to lose
its order on rough ground, passing friends or turning in place; figures out of formation weaken
its die until it reforms. Movement and the disorder tests are in density_move; shooting, melee
(One Hour Wargames' arithmetic in the period option ``combat`` names), removal and the end of the
battle in density_combat.
"""

from __future__ import annotations

from typing import Any

from warlog.engine.flow import Context, phase_name
from warlog.engine.reach import FireZone
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.rulesets.common.legacy import LegacyState, LegacyUnit
from warlog.engine.rulesets.density import combat
from warlog.engine.rulesets.density import move
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets import order_kinds
from warlog.engine.rulesets.common import events as shared_events
from warlog.engine.rulesets.density import events
from warlog.events import model
from warlog.events.orders import EndPhaseOrder, Order, ReformOrder, RouteOrder, ShootOrder

ACTIONS = (RouteOrder, ShootOrder, ReformOrder)
PHASE_RULES = {"actions": ("density.actions",), "melee": ("density.actions", "density.melee"),
               "removal": ("density.removal",)}


class Density:
    system = "density"
    # Its records: the state and units the fold builds (the five built-in systems share them).
    State = LegacyState
    Unit = LegacyUnit
    # The orders it gives, as a player points at the board (engine/rulesets/order_kinds.py).
    orders = (order_kinds.ROUTE, order_kinds.SHOOT, order_kinds.REFORM, order_kinds.END_PHASE)
    automatic_phases = frozenset({"melee", "removal"})
    checksum_rules = ("density.actions",)
    measure = "hits"  # the number on a unit: hits taken (density.removal)
    unit_state = ("disordered",)  # figures out of formation join the state checksum

    def __init__(self) -> None:
        self.table = load_table("density")

    def period(self, state: GameState) -> dict[str, Any]:
        return self.table["periods"][state.period]

    def move_words(self, state: GameState, unit: Unit) -> str | None:
        """density.move: the allowance follows the unit's density, not its type (the board's
        hover shows the arithmetic); None for a unit placed without a density."""
        if unit.density is None:
            return None
        return move.allowance_words(state, self.period(state), unit)

    # -- turn ----------------------------------------------------------------------------------
    def turn_steps(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        """density.actions: the first player's actions, melee and removal, then the second's."""
        phases = self.period(state)["phases"]
        return tuple((p, "first") for p in phases) + tuple((p, "second") for p in phases)

    def pregame(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        return ()

    def phase_rules(self, state: GameState, phase: str) -> tuple[str, ...]:
        return PHASE_RULES[phase]

    def begin_phase(self, ctx: Context) -> None:
        return None

    def resolve_phase(self, ctx: Context) -> None:
        if ctx.state.phase == "melee":
            combat.resolve_melee(ctx)
        elif ctx.state.phase == "removal":
            combat.resolve_removal(ctx)

    def end_turn(self, ctx: Context) -> None:
        return None

    def end_of_game(self, ctx: Context) -> None:
        combat.end_of_game(ctx)

    def strength(self, state: GameState, unit: Unit) -> tuple[int, int]:
        """A unit can take hits_to_remove hits: hits past that count no further."""
        limit = state.options["hits_to_remove"]
        return limit, min(unit.hits, limit)

    def exhaustion_point(self, state: GameState, side: str, start: int) -> tuple[float, str | None]:
        return start / 3, None  # no exhaustion rule: a reference line

    def fire_zone(self, state: GameState, unit: Unit) -> FireZone | None:
        reach = combat.ohw_row(state, unit)["shoot_range"]
        if reach <= 0:
            return None
        return FireZone(near=2, far=reach, arc=state.options["arc_degrees"], what="shooting range",
                        rules=(f"ohw.{state.options['combat']}.shooting", "grid.shooting",
                               "ohw.shoot.arc", "grid.arc"))

    # -- the referee -------------------------------------------------------------------------
    def check(self, state: GameState, order: Order) -> None:
        if state.ended:
            raise IllegalOrder("density.victory", "the battle is over")
        if isinstance(order, EndPhaseOrder):
            return
        if not isinstance(order, ACTIONS):
            raise IllegalOrder("density.actions", f"the density rules have no {order.type} order: "
                                                  "a unit moves (a route), shoots or reforms")
        if state.phase != "actions":
            raise IllegalOrder("density.actions", f"units act in the actions phase, not in "
                                                  f"{phase_name(state.phase)}")
        unit = common.own_unit(state, order.unit, "density.actions")
        self._may_act(state, unit)
        if isinstance(order, RouteOrder):
            self._check_route(state, unit, order)
        elif isinstance(order, ShootOrder):
            self._check_shoot(state, unit, order)
        elif not unit.disordered:
            raise IllegalOrder("density.disorder_test", f"{unit.id} has no figures out of "
                                                        "formation to bring back")

    def _may_act(self, state: GameState, unit: Unit) -> None:
        """density.actions: one action a turn, and none for a unit in contact."""
        if unit.acted or unit.shot or unit.reformed:
            raise IllegalOrder("density.actions", f"{unit.id} has taken its action this turn")
        touching = combat.contacts(state, unit)
        if touching:
            raise IllegalOrder("density.actions", f"{unit.id} is in contact with "
                               f"{' and '.join(e.id for e in touching)} (an enemy in an adjacent "
                               "cell, density.contact) and may not act")

    def _acts(self, state: GameState, unit: Unit) -> bool:
        try:
            self._may_act(state, unit)
        except IllegalOrder:
            return False
        return True

    def _may_shoot(self, state: GameState, unit: Unit, order: ShootOrder) -> bool:
        """The shot's own conditions, for a unit already known to be free to act."""
        try:
            self._check_shoot(state, unit, order)
        except IllegalOrder:
            return False
        return True

    def _check_route(self, state: GameState, unit: Unit, order: RouteOrder) -> None:
        if order.facing not in state.grid.facings:
            raise IllegalOrder("density.move", f"{order.facing!r} is not a side of a "
                               f"{state.grid.kind} cell (use {', '.join(state.grid.facings)})")
        if not order.path:
            if order.facing == unit.facing:
                raise IllegalOrder("density.turn_in_place", f"this order leaves {unit.id} as it is")
            return
        move.walk(state, self.table, unit, order.path, order.facing)

    def _check_shoot(self, state: GameState, unit: Unit, order: ShootOrder) -> None:
        p, row = state.options["combat"], combat.ohw_row(state, unit)
        if row["shoot_range"] <= 0:
            units = combat.combat_period(state)["units"]
            shooters = [t for t, r in units.items() if r["shoot_range"] > 0]
            raise IllegalOrder(f"ohw.{p}.shooting", f"{unit.type} may not shoot (only "
                                                    f"{' and '.join(shooters)})")
        target = state.units.get(order.target)
        if target is None or target.removed or target.side == unit.side:
            raise IllegalOrder("grid.shooting", f"{order.target!r} is not an enemy unit on the "
                                                "board")
        distance = state.grid.distance(unit.cell, target.cell)
        if distance > row["shoot_range"]:
            raise IllegalOrder(f"ohw.{p}.shooting", f"{target.id} is {distance} cells away; "
                               f"{unit.type} shoot at most {row['shoot_range']}")
        arc = state.options["arc_degrees"]
        if not state.grid.in_arc(unit.cell, unit.facing, target.cell, arc):
            raise IllegalOrder("ohw.shoot.arc", f"{target.id} is outside the {arc}-degree arc of "
                                                f"{unit.id} (facing {unit.facing})")

    # -- consequences ------------------------------------------------------------------------
    def apply(self, ctx: Context, order: Order) -> bool:
        s = ctx.state
        unit = s.units[order.unit]
        if isinstance(order, ShootOrder):
            combat.shoot(ctx, unit, s.units[order.target])
        elif isinstance(order, ReformOrder):
            ctx.emit(events.UnitReformed, unit=unit.id, figures=unit.disordered,
                     rules=("density.actions", "density.disorder_test"))
        elif order.path:
            self._apply_route(ctx, unit, order)
        else:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing,
                     to_facing=order.facing, used_move=True,
                     rules=("density.actions", "density.turn_in_place"))
            move.disorder_test(ctx, s.units[unit.id], "turn", ("density.turn_in_place",))
        return False

    def _apply_route(self, ctx: Context, unit: Unit, order: RouteOrder) -> None:
        s = ctx.state
        route = move.walk(s, self.table, unit, order.path, order.facing)
        start = unit.facing
        rules = ["density.actions", "density.move", "density.grid_scale"]
        if s.options["allowance_rounding"] == "nearest":  # before schema 3 it was not cited
            rules.append("density.rounding")
        if route.turned:
            rules.append("density.wheel")
        if any(reason == "friends" for reason, _, _ in route.tests):
            rules.append("density.pass_through")
        if any(reason == "terrain" for reason, _, _ in route.tests) or any(
                c in s.terrain for c in route.cells):
            rules += ["density.terrain", "density.features"]
        ctx.emit(model.UnitMoved, unit=unit.id, path=route.cells, from_cell=unit.cell,
                 to_cell=route.cells[-1], rules=tuple(dict.fromkeys(rules)))
        for test in route.tests:
            move.disorder_test(ctx, s.units[unit.id], test[0], move.rules_of_test(self.table, test))
        if order.facing != start:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=start, to_facing=order.facing,
                     rules=("density.move", "density.wheel"))
        mover = s.units[unit.id]
        for enemy in combat.contacts(s, mover):
            ctx.emit(shared_events.MeleeJoined, attacker=mover.id, defender=enemy.id,
                     aspect=s.grid.aspect(enemy.cell, enemy.facing, mover.cell),
                     rules=("density.contact", "grid.adjacent"))

    # -- every legal order -------------------------------------------------------------------
    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        if state.ended or state.phase != "actions":
            return []
        return common.side_orders(state, unit, lambda u: self._unit_orders(state, u))

    def _unit_orders(self, state: GameState, u: Unit) -> list[Order]:
        orders: list[Order] = []
        if self._acts(state, u):
            if u.disordered:
                orders.append(ReformOrder(unit=u.id))
            if combat.ohw_row(state, u)["shoot_range"] > 0:
                orders += [o for o in (ShootOrder(unit=u.id, target=e.id)
                                       for e in state.alive(other_side(u.side)))
                           if self._may_shoot(state, u, o)]
            orders += [RouteOrder(unit=u.id, facing=f) for f in state.grid.facings
                       if f != u.facing]
            orders += [RouteOrder(unit=u.id, path=path, facing=f)
                       for path, f in move.routes(state, self.table, u)]
        return orders
