"""The event models of the Napoleonic system's own kinds (``MODELS``, in the order the log's union
once had them), importing only the events layer: see the registry's ``event_models``."""

from __future__ import annotations

from typing import Literal

from warlog.events.fields import Cell, Modifiers, UnitId
from warlog.events.model import Envelope


class MeleeRolled(Envelope):
    """One side's die in a melee where both roll (napoleonic): every modifier with its rule,
    the total, and whether it is low enough (``at_most``) that this unit takes a hit."""

    kind: Literal["melee_rolled"] = "melee_rolled"
    unit: UnitId
    opponent: UnitId
    attacking: bool
    die: int
    modifiers: Modifiers = ()
    total: int
    at_most: int
    hit: bool


class AdvanceOffered(Envelope):
    """The winner of a melee may advance into the cell its enemy left (napoleonic.advance)."""

    kind: Literal["advance_offered"] = "advance_offered"
    unit: UnitId
    cell: Cell


MODELS = (
    MeleeRolled, AdvanceOffered,
)
