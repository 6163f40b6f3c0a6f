"""Why an order, in a line a player reads beside a bot's move (issue 22: "each order with a line
of why: the target, its odds, the ground it wants"): what it strikes, with the exact odds the
rule system's own resolution gives (engine/odds.py), and where a move leaves the unit: the
ground there, an objective, the nearest enemy from there.

Read through the order vocabulary (engine/vocabulary.py) and the system's odds: no rule system
is named here, and nothing here decides anything (it explains an order already chosen).
"""

from __future__ import annotations

from warlog.engine import vocabulary
from warlog.engine.odds import KINDS, OddsError, attack
from warlog.engine.state import GameState
from warlog.events.orders import Order

ODDS_OF = {"shoot": "shoot", "bombard": "bombard"}
"""The odds kind an order type's attack is (any other striking order comes to melee)."""


def _odds(state: GameState, unit: str | None, target: str, order_type: str) -> str:
    """The target's chance of being hit and of being removed, or "" where the odds cannot be
    worked out from this position (the rules would not let the attack happen yet)."""
    kinds = KINDS.get(state.rule_system, ())
    kind = ODDS_OF.get(order_type, "melee")
    if kind not in kinds or unit is None:
        return ""
    try:
        odds = attack(state, unit, target, kind)
    except (OddsError, KeyError, ValueError):
        return ""
    effect = odds.on_target
    if effect is None:
        return ""
    words = f"hits it {float(effect.p_hit):.0%}"
    if effect.p_removed:
        words += f", removes it {float(effect.p_removed):.0%}"
    return words


def _ground(state: GameState, uid: str) -> str:
    """Where a unit stands: the ground, an objective, the nearest enemy."""
    unit = state.units[uid]
    cell = tuple(unit.cell)
    parts = [f"ends on {state.scenario.terrain_at(cell)} ({cell[0]}, {cell[1]})"]
    if cell in {tuple(c) for c in state.scenario.victory.objectives}:
        parts.append("an objective")
    enemies = sorted((state.grid.distance(cell, tuple(e.cell)), e.id) for e in state.alive()
                     if e.side != unit.side)
    if enemies:
        steps, nearest = enemies[0]
        parts.append(f"{steps} cell{'s' if steps != 1 else ''} from {nearest}")
    return ", ".join(parts)


def why(before: GameState, order: Order, after: GameState) -> str:
    """The line for ``order``, given in ``before`` and leading to ``after``: the attack's
    target and odds (a charge's from where the move leaves it, a shot's from where it stands),
    and a move's ground. Empty for an order with nothing to say (ending a phase)."""
    kind = vocabulary.kind_of(before, order)
    unit = kind.unit(order)
    where = kind.gesture(before, order)
    parts: list[str] = []
    moves = kind.ends_on(before, order) is not None
    if where.how == "enemy" and kind.strikes and where.at in before.units:
        target = before.units[where.at]
        seen_from = after if moves and where.at in after.units else before
        odds = _odds(seen_from, unit, target.id, order.type)
        parts.append(f"at {target.id} ({target.type})" + (f": {odds}" if odds else ""))
    if moves and unit is not None and unit in after.units and not after.units[unit].removed:
        parts.append(_ground(after, unit))
    return "; ".join(parts)
