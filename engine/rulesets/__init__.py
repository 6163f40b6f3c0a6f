"""Rule systems, registered by id: the one place that names them (issue 40).

Each system is a package of its own (``engine/rulesets/<id>/``: a light manifest, its referee in
referee.py, its table in table.toml, its own rules in rules.toml where it has them); ``common/``
holds what several share and is no system. ``BUILTIN`` maps each id to its referee, in the order
the systems were added (the rule catalogue, the reference and the order union keep that order);
a referee is imported only when a game of its system is played, so the registry costs a command
nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from warlog.engine.rulesets.base import Ruleset

BUILTIN: dict[str, str] = {
    "ohw": "warlog.engine.rulesets.ohw.referee:OneHourWargames",
    "portable": "warlog.engine.rulesets.portable.referee:PortableWargame",
    "frontier": "warlog.engine.rulesets.frontier.referee:Frontier",
    "density": "warlog.engine.rulesets.density.referee:Density",
    "napoleonic": "warlog.engine.rulesets.napoleonic.referee:Napoleonic",
}
"""Every built-in rule system: its id and its referee ("module:class"), in registry order."""

_LOADED: dict[str, Ruleset] = {}


def systems() -> list[str]:
    """The ids of the registered rule systems, in registry order."""
    return list(BUILTIN)


def package(system: str) -> str:
    """The package holding ``system`` (its table and rules files live there); ValueError naming
    the known systems otherwise."""
    if system not in BUILTIN:
        raise ValueError(f"unknown rule system {system!r}; known: {', '.join(sorted(BUILTIN))}")
    return f"{__name__}.{system}"


def get_ruleset(system: str) -> Ruleset:
    """The rule system with this id (one shared, stateless instance); ValueError naming the
    known ones otherwise."""
    ruleset = _LOADED.get(system)
    if ruleset is None:
        if system not in BUILTIN:
            raise ValueError(f"unknown rule system {system!r}; known: "
                             f"{', '.join(sorted(BUILTIN))}")
        module, name = BUILTIN[system].split(":")
        ruleset = _LOADED[system] = getattr(import_module(module), name)()
    return ruleset
