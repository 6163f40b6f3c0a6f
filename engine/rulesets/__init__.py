"""Rule systems, registered by id: the one place that names them (issue 40).

Each system is a package of its own (``engine/rulesets/<id>/``: a light manifest, its referee in
referee.py, its table in table.toml, its own rules in rules.toml where it has them); ``common/``
holds what several share and is no system. ``BUILTIN`` maps each id to its referee, in the order
the systems were added (the rule catalogue, the reference and the order union keep that order);
a referee is imported only when a game of its system is played, so the registry costs a command
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

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


def showcase(system: str) -> str:
    """The id of the bundled scenario that shows ``system`` off (its package's ``SHOWCASE``:
    the README's picture of its board)."""
    return import_module(package(system)).SHOWCASE


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


@cache
def event_folds() -> dict[str, Callable[[Any, dict[str, Any]], None]]:
    """Event kind -> its fold, for every kind a package owns (each package's ``folds.FOLDS``:
    ``common`` first, then the systems in registry order); the core's kinds are engine/fold.py's.

    One table for every system (the plan's conservative choice, section 4.2): a log forged to
    hold another system's kind folds as it did before the folds moved into the packages. A kind
    two packages claim is an error, not an override, so no package's fold is silently lost.
    Built once: the fold modules are light (they import no referee)."""
    table: dict[str, Callable[[Any, dict[str, Any]], None]] = {}
    for name in ("common", *BUILTIN):
        folds = import_module(f"{__name__}.{name}.folds").FOLDS
        for kind in folds:
            if kind in table:
                raise ValueError(f"event kind {kind!r} is folded by two packages (the second: "
                                 f"{name})")
        table.update(folds)
    return table


@cache
def event_models() -> tuple[Any, ...]:
    """The event models every package owns (each package's ``events.MODELS``: ``common`` first,
    then the systems in registry order); the core's kinds are events/model.py's, which joins
    these to them (``event_models`` there). A package owns a kind's model and its fold alike
    (tests/engine/test_event_packages.py); a kind two packages claim is an error."""
    models: list[Any] = []
    owner: dict[str, str] = {}
    for name in ("common", *BUILTIN):
        for model in import_module(f"{__name__}.{name}.events").MODELS:
            kind = model.model_fields["kind"].default
            if kind in owner:
                raise ValueError(f"event kind {kind!r} is modelled by two packages "
                                 f"({owner[kind]} and {name})")
            owner[kind] = name
            models.append(model)
    return tuple(models)
