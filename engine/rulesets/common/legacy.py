"""The five built-in systems' records: every field today's units and games have beyond the core's.

Why one record for five systems, and not one each: the state checksum in every stored game (and
``public()``, which every reader and the surface digest show) serialise all these fields for every
system, e.g. ``melees`` is in every checksum body and ``formation`` in every unit's public view.
So ``checksum``, ``public`` and ``copy`` below are the code engine/state.py had before the records
were split, moved verbatim: the bytes stay, and the core (engine/state.py) keeps only what every
system has. A system written later names records of its own (``Ruleset.State``/``Unit``);
narrowing these five to a record each is the plan's optional last step
(docs/plan-rule-system-packages.md, sections 0.2 and 6).

Where the fields went, and why: ``first_side`` and ``pending`` stay in the core (the flow reads
who goes first for every system, and ``to_act``, a choice owed by the other player, is a generic
mechanism); ``melees`` is only these systems', so ``engaged`` and ``in_melee``, which read it,
live here. Field order matters only to positional construction; the checksum and ``public()``
write their keys in their own order, which is today's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import orjson

from warlog.engine.fold import Event, unit_of as _unit
from warlog.engine.geometry import Cell
from warlog.engine.state import GameState, Unit, _cloner


@dataclass(slots=True)
class LegacyUnit(Unit):
    reformed: bool = False  # has changed formation this player turn
    out_of_ammo: bool = False  # may not shoot for the rest of the game (ohw.pike_and_shot.ammo)
    formation: str | None = None  # e.g. "square" (ohw.horse_and_musket.square)
    fought: bool = False  # has made its attack this turn (activation systems)
    done: bool = False  # its activation is over for this turn
    charged: str | None = None  # the enemy it last attacked in melee
    pila_used: bool = False  # has thrown its pila (portable.pila)
    fired: bool = False  # a battery that has fired this turn (frontier.artillery)
    moved_cells: int = 0  # cells moved this player turn (napoleonic.move.fire_penalty)
    aimed: Cell | None = None  # the cell a battery fired at, and in which turn (napoleonic)
    aimed_turn: int = 0
    density: int | None = None  # formation density (density), from the scenario
    disordered: int = 0  # figures out of formation (density.disorder_test)

    @classmethod
    def from_spec(cls, spec: Any, row: Mapping[str, Any]) -> LegacyUnit:
        """The core's unit, in the formation the scenario places it in, else the first its type
        takes (napoleonic's table lists them), and at the scenario's density (density)."""
        taken = row.get("formations") or (None,)
        return cls(id=spec.id, side=spec.side, type=spec.type, cell=tuple(spec.cell),
                   facing=spec.facing, name=spec.name, quality=spec.quality,
                   formation=spec.formation or taken[0], density=spec.density)

    def state_words(self) -> list[str]:
        """Its formation, and where it has one its density and the figures out of formation."""
        words = [self.formation] if self.formation is not None else []
        if self.density is not None:
            words.append(f"density {self.density}, {self.disordered} figures out of formation")
        return words

    def public(self) -> dict[str, Any]:
        """What a player sees of the unit (the JSON of `warlog show`)."""
        return {
            "id": self.id,
            "side": self.side,
            "type": self.type,
            "name": self.name,
            "cell": list(self.cell),
            "facing": self.facing,
            "hits": self.hits,
            "removed": self.removed,
            "out_of_ammo": self.out_of_ammo,
            "formation": self.formation,
            **({"density": self.density, "disordered": self.disordered}
               if self.density is not None else {}),
        }


@dataclass(slots=True)
class LegacyState(GameState):
    melees: list[tuple[str, str]] = field(default_factory=list)  # (attacker, defender), oldest first
    spotted: list[tuple[str, str]] = field(default_factory=list)  # (spotter, enemy) this turn
    defender: str | None = None  # the defending side (ohw.machine_age.trenches)
    trenches: list[Cell] = field(default_factory=list)  # open cells held as the roles are chosen
    barrage_targets: int | None = None  # how many units the pre-game barrage may strike
    active: str | None = None  # the unit being activated (activation systems)
    active_moved: int = 0  # cells the active unit has moved in this activation
    exhaustion: dict[str, int] = field(default_factory=dict)  # side -> exhaustion point
    exhausted: dict[str, int] = field(default_factory=dict)  # side -> turn it became exhausted
    marked: list[str] = field(default_factory=list)  # destroyed by artillery, not yet removed
    offers: list[tuple[str, Cell]] = field(default_factory=list)  # (unit, cell) it may advance to
    # What the core's events do to these fields, after the core's own part (event kind -> hook;
    # engine/fold.py reads it through ``Ruleset.State`` once per rule system): FOLD_HOOKS below.
    fold_hooks: ClassVar[dict[str, Callable[[GameState, Event], None]]]

    # -- queries -----------------------------------------------------------------------------
    def engaged(self, unit_id: str) -> list[str]:
        """Enemies in melee with this unit, oldest melee first."""
        out = []
        for attacker, defender in self.melees:
            if attacker == unit_id:
                out.append(defender)
            elif defender == unit_id:
                out.append(attacker)
        return out

    def in_melee(self, unit_id: str) -> bool:
        for attacker, defender in self.melees:
            if attacker == unit_id or defender == unit_id:
                return True
        return False

    # -- copies and digests --------------------------------------------------------------------
    def unit_status(self, unit: LegacyUnit) -> list[str]:
        """The five systems' period state on a unit, in their rules' words: out of ammunition,
        in square or column, a battery limbered, figures out of formation, in a trench,
        hull-down, spotted, its army exhausted, destroyed by artillery (engine/analysis.py's,
        moved verbatim: the order is the badges' on the board)."""
        from warlog.engine.rulesets.ohw.combat import in_trench
        from warlog.engine.rulesets.tables import load_table

        out = []
        if unit.out_of_ammo:
            out.append("out of ammunition")
        if unit.formation in ("square", "column", "limbered"):  # line and unlimbered: as drawn
            out.append(unit.formation)
        if unit.disordered:
            out.append("out of formation")
        if in_trench(self, unit):
            out.append("in a trench")
        period = load_table(self.rule_system)["periods"].get(self.period, {})
        terrain = self.terrain.get(unit.cell, "open")
        for h in period.get("halvings", ()):  # protection that comes from where the unit stands
            if (h["name"] == "hull-down" and terrain in h.get("terrain", ())
                    and unit.type in h.get("targets", ())):
                out.append("hull-down")
        if any(target == unit.id for _, target in self.spotted):
            out.append("spotted")
        if unit.side in self.exhausted:
            out.append("army exhausted")
        if unit.id in self.marked:
            out.append("destroyed by artillery")
        return out

    def copy(self) -> LegacyState:
        """An independent copy (units and the containers the fold changes are the mutable
        parts; scenario, grid, terrain and memo are shared). Field by field, by cloners written
        for these two records (engine/state.py ``_cloner``), not by ``dataclasses.replace``:
        decide copies the state on every order, the hottest call of a bot game. Every unit of a
        legacy state is a LegacyUnit (the five systems build theirs through ``Ruleset.Unit``),
        so no unit's class is looked up: the lookup cost a tenth of every copy."""
        state = _clone_state(self)
        state.units = {k: _clone_unit(u) for k, u in self.units.items()}
        state.melees = list(self.melees)
        state.spotted = list(self.spotted)
        state.trenches = list(self.trenches)
        state.pending = list(self.pending)
        state.exhaustion = dict(self.exhaustion)
        state.exhausted = dict(self.exhausted)
        state.marked = list(self.marked)
        state.offers = list(self.offers)
        return state

    def public(self) -> dict[str, Any]:
        """The state a player can see, as JSON-ready data (no scenario, no grid)."""
        return {
            "game": self.game,
            "seq": self.seq,
            "turn": self.turn,
            "side": self.side,
            "phase": self.phase,
            "ended": self.ended,
            "winner": self.winner,
            "end_reason": self.end_reason,
            "melees": [list(m) for m in self.melees],
            "spotted": [list(p) for p in self.spotted],
            "defender": self.defender,
            "trenches": [list(c) for c in self.trenches],
            "first_side": self.first_side,
            "pending": list(self.pending),
            "exhaustion": dict(self.exhaustion),
            "exhausted": dict(self.exhausted),
            "marked": list(self.marked),
            "offers": [[u, list(c)] for u, c in self.offers],
            "units": [u.public() for u in self.units.values()],
        }

    def _unit_state(self) -> dict[str, list[Any]]:
        """The unit fields only some rule systems read (``Ruleset.unit_state``), for those
        systems' games alone: the others' checksums stay as they were."""
        from warlog.engine.rulesets import get_ruleset

        fields = getattr(get_ruleset(self.rule_system), "unit_state", ())
        if not fields:
            return {}
        return {u.id: [list(v) if isinstance(v, tuple) else v for v in
                       (getattr(u, f) for f in fields)] for u in self.units.values()}

    def checksum(self) -> str:
        """sha256 of everything the rules read, in a canonical byte form. State that only some
        periods have (ammunition, formations, spotting, trenches) joins the digest only once it
        is set, so a game without any digests as it did before those periods existed."""
        body: dict[str, Any] = {
            "turn": self.turn,
            "side": self.side,
            "phase": self.phase,
            "dice_rolled": self.dice_rolled,
            "melees": [list(m) for m in self.melees],
            "units": [
                [u.id, u.side, u.type, list(u.cell), u.facing, u.hits, u.removed, u.acted, u.moved, u.shot,
                 u.attacked]
                for u in self.units.values()
            ],
        }
        extra = {
            "spotted": [list(p) for p in self.spotted],
            "defender": self.defender,
            "trenches": [list(c) for c in self.trenches],
            "barrage_targets": self.barrage_targets,
            "first_side": self.first_side,
            "active": [self.active, self.active_moved] if self.active else None,
            "pending": self.pending,
            "exhaustion": dict(sorted(self.exhaustion.items())),  # key order is not a fact
            "exhausted": dict(sorted(self.exhausted.items())),
            "marked": self.marked,
            "offers": [[u, list(c)] for u, c in self.offers],
            "units": {u.id: [u.reformed, u.out_of_ammo, u.formation, u.fought, u.done, u.charged,
                             u.pila_used] + ([u.fired] if u.fired else [])
                      for u in self.units.values()
                      if u.reformed or u.out_of_ammo or u.formation is not None or u.fought
                      or u.done or u.charged or u.pila_used or u.fired},
            "unit_state": self._unit_state(),
        }
        extra = {key: value for key, value in extra.items() if value}
        if extra:
            body["period_state"] = extra
        return hashlib.sha256(orjson.dumps(body)).hexdigest()


_clone_unit = _cloner(LegacyUnit)
_clone_state = _cloner(LegacyState)


# -- what the core's events do to these fields ---------------------------------------------------
# The core's folds (engine/fold.py) write what every system has; these hooks run right after them
# and write the five systems' own fields. They are the lines the core's folds held before the
# records were split, moved verbatim and in the same order relative to the core's part, so the
# state after every event, and so every stored game's checksum, is what it was.


def on_phase_started(state: LegacyState, e: Event) -> None:
    """After the core set turn, side and phase: a new phase's marks, by the phase's name."""
    state.offers = []  # an advance is taken in the phase it is won, or not at all
    if e["phase"] == "movement":  # a new player turn: its units may act again
        state.spotted = []
        for u in state.units.values():
            if u.side == e["side"]:
                u.acted = u.moved = u.shot = u.reformed = False
                u.attacked = None
                u.moved_cells = 0
    elif e["phase"] == "actions":  # density: each unit of the side takes one action again
        for u in state.units.values():
            if u.side == e["side"]:
                u.acted = u.moved = u.shot = u.reformed = False
                u.attacked = None
                u.moved_cells = 0
    elif e["phase"] == "activation":  # an activation system's player turn
        state.active, state.active_moved = None, 0
        for u in state.units.values():
            if u.side == e["side"]:
                u.acted = u.moved = u.shot = u.fought = u.done = u.reformed = False
    elif e["phase"] == "artillery":  # Frontier: a side's turn starts with its artillery
        for u in state.units.values():
            if u.side == e["side"]:
                u.fired = u.fought = False
    elif e["phase"] == "missile_machines":
        for u in state.units.values():
            if u.side == e["side"]:
                u.fought = u.shot = False


def on_order_given(state: LegacyState, e: Event) -> None:
    """A move or a route order is the unit's one move order this turn (``acted``)."""
    order = e["order"]
    if order["type"] in ("move", "route"):  # the unit has had its one move order this turn
        _unit(state, {"seq": e["seq"], "unit": order["unit"]}).acted = True


def on_unit_moved(state: LegacyState, e: Event) -> None:
    """After the core moved the unit (its cell, ``moved``): the cells it moved, the advance
    it took, a melee it may fight again, the active unit's move."""
    u = state.units[e["unit"]]  # the core's fold found it
    u.moved_cells += len(e["path"])
    state.offers = [o for o in state.offers if o[0] != u.id]
    if state.phase == "melee":  # napoleonic.advance: a unit that advances may fight again
        u.fought = False
    if state.active == u.id:
        state.active_moved += len(e["path"])


def on_unit_removed(state: LegacyState, e: Event) -> None:
    """After the core removed the unit (and the choice it owed): its advance, its melees, its
    artillery mark."""
    u = state.units[e["unit"]]  # the core's fold found it
    state.offers = [o for o in state.offers if o[0] != u.id]
    state.melees = [m for m in state.melees if u.id not in m]
    if u.id in state.marked:
        state.marked.remove(u.id)


FOLD_HOOKS: dict[str, Callable[[LegacyState, Event], None]] = {
    "phase_started": on_phase_started,
    "order_given": on_order_given,
    "unit_moved": on_unit_moved,
    "unit_removed": on_unit_removed,
}
"""Core event kind -> what it does to the legacy fields, after the core's fold of it."""
LegacyState.fold_hooks = FOLD_HOOKS
