"""Upgrades of stored event dicts from older schema versions, run before validation.

Each entry maps (kind, version) to a function returning the dict at version + 1; kinds with no
entry for a version are unchanged by it (only ``v`` is raised).

Version 2 (the seven One Hour Wargames periods): a move records ``stopped_by`` (the rule that
cut it short), and a game's first event records the options that came with it. A version-1 game
played by the older reading of a terrain feature (every cell stops a move), so its options say
so: it folds as it was played, and verify tells where the current rules would differ.

Version 3 (rules as written, round two): rulings that differed from the books were brought to
them, each behind an option whose table entry says ``since = 3`` and gives, as ``before``, the
value that reproduces the engine as it was. A game recorded at version 2 or earlier gains those
options with their ``before`` values (in its options and its scenario's), so it folds, verifies
and re-derives its bots' orders exactly as it was played; the table, not this module, says which
options those are, so no rule system is named here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from warlog.events.model import SCHEMA_VERSION

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def _move_v1(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "stopped_by": None}


# The options version 2 added to One Hour Wargames, with the values that reproduce version 1.
_OHW_V1_OPTIONS = {
    "crossing_stops": "ford",
    "line_of_sight": False,
    "shoot_in_melee": False,
    "terrain_feature": "cell",
}


def _with_v1_options(options: Any) -> Any:
    if not isinstance(options, dict):
        return options
    return dict(sorted({**_OHW_V1_OPTIONS, **options}.items()))


def _game_started_v1(data: dict[str, Any]) -> dict[str, Any]:
    """The options in force, and the scenario's own copy of them, gain version 2's options
    with the values that reproduce version 1."""
    if data.get("rule_system") != "ohw":
        return data
    out = {**data, "options": _with_v1_options(data.get("options"))}
    scenario = data.get("scenario")
    if isinstance(scenario, dict) and "options" in scenario:
        out["scenario"] = {**scenario, "options": _with_v1_options(scenario["options"])}
    return out


def _game_started_v2(data: dict[str, Any]) -> dict[str, Any]:
    """The options in force, and the scenario's copy of them, gain version 3's options with the
    values that reproduce version 2 (an option the game names keeps its value)."""
    from warlog.engine.rulesets.tables import options_added

    system, period = data.get("rule_system"), data.get("period")
    options = data.get("options")
    if not isinstance(system, str) or not isinstance(period, str) or not isinstance(options, dict):
        return data  # malformed: validation names the field
    try:
        added = options_added(system, period, 3)
    except (ValueError, KeyError):
        return data  # an unknown system or period: the fold names it
    if not added:
        return data

    def with_added(given: Any) -> Any:
        if not isinstance(given, dict):
            return given
        return dict(sorted({**added, **given}.items()))

    out = {**data, "options": with_added(options)}
    scenario = data.get("scenario")
    if isinstance(scenario, dict) and isinstance(scenario.get("options"), dict):
        out["scenario"] = {**scenario, "options": with_added(scenario["options"])}
    return out


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("unit_moved", 1): _move_v1,
    ("game_started", 1): _game_started_v1,
    ("game_started", 2): _game_started_v2,
}


class UpcastError(ValueError):
    pass


def upcast(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` raised to the current schema version (unchanged if it already is)."""
    version = data.get("v", SCHEMA_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise UpcastError(
            f"event seq {data.get('seq', '?')}: schema version {version!r} is not a version "
            f"warlog ever wrote (1 to {SCHEMA_VERSION})"
        )
    if version > SCHEMA_VERSION:
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
