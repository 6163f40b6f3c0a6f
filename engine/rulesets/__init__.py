"""Rule systems, registered by id."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from warlog.engine.rulesets.base import Ruleset

_LOADED: dict[str, Ruleset] = {}


def get_ruleset(system: str) -> Ruleset:
    """The rule system with this id (one shared, stateless instance); ValueError naming the
    known ones otherwise."""
    ruleset = _LOADED.get(system)
    if ruleset is None:
        if system != "ohw":
            raise ValueError(f"unknown rule system {system!r}; known: ohw")
        from warlog.engine.rulesets.ohw import OneHourWargames

        ruleset = _LOADED[system] = OneHourWargames()
    return ruleset
