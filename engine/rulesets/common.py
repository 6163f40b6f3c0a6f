"""Procedures several rule systems share: the initiative roll, the end of a battle when a side
has nothing left, objectives held, and "is this order legal" for building legal-order lists.

Each takes the rule id to cite, so a system keeps its own rules while the procedure lives once.
"""

from __future__ import annotations

from warlog.engine.flow import Context
from warlog.engine.rules import IllegalOrder
from warlog.engine.state import GameState, other_side
from warlog.events import model

SIDES = ("red", "blue")


def roll_initiative(ctx: Context, rule: str) -> None:
    """Both sides roll a d6 (red first), again on a tie; the higher goes first this turn."""
    while True:
        red = ctx.roll("initiative (red)", rule)
        blue = ctx.roll("initiative (blue)", rule)
        if red != blue:
            break
    ctx.emit(model.InitiativeWon, winner="red" if red > blue else "blue", rules=(rule,))


def end_if_wiped_out(ctx: Context, left: dict[str, int], rule: str, what: str = "units") -> None:
    """A side with nothing left (``left``: how many each side still has) loses the battle."""
    if ctx.state.ended or (left["red"] and left["blue"]):
        return
    winner = "red" if left["red"] else "blue" if left["blue"] else None
    loser = f"{other_side(winner)} has" if winner else "both sides have"
    ctx.emit(model.GameEnded, winner=winner, reason=f"{loser} no {what} left", rules=(rule,))


def objectives_held(state: GameState) -> dict[str, int]:
    """How many of the scenario's objective cells each side holds (stands a unit on)."""
    held = {"red": 0, "blue": 0}
    for cell in state.scenario.victory.objectives:
        unit = state.unit_at(tuple(cell))
        if unit is not None:
            held[unit.side] += 1
    return held


def accepts(ruleset, state: GameState, order) -> bool:
    """Whether the referee accepts ``order`` now (for building lists of legal orders)."""
    try:
        ruleset.check(state, order)
    except IllegalOrder:
        return False
    return True
