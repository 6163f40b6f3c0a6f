"""The event models of Frontier's own kinds (``MODELS``, in the order the log's union once had
them), importing only the events layer: see the registry's ``event_models``."""

from __future__ import annotations

from typing import Literal

from warlog.events.fields import Attackers, Cell, Modifiers, UnitId
from warlog.events.model import Envelope


class ShellLanded(Envelope):
    """Where a battery's shot fell (the fall-of-shot die before this), and whether the battery
    saw the cell it aimed at (direct fire) or not (indirect)."""

    kind: Literal["shell_landed"] = "shell_landed"
    unit: UnitId
    aimed: Cell
    fall: Literal["on target", "left", "over", "right", "short"]
    landed: Cell | None  # None: off the board, the shot is lost
    direct: bool


class UnitMarked(Envelope):
    """Destroyed by artillery: removed with the other losses once every battery has fired."""

    kind: Literal["unit_marked"] = "unit_marked"
    unit: UnitId


class CombatFought(Envelope):
    """Frontier's combat: both dice (before this) against both strengths, every modifier."""

    kind: Literal["combat_fought"] = "combat_fought"
    target: UnitId
    attackers: Attackers
    faced: UnitId
    attacker_die: int
    attacker_strength: int
    attacker_modifiers: Modifiers = ()
    defender_die: int
    defender_strength: int
    defender_modifiers: Modifiers = ()
    target_destroyed: bool
    attacker_destroyed: bool


MODELS = (
    ShellLanded, UnitMarked, CombatFought,
)
