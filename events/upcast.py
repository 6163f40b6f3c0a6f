"""Upgrades of stored event dicts from older schema versions, run before validation.

Each entry maps (kind, version) to a function returning the dict at version + 1. Schema
version 1 is the first, so the table is empty; the mechanism is here so that the first change
to an event's shape is a new entry, not a migration of stored data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from warlog.events.model import SCHEMA_VERSION

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


class UpcastError(ValueError):
    pass


def upcast(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` raised to the current schema version (unchanged if it already is)."""
    version = data.get("v", SCHEMA_VERSION)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise UpcastError(
            f"event seq {data.get('seq', '?')}: schema version {version!r} is newer than this "
            f"warlog understands ({SCHEMA_VERSION}); upgrade warlog to read it"
        )
    while version < SCHEMA_VERSION:
        step = UPCASTERS.get((data.get("kind", ""), version))
        if step is not None:
            data = step(data)
        version += 1
        data = {**data, "v": version}
    return data
