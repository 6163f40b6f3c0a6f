"""One Hour Wargames army generation (``ohw.army``): the d6 tables for 3, 4 and 6 units.

A roll gives how many units of each class (A, B, C, D) an army has; each period maps a class to
its own unit type (the ``class`` of each row in ohw/table.toml). Used by ``warlog army`` and by
scenarios whose armies are rolled at the start of the game (the die is a dice event in the log).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warlog.engine.rulesets.tables import load_table

CLASSES = ("A", "B", "C", "D")


def army_sizes() -> tuple[int, ...]:
    return tuple(load_table("ohw")["army"]["sizes"])


def classes_for(size: int, roll: int) -> dict[str, int]:
    """How many units of each class the table gives ``size`` units on a die of ``roll``."""
    if size not in army_sizes():
        raise ValueError(f"an army has {', '.join(map(str, army_sizes()))} units, not {size}")
    if not 1 <= roll <= 6:
        raise ValueError(f"a d6 shows 1 to 6, not {roll}")
    counts = load_table("ohw")["army"]["rolls"][str(size)][roll - 1]
    return dict(zip(CLASSES, counts))


def type_of_class(period: Mapping[str, Any], cls: str, options: Mapping[str, Any]) -> str:
    """The period's unit type for a class: an optional type (Machine Age Tanks) replaces the
    standard one when its option is on."""
    standard = optional = None
    for name, row in period["units"].items():
        if row["class"] != cls:
            continue
        if "option" in row:
            if options.get(row["option"]):
                optional = name
        elif standard is None:
            standard = name
    chosen = optional or standard
    if chosen is None:
        raise ValueError(f"{period['name']} has no unit of class {cls}")
    return chosen


def army_types(period_id: str, size: int, roll: int,
               options: Mapping[str, Any] | None = None) -> list[str]:
    """The unit types of a rolled army, in class order (A first)."""
    period = load_table("ohw")["periods"][period_id]
    counts = classes_for(size, roll)
    return [type_of_class(period, cls, options or {}) for cls in CLASSES for _ in range(counts[cls])]


def unit_ids(side: str, types: list[str]) -> list[str]:
    """Ids for rolled units: ``r-infantry-1``, ``b-men-at-arms-2`` (counted within a type)."""
    seen: dict[str, int] = {}
    out = []
    for unit_type in types:
        seen[unit_type] = seen.get(unit_type, 0) + 1
        out.append(f"{side[0]}-{unit_type.lower().replace(' ', '-')}-{seen[unit_type]}")
    return out
