"""Game state: plain data, no rules. The fold (fold.py) is the only writer.

``Unit`` and ``GameState`` hold what every rule system has: who and where a unit is, its hits,
the per-turn marks the common procedures read, and the game's turn, phase, dice and result. A
rule system's own state lives in its records, dataclass subclasses it names (``Ruleset.State``,
``Ruleset.Unit``; the five built-in systems share engine/rulesets/common/legacy.py), so the
referees keep writing ``unit.fought`` as plain attributes and the fold builds the system's
records. The methods here (public, checksum, copy) cover the core fields; a record with fields
of its own overrides them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
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

    @classmethod
    def from_spec(cls, spec: Any, row: Mapping[str, Any]) -> Unit:
        """The unit as the scenario places it (``spec``: its unit entry; ``row``: its type's row
        in the rule system's table, empty where it has none). A rule system's record reads its
        own fields from the two (a subclass overrides this), so the fold names none of them."""
        return cls(id=spec.id, side=spec.side, type=spec.type, cell=tuple(spec.cell),
                   facing=spec.facing, name=spec.name, quality=spec.quality)

    def state_words(self) -> list[str]:
        """The unit's own state in a rule system's words ("square", "density 4, ..."), for the
        board's hover; the core's units have none beyond what the statuses say."""
        return []

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
    dice_rolled: int = 0
    first_side: str | None = None  # who won this turn's initiative (else the scenario's first)
    pending: list[dict[str, Any]] = field(default_factory=list)  # choices owed by a player
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

    @property
    def to_act(self) -> str | None:
        """The side whose order the game waits for: a player owing a choice, else the side
        whose phase it is."""
        return self.pending[0]["side"] if self.pending else self.side

    def unit_status(self, unit: Unit) -> list[str]:
        """What a player should see on ``unit`` beyond its hits and facing, in its rules' words
        (the board's badges, `warlog show`): a rule system's record says (the core has none)."""
        return []

    # -- copies and digests --------------------------------------------------------------------
    def copy(self) -> GameState:
        """An independent copy (units and the containers the fold changes are the mutable
        parts; scenario, grid, terrain and memo are shared). Field by field
        (``clone_with_units``), not by ``dataclasses.replace``: decide copies the state on every
        order. A record with containers of its own overrides this and copies them too (calling
        the core's as ``GameState.copy(self)`` if it must: the zero-argument ``super()`` fails in
        a slotted dataclass before Python 3.14)."""
        state = clone_with_units(self)
        state.pending = list(self.pending)
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
            "first_side": self.first_side,
            "pending": list(self.pending),
            "units": [u.public() for u in self.units.values()],
        }

    def checksum(self) -> str:
        """sha256 of everything the rules read, in a canonical byte form (orjson, insertion
        order: the layout is the dict's order). The core's fields only: a record with fields of
        its own overrides this, as the built-in systems' legacy record does with the layout
        every stored game was written with."""
        body: dict[str, Any] = {
            "turn": self.turn,
            "side": self.side,
            "phase": self.phase,
            "dice_rolled": self.dice_rolled,
            "units": [
                [u.id, u.side, u.type, list(u.cell), u.facing, u.hits, u.removed, u.acted,
                 u.moved, u.shot, u.attacked]
                for u in self.units.values()
            ],
        }
        extra = {"first_side": self.first_side, "pending": self.pending}
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


CLONERS: dict[type, Any] = {}
"""type(obj) -> a function returning a shallow field-by-field copy of obj: one per record class,
written the first time one of its instances is copied (a subclass's copies its own fields too).
A plain dict, not one with ``__missing__``: only an exact dict's lookup is the interpreter's fast
path, and decide looks one up for every unit of every copy."""


def clone_with_units(state: GameState) -> Any:
    """A shallow copy of ``state`` whose units are shallow copies too, each by its own class's
    cloner: the records' part of ``copy``, the containers being each record's to copy."""
    try:
        copied = CLONERS[type(state)](state)
        copied.units = {k: CLONERS[type(u)](u) for k, u in state.units.items()}
    except KeyError:  # a class copied for the first time: write its cloner, then copy
        for cls in (type(state), *map(type, state.units.values())):
            if cls not in CLONERS:
                CLONERS[cls] = _cloner(cls)
        return clone_with_units(state)
    return copied
