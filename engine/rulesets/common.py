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


def roll_higher(ctx: Context, purpose: str, rule: str) -> str:
    """Both sides roll a d6 (red first), again on a tie; returns the side that rolled higher."""
    while True:
        red = ctx.roll(f"{purpose} (red)", rule)
        blue = ctx.roll(f"{purpose} (blue)", rule)
        if red != blue:
            return "red" if red > blue else "blue"


def roll_initiative(ctx: Context, rule: str) -> None:
    """The higher roll goes first this turn."""
    ctx.emit(model.InitiativeWon, winner=roll_higher(ctx, "initiative", rule), rules=(rule,))


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
