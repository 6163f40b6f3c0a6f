"""One Hour Wargames: is an order legal? Each check names the rule an order breaks.

The referee's checks, apart from the consequences (ohw.py) because they are most of its size
and read the position without changing it. A mixin of OneHourWargames: it reads the period's
table through the ruleset's ``period``/``row``/``mover``/``_walk``.
"""

from __future__ import annotations

from warlog.engine.flow import phase_name
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import common
from warlog.engine.rulesets.ohw import combat as ohw_combat
from warlog.engine.rulesets.ohw import phases as ohw_phases
from warlog.engine.rulesets.ohw.move import Reach, follow, turn_angle
from warlog.engine.state import GameState, Unit
from warlog.events.orders import (
    BarrageOrder,
    EndPhaseOrder,
    FormationOrder,
    MoveOrder,
    Order,
    RolesOrder,
    RouteOrder,
    ShootOrder,
    TurnToFaceOrder,
)

ORDER_PHASE = {"move": "movement", "route": "movement", "turn_to_face": "movement",
               "formation": "movement", "shoot": "shooting", "roles": "roles",
               "barrage": "barrage"}
PREGAME_RULES = {"armies": "ohw.army", "roles": "ohw.machine_age.trenches",
                 "barrage": "ohw.machine_age.barrage"}


class OrderChecks:
    """``check`` and its helpers: raise IllegalOrder(rule, reason) or return None."""

    def check(self, state: GameState, order: Order) -> None:
        if state.ended:
            raise IllegalOrder("ohw.victory", "the game is over")
        if isinstance(order, EndPhaseOrder):
            if state.phase in ("roles", "barrage"):
                what = "name the defender" if state.phase == "roles" else "name the barrage's targets"
                raise IllegalOrder(PREGAME_RULES[state.phase], f"{state.side} must first {what}")
            return
        needed = ORDER_PHASE.get(order.type)
        if needed is None:
            raise IllegalOrder("ohw.turn", f"One Hour Wargames has no {order.type} order")
        if state.phase != needed:
            raise IllegalOrder(self.turn_rule(state), f"a {order.type} order belongs to the "
                                                      f"{phase_name(needed)} phase, not "
                                                      f"{phase_name(state.phase)}")
        if isinstance(order, RolesOrder):
            return
        if isinstance(order, BarrageOrder):
            return self._check_barrage(state, order)
        unit = common.own_unit(state, order.unit, "ohw.turn")
        if isinstance(order, MoveOrder):
            self._check_move(state, unit, order)
        elif isinstance(order, RouteOrder):
            self._check_route(state, unit, order)
        elif isinstance(order, ShootOrder):
            self._check_shoot(state, unit, order)
        elif isinstance(order, FormationOrder):
            self._check_formation(state, unit, order)
        else:
            self._check_turn_to_face(state, unit, order)

    def _check_facing(self, state: GameState, facing: str | None, rule: str) -> None:
        if facing is not None and facing not in state.grid.facings:
            raise IllegalOrder(rule, f"{facing!r} is not a side of a {state.grid.kind} cell "
                                     f"(use {', '.join(state.grid.facings)})")

    def _may_move(self, state: GameState, unit: Unit) -> None:
        if unit.acted:
            raise IllegalOrder("ohw.move.once", f"{unit.id} has already moved this turn")
        if state.in_melee(unit.id):
            raise IllegalOrder("ohw.melee.locked", f"{unit.id} is in melee and cannot leave it")
        if unit.formation == "square":
            raise IllegalOrder(f"ohw.{state.period}.square", f"{unit.id} is in square and may not move")

    def _check_move(self, state: GameState, unit: Unit, order: MoveOrder) -> None:
        if self.period(state)["turning"] == "free":
            raise IllegalOrder("ohw.move.free_turns", f"{self.period(state)['name']} units move by "
                                                      "route (a path of cells), not straight ahead")
        self._may_move(state, unit)
        self._check_facing(state, order.facing, "ohw.move.straight")
        self._check_facing(state, order.end_facing, "ohw.move.straight")
        attacking = order.attack is not None
        if attacking:
            target = common.enemy_unit(state, unit.side, order.attack, "ohw.attack")
            self._check_attacker(state, unit, target)
            if turn_angle(state, unit.facing, order.facing) > 90 + 1e-6:
                raise IllegalOrder("ohw.attack", f"an attacker may turn at most 90 degrees before "
                                                 f"moving ({unit.facing} to {order.facing} is more)")
            if order.end_facing not in (None, order.facing):
                raise IllegalOrder("ohw.attack", "an attacker may not turn again after moving")
        elif order.distance == 0:
            if order.end_facing not in (None, order.facing):
                raise IllegalOrder("ohw.move.straight", "a unit that stays in its cell turns once: "
                                                        "give only the facing")
            if order.facing == unit.facing:
                raise IllegalOrder("ohw.move.once", f"this order leaves {unit.id} as it is")
        move = self.row(state, unit)["move"]
        if order.distance > move + 1:
            raise IllegalOrder(f"ohw.{state.period}.move", f"{unit.type} moves at most {move} cells "
                                                           f"({move + 1} along a road, ohw.terrain.road)")
        # a turn in place walks nowhere: no judge of steps to build
        reach = (self._walk(state, unit, order.facing, order.distance, attacking)
                 if order.distance else Reach([], None, False))
        self._check_reach(state, reach)
        if attacking:
            end = reach.cells[-1][0] if reach.cells else unit.cell
            self._check_contact(state, end, order.facing, target)

    def _check_reach(self, state: GameState, reach: Reach) -> None:
        if reach.stop is not None:
            raise reach.stop
        if reach.cells and not reach.cells[-1][1]:
            cell = reach.cells[-1][0]
            raise IllegalOrder("grid.cells", f"{cell} is occupied by {state.unit_at(cell).id}: a "
                                             "move ends on an empty cell")

    def _check_attacker(self, state: GameState, unit: Unit, target: Unit) -> None:
        """May ``unit`` attack ``target`` at all (who attacks, ammunition, squares)?"""
        period, p = self.period(state), state.period
        if "melee" not in period["phases"]:
            raise IllegalOrder(self.turn_rule(state), f"{period['name']} has no melee")
        attackers = period.get("attackers")
        if attackers is not None and unit.type not in attackers:
            raise IllegalOrder(f"ohw.{p}.attack", f"only {' and '.join(attackers)} may attack in melee")
        if unit.type in period.get("attack_unsupplied", ()) and not unit.out_of_ammo:
            raise IllegalOrder(f"ohw.{p}.attack", f"{unit.type} may attack only once out of "
                                                  "ammunition")
        if period.get("one_attacker"):
            other = next((a for a, d in state.melees if d == target.id), None)
            if other is not None:
                raise IllegalOrder(f"ohw.{p}.attack", f"{target.id} is already attacked by {other}: "
                                                      "only one unit may attack it at a time")
        if target.formation == "square":
            raise IllegalOrder(f"ohw.{p}.square", f"{target.id} is in square: Cavalry may not attack it")

    def _check_contact(self, state: GameState, end, facing: str, target: Unit) -> None:
        if state.options["attack_front_only"]:
            if state.grid.step(end, facing) != target.cell:
                raise IllegalOrder("ohw.attack.front", f"the attack must end with {target.id} "
                                                       f"directly in front ({facing} of {end})")
        elif state.grid.distance(end, target.cell) != 1:
            raise IllegalOrder("ohw.attack", f"the attack must end next to {target.id}")

    def _check_route(self, state: GameState, unit: Unit, order: RouteOrder) -> None:
        if self.period(state)["turning"] != "free":
            raise IllegalOrder("ohw.move.straight", f"{self.period(state)['name']} units move "
                                                    "straight ahead (move orders), not by route")
        self._may_move(state, unit)
        self._check_facing(state, order.facing, "ohw.move.free_turns")
        if not order.path and order.facing == unit.facing:
            raise IllegalOrder("ohw.move.once", f"this order leaves {unit.id} as it is")
        move = self.row(state, unit)["move"]
        if len(order.path) > move + 1:
            raise IllegalOrder(f"ohw.{state.period}.move", f"{unit.type} moves at most {move} cells "
                                                           f"({move + 1} along a road, ohw.terrain.road)")
        self._check_reach(state, follow(self.mover(state, unit, False), order.path))

    def _check_shoot(self, state: GameState, unit: Unit, order: ShootOrder) -> None:
        period, p, row = self.period(state), state.period, self.row(state, unit)
        if row["shoot_range"] <= 0:
            shooters = [t for t, r in period["units"].items() if r["shoot_range"] > 0]
            raise IllegalOrder(f"ohw.{p}.shooting", f"{unit.type} may not shoot "
                                                    f"(only {' and '.join(shooters)})")
        if unit.out_of_ammo:
            raise IllegalOrder(f"ohw.{p}.ammo", f"{unit.id} is out of ammunition")
        if unit.formation == "square":
            raise IllegalOrder(f"ohw.{p}.square", f"{unit.id} is in square and may not shoot")
        if unit.shot:
            raise IllegalOrder("ohw.shoot.once", f"{unit.id} has already shot this turn")
        if unit.moved and unit.type not in period["move_shoot"]:
            raise IllegalOrder(f"ohw.{p}.move_shoot", f"{unit.id} moved this turn and may not shoot")
        if state.in_melee(unit.id) and not state.options.get("shoot_in_melee"):
            raise IllegalOrder("ohw.melee.no_shooting", f"{unit.id} is in melee and may not shoot")
        target = common.enemy_unit(state, unit.side, order.target, "grid.shooting")
        distance = state.grid.distance(unit.cell, target.cell)
        if distance <= 1 and "melee" in period["phases"]:
            raise IllegalOrder("grid.shooting", f"{target.id} is adjacent: adjacent units fight in melee")
        if "spotting" in period and self._spotter(state, unit, target) is None:
            reach, indirect = period["spotting"]["range"], unit.type in period["spotting"]["indirect"]
            raise IllegalOrder(f"ohw.{p}.indirect" if indirect else f"ohw.{p}.spotting",
                               f"{unit.id} does not see {target.id} (within {reach} cells, with a "
                               "clear line of sight)" + (", nor does a friend" if indirect else ""))
        if distance > row["shoot_range"]:
            raise IllegalOrder(f"ohw.{p}.shooting", f"{target.id} is {distance} cells away; "
                                                    f"{unit.type} shoot at most {row['shoot_range']}")
        if self._arc_applies(state, unit):
            arc = state.options["arc_degrees"]
            if not state.grid.in_arc(unit.cell, unit.facing, target.cell, arc):
                raise IllegalOrder("ohw.shoot.arc", f"{target.id} is outside the {arc}-degree arc "
                                                    f"of {unit.id} (facing {unit.facing})")
        if "spotting" not in period and state.options.get("line_of_sight"):
            if not ohw_phases.clear_line(state, self.table["terrain"], unit, target):
                raise IllegalOrder("grid.los", f"{unit.id} has no line of sight to {target.id}")

    def _arc_applies(self, state: GameState, unit: Unit) -> bool:
        period = self.period(state)
        return period["shoot_arc"] and state.terrain.get(unit.cell, "open") not in period["all_round"]

    def _spotter(self, state: GameState, unit: Unit, target: Unit) -> str | None:
        """Who sees ``target`` for ``unit``'s shot: itself, or (indirect fire) a friend."""
        if (unit.id, target.id) in state.spotted:
            return unit.id
        if unit.type in self.period(state)["spotting"]["indirect"]:
            return next((a for a, b in state.spotted if b == target.id), None)
        return None

    def _check_formation(self, state: GameState, unit: Unit, order: FormationOrder) -> None:
        period, p = self.period(state), state.period
        rule = f"ohw.{p}.square"
        if "square" not in period:
            raise IllegalOrder("ohw.turn", f"{period['name']} units have no formations")
        if not state.options.get("square"):
            raise IllegalOrder(rule, "the optional square is not in play (options.square)")
        if order.formation not in ("square", "line"):
            raise IllegalOrder(rule, f"{period['name']} infantry forms square or line, not "
                                     f"{order.formation}")
        if unit.type not in period["square"]:
            raise IllegalOrder(rule, f"only {' and '.join(period['square'])} may form square")
        if order.formation == "square" and ohw_combat.after_split(state, period):
            raise IllegalOrder(rule, f"from {period['year_split']} on the square is useless "
                                     "and may not be formed")
        if unit.acted or unit.reformed:
            raise IllegalOrder(rule, f"{unit.id} changes formation only at the start of its turn")
        if state.in_melee(unit.id):
            raise IllegalOrder("ohw.melee.locked", f"{unit.id} is in melee")
        if (unit.formation or "line") == order.formation:
            raise IllegalOrder(rule, f"{unit.id} is already in {order.formation}")

    def _check_turn_to_face(self, state: GameState, unit: Unit, order: TurnToFaceOrder) -> None:
        engaged = state.engaged(unit.id)
        if order.enemy not in engaged:
            raise IllegalOrder("ohw.melee.turn_to_face", f"{unit.id} is not in melee with {order.enemy}")
        grid = state.grid
        aspects = {e: grid.aspect(unit.cell, unit.facing, state.units[e].cell) for e in engaged}
        if aspects[order.enemy] == "front":
            raise IllegalOrder("ohw.melee.turn_to_face", f"{unit.id} already faces {order.enemy}")
        front = [e for e in engaged if aspects[e] == "front"]
        if front:
            raise IllegalOrder("ohw.melee.turn_to_face", f"{unit.id} is also attacked from the "
                                                         f"front (by {front[0]}) and may not turn")

    def _check_barrage(self, state: GameState, order: BarrageOrder) -> None:
        rule, n = "ohw.machine_age.barrage", state.barrage_targets
        if len(set(order.targets)) != len(order.targets):
            raise IllegalOrder(rule, "name each target once")
        for target in order.targets:
            unit = state.units.get(target)
            if unit is None or unit.removed or unit.side != state.defender:
                raise IllegalOrder(rule, f"{target!r} is not a unit of the defender ({state.defender})")
        if len(order.targets) != n:
            raise IllegalOrder(rule, f"the barrage strikes {n} unit{'s' * (n != 1)}: name {n}")
