"""The rule catalogue: id -> text, source, section, interpretation flag, switching option.

Kept as data (engine/rulesets/rules.toml) so that the dashboard, the CLI, the generated
reference (docs/rules.md) and the golden-game coverage test all read the same list the engine
cites. Each rule names its source (a book or chapter described in the catalogue's
``[source.*]`` tables) and the section of it the rule comes from.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    author: str
    part: str
    about: str


@dataclass(frozen=True)
class Rule:
    id: str
    text: str
    source: str  # a key of sources()
    section: str
    interpretation: bool = False
    option: str | None = None
    note: str | None = None
    short: str | None = None  # a modifier's few words for the arithmetic ("in line")

    @property
    def citation(self) -> str:
        """Where the rule comes from, in words: "One Hour Wargames on a grid, Ancients: melee"."""
        return f"{sources()[self.source].title}, {self.section}"


class IllegalOrder(ValueError):
    """An order the rules refuse. ``rule`` is the id of the rule it breaks."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.message = message


@cache
def _data() -> dict:
    """rules.toml, then each system's own rules.toml (in name order), as one catalogue."""
    from warlog.engine.rulesets import package, systems

    rulesets = files("warlog.engine.rulesets")
    parts = [("rules.toml", rulesets.joinpath("rules.toml"))] + [
        (f"{name}/rules.toml", files(package(name)).joinpath("rules.toml"))
        for name in sorted(systems()) if files(package(name)).joinpath("rules.toml").is_file()]
    merged: dict = {"source": {}, "rule": []}
    for name, path in parts:
        part = tomllib.loads(path.read_text("utf-8"))
        for key, source in part.get("source", {}).items():
            if key in merged["source"]:
                raise ValueError(f"{name}: source {key!r} is already described")
            merged["source"][key] = source
        merged["rule"] += part.get("rule", [])
    return merged


@cache
def sources() -> dict[str, Source]:
    """The texts the rules come from, by key."""
    return {key: Source(key=key, **entry) for key, entry in _data()["source"].items()}


@cache
def catalogue() -> dict[str, Rule]:
    """Every rule the engine knows, by id, in the catalogue's order."""
    rules: dict[str, Rule] = {}
    for entry in _data()["rule"]:
        if entry["id"] in rules:
            raise ValueError(f"rules.toml: rule id {entry['id']!r} appears twice")
        if entry["source"] not in sources():
            raise ValueError(f"rules.toml: {entry['id']} cites unknown source {entry['source']!r}")
        rules[entry["id"]] = Rule(**entry)
    return rules


def rules_for(system: str, period: str | None = None) -> list[Rule]:
    """The rules a game of ``system`` and ``period`` can cite: the grid's, the system's common
    ones, and that period's own (``ohw.ancients.*``), in catalogue order."""
    from warlog.engine.rulesets.tables import periods

    all_periods = set(periods(system))
    out = []
    for r in catalogue().values():
        parts = r.id.split(".")
        if parts[0] == "grid" or (
            parts[0] == system and (parts[1] not in all_periods or parts[1] == period)
        ):
            out.append(r)
    return out
