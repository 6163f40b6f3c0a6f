"""The event models of One Hour Wargames' own kinds (``MODELS``, in the order the log's union once
had them), importing only the events layer: see the registry's ``event_models``."""

from __future__ import annotations

from typing import Literal

from warlog.events.fields import (
    MAX_UNITS, ArmyClasses, Cell, Cells, Facing, Pairs, Side, UnitId, UnitType, items,
)
from warlog.events.model import Envelope
from warlog.events.orders import StrictModel


class MeleeEnded(Envelope):
    """A melee that ends with both units still on the board (a regrouping attacker)."""

    kind: Literal["melee_ended"] = "melee_ended"
    attacker: UnitId
    defender: UnitId


class OutOfAmmo(Envelope):
    """The unit has run out of ammunition and may not shoot for the rest of the game."""

    kind: Literal["out_of_ammo"] = "out_of_ammo"
    unit: UnitId


class EnemiesSpotted(Envelope):
    """The spotting phase: every (spotter, enemy) pair the phasing side sees."""

    kind: Literal["enemies_spotted"] = "enemies_spotted"
    seen: Pairs


class RollOff(Envelope):
    """Both sides rolled (the dice events before this one); the higher die won."""

    kind: Literal["roll_off"] = "roll_off"
    winner: Side


class RolesChosen(Envelope):
    """Attacker and defender are set; the defender's units on open ground are in trenches."""

    kind: Literal["roles_chosen"] = "roles_chosen"
    attacker: Side
    defender: Side
    trenches: Cells = ()


class BarragePlanned(Envelope):
    """The attacker's halved die: how many enemy units the barrage may strike."""

    kind: Literal["barrage_planned"] = "barrage_planned"
    targets: int


class ArmyUnit(StrictModel):
    id: UnitId
    type: UnitType
    cell: Cell
    facing: Facing


ArmyUnits = items(ArmyUnit, MAX_UNITS, "a rolled army has at most 6 units")


class ArmyRolled(Envelope):
    """A side's army, rolled on the army table: its units join the game where they stand."""

    kind: Literal["army_rolled"] = "army_rolled"
    size: int
    roll: int
    classes: ArmyClasses
    units: ArmyUnits


MODELS = (
    MeleeEnded, OutOfAmmo, EnemiesSpotted, RollOff, RolesChosen, BarragePlanned, ArmyRolled,
)
