"""The folds of the event kinds several rule systems share (issue 40, plan section 4.2).

Each fold writes down what its event says happened, as engine/fold.py did before the systems'
folds moved into their packages: the code is that code, moved verbatim (stored games' state
checksums and released bots depend on every detail, quirks included). Who writes each kind:
hits_inflicted and melee_joined (ohw, density); formation_changed (ohw, napoleonic);
attack_rolled, hit_taken, strength_lost and unit_retreated (portable, napoleonic);
initiative_won (portable, frontier, through the shared initiative roll).

Light on purpose: the registry imports every package's folds when the first event is folded, so
a fold module imports no referee.
"""

from __future__ import annotations

from warlog.engine.fold import Event, unit_of as _unit
from warlog.engine.state import GameState


def _initiative_won(state: GameState, e: Event) -> None:
    state.first_side = e["winner"]


def _attack_rolled(state: GameState, e: Event) -> None:
    source = _unit(state, e, "source")
    _unit(state, e, "target")
    if e["attack"] == "strike_back":
        return
    if e["attack"] == "artillery":  # napoleonic: a battery, and the cell it fired at
        source.fired = True
        source.aimed, source.aimed_turn = state.units[e["target"]].cell, e["turn"]
        return
    if e["attack"] == "musketry":  # napoleonic: once a turn, and no bar to a melee after it
        source.shot = True
        return
    if e["attack"] == "pila_volley":  # portable.pila_throw: thrown before the attack, not it
        source.pila_used = True
        return
    source.fought = True
    if e["attack"] == "melee":
        source.charged = e["target"]
    else:
        source.shot = True
        if e["attack"] == "pila":
            source.pila_used = True


def _hit_taken(state: GameState, e: Event) -> None:
    u = _unit(state, e)
    if e["outcome"] == "choose":
        state.pending.append({"unit": u.id, "side": u.side, "attacker": e["attacker"],
                              "retreat_to": list(e["retreat_to"])})


def _strength_lost(state: GameState, e: Event) -> None:
    u = _unit(state, e)
    u.hits = e["total"]
    state.pending = [p for p in state.pending if p["unit"] != u.id]


def _unit_retreated(state: GameState, e: Event) -> None:
    u = _unit(state, e)
    u.cell = tuple(e["to_cell"])
    state.pending = [p for p in state.pending if p["unit"] != u.id]


def _melee_joined(state: GameState, e: Event) -> None:
    _unit(state, e, "attacker").attacked = e["defender"]
    _unit(state, e, "defender")
    state.melees.append((e["attacker"], e["defender"]))


def _hits_inflicted(state: GameState, e: Event) -> None:
    _unit(state, e, "target").hits = e["total"]
    if e["attack"] == "shooting":
        _unit(state, e, "source").shot = True


def _formation_changed(state: GameState, e: Event) -> None:
    u = _unit(state, e)
    u.formation = e["to_formation"]
    u.reformed = True


FOLDS = {
    "melee_joined": _melee_joined,
    "hits_inflicted": _hits_inflicted,
    "formation_changed": _formation_changed,
    "initiative_won": _initiative_won,
    "attack_rolled": _attack_rolled,
    "hit_taken": _hit_taken,
    "strength_lost": _strength_lost,
    "unit_retreated": _unit_retreated,
}
"""Event kind -> its fold, for the kinds several systems write."""
