"""Scenarios: the board, terrain, armies, victory conditions and options a game starts from.

A scenario is a TOML file (bundled ones live in ``scenarios/``; scenarios/README.md documents
every field)::

    id = "ancients-river-crossing"   # optional: defaults to the file name; [a-z0-9-]+
    title = "Crossing at the Ford"
    description = "..."              # optional
    rule_system = "ohw"              # a table in engine/rulesets/
    period = "ancients"              # a period of that table
    first = "red"                    # the side that moves first each turn

    [grid]
    kind = "square"                  # square | hex | brick
    width = 12                       # 2..40
    height = 8                       # 2..40

    [terrain]                        # kind = [[col, row], ...]; one kind per cell; others open
    woods = [[2, 3], [2, 4]]
    river = [[6, 0], [6, 1]]

    [sides.red]
    name = "Rome"
    [sides.blue]
    name = "Carthage"

    [[units]]
    id = "r-inf-1"                   # unique; [A-Za-z0-9_-]{1,24}
    side = "red"
    type = "Infantry"                # a unit type of the period
    cell = [1, 3]
    facing = "E"                     # one of geometry.FACINGS[grid.kind]
    name = "Legio X"                 # optional

    [victory]
    turn_limit = 15                  # 1..100, default 15
    objectives = [[6, 4]]            # optional

    [options]                        # the table's [options.*]; unset ones take their defaults
    hits_to_remove = 10

Cells are ``(col, row)``, 0-based, row 0 at the top (north); in the model they are tuples.

Loading checks everything a player could get wrong and reports the first problem as a
:class:`ScenarioError` naming the file, the exact field (``units[3].cell``) and the problem in
words, because a bad scenario is an expected outcome, not a crash. Always build a Scenario through
:func:`load_scenario` or :func:`scenario_from_dict`: the model alone checks only shapes and types.
The checks against the rule tables and across fields live in engine/scenario_checks.py.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    Strict,
    StrictInt,
    ValidationError,
)

from warlog.events import fields, ids
from warlog.events.fields import MAX_CELLS, MAX_GRID_SIDE, MAX_TERRAIN_KINDS, MAX_UNITS
from warlog.events.omits import OmitsUnset
from warlog.events.safe_files import FileKind, FileRefused, check_size, decode_text, read_text

SIDES = ("red", "blue")
MAX_TURN_LIMIT = 100
"""victory.turn_limit at most."""
MAX_SCENARIO_BYTES = 1024 * 1024
"""A scenario file's size (the largest bundled one is a few KB)."""
MAX_SCENARIO_DEPTH = 8
"""Nesting of tables and arrays in a scenario (a unit's cell nests 3 deep)."""
MAX_SCENARIO_ID_CHARS = 100
"""A scenario id's length at most: game ids are made from it (``SCENARIO-1``, a study's
``SCENARIO-RED-BLUE-sSEED-first``), and those stay within events/ids.py's 200 characters."""
_SCENARIO_ID = r"^[a-z0-9-]+$"
_UNIT_ID = r"^[A-Za-z0-9_-]{1,24}$"


class ScenarioError(ValueError):
    """A scenario that cannot be played. ``field`` is a dotted path (``units[3].cell``), or empty
    for problems with the file as a whole (not found, not TOML)."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        super().__init__(f"{source}: {field}: {problem}" if field else f"{source}: {problem}")
        self.source = source
        self.field = field
        self.problem = problem


def _cell(value: Any) -> Any:
    """Accept ``[col, row]`` (TOML, JSON) or a tuple; refuse anything that is not two integers."""
    ok = (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )
    if not ok:
        raise ValueError(f"expected a cell [col, row] of two whole numbers, got {value!r}")
    return tuple(value)


Cell = Annotated[tuple[int, int], BeforeValidator(_cell)]


def _strict(kind: Any) -> Any:
    """``kind`` (a field type of events/fields.py) taking text only as text (TOML's types)."""
    return Annotated[kind, Strict()]


# The field types of a scenario: events/fields.py's rules and caps, text taken only as text.
ScenarioId = _strict(fields.name("scenario id", MAX_SCENARIO_ID_CHARS,
                                 "game ids are made from it"))
SideName = _strict(fields.SideName)
UnitId = _strict(fields.UnitId)
UnitType = _strict(fields.UnitType)
Facing = _strict(fields.Facing)
UnitName = _strict(fields.UnitName)
Formation = _strict(fields.Formation)
Title = _strict(fields.Title)
Description = _strict(fields.Description)
RuleSystem = _strict(fields.RuleSystem)
Period = _strict(fields.Period)
GridKind = _strict(fields.word("grid kind"))
SideWord = _strict(fields.word("side"))
Quality = _strict(fields.word("quality"))
TerrainKind = _strict(fields.word("terrain kind"))
Cells = fields.items(Cell, MAX_CELLS, "distinct cells of the largest board")
ArmyCells = fields.items(Cell, MAX_UNITS, "a cell for each unit of the army (at most 6)")
HillLevels = fields.items(tuple[StrictInt, StrictInt, StrictInt], MAX_CELLS,
                          "a level for each cell of the largest board")
Terrain = fields.table(TerrainKind, Cells, MAX_TERRAIN_KINDS, "the rule tables know 15 kinds")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GridSpec(_Frozen):
    kind: GridKind
    width: StrictInt = Field(ge=2, le=MAX_GRID_SIDE)
    height: StrictInt = Field(ge=2, le=MAX_GRID_SIDE)


class SideSpec(_Frozen):
    name: SideName


class UnitSpec(OmitsUnset, _Frozen):
    """A unit as the scenario places it. ``formation``: how it starts (napoleonic: line,
    column, square; artillery limbered or unlimbered); ``density``: its formation density
    (density). Both are left out of the dump when unset, so older games keep their bytes."""

    id: UnitId = Field(pattern=_UNIT_ID)
    side: SideWord
    type: UnitType
    cell: Cell
    facing: Facing
    name: UnitName | None = None
    # e.g. elite or poor, where the rule system grades units
    quality: Quality | None = None
    formation: Formation | None = None
    density: StrictInt | None = Field(default=None, ge=1, le=9)

    omitted_when_default: ClassVar[tuple[str, ...]] = ("formation", "density")


class ArmySpec(_Frozen):
    """A side's army rolled on the army table (ohw.army) at the start of the game: ``units``
    of 3, 4 or 6, placed on ``cells`` in class order (A first), facing ``facing``."""

    units: StrictInt
    cells: ArmyCells
    facing: Facing


class VictorySpec(_Frozen):
    turn_limit: StrictInt = Field(default=15, ge=1, le=MAX_TURN_LIMIT)
    objectives: Cells = ()


Sides = fields.table(SideWord, SideSpec, fields.MAX_SIDE_KEYS, "the two sides")
Armies = fields.table(SideWord, ArmySpec, fields.MAX_SIDE_KEYS, "the two sides")
Units = fields.items(UnitSpec, MAX_UNITS, "MAX_UNITS: a bot's cost grows with their square")


class Scenario(_Frozen):
    id: ScenarioId = Field(pattern=_SCENARIO_ID)
    title: Title
    description: Description = ""
    rule_system: RuleSystem
    period: Period
    first: SideWord
    grid: GridSpec
    terrain: Terrain = Field(default_factory=dict)
    sides: Sides
    units: Units
    victory: VictorySpec = Field(default_factory=VictorySpec)
    year: StrictInt | None = None  # the battle's year, where a period's rules change with it
    # sides whose army is rolled
    armies: Armies = Field(default_factory=dict)
    hill_levels: HillLevels = ()  # (col, row, level)
    # After loading: every option of the rule system, defaults filled in, keys sorted.
    options: fields.Options = Field(default_factory=dict)

    _terrain_at: dict[tuple[int, int], str] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any) -> None:
        # terrain_at runs in the engine's hot loops: one dict lookup, built once.
        self._terrain_at = {cell: kind for kind, cells in self.terrain.items() for cell in cells}

    def terrain_at(self, cell: tuple[int, int]) -> str:
        """The terrain kind of ``cell`` (a tuple), ``"open"`` where the scenario places none."""
        # The private dict read directly: through pydantic's __getattr__ it cost 30x more.
        return self.__pydantic_private__["_terrain_at"].get(cell, "open")

    @property
    def side_names(self) -> dict[str, str]:
        """Side id -> display name, red first, e.g. ``{"red": "Rome", "blue": "Carthage"}`` (a
        scenario read back from a game's first event has its keys in canonical order, blue
        first)."""
        return {side: self.sides[side].name for side in SIDES if side in self.sides}


# ---------------------------------------------------------------------------------------------
# Pydantic's errors, in words a player understands.

# The model behind each (index-free) path, to list the fields allowed where an unknown one appears.
_MODEL_AT: dict[tuple[str, ...], type[BaseModel]] = {
    (): Scenario,
    ("grid",): GridSpec,
    ("sides",): SideSpec,
    ("units",): UnitSpec,
    ("victory",): VictorySpec,
    ("armies",): ArmySpec,
}


_PATTERN_WORDS = {
    _SCENARIO_ID: "use lowercase letters, digits and dashes",
    _UNIT_ID: "use 1 to 24 letters, digits, '_' or '-'",
}


def _path(loc: tuple[str | int, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _problem(error: dict[str, Any]) -> str:
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx", {})
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        names = tuple(p for p in error["loc"][:-1] if isinstance(p, str))
        model = _MODEL_AT.get(names[:1] if names[:1] in (("sides",), ("armies",)) else names)
        allowed = f"; expected one of: {', '.join(model.model_fields)}" if model else ""
        return f"unknown field {error['loc'][-1]!r}{allowed}"
    if kind in ("model_type", "dict_type"):
        return f"expected a table, got {value!r}"
    if kind in ("tuple_type", "list_type"):
        return f"expected a list, got {value!r}"
    if kind == "int_type":
        return f"expected a whole number, got {value!r}"
    if kind == "string_type":
        return f"expected text, got {value!r}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}, got {value!r}"
    if kind == "less_than_equal":
        return f"must be at most {ctx['le']}, got {value!r}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind in ("too_long", "string_too_long"):
        return f"holds {ctx.get('actual_length', 'too many')} items; at most {ctx['max_length']}" \
            if kind == "too_long" else f"is longer than {ctx['max_length']} characters"
    if kind == "string_pattern_mismatch":
        return f"{ids.shown(value)} is not allowed: " \
               f"{_PATTERN_WORDS.get(ctx['pattern'], ctx['pattern'])}"
    if kind == "value_error":
        return error["msg"].removeprefix("Value error, ")
    shown = repr(value)
    return f"{error['msg']} (got {shown if len(shown) <= 60 else shown[:57] + '...'})"


# ---------------------------------------------------------------------------------------------
# Loading.


def scenario_from_dict(data: dict[str, Any], *, source: str) -> Scenario:
    """Validate parsed scenario data (a TOML file, or the scenario stored in a game's first event;
    ``Scenario.model_dump(mode="json")`` round-trips) and resolve its options."""
    # The checks against the rule tables import this module: imported here, on first use.
    from warlog.engine.scenario_checks import resolve_and_check

    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        raise ScenarioError(source, _path(first["loc"]), _problem(first)) from None
    return resolve_and_check(scenario, source=source)


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= MAX_SCENARIO_DEPTH:
                    return True
                stack.append((child, depth + 1))
    return False


def _parse(text: str, *, source: str, default_id: str) -> Scenario:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # tomllib's message already says where: "... (at line 3, column 7)".
        raise ScenarioError(source, "", f"not valid TOML: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ScenarioError(source, "", f"nested more than {MAX_SCENARIO_DEPTH} levels deep; "
                                        "a scenario is not") from None
    if _too_deep(data):
        raise ScenarioError(source, "", f"nested more than {MAX_SCENARIO_DEPTH} levels deep; a "
                                        "scenario is not")
    if isinstance(data, dict) and "id" not in data:
        data["id"] = default_id
    return scenario_from_dict(data, source=source)


def _id_from_name(stem: str) -> str:
    """The id a file without ``id =`` gets: its name, lowercased, other characters as dashes
    ("My_Battle.toml" -> "my-battle"), so any sensible file name loads."""
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")


SCENARIO_FILE = FileKind("a scenario file", "scenario files", MAX_SCENARIO_BYTES)


def _read_file(path: Path) -> Scenario:
    """A scenario file, read as every file a command opens is (events/safe_files.py: a regular
    file only, within its size, UTF-8), then parsed."""
    source = str(path)
    try:
        text = read_text(path, SCENARIO_FILE)
    except FileRefused as refused:
        raise ScenarioError(source, "", str(refused).removeprefix(f"{source}: ")) from None
    return _parse(text, source=source, default_id=_id_from_name(path.stem))


@cache
def _bundled() -> dict[str, Scenario]:
    """The scenarios shipped in ``warlog.scenarios``, by id (read once)."""
    found: dict[str, Scenario] = {}
    for entry in sorted(files("warlog.scenarios").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            source = f"scenarios/{entry.name}"
            scenario = _parse(entry.read_text("utf-8"), source=source, default_id=entry.name[:-5])
            if scenario.id in found:
                raise ScenarioError(source, "id", f"bundled id {scenario.id!r} is used twice")
            found[scenario.id] = scenario
    return dict(sorted(found.items()))


def scenario_from_bytes(data: bytes, name: str) -> Scenario:
    """A scenario file's bytes received rather than read from disk (the dashboard's upload):
    the same size limit, UTF-8 rule and parse as a file a command opens, named ``name``."""
    try:
        text = decode_text(check_size(data, name, SCENARIO_FILE), name, SCENARIO_FILE)
    except FileRefused as refused:
        raise ScenarioError(name, "", str(refused).removeprefix(f"{name}: ")) from None
    stem = name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].removesuffix(".toml")
    return _parse(text, source=name, default_id=_id_from_name(stem) or "scenario")


def bundled_scenarios() -> list[Scenario]:
    """Every bundled scenario, sorted by id."""
    return list(_bundled().values())


def load_scenario(ref: str | Path) -> Scenario:
    """Load a scenario from a path to a ``.toml`` file, or a bundled scenario by id."""
    if isinstance(ref, Path) or ref.endswith(".toml") or "/" in ref or "\\" in ref:
        return _read_file(Path(ref))
    bundled = _bundled()
    if ref not in bundled:
        raise ScenarioError(ref, "", f"no bundled scenario {ref!r}; bundled: {', '.join(bundled)}")
    return bundled[ref]
