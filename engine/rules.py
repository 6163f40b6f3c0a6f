"""The rule catalogue: id -> text, source, interpretation flag, switching option.

Kept as data (engine/rulesets/rules.toml) so that the dashboard, the CLI and the golden-game
coverage test all read the same list the engine cites.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files


@dataclass(frozen=True)
class Rule:
    id: str
    text: str
    source: str
    interpretation: bool = False
    option: str | None = None
    note: str | None = None


class IllegalOrder(ValueError):
    """An order the rules refuse. ``rule`` is the id of the rule it breaks."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.message = message


@cache
def catalogue() -> dict[str, Rule]:
    """Every rule the engine knows, by id, in the catalogue's order."""
    data = tomllib.loads(files("warlog.engine.rulesets").joinpath("rules.toml").read_text("utf-8"))
    rules: dict[str, Rule] = {}
    for entry in data["rule"]:
        if entry["id"] in rules:
            raise ValueError(f"rules.toml: rule id {entry['id']!r} appears twice")
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
