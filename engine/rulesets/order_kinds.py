"""The order vocabulary: how a person gives each type of order by pointing at the board.

A rule system lists the kinds of order it uses (``Ruleset.orders``); each kind says, for one
order, what a player points at to give it (a cell to move to, an enemy to shoot or attack, a
cell to fire at, a button beside the selected unit or for the whole side), what the button or
choice says, and which unit it is for. The pages that play a game (and the reach drawn for a
selected unit) read only this and the system's own ``legal_orders``: they hold no code of any
system, and what they draw is exactly what the referee accepts.

The kinds here are the ones the five bundled systems share (several use the same order
models); a new system may list these or define kinds of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from warlog.engine.state import GameState
from warlog.events.orders import FightOrder, MoveOrder, Order, RouteOrder

Cell = tuple[int, int]
How = Literal["cell", "enemy", "aim", "unit", "side"]
"""``cell``: click the cell a move ends on; ``enemy``: click the enemy it shoots or attacks;
``aim``: click a cell it fires at; ``unit``: a button beside the selected unit; ``side``: a
button for the side (an order no single unit gives)."""


@dataclass(frozen=True)
class Gesture:
    """What a player points at to give one order: ``how``, and the cell or the enemy's id
    (``at``) for the pointing kinds."""

    how: How
    at: Cell | str | None = None


@dataclass(frozen=True)
class OrderKind:
    """One type of order as a player gives it. ``gesture`` and ``label`` read the order only
    (and the state, for where a move ends); ``takes_part``: whether a unit joins a side's order
    (Frontier's combat: every unit facing the target), for a kind whose orders name no unit."""

    type: str
    words: str  # what the kind is, for a legend or a help line
    unit: Callable[[Order], str | None]
    gesture: Callable[[GameState, Order], Gesture]
    label: Callable[[Order], str]
    takes_part: Callable[[GameState, str, Order], bool] | None = None
    strikes: bool = False
    """Whether pointing it at an enemy attacks that enemy (shoot, melee, charge, fight), not
    only turns toward it: a unit's reach rings only the enemies it may strike."""
    ends_on: Callable[[GameState, Order], Cell | None] = lambda state, order: None
    """The cell a moving order leaves its unit on (a charge's too), for the dots of a unit's
    reach; None for an order that does not move it."""
    rank: Callable[[GameState, Order], int] = lambda state, order: 0
    """How plain the order is among those one click offers: 0 the natural one a plain click
    gives at once (a move that ends facing the way it went), higher an alternative given only
    on request (a last turn to another facing 1, an attack on arrival 2)."""


def _move_end(state: GameState, order: MoveOrder) -> Cell:
    cell = state.units[order.unit].cell
    for _ in range(order.distance):
        cell = state.grid.step(cell, order.facing)
    return cell


def _move_gesture(state: GameState, order: MoveOrder) -> Gesture:
    if order.attack is not None:
        return Gesture("enemy", order.attack)
    if order.distance == 0:
        return Gesture("unit")
    return Gesture("cell", _move_end(state, order))


def _move_label(order: MoveOrder) -> str:
    if order.distance == 0 and order.attack is None:
        return f"turn to face {order.facing}"
    text = f"{order.distance} {'cell' if order.distance == 1 else 'cells'} {order.facing}"
    if order.end_facing is not None and order.end_facing != order.facing:
        text += f", then face {order.end_facing}"
    if order.attack is not None:
        text = f"charge {order.attack}" + (f" ({text})" if order.distance else "")
    return text


def _move_rank(state: GameState, order: MoveOrder) -> int:
    if order.attack is not None:
        return 2
    return 0 if order.end_facing in (None, order.facing) else 1


def _route_rank(state: GameState, order: RouteOrder) -> int:
    """A route ending facing the way its last step went is plain; one that also turns is not."""
    if not order.path:
        return 0
    before = tuple(order.path[-2]) if len(order.path) > 1 else state.units[order.unit].cell
    return 0 if state.grid.facing_to(before, tuple(order.path[-1])) == order.facing else 1


def _route_gesture(state: GameState, order: RouteOrder) -> Gesture:
    return Gesture("cell", tuple(order.path[-1])) if order.path else Gesture("unit")


def _route_label(order: RouteOrder) -> str:
    if not order.path:
        return f"turn to face {order.facing}"
    steps = len(order.path)
    return f"{steps} {'cell' if steps == 1 else 'cells'}, ending facing {order.facing}"


def _fight_takes_part(state: GameState, unit: str, order: FightOrder) -> bool:
    """A unit joins its side's combat against the enemy it faces, next to it."""
    u = state.units[unit]
    return state.grid.step(u.cell, u.facing) == state.units[order.target].cell


MOVE = OrderKind("move", "move straight ahead, turn, or charge an enemy",
                 unit=lambda o: o.unit, gesture=_move_gesture, label=_move_label, strikes=True,
                 ends_on=lambda s, o: _move_end(s, o) if o.distance else None, rank=_move_rank)
ROUTE = OrderKind("route", "move cell by cell and end facing a way, or turn in place",
                  unit=lambda o: o.unit, gesture=_route_gesture, label=_route_label,
                  ends_on=lambda s, o: tuple(o.path[-1]) if o.path else None, rank=_route_rank)
SHOOT = OrderKind("shoot", "shoot at an enemy", unit=lambda o: o.unit,
                  gesture=lambda s, o: Gesture("enemy", o.target),
                  label=lambda o: f"shoot {o.target}", strikes=True)
TURN_TO_FACE = OrderKind("turn_to_face", "turn to face an enemy that attacked in flank or rear",
                         unit=lambda o: o.unit, gesture=lambda s, o: Gesture("enemy", o.enemy),
                         label=lambda o: f"turn to face {o.enemy}")
FORMATION = OrderKind("formation", "change formation", unit=lambda o: o.unit,
                      gesture=lambda s, o: Gesture("unit"),
                      label=lambda o: f"form {o.formation}")
ROLES = OrderKind("roles", "name the defending side", unit=lambda o: None,
                  gesture=lambda s, o: Gesture("side"), label=lambda o: f"{o.defender} defends")
BARRAGE = OrderKind("barrage", "name the pre-game barrage's targets", unit=lambda o: None,
                    gesture=lambda s, o: Gesture("side"),
                    label=lambda o: "barrage " + (", ".join(o.targets) or "nothing"))
MELEE = OrderKind("melee", "attack an adjacent enemy", unit=lambda o: o.unit,
                  gesture=lambda s, o: Gesture("enemy", o.target),
                  label=lambda o: f"melee {o.target}", strikes=True)
HIT_CHOICE = OrderKind("hit_choice", "the owner's choice for a hit unit", unit=lambda o: o.unit,
                       gesture=lambda s, o: Gesture("unit"),
                       label=lambda o: ("retreat a cell" if o.choice == "retreat"
                                        else "lose a strength point"))
BOMBARD = OrderKind("bombard", "fire a battery at a cell", unit=lambda o: o.unit,
                    gesture=lambda s, o: Gesture("aim", tuple(o.cell)),
                    label=lambda o: f"bombard {o.cell[0]},{o.cell[1]}")
FIGHT = OrderKind("fight", "every unit facing an enemy attacks it", unit=lambda o: None,
                  gesture=lambda s, o: Gesture("enemy", o.target),
                  label=lambda o: f"fight {o.target}" + (", advance if won" if o.advance else ""),
                  takes_part=_fight_takes_part, strikes=True, rank=lambda s, o: int(o.advance))
REFORM = OrderKind("reform", "bring figures out of formation back into the ranks",
                   unit=lambda o: o.unit, gesture=lambda s, o: Gesture("unit"),
                   label=lambda o: "reform")
END_PHASE = OrderKind("end_phase", "end the phase", unit=lambda o: None,
                      gesture=lambda s, o: Gesture("side"), label=lambda o: "end phase")
"""Every system ends its phases the same way: the flow, not a ruleset, handles it."""
