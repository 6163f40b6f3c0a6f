"""The event models of the kinds several rule systems write (``MODELS``, in the order the log's
union once had them), importing only the events layer: see the registry's ``event_models``."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from warlog.events.fields import Cell, Formation, Halvings, Modifiers, Side, UnitId
from warlog.events.model import Envelope
from warlog.events.omits import OmitsUnset


class MeleeJoined(Envelope):
    """``attacker`` has closed with ``defender``; ``aspect`` is where it struck the defender."""

    kind: Literal["melee_joined"] = "melee_joined"
    attacker: UnitId
    defender: UnitId
    aspect: Literal["front", "flank", "rear"]


class HitsInflicted(OmitsUnset, Envelope):
    """Hits from one shot or one melee roll, with the arithmetic that produced them.
    ``disorder``: what the source's figures out of formation took off its die (density)."""

    kind: Literal["hits_inflicted"] = "hits_inflicted"
    attack: Literal["shooting", "melee", "barrage"]
    source: UnitId | None  # None: the pre-game barrage, fired by no unit on the board
    target: UnitId
    die: int
    modifier: int
    base: int
    doubled: bool = False
    halvings: Halvings = ()
    hits: int
    total: int
    disorder: int = Field(default=0, le=0)

    omitted_when_default: ClassVar[tuple[str, ...]] = ("disorder",)


class FormationChanged(Envelope):
    kind: Literal["formation_changed"] = "formation_changed"
    unit: UnitId
    from_formation: Formation | None
    to_formation: Formation


class InitiativeWon(Envelope):
    """Both sides rolled for the initiative (the dice before this); the winner goes first."""

    kind: Literal["initiative_won"] = "initiative_won"
    winner: Side


class AttackRolled(Envelope):
    """One attack's die: every modifier with its rule, the total and what it needed."""

    kind: Literal["attack_rolled"] = "attack_rolled"
    attack: Literal["shooting", "melee", "strike_back", "missile_machine", "pila", "artillery",
                    "musketry", "pila_volley"]
    source: UnitId
    target: UnitId
    die: int
    modifiers: Modifiers = ()
    total: int
    needed: int
    hit: bool


class HitTaken(Envelope):
    """A hit unit's roll on the hit table: it loses a strength point, or its owner chooses."""

    kind: Literal["hit_taken"] = "hit_taken"
    unit: UnitId
    attacker: UnitId
    die: int
    outcome: Literal["lose", "choose", "lose_no_retreat"]
    retreat_to: Cell | None = None


class StrengthLost(Envelope):
    kind: Literal["strength_lost"] = "strength_lost"
    unit: UnitId
    amount: int
    total: int
    left: int


class UnitRetreated(Envelope):
    kind: Literal["unit_retreated"] = "unit_retreated"
    unit: UnitId
    from_cell: Cell
    to_cell: Cell


MODELS = (
    MeleeJoined, HitsInflicted, FormationChanged, InitiativeWon, AttackRolled, HitTaken,
    StrengthLost, UnitRetreated,
)
