"""One Hour Wargames on a grid (``ohw``): the referee for all seven periods in ohw/table.toml.

A period's table (moves, ranges, modifiers, terrain access, halvings, special hooks) is data;
this module is the procedure: write an order's consequences as events citing their rules. The
checks that name the rule an illegal order breaks live in ohw_checks, movement in ohw_move, the
arithmetic of hits in ohw_combat, and the phases that play themselves (melee, removal, spotting,
armies, the barrage) in ohw_phases.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.reach import FireZone
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.rulesets.common.legacy import LegacyState, LegacyUnit
from warlog.engine.rulesets.ohw import combat as ohw_combat
from warlog.engine.rulesets.ohw import phases as ohw_phases
from warlog.engine.rulesets.ohw.checks import PREGAME_RULES, OrderChecks
from warlog.engine.rulesets.ohw.move import (
    Board,
    Mover,
    Reach,
    feature_of,
    follow,
    routes,
    turn_angle,
    walk,
)
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets import order_kinds
from warlog.engine.rulesets.common import events as shared_events
from warlog.engine.rulesets.ohw import events
from warlog.events import model
from warlog.events.orders import (
    BarrageOrder,
    FormationOrder,
    MoveOrder,
    Order,
    RolesOrder,
    RouteOrder,
    ShootOrder,
    TurnToFaceOrder,
)

class OneHourWargames(OrderChecks):
    system = "ohw"
    # Its records: the state and units the fold builds (the five built-in systems share them).
    State = LegacyState
    Unit = LegacyUnit
    # The orders it gives, as a player points at the board (engine/rulesets/order_kinds.py).
    orders = (order_kinds.MOVE, order_kinds.ROUTE, order_kinds.SHOOT, order_kinds.TURN_TO_FACE,
              order_kinds.FORMATION, order_kinds.ROLES, order_kinds.BARRAGE, order_kinds.END_PHASE)
    automatic_phases = frozenset({"melee", "removal", "spotting", "armies"})

    def __init__(self) -> None:
        self.table = load_table("ohw")
        self._steps: dict[str, tuple[tuple[str, str | None], ...]] = {}
        self._rows: dict[tuple[str, str, bool], dict[str, Any]] = {}

    # -- tables ------------------------------------------------------------------------------
    def period(self, state: GameState) -> dict[str, Any]:
        return self.table["periods"][state.period]

    def trench_cells(self, state: GameState) -> list:
        """The board's trenches (ohw.machine_age.trenches, read as the option says)."""
        return ohw_combat.trench_cells(state)

    def row(self, state: GameState, unit: Unit) -> Mapping[str, Any]:
        """The unit type's row (its ``after`` values past the year split), built once per
        period, type and side of the split. Read it, never change it: every caller shares it."""
        period = self.period(state)
        key = (state.period, unit.type, ohw_combat.after_split(state, period))
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = ohw_combat.unit_row(state, period, unit.type)
        return row

    measure = "hits"  # what the number on a unit counts
    checksum_rules = ("ohw.turn",)

    def phases(self, state: GameState) -> tuple[str, ...]:
        return tuple(self.period(state)["phases"])

    def turn_steps(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        """ohw.turn: the first player's phases, then the second player's (a period's, kept)."""
        steps = self._steps.get(state.period)
        if steps is None:
            phases = self.phases(state)
            steps = self._steps[state.period] = (tuple((p, "first") for p in phases)
                                                 + tuple((p, "second") for p in phases))
        return steps

    def end_turn(self, ctx: Context) -> None:
        return None

    def turn_rule(self, state: GameState) -> str:
        """ohw.turn, or the period's own turn sequence where it differs (no melee, spotting)."""
        return f"ohw.{state.period}.turn" if "melee" not in self.phases(state) else "ohw.turn"

    def pregame(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        steps: list[tuple[str, str | None]] = []
        if state.scenario.armies:
            steps.append(("armies", None))
        if state.options.get("trenches"):
            steps.append(("roles", None))
            steps.append(("barrage", other_side(state.defender) if state.defender else None))
        return tuple(steps)

    def phase_rules(self, state: GameState, phase: str) -> tuple[str, ...]:
        return (PREGAME_RULES[phase],) if phase in PREGAME_RULES else (self.turn_rule(state),)

    def mover(self, state: GameState, unit: Unit, attacking: bool,
              board: Board | None = None) -> Mover:
        return Mover(state, self.table["terrain"], self.period(state), unit, attacking, board)

    def _walk(self, state: GameState, unit: Unit, facing: str, steps: int, attacking: bool) -> Reach:
        return walk(state, self.table["terrain"], self.period(state), unit, facing, steps, attacking)

    # -- consequences ------------------------------------------------------------------------
    def apply(self, ctx: Context, order: Order) -> bool:
        if isinstance(order, MoveOrder):
            self._apply_move(ctx, order)
        elif isinstance(order, RouteOrder):
            self._apply_route(ctx, order)
        elif isinstance(order, ShootOrder):
            self._apply_shoot(ctx, order)
        elif isinstance(order, FormationOrder):
            unit = ctx.state.units[order.unit]
            ctx.emit(shared_events.FormationChanged, unit=unit.id, from_formation=unit.formation,
                     to_formation=order.formation, rules=(f"ohw.{ctx.state.period}.square",))
        elif isinstance(order, RolesOrder):
            self._apply_roles(ctx, order)
            return True
        elif isinstance(order, BarrageOrder):
            self._apply_barrage(ctx, order)
            return True
        elif isinstance(order, TurnToFaceOrder):
            unit, enemy = ctx.state.units[order.unit], ctx.state.units[order.enemy]
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing,
                     to_facing=ctx.state.grid.facing_to(unit.cell, enemy.cell),
                     rules=("ohw.melee.turn_to_face",))
        return False

    def _path_rules(self, state: GameState, unit: Unit, path: tuple, reach: Reach) -> list[str]:
        """The rules a move's path applied: passing friends, restricted or crossed terrain, the
        road bonus, features entered or moved within."""
        p, terrain = state.period, self.table["terrain"]
        features = feature_of(state, terrain)
        rules = []
        if any(state.unit_at(c) is not None for c in path[:-1]):
            rules.append(f"ohw.{p}.interpenetration")
        kinds = [state.terrain.get(c, "open") for c in path]
        if any(k in self.period(state).get("entry", {}) for k in kinds):
            rules.append(f"ohw.{p}.terrain")
        if any(k in terrain["crossings"] for k in kinds):
            rules.append("ohw.terrain.crossings")
        if reach.road_bonus:
            rules.append("ohw.terrain.road")
        steps = list(zip((unit.cell, *path[:-1]), path))
        if any(c in features and features.get(a) == features[c] for a, c in steps):
            rules.append("ohw.terrain.feature")
        last_from, last = steps[-1]
        if last in features and features.get(last_from) != features[last]:
            rules.append("ohw.terrain.stop")
        return rules

    def _apply_move(self, ctx: Context, order: MoveOrder) -> None:
        s = ctx.state
        unit = s.units[order.unit]
        attacking = order.attack is not None
        turn_rule = "ohw.attack" if attacking else "ohw.move.straight"
        final = order.end_facing or order.facing
        if order.distance == 0 and not attacking:  # a pivot in place
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing, to_facing=final,
                     used_move=bool(s.options["pivot_is_move"]), rules=(turn_rule, "ohw.move.pivot"))
            return
        if order.facing != unit.facing:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing,
                     to_facing=order.facing, rules=(turn_rule,))
        stopped = None
        if order.distance:
            reach = self._walk(s, unit, order.facing, order.distance, attacking)
            stopped = reach.stopped_by
            path = tuple(c for c, _ in reach.cells)
            rules = ["ohw.move.once", "ohw.move.straight", f"ohw.{s.period}.move"]
            rules += self._path_rules(s, unit, path, reach)
            if attacking:
                rules.append("ohw.attack")
            ctx.emit(model.UnitMoved, unit=unit.id, path=path, from_cell=unit.cell,
                     to_cell=path[-1], road_bonus=reach.road_bonus, stopped_by=stopped,
                     rules=tuple(dict.fromkeys(rules)))
        if attacking:
            target = s.units[order.attack]
            aspect = s.grid.aspect(target.cell, target.facing, unit.cell)
            rules = ("ohw.attack", "grid.adjacent") + (("ohw.melee.flank",) if aspect != "front" else ())
            if s.options["attack_front_only"]:
                rules += ("ohw.attack.front",)
            period = self.period(s)
            if "attackers" in period or unit.type in period.get("attack_unsupplied", ()):
                rules += (f"ohw.{s.period}.attack",)
            ctx.emit(shared_events.MeleeJoined, attacker=unit.id, defender=target.id, aspect=aspect,
                     rules=rules)
        elif final != order.facing:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=order.facing, to_facing=final,
                     rules=("ohw.move.straight",))

    def _apply_route(self, ctx: Context, order: RouteOrder) -> None:
        s = ctx.state
        unit = s.units[order.unit]
        if not order.path:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing, to_facing=order.facing,
                     used_move=bool(s.options["pivot_is_move"]),
                     rules=("ohw.move.free_turns", "ohw.move.pivot"))
            return
        start_facing = unit.facing
        reach = follow(self.mover(s, unit, False), order.path)
        path = tuple(c for c, _ in reach.cells)
        rules = ["ohw.move.once", "ohw.move.free_turns", f"ohw.{s.period}.move"]
        rules += self._path_rules(s, unit, path, reach)
        ctx.emit(model.UnitMoved, unit=unit.id, path=path, from_cell=unit.cell, to_cell=path[-1],
                 road_bonus=reach.road_bonus, stopped_by=reach.stopped_by,
                 rules=tuple(dict.fromkeys(rules)))
        if order.facing != start_facing:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=start_facing,
                     to_facing=order.facing, rules=("ohw.move.free_turns",))

    def _apply_shoot(self, ctx: Context, order: ShootOrder) -> None:
        s, p = ctx.state, ctx.state.period
        period = self.period(s)
        shooter, target = s.units[order.unit], s.units[order.target]
        attack = ohw_combat.shooting(s, period, shooter, target)
        adjacent = s.grid.distance(shooter.cell, target.cell) <= 1
        rules = ["ohw.shoot.roll", "ohw.shoot.once", *attack.rules]
        if self._arc_applies(s, shooter):
            rules += ["ohw.shoot.arc", "grid.arc"]
        elif period["all_round"] and s.terrain.get(shooter.cell, "open") in period["all_round"]:
            rules.append(f"ohw.{p}.all_round")
        rules += ["grid.distance", "ohw.shoot.adjacent" if adjacent else "grid.shooting"]
        if shooter.moved:
            rules.append(f"ohw.{p}.move_shoot")
        if s.in_melee(shooter.id):
            rules.append("ohw.melee.no_shooting")
        if "spotting" in period:
            rules.append(f"ohw.{p}.spotting")
            if self._spotter(s, shooter, target) != shooter.id:
                rules.append(f"ohw.{p}.indirect")
        elif s.options.get("line_of_sight"):
            rules.append("grid.los")
        die = ctx.roll("shooting", "ohw.shoot.roll", shooter.id)
        ohw_phases.emit_hits(ctx, "shooting", shooter, target, die, attack, rules)
        if shooter.type in period.get("ammo", ()):
            ammo = ctx.roll("ammunition", f"ohw.{p}.ammo", shooter.id)
            if ammo in period["ammo_out"]:
                ctx.emit(events.OutOfAmmo, unit=shooter.id, rules=(f"ohw.{p}.ammo",))

    def _apply_roles(self, ctx: Context, order: RolesOrder) -> None:
        s = ctx.state
        trenches = tuple(u.cell for u in s.alive(order.defender)
                         if ohw_combat.on_open_ground(s, u.cell))
        ctx.emit(events.RolesChosen, attacker=other_side(order.defender), defender=order.defender,
                 trenches=trenches, rules=("ohw.machine_age.trenches",))

    def _apply_barrage(self, ctx: Context, order: BarrageOrder) -> None:
        s = ctx.state
        for target_id in order.targets:
            target = s.units[target_id]
            attack = ohw_combat.Attack(0, False, ohw_combat.halvings(
                s, self.period(s), "barrage", None, target), ())
            die = ctx.roll(f"the barrage on {target_id}", "ohw.machine_age.barrage")
            ohw_phases.emit_hits(ctx, "barrage", None, target, die, attack,
                                 ["ohw.machine_age.barrage"])

    # -- phases that play themselves -------------------------------------------------------------
    def begin_phase(self, ctx: Context) -> None:
        if ctx.state.phase == "roles":
            ohw_phases.roll_off(ctx, "ohw.machine_age.trenches")
        elif ctx.state.phase == "barrage":
            ohw_phases.plan_barrage(ctx)

    def resolve_phase(self, ctx: Context) -> None:
        phase, period, terrain = ctx.state.phase, self.period(ctx.state), self.table["terrain"]
        if phase == "melee":
            ohw_phases.resolve_melee(ctx, period, terrain)
        elif phase == "removal":
            ohw_phases.resolve_removal(ctx)
        elif phase == "spotting":
            ohw_phases.spot(ctx, period, terrain)
        elif phase == "armies":
            ohw_phases.roll_armies(ctx)

    def end_of_game(self, ctx: Context) -> None:
        ohw_phases.end_of_game(ctx)

    def strength(self, state: GameState, unit: Unit) -> tuple[int, int]:
        """A unit can take hits_to_remove hits: hits past that count no further."""
        limit = state.options["hits_to_remove"]
        return limit, min(unit.hits, limit)

    def exhaustion_point(self, state: GameState, side: str, start: int) -> tuple[float, str | None]:
        """One Hour Wargames has no exhaustion rule: a reference line at one third."""
        return start / 3, None

    def fire_zone(self, state: GameState, unit: Unit) -> FireZone | None:
        period, p, reach = self.period(state), state.period, self.row(state, unit)["shoot_range"]
        if reach <= 0:
            return None
        arc = state.options["arc_degrees"] if self._arc_applies(state, unit) else None
        near = 2 if "melee" in period["phases"] else 1  # grid.shooting: adjacent units fight
        return FireZone(near=near, far=reach, arc=arc, what="shooting range",
                        rules=(f"ohw.{p}.shooting", "grid.shooting")
                        + (("ohw.shoot.arc", "grid.arc") if arc else ()))

    def melee_target(self, state: GameState, unit: Unit) -> tuple[Unit | None, bool]:
        return ohw_phases.melee_target(
            state, unit, attacker_only=self.period(state).get("melee_rolls") == "attacker")

    # -- every legal order -------------------------------------------------------------------
    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        if state.ended or state.phase in self.automatic_phases or state.phase is None:
            return []
        if state.phase == "roles":
            return [] if unit else [RolesOrder(defender="red"), RolesOrder(defender="blue")]
        if state.phase == "barrage":
            targets = [u.id for u in state.alive(state.defender)]
            return [] if unit else [BarrageOrder(targets=c) for c in
                                    combinations(targets, state.barrage_targets or 0)]
        board = Board(state) if state.phase == "movement" else None  # shared by every unit
        return common.side_orders(state, unit, lambda u: self._unit_orders(state, u, board))

    def _unit_orders(self, state: GameState, u: Unit, board: Board | None) -> list[Order]:
        if state.phase == "movement":
            return self._legal_moves(state, u, board)
        if state.phase == "shooting":  # an enemy out of range is no target, whatever else holds
            reach, distance = self.row(state, u)["shoot_range"], state.grid.distance
            return self._legal(state, u, [common.shoot_order(u.id, e.id)
                                          for e in state.alive(other_side(u.side))
                                          if distance(u.cell, e.cell) <= reach])
        return []

    def _legal(self, state: GameState, u: Unit, candidates: list[Order]) -> list[Order]:
        out = []
        for order in candidates:
            try:
                self.check(state, order)
            except IllegalOrder:
                continue
            out.append(order)
        return out

    def _legal_moves(self, state: GameState, u: Unit, board: Board) -> list[Order]:
        grid = state.grid
        out = self._legal(state, u, [FormationOrder(unit=u.id, formation=f)
                                     for f in ("square", "line")]) if "square" in self.period(state) else []
        if state.in_melee(u.id):
            return out + self._legal(state, u, [TurnToFaceOrder(unit=u.id, enemy=e)
                                                for e in state.engaged(u.id)])
        if u.acted or u.formation == "square":
            return out
        move = self.row(state, u)["move"]
        facings = grid.facings
        if self.period(state)["turning"] == "free":
            out += [common.route_pivot(u.id, f) for f in facings if f != u.facing]
            for _, path in routes(self.mover(state, u, False, board)):
                out += common.routes_ending(u.id, path, facings)
            return out
        mover = self.mover(state, u, False, board)  # one judge of steps for every direction
        for f, pivot, ending in common.straight_moves(u.id, move + 1, facings):
            if f != u.facing:
                out.append(pivot)
            for d, (_, can_end) in enumerate(mover.reach(f, move + 1), 1):
                if can_end:  # a walk cut short by a feature ends there: each result once
                    out += ending[d]  # the moves of d cells, one for each facing at the end
        if "melee" not in self.period(state)["phases"]:
            return out
        # An attack ends next to its enemy after at most `move` cells: none is possible while
        # every enemy is further than move + 1 cells away (most of a game, for most units).
        distance, here = grid.distance, u.cell
        if all(distance(here, c) > move + 1 for c in board.enemy_cells(u.side)):
            return out
        mover = self.mover(state, u, True, board)
        zone = board.zone(u.side)  # an attack can end only next to an enemy
        for f in facings:
            if turn_angle(state, u.facing, f) > 90 + 1e-6:
                continue
            stops = [(0, u.cell)] + [(d, c) for d, (c, ok) in enumerate(mover.reach(f, move), 1) if ok]
            for d, cell in stops:
                if cell not in zone:
                    continue
                for enemy in self._contacts(state, u, cell, f, board):
                    out += self._legal(state, u, [common.attack_order(u.id, f, d, enemy.id)])
        return out

    def _contacts(self, state: GameState, u: Unit, cell, facing: str, board: Board) -> list[Unit]:
        if state.options["attack_front_only"]:
            ahead = board.unit_at(state.grid.step(cell, facing))
            return [ahead] if ahead is not None and ahead.side != u.side else []
        return board.enemies_next_to(cell, u.side)

