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
        if system == "ohw":
            from warlog.engine.rulesets.ohw import OneHourWargames as Kind
        elif system == "portable":
            from warlog.engine.rulesets.portable import PortableWargame as Kind
        elif system == "frontier":
            from warlog.engine.rulesets.frontier import Frontier as Kind
        elif system == "napoleonic":
            from warlog.engine.rulesets.napoleonic import Napoleonic as Kind
        elif system == "density":
            from warlog.engine.rulesets.density import Density as Kind
        else:
            raise ValueError(f"unknown rule system {system!r}; known: density, frontier, ohw, "
                             "napoleonic, portable")
        ruleset = _LOADED[system] = Kind()
    return ruleset
