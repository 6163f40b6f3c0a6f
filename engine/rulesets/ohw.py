"""One Hour Wargames on a grid (RULES.md `ohw`): the referee for every period in ohw.toml.

The period's table (moves, ranges, modifiers, terrain access, cover) is data; this module is the
procedure: check an order and name the rule it breaks, write an order's consequences as events
citing their rules, resolve the automatic Melee and Removal phases, and judge the end.
"""

from __future__ import annotations

import math
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets.ohw_move import Reach, turn_angle, walk
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit, other_side
from warlog.events import model
from warlog.events.model import EndPhaseOrder, MoveOrder, Order, ShootOrder, TurnToFaceOrder

ORDER_PHASE = {"move": "movement", "turn_to_face": "movement", "shoot": "shooting"}


def halve(value: int, times: int, mode: str) -> int:
    """ohw.halving: divide by 2 rounding up, once per reason (``each``) or at most once."""
    if mode == "once":
        times = min(times, 1)
    for _ in range(times):
        value = math.ceil(value / 2)
    return value


class OneHourWargames:
    system = "ohw"
    automatic_phases = frozenset({"melee", "removal"})

    def __init__(self) -> None:
        self.table = load_table("ohw")

    # -- tables ------------------------------------------------------------------------------
    def period(self, state: GameState) -> dict[str, Any]:
        return self.table["periods"][state.period]

    def row(self, state: GameState, unit: Unit) -> dict[str, Any]:
        return self.period(state)["units"][unit.type]

    def phases(self, state: GameState) -> tuple[str, ...]:
        return tuple(self.period(state)["phases"])

    def phase_rules(self, phase: str) -> tuple[str, ...]:
        return ("ohw.turn",)

    def _walk(self, state: GameState, unit: Unit, facing: str, steps: int, attacking: bool) -> Reach:
        return walk(state, self.table["terrain"], self.period(state), unit, facing, steps, attacking)

    # -- the referee -------------------------------------------------------------------------
    def check(self, state: GameState, order: Order) -> None:
        if state.ended:
            raise IllegalOrder("ohw.victory", "the game is over")
        if isinstance(order, EndPhaseOrder):
            return
        needed = ORDER_PHASE[order.type]
        if state.phase != needed:
            raise IllegalOrder(
                "ohw.turn", f"a {order.type} order belongs to the {needed} phase, not {state.phase}"
            )
        unit = self._own_unit(state, order.unit)
        if isinstance(order, MoveOrder):
            self._check_move(state, unit, order)
        elif isinstance(order, ShootOrder):
            self._check_shoot(state, unit, order)
        else:
            self._check_turn_to_face(state, unit, order)

    def _own_unit(self, state: GameState, unit_id: str) -> Unit:
        unit = state.units.get(unit_id)
        if unit is None or unit.removed:
            raise IllegalOrder("ohw.turn", f"there is no unit {unit_id!r} on the board")
        if unit.side != state.side:
            raise IllegalOrder("ohw.turn", f"{unit_id} is {unit.side}'s, and it is {state.side}'s turn")
        return unit

    def _enemy(self, state: GameState, unit: Unit, enemy_id: str, rule: str) -> Unit:
        enemy = state.units.get(enemy_id)
        if enemy is None or enemy.removed or enemy.side == unit.side:
            raise IllegalOrder(rule, f"{enemy_id!r} is not an enemy unit on the board")
        return enemy

    def _check_facing(self, state: GameState, facing: str | None) -> None:
        if facing is not None and facing not in state.grid.facings:
            raise IllegalOrder(
                "ohw.move.straight",
                f"{facing!r} is not a side of a {state.grid.kind} cell "
                f"(use {', '.join(state.grid.facings)})",
            )

    def _check_move(self, state: GameState, unit: Unit, order: MoveOrder) -> None:
        if unit.acted:
            raise IllegalOrder("ohw.move.once", f"{unit.id} has already moved this turn")
        if state.in_melee(unit.id):
            raise IllegalOrder("ohw.melee.locked", f"{unit.id} is in melee and cannot leave it")
        self._check_facing(state, order.facing)
        self._check_facing(state, order.end_facing)
        attacking = order.attack is not None
        if attacking:
            target = self._enemy(state, unit, order.attack, "ohw.attack")
            if turn_angle(state, unit.facing, order.facing) > 90 + 1e-6:
                raise IllegalOrder(
                    "ohw.attack", f"an attacker may turn at most 90 degrees before moving "
                    f"({unit.facing} to {order.facing} is more)"
                )
            if order.end_facing not in (None, order.facing):
                raise IllegalOrder("ohw.attack", "an attacker may not turn again after moving")
        elif order.distance == 0:
            if order.end_facing not in (None, order.facing):
                raise IllegalOrder(
                    "ohw.move.straight", "a unit that stays in its cell turns once: give only "
                    "the facing"
                )
            if order.facing == unit.facing:
                raise IllegalOrder("ohw.move.once", f"this order leaves {unit.id} as it is")
        reach = self._walk(state, unit, order.facing, order.distance, attacking)
        if reach.stop is not None:
            raise reach.stop
        if reach.cells and not reach.cells[-1][1]:
            cell = reach.cells[-1][0]
            raise IllegalOrder(
                "grid.cells", f"{cell} is occupied by {state.unit_at(cell).id}: a move ends on an "
                "empty cell"
            )
        if attacking:
            end = reach.cells[-1][0] if reach.cells else unit.cell
            self._check_contact(state, end, order.facing, target)

    def _check_contact(self, state: GameState, end, facing: str, target: Unit) -> None:
        if state.options["attack_front_only"]:
            if state.grid.step(end, facing) != target.cell:
                raise IllegalOrder(
                    "ohw.attack.front",
                    f"the attack must end with {target.id} directly in front ({facing} of {end})",
                )
        elif state.grid.distance(end, target.cell) != 1:
            raise IllegalOrder("ohw.attack", f"the attack must end next to {target.id}")

    def _check_shoot(self, state: GameState, unit: Unit, order: ShootOrder) -> None:
        p, row = state.period, self.row(state, unit)
        if row["shoot_range"] <= 0:
            shooters = [t for t, r in self.period(state)["units"].items() if r["shoot_range"] > 0]
            raise IllegalOrder(
                f"ohw.{p}.shooting", f"{unit.type} may not shoot (only {' and '.join(shooters)})"
            )
        if unit.shot:
            raise IllegalOrder("ohw.shoot.once", f"{unit.id} has already shot this turn")
        if unit.moved and not self.period(state)["moved_may_shoot"]:
            raise IllegalOrder(f"ohw.{p}.move_shoot", f"{unit.id} moved this turn and may not shoot")
        if state.in_melee(unit.id):
            raise IllegalOrder("ohw.melee.locked", f"{unit.id} is in melee and may not shoot")
        target = self._enemy(state, unit, order.target, "grid.shooting")
        distance = state.grid.distance(unit.cell, target.cell)
        if distance <= 1:
            raise IllegalOrder(
                "grid.shooting", f"{target.id} is adjacent: adjacent units fight in melee"
            )
        if distance > row["shoot_range"]:
            raise IllegalOrder(
                f"ohw.{p}.shooting",
                f"{target.id} is {distance} cells away; {unit.type} shoot at most "
                f"{row['shoot_range']}",
            )
        arc = state.options["arc_degrees"]
        if not state.grid.in_arc(unit.cell, unit.facing, target.cell, arc):
            raise IllegalOrder(
                "ohw.shoot.arc",
                f"{target.id} is outside the {arc}-degree arc of {unit.id} (facing {unit.facing})",
            )

    def _check_turn_to_face(self, state: GameState, unit: Unit, order: TurnToFaceOrder) -> None:
        engaged = state.engaged(unit.id)
        if order.enemy not in engaged:
            raise IllegalOrder(
                "ohw.melee.turn_to_face", f"{unit.id} is not in melee with {order.enemy}"
            )
        grid = state.grid
        aspects = {e: grid.aspect(unit.cell, unit.facing, state.units[e].cell) for e in engaged}
        if aspects[order.enemy] == "front":
            raise IllegalOrder("ohw.melee.turn_to_face", f"{unit.id} already faces {order.enemy}")
        front = [e for e in engaged if aspects[e] == "front"]
        if front:
            raise IllegalOrder(
                "ohw.melee.turn_to_face",
                f"{unit.id} is also attacked from the front (by {front[0]}) and may not turn",
            )

    # -- consequences ------------------------------------------------------------------------
    def apply(self, ctx: Context, order: Order) -> None:
        if isinstance(order, MoveOrder):
            self._apply_move(ctx, order)
        elif isinstance(order, ShootOrder):
            self._apply_shoot(ctx, order)
        elif isinstance(order, TurnToFaceOrder):
            unit, enemy = ctx.state.units[order.unit], ctx.state.units[order.enemy]
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing,
                     to_facing=ctx.state.grid.facing_to(unit.cell, enemy.cell),
                     rules=("ohw.melee.turn_to_face",))

    def _apply_move(self, ctx: Context, order: MoveOrder) -> None:
        s = ctx.state
        unit = s.units[order.unit]
        attacking = order.attack is not None
        turn_rule = "ohw.attack" if attacking else "ohw.move.straight"
        final = order.end_facing or order.facing
        if order.distance == 0 and not attacking:  # a pivot in place
            pivot_moves = bool(s.options["pivot_is_move"])
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing, to_facing=final,
                     used_move=pivot_moves, rules=(turn_rule, "ohw.move.pivot"))
            return
        if order.facing != unit.facing:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=unit.facing,
                     to_facing=order.facing, rules=(turn_rule,))
        if order.distance:
            reach = self._walk(s, unit, order.facing, order.distance, attacking)
            path = tuple(c for c, _ in reach.cells)
            rules = ["ohw.move.once", "ohw.move.straight", f"ohw.{s.period}.move"]
            period = self.period(s)
            if any(s.unit_at(c) is not None for c in path[:-1]):
                rules.append(f"ohw.{s.period}.interpenetration")
            if any(s.scenario.terrain_at(c) in period.get("entry", {}) for c in path):
                rules.append(f"ohw.{s.period}.terrain")
            if reach.road_bonus:
                rules.append("ohw.terrain.road")
            if s.scenario.terrain_at(path[-1]) not in ("open", *self.table["terrain"]["no_stop"]):
                rules.append("ohw.terrain.stop")
            if attacking:
                rules.append("ohw.attack")
            ctx.emit(model.UnitMoved, unit=unit.id, path=path, from_cell=unit.cell,
                     to_cell=path[-1], road_bonus=reach.road_bonus, rules=tuple(rules))
        if attacking:
            target = s.units[order.attack]
            aspect = s.grid.aspect(target.cell, target.facing, unit.cell)
            rules = ("ohw.attack", "grid.adjacent") + (
                ("ohw.melee.flank",) if aspect != "front" else ()
            )
            if s.options["attack_front_only"]:
                rules += ("ohw.attack.front",)
            ctx.emit(model.MeleeJoined, attacker=unit.id, defender=target.id, aspect=aspect,
                     rules=rules)
        elif final != order.facing:
            ctx.emit(model.UnitTurned, unit=unit.id, from_facing=order.facing, to_facing=final,
                     rules=("ohw.move.straight",))

    def _hits(self, ctx: Context, attack: str, source: Unit, target: Unit, die: int,
              modifier: int, doubled: bool, halvings: list[tuple[str, str]],
              rules: list[str]) -> None:
        s = ctx.state
        base = max(0, die + modifier)
        value = base * 2 if doubled else base
        hits = halve(value, len(halvings), s.options["halving"])
        rules += [rule for _, rule in halvings]
        if halvings:
            rules.append("ohw.halving")
        ctx.emit(model.HitsInflicted, attack=attack, source=source.id, target=target.id,
                 die=die, modifier=modifier, base=base, doubled=doubled,
                 halvings=tuple(name for name, _ in halvings), hits=hits,
                 total=target.hits + hits, rules=tuple(dict.fromkeys(rules)))

    def _apply_shoot(self, ctx: Context, order: ShootOrder) -> None:
        s, p = ctx.state, ctx.state.period
        shooter, target = s.units[order.unit], s.units[order.target]
        period = self.period(s)
        die = ctx.roll("shooting", "ohw.shoot.roll", shooter.id)
        halvings = []
        if s.scenario.terrain_at(target.cell) in period["cover"]:
            halvings.append(("cover", f"ohw.{p}.cover"))
        if self.row(s, target)["armour"]:
            halvings.append(("armour", f"ohw.{p}.armour"))
        self._hits(ctx, "shooting", shooter, target, die, self.row(s, shooter)["shoot_modifier"],
                   False, halvings, ["ohw.shoot.roll", "ohw.shoot.once", f"ohw.{p}.shooting",
                                     "ohw.shoot.arc", "grid.arc", "grid.distance", "grid.shooting"])

    # -- automatic phases ----------------------------------------------------------------------
    def resolve_phase(self, ctx: Context) -> None:
        if ctx.state.phase == "melee":
            self._resolve_melee(ctx)
        elif ctx.state.phase == "removal":
            self._resolve_removal(ctx)

    def melee_target(self, state: GameState, unit: Unit) -> tuple[Unit | None, bool]:
        """ohw.melee.target: the enemy this unit fights, and whether it had to choose."""
        limit = state.options["hits_to_remove"]
        engaged = [state.units[e] for e in state.engaged(unit.id)]
        live = [e for e in engaged if e.hits < limit]
        if not live:
            return None, False
        chose = len(engaged) > 1
        for e in live:
            if e.id == unit.attacked:
                return e, chose
        for e in live:
            if state.grid.aspect(unit.cell, unit.facing, e.cell) == "front":
                return e, chose
        return live[0], chose

    def _resolve_melee(self, ctx: Context) -> None:
        s, p = ctx.state, ctx.state.period
        for unit in s.alive(s.side):
            target, chose = self.melee_target(s, unit)
            if target is None:
                continue
            die = ctx.roll("melee", "ohw.melee.own_turn", unit.id)
            rules = ["ohw.melee.own_turn", f"ohw.{p}.melee"]
            if chose:
                rules.append("ohw.melee.target")
            doubled = s.grid.aspect(target.cell, target.facing, unit.cell) != "front"
            if doubled:
                rules.append("ohw.melee.flank")
            halvings = []
            if s.scenario.terrain_at(target.cell) in self.period(s)["defensive"]:
                halvings.append(("defensive position", f"ohw.{p}.defensive"))
            if self.row(s, target)["armour"]:
                halvings.append(("armour", f"ohw.{p}.armour"))
            self._hits(ctx, "melee", unit, target, die, self.row(s, unit)["melee_modifier"],
                       doubled, halvings, rules)

    def _resolve_removal(self, ctx: Context) -> None:
        s = ctx.state
        limit = s.options["hits_to_remove"]
        for unit in s.alive():
            if unit.hits >= limit:
                ctx.emit(model.UnitRemoved, unit=unit.id, hits=unit.hits, rules=("ohw.removal",))
        left = {side: len(s.alive(side)) for side in ("red", "blue")}
        if left["red"] and left["blue"]:
            return
        winner = "red" if left["red"] else "blue" if left["blue"] else None
        loser = other_side(winner) if winner else "both sides"
        ctx.emit(model.GameEnded, winner=winner, reason=f"{loser} has no units left",
                 rules=("ohw.victory",))

    def end_of_game(self, ctx: Context) -> None:
        s = ctx.state
        held = {"red": 0, "blue": 0}
        for cell in s.scenario.victory.objectives:
            unit = s.unit_at(tuple(cell))
            if unit is not None:
                held[unit.side] += 1
        removed = {side: sum(1 for u in s.units.values() if u.removed and u.side != side)
                   for side in ("red", "blue")}
        turns = s.scenario.victory.turn_limit
        if held["red"] != held["blue"]:
            winner = "red" if held["red"] > held["blue"] else "blue"
            reason = f"after {turns} turns {winner} holds more objectives"
        elif removed["red"] != removed["blue"]:
            winner = "red" if removed["red"] > removed["blue"] else "blue"
            reason = f"after {turns} turns objectives are even; {winner} removed more enemy units"
        else:
            winner, reason = None, f"after {turns} turns: a draw"
        ctx.emit(model.GameEnded, winner=winner, reason=reason, objectives=held,
                 rules=("ohw.victory",), phase=None, side=None)

    # -- every legal order -------------------------------------------------------------------
    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        if state.ended or state.phase in self.automatic_phases or state.phase is None:
            return []
        units = [state.units[unit]] if unit is not None else state.alive(state.side)
        orders: list[Order] = []
        for u in units:
            if u.removed or u.side != state.side:
                continue
            if state.phase == "movement":
                orders += self._legal_moves(state, u)
            elif state.phase == "shooting":
                orders += self._legal_shots(state, u)
        if unit is None:
            orders.append(EndPhaseOrder())
        return orders

    def _legal_moves(self, state: GameState, u: Unit) -> list[Order]:
        grid, out = state.grid, []
        if state.in_melee(u.id):
            for e in state.engaged(u.id):
                try:
                    self._check_turn_to_face(state, u, TurnToFaceOrder(unit=u.id, enemy=e))
                except IllegalOrder:
                    continue
                out.append(TurnToFaceOrder(unit=u.id, enemy=e))
            return out
        if u.acted:
            return out
        move = self.row(state, u)["move"]
        for f in grid.facings:
            if f != u.facing:
                out.append(MoveOrder(unit=u.id, facing=f, distance=0))
            reach = self._walk(state, u, f, move + 1, False)
            for d, (_, can_end) in enumerate(reach.cells, 1):
                if can_end:
                    out += [MoveOrder(unit=u.id, facing=f, distance=d,
                                      end_facing=None if ef == f else ef) for ef in grid.facings]
        for f in grid.facings:
            if turn_angle(state, u.facing, f) > 90 + 1e-6:
                continue
            reach = self._walk(state, u, f, move, True)
            stops = [(0, u.cell)] + [(d, c) for d, (c, ok) in enumerate(reach.cells, 1) if ok]
            for d, cell in stops:
                for enemy in self._contacts(state, u, cell, f):
                    out.append(MoveOrder(unit=u.id, facing=f, distance=d, attack=enemy.id))
        return out

    def _contacts(self, state: GameState, u: Unit, cell, facing: str) -> list[Unit]:
        if state.options["attack_front_only"]:
            ahead = state.unit_at(state.grid.step(cell, facing))
            return [ahead] if ahead is not None and ahead.side != u.side else []
        return [e for e in state.alive() if e.side != u.side and state.grid.distance(cell, e.cell) == 1]

    def _legal_shots(self, state: GameState, u: Unit) -> list[Order]:
        out = []
        for enemy in state.alive():
            if enemy.side == u.side:
                continue
            order = ShootOrder(unit=u.id, target=enemy.id)
            try:
                self._check_shoot(state, u, order)
            except IllegalOrder:
                continue
            out.append(order)
        return out
