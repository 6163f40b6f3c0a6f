"""Rule-system tables: the unit statistics and option definitions kept as TOML data.

A rule system's table is ``engine/rulesets/{system}/table.toml`` (its package, named by the
registry) with a ``[periods]`` table. Tables are read once and
cached, so the cached data is handed out as a deep-frozen view (mappings are read-only
``MappingProxyType``, arrays are tuples): a caller that mutated it would silently change the rules
for every later game in the process.

Scenarios name the options they use under ``[options]``; :func:`resolve_options` checks them against
the table's ``[options.*]`` specs and fills in every default, so the options in force (recorded in
a game's first event) are always complete.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from types import MappingProxyType
from typing import Any

from warlog.engine.rulesets import package
from warlog.engine.rulesets import systems as registered

_NAME = re.compile(r"[a-z][a-z0-9_]*")
# Each rule system's name for people, in the rules reference's order (One Hour Wargames first).
SYSTEM_TITLES = {"ohw": "One Hour Wargames", "portable": "The Portable Wargame: Ancient Battles",
                 "frontier": "Frontier (Joseph Morschauser)",
                 "density": "Ancient battles with formation density",
                 "napoleonic": "Napoleonic battles on a grid"}


class OptionError(ValueError):
    """A scenario option the table does not allow. ``option`` names it, ``problem`` says why."""

    def __init__(self, option: str, problem: str, *, source: str = "<options>") -> None:
        super().__init__(f"{source}: options.{option}: {problem}")
        self.option = option
        self.problem = problem
        self.source = source


def _freeze(value: Any) -> Any:
    """A read-only deep copy of parsed TOML: dicts become mapping proxies, lists tuples."""
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


@cache
def _read(name: str) -> Mapping[str, Any]:
    return _freeze(tomllib.loads(files(package(name)).joinpath("table.toml").read_text("utf-8")))


@cache
def _systems() -> tuple[str, ...]:
    names = sorted(name for name in registered() if _NAME.fullmatch(name)
                   and files(package(name)).joinpath("table.toml").is_file())
    return tuple(name for name in names if "periods" in _read(name))


def systems() -> list[str]:
    """The rule systems that have a table, sorted."""
    return list(_systems())


def load_table(system: str) -> Mapping[str, Any]:
    """The parsed table of ``system`` as a deep-frozen mapping (read-only; cached). Only known
    systems are read, so a name can never reach a file outside this package."""
    if system not in _systems():
        raise ValueError(f"unknown rule system {system!r}; known: {', '.join(_systems())}")
    return _read(system)


def rules_title(system: str, period: str) -> str:
    """A rule system and period in words: "One Hour Wargames: Ancients", or the system's title
    alone where it has one period ("Frontier (Joseph Morschauser)"). Unknown ids are left as
    they are (a stored game may name a system this version does not have)."""
    title = SYSTEM_TITLES.get(system, system)
    if system not in _systems():
        return f"{title} {period}".strip()
    table = _read(system)["periods"]
    if len(table) == 1:
        return title
    return f"{title}: {table.get(period, {}).get('name', period)}"


def periods(system: str) -> list[str]:
    """The periods of ``system``, in the table's (chronological) order."""
    return list(load_table(system)["periods"])


def unit_types(system: str, period: str) -> list[str]:
    """The unit types of ``period``, in the table's order (class A, B, C, D for ohw)."""
    table = load_table(system)["periods"]
    if period not in table:
        raise ValueError(f"unknown period {period!r} of {system}; known: {', '.join(table)}")
    return list(table[period]["units"])


def _check_option(name: str, spec: Mapping[str, Any], value: Any) -> str | None:
    """Why ``value`` is not allowed for option ``name``, or None when it is."""
    kind = spec["type"]
    if kind == "int":
        # bool is a subclass of int in Python, but `true` is not a number of hits.
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected a whole number, got {value!r}"
        if "min" in spec and value < spec["min"]:
            return f"{value} is below the minimum {spec['min']}"
        if "max" in spec and value > spec["max"]:
            return f"{value} is above the maximum {spec['max']}"
        return None
    if kind == "bool":
        return None if isinstance(value, bool) else f"expected true or false, got {value!r}"
    if kind == "choice":
        if value not in spec["choices"] or not isinstance(value, str):
            return f"{value!r} is not one of: {', '.join(spec['choices'])}"
        return None
    raise ValueError(f"option {name!r} has an unknown type {kind!r} in the table")


def option_specs(system: str, period: str) -> dict[str, Mapping[str, Any]]:
    """The options that mean something in ``period`` (an option may be limited to some periods),
    with that period's default in ``default``."""
    out = {}
    for name, spec in load_table(system).get("options", {}).items():
        if "periods" in spec and period not in spec["periods"]:
            continue
        default = spec.get("period_default", {}).get(period, spec["default"])
        out[name] = MappingProxyType({**spec, "default": default})
    return out


def options_added(system: str, period: str, version: int) -> dict[str, Any]:
    """The options of ``system`` in ``period`` that schema ``version`` introduced (``since``),
    each with its ``before`` value: the reading a game recorded at an earlier version was played
    by. The upcaster gives older games these, so they fold and re-derive as they were played."""
    return {name: spec["before"] for name, spec in option_specs(system, period).items()
            if spec.get("since") == version}


def resolve_options(system: str, period: str, given: Mapping[str, Any], *,
                    source: str) -> dict[str, Any]:
    """Validate a scenario's ``[options]`` and return every option of ``system`` that applies to
    ``period``, defaults filled in, keys sorted. Raises :class:`OptionError` naming the first
    bad option."""
    every = load_table(system).get("options", {})
    specs = option_specs(system, period)
    resolved = {name: spec["default"] for name, spec in specs.items()}
    for name, value in given.items():
        if name in every and name not in specs:
            where = ", ".join(every[name]["periods"])
            raise OptionError(name, f"applies only to {where}, not {period}", source=source)
        if name not in specs:
            known = ", ".join(sorted(specs)) or "none"
            raise OptionError(name, f"unknown option; known options: {known}", source=source)
        problem = _check_option(name, specs[name], value)
        if problem:
            raise OptionError(name, problem, source=source)
        resolved[name] = value
    return dict(sorted(resolved.items()))
