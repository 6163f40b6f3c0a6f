"""Procedures several rule systems share: the initiative roll, the end of a battle when a side
has nothing left, objectives held, "is this order legal" for building legal-order lists, and the
orders themselves as cached values (a move generator builds the same ones again and again).

Each takes the rule id to cite, so a system keeps its own rules while the procedure lives once.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from warlog.engine.flow import Context
from warlog.engine.rules import IllegalOrder
from warlog.engine.state import GameState, Unit, other_side
from warlog.engine.rulesets.common import events
from warlog.events import model
from warlog.events.orders import (
    EndPhaseOrder,
    HitChoiceOrder,
    MoveOrder,
    RouteOrder,
    ShootOrder,
)

SIDES = ("red", "blue")


def roll_higher(ctx: Context, purpose: str, rule: str) -> str:
    """Both sides roll a d6 (red first), again on a tie; returns the side that rolled higher."""
    while True:
        red = ctx.roll(f"{purpose} (red)", rule)
        blue = ctx.roll(f"{purpose} (blue)", rule)
        if red != blue:
            return "red" if red > blue else "blue"


def roll_initiative(ctx: Context, rule: str) -> None:
    """The higher roll goes first this turn."""
    ctx.emit(events.InitiativeWon, winner=roll_higher(ctx, "initiative", rule), rules=(rule,))


def last_turn(ctx: Context, rule: str, removed_more: str) -> None:
    """After the last turn: the side holding more objectives wins, then the side that removed
    more enemy units (``removed_more`` words that reason, ``{winner}`` in it); else a draw."""
    s = ctx.state
    held = objectives_held(s)
    removed = {side: sum(1 for u in s.units.values() if u.removed and u.side != side)
               for side in SIDES}
    turns = s.scenario.victory.turn_limit
    if held["red"] != held["blue"]:
        winner = "red" if held["red"] > held["blue"] else "blue"
        reason = f"after {turns} turns {winner} holds more objectives"
    elif removed["red"] != removed["blue"]:
        winner = "red" if removed["red"] > removed["blue"] else "blue"
        reason = f"after {turns} turns " + removed_more.format(winner=winner)
    else:
        winner, reason = None, f"after {turns} turns: a draw"
    ctx.emit(model.GameEnded, winner=winner, reason=reason, objectives=held, rules=(rule,),
             phase=None, side=None)


def end_if_wiped_out(ctx: Context, left: dict[str, int], rule: str, what: str = "units") -> None:
    """A side with nothing left (``left``: how many each side still has) loses the battle."""
    if ctx.state.ended or (left["red"] and left["blue"]):
        return
    winner = "red" if left["red"] else "blue" if left["blue"] else None
    loser = f"{other_side(winner)} has" if winner else "both sides have"
    ctx.emit(model.GameEnded, winner=winner, reason=f"{loser} no {what} left", rules=(rule,))


def remove_at_limit(ctx: Context, removal: str, victory: str) -> None:
    """Every unit with the scenario's ``hits_to_remove`` hits or more leaves the board
    (``removal``), then a side with no unit left has lost (``victory``): One Hour Wargames' way,
    which the density system keeps."""
    s = ctx.state
    limit = s.options["hits_to_remove"]
    for unit in s.alive():
        if unit.hits >= limit:
            ctx.emit(model.UnitRemoved, unit=unit.id, hits=unit.hits, rules=(removal,))
    end_if_wiped_out(ctx, {side: len(s.alive(side)) for side in ("red", "blue")}, victory)


def own_unit(state: GameState, unit_id: str, rule: str) -> Unit:
    """The live unit ``unit_id`` of the side to act, or an IllegalOrder under ``rule`` saying
    why not: every rule system words it alike."""
    unit = state.units.get(unit_id)
    if unit is None or unit.removed:
        raise IllegalOrder(rule, f"there is no unit {unit_id!r} on the board")
    if unit.side != state.side:
        raise IllegalOrder(rule, f"{unit_id} is {unit.side}'s, and it is {state.side}'s turn")
    return unit


def enemy_unit(state: GameState, side: str, target_id: str, rule: str) -> Unit:
    """The live unit ``target_id`` of ``side``'s enemy, or an IllegalOrder under ``rule``."""
    target = state.units.get(target_id)
    if target is None or target.removed or target.side == side:
        raise IllegalOrder(rule, f"{target_id!r} is not an enemy unit on the board")
    return target


def objectives_held(state: GameState) -> dict[str, int]:
    """How many of the scenario's objective cells each side holds (stands a unit on)."""
    held = {"red": 0, "blue": 0}
    for cell in state.scenario.victory.objectives:
        unit = state.unit_at(tuple(cell))
        if unit is not None:
            held[unit.side] += 1
    return held


def settles_choice(state: GameState, order, rule: str) -> bool:
    """The hit table's owed choice (``state.pending``) comes before any other order: True when
    ``order`` is the choice owed now; IllegalOrder (citing ``rule``) for any other order while
    one is owed, or for a choice nobody owes; False when nothing is owed."""
    if state.pending:
        owed = state.pending[0]
        if not isinstance(order, HitChoiceOrder) or order.unit != owed["unit"]:
            raise IllegalOrder(rule, f"{owed['side']} must first choose for {owed['unit']}: "
                                     "retreat or lose a strength point")
        return True
    if isinstance(order, HitChoiceOrder):
        raise IllegalOrder(rule, f"no choice is owed for {order.unit}")
    return False


def side_orders(state: GameState, unit: str | None, per_unit, first=()) -> list:
    """The legal orders now: ``first`` (orders of the whole side, e.g. Frontier's combat),
    then each live unit's of the side to act (``per_unit(u)``), or ``unit``'s alone; a list
    for the whole side ends with end_phase. Every rule system builds its list this way."""
    units = [state.units[unit]] if unit is not None else state.alive(state.side)
    orders = list(first)
    for u in units:
        if not u.removed and u.side == state.side:
            orders += per_unit(u)
    if unit is None:
        orders.append(EndPhaseOrder())
    return orders


def owed_choices(state: GameState, unit: str | None) -> list | None:
    """While a hit choice is owed, the only legal orders are its two answers (none for any
    other unit); None when nothing is owed."""
    if not state.pending:
        return None
    owed = state.pending[0]
    if unit not in (None, owed["unit"]):
        return []
    return [HitChoiceOrder(unit=owed["unit"], choice=c) for c in ("retreat", "lose")]


def shortest_routes(grid, start, reach: int, step_ok, stops) -> Iterator[tuple]:
    """One shortest route (at most ``reach`` cells) to every cell a unit can end its move on,
    breadth first in facing order, so the same route every time. ``step_ok(prev, cell, first,
    last)`` judges one step (the referee's own judge); a route does not go on from a cell in
    ``stops`` (contact with an enemy)."""
    frontier, seen = [(start, ())], {start}
    while frontier:
        nxt = []
        for cell, path in frontier:
            if len(path) >= reach:
                continue
            for n in grid.neighbours(cell):
                if n in seen:
                    continue
                ends = step_ok(cell, n, not path, True)
                passes = step_ok(cell, n, not path, False)
                if not (ends or passes):
                    continue
                seen.add(n)
                route = (*path, n)
                if ends:
                    yield route
                if passes and n not in stops:
                    nxt.append((n, route))
        frontier = nxt


def ground_problem(state: GameState, unit, prev, cell, impassable, entry,
                   rule: str) -> IllegalOrder | None:
    """Why one step of a route, ``prev`` to ``cell``, fails on the ground alone: not adjacent,
    off the board, impassable terrain (``rule``: a river only at fords and bridges), or terrain
    only some types enter (``entry``: kind -> types)."""
    if state.grid.distance(prev, cell) != 1:
        return IllegalOrder("grid.adjacent", f"{cell} is not next to {prev}: a route goes from "
                                             "cell to adjacent cell")
    if not state.grid.contains(cell):
        return IllegalOrder("grid.cells", f"{unit.id} would leave the board at {cell}")
    terrain = state.terrain.get(cell, "open")
    if terrain in impassable:
        return IllegalOrder(rule, f"{cell} is {terrain}: impassable (a river only at a ford or "
                                  "a bridge)")
    if terrain in entry and unit.type not in entry[terrain]:
        return IllegalOrder(rule, f"{unit.type} may not enter {terrain} (only "
                                  f"{', '.join(entry[terrain])})")
    return None


def accepts(ruleset, state: GameState, order) -> bool:
    """Whether the referee accepts ``order`` now (for building lists of legal orders)."""
    try:
        ruleset.check(state, order)
    except IllegalOrder:
        return False
    return True


# Orders as values. Orders are frozen pydantic models, so equal orders may be one object. A move
# generator builds the same few thousand orders (unit, facing, distance, end facing) on every
# call, and validating each anew was a tenth of a random One Hour Wargames game's time. Each is
# built with the same fields as before it was cached; the caches are bounded (unit ids repeat
# from game to game).
@lru_cache(maxsize=1 << 12)
def straight_moves(unit: str, longest: int, facings: tuple[str, ...]) -> tuple[tuple, ...]:
    """For each facing ``f`` in order: (f, the pivot to ``f``, the moves along ``f`` by distance:
    item d holds the moves of d cells, one for each facing at the end; item 0 is empty)."""
    return tuple(
        (f, MoveOrder(unit=unit, facing=f, distance=0),
         ((),) + tuple(tuple(MoveOrder(unit=unit, facing=f, distance=d,
                                       end_facing=None if ef == f else ef) for ef in facings)
                       for d in range(1, longest + 1)))
        for f in facings)


@lru_cache(maxsize=1 << 12)
def attack_order(unit: str, facing: str, distance: int, enemy: str) -> MoveOrder:
    return MoveOrder(unit=unit, facing=facing, distance=distance, attack=enemy)


@lru_cache(maxsize=1 << 12)
def shoot_order(unit: str, target: str) -> ShootOrder:
    return ShootOrder(unit=unit, target=target)


@lru_cache(maxsize=1 << 12)
def route_pivot(unit: str, facing: str) -> RouteOrder:
    return RouteOrder(unit=unit, facing=facing)


@lru_cache(maxsize=1 << 14)
def routes_ending(unit: str, path: tuple, facings: tuple[str, ...]) -> tuple[RouteOrder, ...]:
    """The routes along ``path``, one for each facing at the end."""
    return tuple(RouteOrder(unit=unit, path=path, facing=f) for f in facings)
