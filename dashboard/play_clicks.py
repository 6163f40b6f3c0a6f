"""What a click on the Play page's board means: select a unit, give an order, offer a choice,
or say in one line why nothing was given. No Streamlit here: the page asks, this answers.

Two things players asked for. A plain click on a cell gives the natural order at once (the move
that ends facing the way it went, or the only order there: ``vocabulary.plain_order``); the
alternatives (another facing, an attack on arrival) are offered, plainest first, when the click
asks for them (Shift-click, or the page's "always ask" switch). And no click is silent: a unit
that may not act, an enemy that is no target, a seat that is not this page's each get a line,
with the rule that refuses it where a rule does. The rule is found by asking the referee
itself (``Ruleset.check``) about the order the player meant, built from an order that is legal
now (another unit's, another target's): the reason is the rules' own, never a guess here.
"""

from __future__ import annotations

from dataclasses import dataclass

from warlog.app.recorder import refusal
from warlog.app.session import Session
from warlog.engine import vocabulary
from warlog.engine.flow import phase_name
from warlog.engine.geometry import Cell
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import GameState
from warlog.events.orders import Order


# The fields an order names its target by (shoot, melee, fight: target; a charge: attack).
_TARGET_FIELDS = ("target", "attack", "enemy")
_PROBES = 12  # orders tried at most to find the rule behind a refusal


@dataclass(frozen=True)
class Outcome:
    """What a click does: one of select a unit, give an order, offer orders to choose from,
    or say why nothing happened (``say``, one line)."""

    select: str | None = None
    give: Order | None = None
    offer: tuple[Order, ...] = ()
    say: str | None = None


def _where(state: GameState) -> str:
    side = f"{state.side}'s " if state.side else ""
    return f"{side}{phase_name(state.phase)} phase"


def _cell(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


def _refused(state: GameState, candidates: list[Order]) -> IllegalOrder | None:
    """The first refusal the referee gives among ``candidates`` (each made from a legal order)."""
    check = get_ruleset(state.rule_system).check
    for order in candidates[:_PROBES]:
        try:
            check(state, order)
        except IllegalOrder as exc:
            return exc
        except Exception:  # noqa: BLE001 - a probe the rules cannot read tells nothing
            continue
    return None


def _distinct_kinds(orders: list[Order]) -> list[Order]:
    """One order of each type (the simplest first: a short move before a long one), so a few
    probes cover every kind of order a unit might have given."""
    seen: dict[str, Order] = {}
    for order in orders:
        seen.setdefault(order.type, order)
    return list(seen.values())


def why_idle(table: Session, unit: str) -> str:
    """Why ``unit``, of the side to act, may not act now: the rule that refuses it the orders
    its side's other units may give, or what is left to say when no rule is named."""
    state = table.state
    others = [o for o in table.legal() if vocabulary.unit_of(state, o) not in (None, unit)]
    as_it = [o.model_copy(update={"unit": unit}) for o in _distinct_kinds(others)]
    exc = _refused(state, as_it)
    if exc is not None:
        return f"{unit} may not act now: {refusal(exc)}"
    return (f"{unit} has no order to give in {_where(state)}: nothing it may do here is "
            "legal now (the marked units may act)")


def _retargeted(state: GameState, order: Order, target: str) -> Order | None:
    """``order`` aimed at ``target`` instead (a fire at a cell: at its cell), or None for an
    order that aims at nobody (a plain move)."""
    field = next((f for f in _TARGET_FIELDS if getattr(order, f, None) is not None), None)
    if field is not None:
        return order.model_copy(update={field: target})
    if vocabulary.gesture(state, order).how == "aim":
        return order.model_copy(update={"cell": state.units[target].cell})
    return None


def why_not_target(table: Session, unit: str | None, enemy: str) -> str:
    """Why the click on ``enemy`` gives no order: for ``unit`` (selected), the rule that refuses
    the attacks it may make on other enemies when aimed at this one."""
    state = table.state
    if unit is None:
        return (f"No order of {state.to_act}'s is aimed at {enemy} now: select one of your "
                "marked units first, then click the enemy")
    aimed = [(o, _retargeted(state, o, enemy)) for o in table.legal()]
    aimed = [(o, probe) for o, probe in aimed if probe is not None]  # a plain move aims at none
    own = [probe for o, probe in aimed if vocabulary.unit_of(state, o) == unit]
    # the unit has none: what its side's others may strike, as if it gave the order
    others = [probe.model_copy(update={"unit": unit}) for o, probe in aimed
              if vocabulary.unit_of(state, o) not in (None, unit)]
    exc = _refused(state, _distinct_kinds(own) or _distinct_kinds(others))
    if exc is not None:
        return f"{unit} may not strike {enemy}: {refusal(exc)}"
    if not own:
        return f"{unit} may strike no enemy in {_where(state)}"
    return f"{enemy} is not a target of {unit} now"


def _seat_line(table: Session) -> str | None:
    """Why this page may not order now at all, or None when it may."""
    state = table.state
    if state.ended:
        return "The game has ended: nothing more to order"
    seat = table.seat_to_act
    if seat is not None and seat.bot:
        return f"It is {state.to_act}'s turn, played by the {seat.name} bot: it moves by itself"
    if not table.may_order():
        if table.holds is None:
            return ("This page watches (it holds no seat of this game): orders are given from "
                    "a player's own seat link")
        return (f"This page holds {table.holds}'s seat: it is {state.to_act}'s turn "
                f"({_where(state)}); your units move when it is yours")
    return None


def resolve(table: Session, cell: Cell | None, selected: str | None, *, ask: bool = False
            ) -> Outcome:
    """What a click on ``cell`` does with ``selected`` the selected unit (None: nobody).
    ``ask``: offer every order the click could give instead of giving the plain one (and on a
    friend that may act, the orders aimed at its cell rather than selecting it)."""
    if cell is None:
        return Outcome(say="That click fell outside the board's cells: click a unit or a cell")
    refused = _seat_line(table)
    if refused is not None:
        return Outcome(say=refused)
    state = table.state
    uid = state.unit_at(cell).id if state.unit_at(cell) is not None else None
    if uid is not None and state.units[uid].side == state.to_act:
        offered = selected is not None and _offered(table, selected, uid, cell)
        if uid in table.units_to_act() and not (ask and offered):
            return Outcome(select=uid)  # a friend that may act: selected (Shift: aimed at)
        if not offered:
            return Outcome(say=why_idle(table, uid))
    choices = table.choices(selected)
    orders = (choices.enemies.get(uid, []) if uid is not None else []) or \
        choices.cells.get(cell, []) or choices.aims.get(cell, [])
    if orders:
        plain = None if ask else vocabulary.plain_order(state, orders)
        if plain is not None:
            return Outcome(give=plain)
        return Outcome(offer=tuple(vocabulary.plain_first(state, orders)))
    if uid is not None:
        return Outcome(say=why_not_target(table, selected, uid))
    if selected is None:
        return Outcome(say=f"{_cell(cell)} is empty: select one of your marked units first, "
                           "then click where it should go")
    return Outcome(say=f"{selected} cannot end a move on {_cell(cell)} in {_where(state)}: "
                       "the dots mark where it may go")


def _offered(table: Session, selected: str, uid: str, cell: Cell) -> bool:
    """Whether a click on a friendly unit ``uid`` gives the selected unit an order (a Frontier
    fight joins units; a charge through a friend is never offered, but a cell may be)."""
    choices = table.choices(selected)
    return bool(choices.enemies.get(uid) or choices.cells.get(cell) or choices.aims.get(cell))
