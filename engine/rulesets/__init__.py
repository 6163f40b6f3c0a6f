"""Rule systems, registered by id."""

from __future__ import annotations

from warlog.engine.rulesets.base import Ruleset


def get_ruleset(system: str) -> Ruleset:
    """The rule system with this id; ValueError naming the known ones otherwise."""
    if system == "ohw":
        from warlog.engine.rulesets.ohw import OneHourWargames

        return OneHourWargames()
    raise ValueError(f"unknown rule system {system!r}; known: ohw")
