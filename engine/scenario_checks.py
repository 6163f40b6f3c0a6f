"""The checks of a scenario that need the rule tables or the whole scenario: the grid kind, rule
system and period, the sides, the year, terrain, unit types, qualities, facings, formations,
densities, cells and who may share or enter them, rolled armies and hill levels.

Out of engine/scenario.py, which keeps the model and the loading: its
:func:`~warlog.engine.scenario.scenario_from_dict` checks the shapes and types with pydantic,
then calls :func:`resolve_and_check` here (importing this module on first use, since this one
imports that).
"""

from __future__ import annotations

from typing import Any

from warlog.engine.geometry import FACINGS, GRID_KINDS
from warlog.engine.scenario import (MAX_SCENARIO_ID_CHARS, SIDES, Scenario, ScenarioError,
                                    UnitSpec)
from warlog.events.ids import IdError, check_id


def _tables():
    """The rule tables module, imported on first use: importing ``warlog.engine.rulesets`` runs
    its ``__init__``, which reaches the engine modules that themselves import
    warlog.engine.scenario."""
    from warlog.engine.rulesets import tables

    return tables


class _Invalid(Exception):
    """Raised by the checks below with a field and a problem; the loader adds the source."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(field, problem)
        self.field, self.problem = field, problem


def _check_ids(s: Scenario) -> None:
    """The scenario id and every unit id under events/ids.py's one rule for ids (their patterns
    in engine/scenario.py are stricter still: this holds whatever those become)."""
    try:
        check_id(s.id, "scenario id", max_chars=MAX_SCENARIO_ID_CHARS)
    except IdError as exc:
        raise _Invalid("id", str(exc)) from None
    for i, unit in enumerate(s.units):
        try:
            check_id(unit.id, "unit id")
        except IdError as exc:
            raise _Invalid(f"units[{i}].id", str(exc)) from None


def _check_system(s: Scenario) -> None:
    tables = _tables()
    if s.grid.kind not in GRID_KINDS:
        kinds = ", ".join(GRID_KINDS)
        raise _Invalid("grid.kind", f"unknown grid kind {s.grid.kind!r}; use one of: {kinds}")
    known = ", ".join(tables.systems())
    if s.rule_system not in tables.systems():
        raise _Invalid("rule_system", f"unknown rule system {s.rule_system!r}; known: {known}")
    known = ", ".join(tables.periods(s.rule_system))
    if s.period not in tables.periods(s.rule_system):
        raise _Invalid("period", f"{s.rule_system} has no period {s.period!r}; known: {known}")


def _check_sides(s: Scenario) -> None:
    for side in SIDES:
        if side not in s.sides:
            raise _Invalid(f"sides.{side}", f"side {side!r} is missing; the sides are red and blue")
    for side in s.sides:
        if side not in SIDES:
            raise _Invalid(f"sides.{side}", f"unknown side {side!r}; the sides are red and blue")
    if s.first not in SIDES:
        raise _Invalid("first", f"{s.first!r} is not a side; use red or blue")


def _check_cell(s: Scenario, field: str, cell: tuple[int, int]) -> None:
    if not (0 <= cell[0] < s.grid.width and 0 <= cell[1] < s.grid.height):
        raise _Invalid(field, f"{cell} is off the {s.grid.width}x{s.grid.height} board")


def _check_terrain(s: Scenario, kinds: tuple[str, ...]) -> None:
    placed: dict[tuple[int, int], str] = {}
    for kind, cells in s.terrain.items():
        if kind not in kinds:
            problem = f"unknown terrain kind {kind!r}; known: {', '.join(kinds)}"
            raise _Invalid(f"terrain.{kind}", problem)
        for i, cell in enumerate(cells):
            _check_cell(s, f"terrain.{kind}[{i}]", cell)
            if cell in placed:
                problem = f"{cell} is already {placed[cell]}; a cell has one terrain kind"
                raise _Invalid(f"terrain.{kind}[{i}]", problem)
            placed[cell] = kind


def _check_year(s: Scenario, period: Any) -> None:
    span = period.get("year_range")
    if span is None:
        if s.year is not None:
            raise _Invalid("year", f"{period['name']} rules do not depend on the year; remove it")
        return
    rule = f"{s.rule_system}.{s.period}.year"
    if s.year is None:
        problem = f"{period['name']} needs the battle's year ({span[0]}-{span[1]}): its rules " \
                  f"change in {period['year_split']} ({rule})"
        raise _Invalid("year", problem)
    if not span[0] <= s.year <= span[1]:
        raise _Invalid("year", f"{s.year} is outside {period['name']} ({span[0]}-{span[1]})")


def _fielded(s: Scenario, row: Any) -> bool:
    """Whether a unit type exists under the scenario's options: ``option`` (a switch that must
    be on) and ``when`` (option -> the values under which the type exists)."""
    return ("option" not in row or s.options.get(row["option"]) is True) and all(
        s.options.get(name) in values for name, values in row.get("when", {}).items())


def _check_type(s: Scenario, period: Any, field: str, unit_type: str) -> None:
    row = period["units"].get(unit_type)
    if row is None:
        known = ", ".join(t for t, r in period["units"].items() if _fielded(s, r))
        raise _Invalid(field, f"{period['name']} has no unit type {unit_type!r}; known: {known}")
    if "option" in row and s.options.get(row["option"]) is not True:
        rule = f"{s.rule_system}.{s.period}.{row['option']}"
        raise _Invalid(field, f"{unit_type} need the optional rule: set options.{row['option']} "
                              f"= true ({rule})")
    for name, values in row.get("when", {}).items():
        if s.options.get(name) not in values:
            known = ", ".join(t for t, r in period["units"].items() if _fielded(s, r))
            rule = _tables().load_table(s.rule_system)["options"][name]["rule"]
            raise _Invalid(field, f"{unit_type} are fielded only with options.{name} = "
                                  f"{' or '.join(values)}, not {s.options.get(name)!r} "
                                  f"({rule}); with it: {known}")


def _check_entry(s: Scenario, table: Any, field: str, cell: tuple[int, int], types: list[str],
                 who: str) -> None:
    kind = s.terrain_at(cell)
    if kind in table["terrain"]["impassable"]:
        raise _Invalid(field, f"{cell} is {kind}, which is impassable")
    entry = table["periods"][s.period].get("entry", {})  # terrain kind -> who may enter it
    barred = [t for t in types if kind in entry and t not in entry[kind]]
    if barred:
        rule = f"{s.rule_system}.{s.period}.terrain"
        allowed = " and ".join(entry[kind]) or "no unit"
        problem = f"{who or barred[0]} may not enter {kind}, only {allowed} ({rule})"
        raise _Invalid(field, f"{cell} is {kind}: {problem}")


def _check_armies(s: Scenario, table: Any, occupant: dict[tuple[int, int], str]) -> None:
    sizes = table.get("army", {}).get("sizes", ())
    period = table["periods"][s.period]
    types = [t for t, r in period["units"].items() if _fielded(s, r)]
    for side, army in s.armies.items():
        at = f"armies.{side}"
        if side not in SIDES:
            raise _Invalid(at, f"unknown side {side!r}; the sides are red and blue")
        if army.units not in sizes:
            raise _Invalid(f"{at}.units", f"an army has {', '.join(map(str, sizes))} units, "
                                          f"not {army.units} (ohw.army)")
        if len(army.cells) != army.units:
            raise _Invalid(f"{at}.cells", f"give one cell per unit: {army.units} cells, "
                                          f"not {len(army.cells)}")
        if army.facing not in FACINGS[s.grid.kind]:
            raise _Invalid(f"{at}.facing", f"{army.facing!r} is not a facing on a "
                                           f"{s.grid.kind} grid; use one of: "
                                           f"{', '.join(FACINGS[s.grid.kind])}")
        for i, cell in enumerate(army.cells):
            field = f"{at}.cells[{i}]"
            _check_cell(s, field, cell)
            if cell in occupant:
                raise _Invalid(field, f"{cell} is already occupied by {occupant[cell]}")
            occupant[cell] = f"{at}.cells[{i}]"
            _check_entry(s, table, field, cell, types, "a rolled unit of any type")


def _check_levels(s: Scenario, table: Any) -> None:
    """hill_levels: only where the rule system has levels; each on a hill cell, level 1-3."""
    if s.hill_levels and not table.get("hill_levels"):
        raise _Invalid("hill_levels", f"{s.rule_system} does not use hill levels")
    for i, (col, row, level) in enumerate(s.hill_levels):
        _check_cell(s, f"hill_levels[{i}]", (col, row))
        if s.terrain_at((col, row)) != "hill":
            raise _Invalid(f"hill_levels[{i}]", f"({col}, {row}) is not a hill cell")
        if not 1 <= level <= 3:
            raise _Invalid(f"hill_levels[{i}]", f"a hill level is 1 to 3, not {level}")


def _may_share(s: Scenario, stacks: Any, unit: UnitSpec, other_id: str) -> bool:
    other = next(u for u in s.units if u.id == other_id)
    return other.side == unit.side and (unit.type in stacks) != (other.type in stacks)


def _check_formation(s: Scenario, period: Any, at: str, unit: UnitSpec) -> None:
    """A unit's starting formation must be one its type takes; a density only where the rule
    system has densities, and there every unit needs one."""
    formations = period["units"].get(unit.type, {}).get("formations", ())
    if unit.formation is not None and unit.formation not in formations:
        taken = f"one of: {', '.join(formations)}" if formations else "none (leave it out)"
        raise _Invalid(f"{at}.formation", f"{unit.type} takes no formation {unit.formation!r}; "
                                          f"use {taken}")
    density = period.get("density")
    if density is None and unit.density is not None:
        raise _Invalid(f"{at}.density", f"{s.rule_system} has no formation density")
    if density is not None:
        low, high = density["min"], density["max"]
        if unit.density is None:
            raise _Invalid(f"{at}.density", f"every {s.rule_system} unit needs its formation "
                                            f"density ({low} to {high})")
        if not low <= unit.density <= high:
            raise _Invalid(f"{at}.density", f"a density is {low} to {high}, not {unit.density}")


def _check_units(s: Scenario, table: Any) -> None:
    period = table["periods"][s.period]
    facings = FACINGS[s.grid.kind]
    first_index: dict[str, int] = {}
    occupant: dict[tuple[int, int], str] = {}
    shared: set[tuple[int, int]] = set()  # cells a commander already shares with a friend
    for i, unit in enumerate(s.units):
        at = f"units[{i}]"
        if unit.id in first_index:
            problem = f"duplicate unit id {unit.id!r} (also units[{first_index[unit.id]}])"
            raise _Invalid(f"{at}.id", problem)
        first_index[unit.id] = i
        if unit.side not in SIDES:
            raise _Invalid(f"{at}.side", f"{unit.side!r} is not a side; use red or blue")
        _check_type(s, period, f"{at}.type", unit.type)
        if unit.quality is not None:
            qualities = table.get("qualities", {})
            if not qualities:
                raise _Invalid(f"{at}.quality", f"{s.rule_system} does not grade units by quality")
            if unit.quality not in qualities:
                raise _Invalid(f"{at}.quality", f"{unit.quality!r} is not a quality; use one of: "
                                                f"{', '.join(qualities)}")
        if unit.facing not in facings:
            allowed = ", ".join(facings)
            problem = f"{unit.facing!r} is not a facing on a {s.grid.kind} grid; "
            problem += f"use one of: {allowed}"
            raise _Invalid(f"{at}.facing", problem)
        _check_formation(s, period, at, unit)
        _check_cell(s, f"{at}.cell", unit.cell)
        stacks = period.get("stack", ())  # types that may share a cell with a friend (commanders)
        other = occupant.get(unit.cell)
        if other is not None and (unit.cell in shared or not _may_share(s, stacks, unit, other)):
            problem = f"{unit.cell} is already occupied by {other}"
            raise _Invalid(f"{at}.cell", problem)
        if other is not None:
            shared.add(unit.cell)
        occupant.setdefault(unit.cell, unit.id)
        _check_entry(s, table, f"{at}.cell", unit.cell, [unit.type], "")
    _check_armies(s, table, occupant)
    for side in SIDES:
        if not any(unit.side == side for unit in s.units) and side not in s.armies:
            raise _Invalid("units", f"side {side} ({s.sides[side].name}) has no units")


def resolve_and_check(scenario: Scenario, *, source: str) -> Scenario:
    """The scenario with its options resolved, once every check against the rule tables passes;
    else a ScenarioError naming ``source``, the field and the problem."""
    tables = _tables()
    try:
        _check_ids(scenario)
        _check_system(scenario)
        table = tables.load_table(scenario.rule_system)
        _check_sides(scenario)
        options = tables.resolve_options(scenario.rule_system, scenario.period, scenario.options,
                                         source=source)
        scenario = scenario.model_copy(update={"options": options})
        _check_year(scenario, table["periods"][scenario.period])
        _check_terrain(scenario, table["terrain"]["kinds"])
        _check_units(scenario, table)
        for i, cell in enumerate(scenario.victory.objectives):
            _check_cell(scenario, f"victory.objectives[{i}]", cell)
        _check_levels(scenario, table)
    except _Invalid as error:
        raise ScenarioError(source, error.field, error.problem) from None
    except tables.OptionError as error:
        raise ScenarioError(source, f"options.{error.option}", error.problem) from None
    return scenario
