"""What a player may do now, by pointing: the legal orders of a state grouped by the cell, the
enemy or the button that gives each, read through the rule system's order vocabulary
(``Ruleset.orders``, engine/rulesets/order_kinds.py).

Everything here comes from the system's own ``legal_orders``: a cell is offered only if a legal
order ends a move there, an enemy only if a legal order shoots or attacks it, so the board a
player clicks is exactly what the referee accepts. Several orders may share one click (the
facings a move may end with, a charge from two approaches): the page asks which, by their
labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from warlog.engine.flow import next_phase, phase_name
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.order_kinds import Gesture, OrderKind
from warlog.engine.state import GameState
from warlog.events.orders import Order

Cell = tuple[int, int]


class UnknownOrderKind(LookupError):
    """An order whose type its rule system does not list in its vocabulary (a bug in the
    system's table, never a player's mistake)."""


@lru_cache(maxsize=None)
def kinds(system: str) -> dict[str, OrderKind]:
    """The order kinds of ``system``, by order type (a ruleset's list never changes: built
    once, since every order of a click, a reach or a unit list looks its kind up)."""
    return {kind.type: kind for kind in get_ruleset(system).orders}


def kind_of(state: GameState, order: Order) -> OrderKind:
    kind = kinds(state.rule_system).get(order.type)
    if kind is None:
        raise UnknownOrderKind(f"the {state.rule_system} rule system gives {order.type!r} "
                               "orders but does not describe them (Ruleset.orders)")
    return kind


def gesture(state: GameState, order: Order) -> Gesture:
    return kind_of(state, order).gesture(state, order)


def label(state: GameState, order: Order) -> str:
    if order.type == "end_phase":
        return end_phase_label(state)
    return kind_of(state, order).label(order)


def end_phase_label(state: GameState) -> str:
    """"end phase: movement", and what comes next when it is resolved at once with no order (a
    melee the dice decide): a player ending the phase should know dice will be asked for."""
    ruleset = get_ruleset(state.rule_system)
    text = f"end phase: {phase_name(state.phase)}" if state.phase else "end phase"
    try:
        nxt = next_phase(state, ruleset.turn_steps(state), ruleset.pregame(state))
    except ValueError:  # a phase the steps do not list (an old log): no word on what follows
        return text
    if nxt is None:
        return text + " (the last turn ends: the result follows)"
    if nxt[2] in ruleset.automatic_phases:
        return text + f" ({phase_name(nxt[2])} follows at once)"
    return text


def unit_of(state: GameState, order: Order) -> str | None:
    return kind_of(state, order).unit(order)


def plain_first(state: GameState, orders: list[Order]) -> list[Order]:
    """The orders one click offers, the plainest first (``OrderKind.rank``), then by their
    labels, shorter first ("2 cells W" before "2 cells W, then face E"): a stable order, so a
    list shown twice reads the same."""
    def key(order: Order) -> tuple[int, int, str]:
        text = label(state, order)
        return kind_of(state, order).rank(state, order), len(text), text
    return sorted(orders, key=key)


def plain_order(state: GameState, orders: list[Order]) -> Order | None:
    """The order a plain click gives at once among ``orders``: the only one there, or the one
    plain order (rank 0); None when the click must ask which (several plain ones, or only
    alternatives)."""
    if len(orders) == 1:
        return orders[0]
    plain = [o for o in orders if kind_of(state, o).rank(state, o) == 0]
    if len(plain) == 1:
        return plain[0]
    ends = {kind_of(state, o).ends_on(state, o) for o in plain}
    if plain and len(ends) == 1 and None not in ends:
        return plain_first(state, plain)[0]  # moves to the same cell: the shortest way
    return None


@dataclass
class Choices:
    """The orders one unit (or, with ``unit`` None, its side) may give now, by what gives them:
    a cell its move ends on, an enemy it shoots or attacks, a cell it fires at, a button beside
    it; and the side's own buttons (end the phase, name the defender, a side's combat)."""

    unit: str | None
    cells: dict[Cell, list[Order]] = field(default_factory=dict)
    enemies: dict[str, list[Order]] = field(default_factory=dict)
    aims: dict[Cell, list[Order]] = field(default_factory=dict)
    buttons: list[Order] = field(default_factory=list)
    side: list[Order] = field(default_factory=list)

    def orders(self) -> list[Order]:
        """Every order offered, each once: the pointing kinds first, then the buttons."""
        groups = (*self.cells.values(), *self.enemies.values(), *self.aims.values(),
                  self.buttons, self.side)
        return list(dict.fromkeys(order for group in groups for order in group))


def _put(choices: Choices, order: Order, where: Gesture) -> None:
    if where.how == "cell":
        choices.cells.setdefault(where.at, []).append(order)
    elif where.how == "enemy":
        choices.enemies.setdefault(where.at, []).append(order)
    elif where.how == "aim":
        choices.aims.setdefault(where.at, []).append(order)
    elif where.how == "unit":
        choices.buttons.append(order)
    else:
        choices.side.append(order)


def choices(state: GameState, unit: str | None = None, legal: list[Order] | None = None
            ) -> Choices:
    """What ``unit`` (None: nobody selected) may do now, and the side's own orders. ``legal``:
    every legal order now, when the caller has them (``legal_orders(state)``)."""
    ruleset = get_ruleset(state.rule_system)
    if legal is None:
        legal = ruleset.legal_orders(state)
    out = Choices(unit=unit)
    for order in legal:
        kind = kind_of(state, order)
        owner = kind.unit(order)
        where = kind.gesture(state, order)
        if owner is None:
            joins = (unit is not None and kind.takes_part is not None
                     and kind.takes_part(state, unit, order))
            if joins or (unit is None and where.how == "enemy"):
                _put(out, order, where)
            else:
                out.side.append(order)
        elif owner == unit:
            _put(out, order, where)
    return out


def units_to_act(state: GameState, legal: list[Order] | None = None) -> list[str]:
    """The units that may act now (a legal order names them or they join a side's order), in
    the order their first legal order comes: the page marks them."""
    ruleset = get_ruleset(state.rule_system)
    if legal is None:
        legal = ruleset.legal_orders(state)
    acting: dict[str, None] = {}
    side_orders = []
    for order in legal:
        kind = kind_of(state, order)
        owner = kind.unit(order)
        if owner is not None:
            acting[owner] = None
        elif kind.takes_part is not None:
            side_orders.append((kind, order))
    if side_orders and state.to_act:
        for u in state.alive(state.to_act):
            if any(kind.takes_part(state, u.id, order) for kind, order in side_orders):
                acting[u.id] = None
    return list(acting)
