"""Each rule system's attacks for the odds (engine/odds.py): where an attack's dice are rolled
from, and the referee's own code that resolves it.

An attack that is an order (a shot, a Portable or Napoleonic melee, a bombardment, a Frontier
combat) is checked by the referee at the phase it belongs to and resolved by its ``apply``. A
melee that a phase resolves by itself (One Hour Wargames', density's) is resolved for the one
pair by the functions that phase calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from warlog.engine.flow import Context, first_side
from warlog.engine.odds import OddsError
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.density import combat as density_combat
from warlog.engine.rulesets.ohw import phases as ohw_phases
from warlog.engine.state import GameState, Unit, other_side
from warlog.events import model
from warlog.events.orders import (
    BarrageOrder,
    BombardOrder,
    FightOrder,
    HitChoiceOrder,
    MeleeOrder,
    MoveOrder,
    Order,
    ShootOrder,
)

# -- positions: the state as at the phase an attack belongs to -----------------------------------


def _own_phases(state: GameState, ruleset: Any, side: str) -> list[str]:
    """``side``'s phases of one turn, in order (not the phases both sides share)."""
    first = first_side(state)
    return [phase for phase, role in ruleset.turn_steps(state) if role is not None
            and (first if role == "first" else other_side(first)) == side]


def at_phase(state: GameState, side: str, phase: str) -> GameState:
    """The state as at ``side``'s ``phase``: as it is if that is now; later in the same player
    turn, the phases in between started (and WWII's spotting resolved, which needs no dice);
    otherwise ``side``'s next player turn, from its first phase, so the per-turn marks (moved,
    shot, fought) are reset as the fold resets them. A choice owed elsewhere is set aside."""
    if state.ended:
        raise OddsError("the game is over: no attack is possible")
    if state.side == side and state.phase == phase and not state.pending:
        return state
    ruleset = get_ruleset(state.rule_system)
    ctx = Context(state, None)
    ctx.state.pending = []  # an owed choice belongs to another decision
    own = _own_phases(ctx.state, ruleset, side)
    end = own.index(phase) + 1
    if state.side == side and state.phase in own[:end]:
        todo = own[own.index(state.phase) + 1:end]
    else:
        todo = own[:end]
    for p in todo:
        ctx.emit(model.PhaseStarted, turn=max(ctx.state.turn, 1), side=side, phase=p,
                 rules=ruleset.phase_rules(ctx.state, p))
        if p == "spotting":
            ruleset.resolve_phase(ctx)
    return ctx.state


def _checked(state: GameState, side: str, phase: str, order: Order) -> GameState:
    """The state at that phase, with ``order`` accepted by the referee there."""
    view = at_phase(state, side, phase)
    try:
        get_ruleset(state.rule_system).check(view, order)
    except IllegalOrder as refused:
        raise OddsError(str(refused)) from None
    return view


# -- each system's attacks ---------------------------------------------------------------------

Plan = tuple[GameState, Callable[[Context], None], bool]  # position, resolution, can hurt both


def _settle(ctx: Context, ruleset: Any, choice: str | None) -> None:
    """Answer every owed hit-table choice with ``choice``, through the referee's own order."""
    while choice and ctx.state.pending and not ctx.state.ended:
        ruleset.apply(ctx, HitChoiceOrder(unit=ctx.state.pending[0]["unit"], choice=choice))


def _ordered(state: GameState, side: str, phase: str, order: Order, choice: str | None,
             two_way: bool) -> Plan:
    """An attack that is an order: the referee checks it and applies it."""
    ruleset = get_ruleset(state.rule_system)
    view = _checked(state, side, phase, order)

    def resolve(ctx: Context) -> None:
        ruleset.apply(ctx, order)
        _settle(ctx, ruleset, choice)

    return view, resolve, two_way


def _barrage(state: GameState, tgt: Unit) -> Plan:
    """ohw.machine_age.barrage: one die on one named target, rolled by the referee's own
    handling of the barrage order (each target's die is its own, so the others do not matter).
    The referee's check of a full order (the target, then other units of the defender up to the
    number the barrage strikes) decides whether the target may be named."""
    rule = "ohw.machine_age.barrage"
    if not state.options.get("trenches"):
        raise OddsError(f"kind: a barrage comes only with the Machine Age trenches option ({rule})")
    if state.phase == "roles":
        raise OddsError(f"the roles are not chosen yet: the barrage strikes the defender's units "
                        f"({rule}); ask once the defender is named")
    if state.turn != 0 or state.phase != "barrage":
        raise OddsError(f"the barrage is fired before the first turn ({rule}); this position is "
                        "past it")
    others = [u.id for u in state.alive(state.defender) if u.id != tgt.id]
    named = (tgt.id, *others)[:max(state.barrage_targets or 0, 1)]
    view = _checked(state, state.side, "barrage", BarrageOrder(targets=named))
    ruleset, order = get_ruleset("ohw"), BarrageOrder(targets=(tgt.id,))

    def resolve(ctx: Context) -> None:
        ruleset.apply(ctx, order)

    return view, resolve, False


def _ohw(state: GameState, src: Unit | None, tgt: Unit, kind: str, choice: str | None) -> Plan:
    ruleset = get_ruleset("ohw")
    period = ruleset.period(state)
    if kind == "barrage" or src is None:
        return _barrage(state, tgt)
    if kind == "shoot":
        return _ordered(state, src.side, "shooting", ShootOrder(unit=src.id, target=tgt.id),
                        None, False)
    if "melee" not in period["phases"]:
        raise OddsError(f"kind: {period['name']} has no melee (adjacent units shoot, "
                        f"ohw.{state.period}.turn); use shoot")
    view = state
    if tgt.id not in state.engaged(src.id):  # attack it from where it stands, then fight
        facing = state.grid.facing_to(src.cell, tgt.cell)
        if facing is None:
            raise OddsError(f"{src.id} is not next to {tgt.id}: a melee is fought by units in "
                            "contact; move it next to the enemy first (ohw.attack)")
        order = MoveOrder(unit=src.id, facing=facing, distance=0, attack=tgt.id)
        ctx = Context(_checked(state, src.side, "movement", order), None)
        ruleset.apply(ctx, order)
        view = ctx.state
    view = at_phase(view, src.side, "melee")
    fights, chose = ruleset.melee_target(view, view.units[src.id])
    if fights is None or fights.id != tgt.id:
        why = (f"it fights {fights.id} (ohw.melee.target)" if fights is not None else
               f"only the attacker rolls (ohw.{state.period}.attack)")
        raise OddsError(f"{src.id} does not roll against {tgt.id} in its melee phase: {why}")
    terrain_table = ruleset.table["terrain"]

    def resolve(ctx: Context) -> None:  # the melee phase's own roll, for this one pair
        s = ctx.state
        ohw_phases.fight(ctx, period, terrain_table, s.units[src.id], s.units[tgt.id],
                         chose=bool(chose))

    return view, resolve, False


def _portable(state: GameState, src: Unit, tgt: Unit, kind: str, choice: str | None) -> Plan:
    ruleset = get_ruleset("portable")
    if kind == "shoot":
        phase = "missile_machines" if ruleset.kind(state, src) == "machine" else "activation"
        return _ordered(state, src.side, phase, ShootOrder(unit=src.id, target=tgt.id), choice,
                        False)
    return _ordered(state, src.side, "activation", MeleeOrder(unit=src.id, target=tgt.id), choice,
                    ruleset.kind(state, tgt) != "commander")  # the defender strikes back


def _frontier(state: GameState, src: Unit, tgt: Unit, kind: str, choice: str | None) -> Plan:
    ruleset = get_ruleset("frontier")
    if kind == "bombard":
        return _ordered(state, src.side, "artillery", BombardOrder(unit=src.id, cell=tgt.cell),
                        None, False)
    order = FightOrder(target=tgt.id)
    plan = _ordered(state, src.side, "combat", order, None, True)
    if src.id not in [u.id for u in ruleset._attackers(plan[0], order)]:
        raise OddsError(f"{src.id} is not next to {tgt.id} and facing it with an attack left "
                        "(frontier.combat)")
    return plan


def _napoleonic(state: GameState, src: Unit, tgt: Unit, kind: str, choice: str | None) -> Plan:
    if kind == "bombard":
        return _ordered(state, src.side, "artillery", BombardOrder(unit=src.id, cell=tgt.cell),
                        choice, False)
    if kind == "shoot":
        return _ordered(state, src.side, "musketry", ShootOrder(unit=src.id, target=tgt.id),
                        choice, False)
    return _ordered(state, src.side, "melee", MeleeOrder(unit=src.id, target=tgt.id), choice,
                    True)  # both roll


def _density(state: GameState, src: Unit, tgt: Unit, kind: str, choice: str | None) -> Plan:
    if kind == "shoot":
        return _ordered(state, src.side, "actions", ShootOrder(unit=src.id, target=tgt.id), None,
                        False)
    view = at_phase(state, src.side, "melee")
    if tgt.id not in [e.id for e in density_combat.contacts(view, view.units[src.id])]:
        raise OddsError(f"{src.id} is not in contact with {tgt.id}: melee is fought by units in "
                        "adjacent cells (density.contact)")
    if view.units[tgt.id].hits >= view.options["hits_to_remove"]:
        raise OddsError(f"{tgt.id} has taken enough hits to be removed: it is not struck again "
                        "(density.melee)")
    return view, lambda ctx: density_combat.melee_one(ctx, ctx.state.units[src.id],
                                                      ctx.state.units[tgt.id]), False


SYSTEMS: dict[str, Callable[[GameState, Unit | None, Unit, str, str | None], Plan]] = {
    "ohw": _ohw, "portable": _portable, "frontier": _frontier, "napoleonic": _napoleonic,
    "density": _density}
