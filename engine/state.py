"""Game state: plain data, no rules. The fold (fold.py) is the only writer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from typing import Any

import orjson

from warlog.engine.geometry import Cell, Grid
from warlog.engine.scenario import Scenario

SIDES: tuple[str, str] = ("red", "blue")


def other_side(side: str) -> str:
    return "blue" if side == "red" else "red"


@dataclass(slots=True)
class Unit:
    id: str
    side: str
    type: str
    cell: Cell
    facing: str
    name: str | None = None
    quality: str | None = None  # elite, poor (where the rule system grades units)
    hits: int = 0  # hits taken, or strength points lost
    removed: bool = False
    acted: bool = False  # has used its move order this player turn (ohw.move.once)
    moved: bool = False  # counts as having moved, for the rules on shooting after moving
    shot: bool = False  # has shot this player turn
    attacked: str | None = None  # the enemy it attacked this player turn
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
class GameState:
    game: str
    rule_system: str
    period: str
    options: dict[str, Any]
    scenario: Scenario
    grid: Grid
    units: dict[str, Unit]  # in scenario order: iteration order is part of the rules' determinism
    terrain: dict[Cell, str] = field(default_factory=dict)  # the scenario's, as a plain dict
    # Facts derived from the scenario and options alone (terrain features, ...), computed once by
    # the rules and shared by every copy of the state: never anything the events change.
    memo: dict[str, Any] = field(default_factory=dict)
    dice_mode: str = "seeded"
    seed: int | None = None
    players: dict[str, str] = field(default_factory=dict)
    seq: int = 0
    turn: int = 0
    side: str | None = None
    phase: str | None = None
    melees: list[tuple[str, str]] = field(default_factory=list)  # (attacker, defender), oldest first
    dice_rolled: int = 0
    spotted: list[tuple[str, str]] = field(default_factory=list)  # (spotter, enemy) this turn
    defender: str | None = None  # the defending side (ohw.machine_age.trenches)
    trenches: list[Cell] = field(default_factory=list)  # open cells held as the roles are chosen
    barrage_targets: int | None = None  # how many units the pre-game barrage may strike
    first_side: str | None = None  # who won this turn's initiative (else the scenario's first)
    active: str | None = None  # the unit being activated (activation systems)
    active_moved: int = 0  # cells the active unit has moved in this activation
    pending: list[dict[str, Any]] = field(default_factory=list)  # choices owed by a player
    exhaustion: dict[str, int] = field(default_factory=dict)  # side -> exhaustion point
    exhausted: dict[str, int] = field(default_factory=dict)  # side -> turn it became exhausted
    marked: list[str] = field(default_factory=list)  # destroyed by artillery, not yet removed
    offers: list[tuple[str, Cell]] = field(default_factory=list)  # (unit, cell) it may advance to
    ended: bool = False
    winner: str | None = None
    end_reason: str | None = None

    # -- queries -----------------------------------------------------------------------------
    def alive(self, side: str | None = None) -> list[Unit]:
        if side is None:
            return [u for u in self.units.values() if not u.removed]
        return [u for u in self.units.values() if not u.removed and u.side == side]

    def unit_at(self, cell: Cell) -> Unit | None:
        for u in self.units.values():
            if not u.removed and u.cell == cell:
                return u
        return None

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
    def copy(self) -> GameState:
        """An independent copy (units and the containers the fold changes are the mutable
        parts; scenario, grid, terrain and memo are shared). Field by field (``_cloner``), not by
        ``dataclasses.replace``: decide copies the state on every order."""
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

    @property
    def to_act(self) -> str | None:
        """The side whose order the game waits for: a player owing a choice, else the side
        whose phase it is."""
        return self.pending[0]["side"] if self.pending else self.side

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


def _cloner(cls):
    """A function copying an instance of the dataclass ``cls`` field by field (a shallow copy),
    written out from its fields as dataclasses writes __init__: a tenth of the cost of
    ``dataclasses.replace``. decide copies the state, every unit in it, on every order."""
    body = "".join(f"    c.{f.name} = o.{f.name}\n" for f in fields(cls))
    namespace = {"new": object.__new__, "cls": cls}
    exec(f"def clone(o):\n    c = new(cls)\n{body}    return c\n", namespace)  # noqa: S102
    return namespace["clone"]


_clone_unit = _cloner(Unit)
_clone_state = _cloner(GameState)
