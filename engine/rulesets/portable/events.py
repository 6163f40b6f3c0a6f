"""The event models of the Portable Wargame's own kinds (``MODELS``, in the order the log's union
once had them), importing only the events layer: see the registry's ``event_models``."""

from __future__ import annotations

from typing import Literal

from warlog.events.fields import PerSide, UnitId
from warlog.events.model import Envelope


class UnitActivated(Envelope):
    """A unit's activation begins; the one active before it is done for the turn."""

    kind: Literal["unit_activated"] = "unit_activated"
    unit: UnitId


class ExhaustionPoints(Envelope):
    """Each army's starting strength and the strength it may lose before it is exhausted."""

    kind: Literal["exhaustion_points"] = "exhaustion_points"
    strength: PerSide
    points: PerSide


class ArmyExhausted(Envelope):
    kind: Literal["army_exhausted"] = "army_exhausted"
    lost: int
    point: int


MODELS = (
    UnitActivated, ExhaustionPoints, ArmyExhausted,
)
