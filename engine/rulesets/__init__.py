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
from importlib.util import find_spec
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


def reference_extras(system: str) -> list[str]:
    """Markdown lines the rules reference shows after ``system``'s rules (its package's
    optional reference.py ``extras()``: a table computed by its own arithmetic), else none."""
    name = f"{package(system)}.reference"
    if find_spec(name) is None:
        return []
    return import_module(name).extras()


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


def _package_module(name: str, module: str) -> Any:
    """Package ``name``'s module ``module`` (folds, events, narration)."""
    return import_module(f"{__name__}.{name}.{module}")


def _by_kind(table_of: Callable[[str], dict[str, Any]], what: str) -> dict[str, Any]:
    """Every package's table (event kind -> its entry; ``table_of(package)``) joined into
    one: ``common`` first, then the systems in registry order. A kind two packages claim is an
    error naming both, not an override, so no package's entry is silently lost."""
    joined: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for name in ("common", *BUILTIN):
        for kind, entry in table_of(name).items():
            if kind in owner:
                raise ValueError(f"event kind {kind!r} is {what} by two packages "
                                 f"({owner[kind]} and {name})")
            owner[kind] = name
            joined[kind] = entry
    return joined


@cache
def event_folds() -> dict[str, Callable[[Any, dict[str, Any]], None]]:
    """Event kind -> its fold, for every kind a package owns (each package's ``folds.FOLDS``);
    the core's kinds are engine/fold.py's.

    One table for every system (the plan's conservative choice, section 4.2): a log forged to
    hold another system's kind folds as it did before the folds moved into the packages.
    Built once: the fold modules are light (they import no referee)."""
    return _by_kind(lambda name: _package_module(name, "folds").FOLDS, "folded")


@cache
def event_models() -> tuple[Any, ...]:
    """The event models every package owns (each package's ``events.MODELS``, in that order);
    the core's kinds are events/model.py's, which joins these to them (``event_models``
    there). A package owns a kind's model, its fold and its words alike
    (tests/engine/test_event_packages.py)."""
    return tuple(_by_kind(lambda name: {m.model_fields["kind"].default: m for m in
                                        _package_module(name, "events").MODELS},
                          "modelled").values())


@cache
def event_narrations() -> dict[str, Callable[[dict[str, Any], Any], str]]:
    """Event kind -> how it is told in words, for every kind a package owns (each package's
    ``narration.NARRATE``); the core's kinds are engine/narration.py's."""
    return _by_kind(lambda name: _package_module(name, "narration").NARRATE, "told")
