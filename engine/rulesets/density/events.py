"""The event models of the density system's own kinds (``MODELS``, in the order the log's union
once had them), importing only the events layer: see the registry's ``event_models``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from warlog.events.fields import UnitId
from warlog.events.model import Envelope


class DisorderTested(Envelope):
    """A disorder test (density): the die against the unit's density; below it, that many
    figures fall out of formation."""

    kind: Literal["disorder_tested"] = "disorder_tested"
    unit: UnitId
    reason: Literal["terrain", "friends", "turn"]
    die: int
    density: int
    figures: int = Field(ge=0)


class UnitReformed(Envelope):
    """Figures out of formation rejoin the unit on a Reform action (density)."""

    kind: Literal["unit_reformed"] = "unit_reformed"
    unit: UnitId
    figures: int = Field(ge=0)


MODELS = (
    DisorderTested, UnitReformed,
)
