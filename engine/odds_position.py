"""A minimal legal position for a hypothetical attack: two units placed for it on a small board.

The position is a real game: a scenario built here and validated like any other
(``scenario_from_dict``), started by ``game.start``, and played with the referee's own orders
where the attack needs a move first (a charge, a shooter that moved, a density unit closing in).
The target stands on the given terrain, facing so that the attacker comes at the given aspect; the
attacker faces it, next to it for a melee or ``distance`` cells away along the row. Each side
also has a reserve unit in a far corner, so losing the unit attacked never ends the battle in the
middle of the resolution (a real battle has more than one unit a side).
"""

from __future__ import annotations

from typing import Any

from warlog.engine.game import Game, start
from warlog.engine.geometry import GRID_KINDS, make_grid
from warlog.engine.odds import KINDS, OddsError
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets.tables import load_table, periods, systems
from warlog.engine.scenario import ScenarioError, scenario_from_dict
from warlog.engine.state import GameState
from warlog.events.model import BarrageOrder, EndPhaseOrder, RolesOrder, RouteOrder

ASPECTS = ("front", "flank", "rear")
MAX_DISTANCE = 24
EXTRAS: dict[str, dict[str, str]] = {
    "ohw": {"year": "the battle's year (Horse & Musket; default: the year before its split)"},
    "portable": {"quality": "the attacker's quality (elite, poor)",
                 "target_quality": "the target's quality (elite, poor)",
                 "moved": "cells the attacker moves before its melee attack (a charge)"},
    "frontier": {"attackers": "units attacking the target together (1 to 4)",
                 "attacker_level": "the attacker's hill level (1 to 3; its cell is a hill)",
                 "target_level": "the target's hill level (1 to 3; terrain hill)"},
    "napoleonic": {"formation": "the attacker's formation", "target_formation":
                   "the target's formation", "commander": "a Commander shares the attacker's cell",
                   "moved": "the attacker moves a cell before it fires (true or false)"},
    "density": {"density": "the attacker's formation density (1 to 6; default 3)",
                "target_density": "the target's formation density (1 to 6; default 3)"},
}
"""Each system's extras beyond the common ones (attacker_terrain: the ground the attacker is on)."""
COMMON_EXTRAS = {"attacker_terrain": "the terrain of the attacker's cell (default open)"}


def _pick(field: str, value: Any, allowed: list[str] | tuple[str, ...]) -> None:
    if value not in allowed:
        raise OddsError(f"{field}: {value!r} is not one of: {', '.join(map(str, allowed))}")


def _period(system: str, period: str | None) -> str:
    _pick("system", system, systems())
    known = periods(system)
    if period is None:
        if len(known) == 1:
            return known[0]
        raise OddsError(f"period: {system} has several periods; name one of: {', '.join(known)}")
    _pick("period", period, known)
    return period


def _types(table: Any, period: str, field: str, unit_type: str) -> None:
    units = table["periods"][period]["units"]
    if unit_type not in units:
        raise OddsError(f"{field}: {table['periods'][period]['name']} has no unit type "
                        f"{unit_type!r}; known: {', '.join(units)}")


def _reserve_type(table: Any, period: str, unit_type: str) -> str:
    """A type for a side's reserve: the unit's own, unless a Commander (no fighting unit)."""
    units = table["periods"][period]["units"]
    if units[unit_type].get("class") != "commander":
        return unit_type
    return next(t for t, row in units.items() if row.get("class") != "commander")


def _facing_for(grid: Any, cell: tuple[int, int], aspect: str) -> str:
    """A facing of the unit at ``cell`` that puts its east side (the attacker comes from the
    east, along the row) on its ``aspect``."""
    side = grid.step(cell, "E")
    return next(f for f in grid.facings if grid.aspect(cell, f, side) == aspect)


def _int(field: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OddsError(f"{field}: a whole number from {low} to {high}, not {value!r}")
    return value


def position(system: str, period: str | None, attacker_type: str, target_type: str, *,
             kind: str, terrain: str, aspect: str, options: dict[str, Any], grid: str,
             distance: int | None, extras: dict[str, Any]) -> GameState:
    """The game state from which the unit ``attacker`` (red) attacks the unit ``target`` (blue)
    with ``kind``: a real position, legal by the system's own scenario checks and orders."""
    period = _period(system, period)
    table = load_table(system)
    _pick("kind", kind, KINDS[system])
    _pick("aspect", aspect, ASPECTS)
    _pick("grid", grid, GRID_KINDS)
    kinds = ["open", *table["terrain"]["kinds"]]
    _pick("terrain", terrain, kinds)
    allowed = {**COMMON_EXTRAS, **EXTRAS[system]}
    for key in extras:
        if key not in allowed:
            raise OddsError(f"option: {system} has no option {key!r}; its extras: "
                            f"{', '.join(allowed)}; its game options: "
                            f"{', '.join(table.get('options', {}))}")
    _types(table, period, "attacker", attacker_type)
    _types(table, period, "target", target_type)
    ground = extras.get("attacker_terrain", "open")
    _pick("attacker_terrain", ground, kinds)
    reach = _int("distance", distance, 1, MAX_DISTANCE) if distance is not None else (
        1 if kind == "melee" else 2)
    if kind == "melee" and reach != 1:
        raise OddsError("distance: a melee is fought between adjacent units (distance 1)")
    approach = _approach(system, kind, extras)
    width, height, row = 3 + reach + approach + 4, 7, 3
    board = make_grid(grid, width, height)
    t_cell, a_cell = (3, row), (3 + reach, row)
    start_cell = (3 + reach + approach, row)
    t_facing = _facing_for(board, t_cell, aspect)
    units = [_unit("attacker", "red", attacker_type, start_cell, "W"),
             _unit("target", "blue", target_type, t_cell, t_facing),
             _unit("attacker-reserve", "red", _reserve_type(table, period, attacker_type),
                   (0, 0), "E"),
             _unit("target-reserve", "blue", _reserve_type(table, period, target_type),
                   (0, height - 1), "E")]
    cells = {terrain: [t_cell]} if terrain != "open" else {}
    if ground != "open":
        cells.setdefault(ground, []).append(a_cell)
    data: dict[str, Any] = {
        "id": "odds", "title": "Odds", "rule_system": system, "period": period, "first": "red",
        "grid": {"kind": grid, "width": width, "height": height},
        "terrain": {k: [list(c) for c in v] for k, v in cells.items()},
        "sides": {"red": {"name": "Attacker"}, "blue": {"name": "Target"}},
        "units": units, "victory": {"turn_limit": 15}, "options": dict(options),
    }
    _extras(system, table, period, data, board, t_cell, a_cell, extras)
    try:
        scenario = scenario_from_dict(data, source="odds")
    except ScenarioError as bad:
        where = bad.field.replace("units[0]", "attacker").replace("units[1]", "target")
        raise OddsError(f"{where}: {bad.problem}" if where else bad.problem) from None
    game = Game(start("odds", scenario, seed=0))
    if scenario.options.get("trenches"):
        _dig_in(game)
    if approach:
        _close_in(game, system, board, a_cell, start_cell)
    return game.state


def _unit(uid: str, side: str, unit_type: str, cell: tuple[int, int], facing: str) -> dict:
    return {"id": uid, "side": side, "type": unit_type, "cell": list(cell), "facing": facing}


def _approach(system: str, kind: str, extras: dict[str, Any]) -> int:
    """Cells the attacker moves (with the referee's route order) before it attacks."""
    if system == "portable" and "moved" in extras:
        if kind != "melee":
            raise OddsError("moved: a charge bonus is for a melee attack (kind melee)")
        return _int("moved", extras["moved"], 0, 4)
    if system == "napoleonic" and extras.get("moved"):
        if not isinstance(extras["moved"], bool) or kind != "shoot":
            raise OddsError("moved: true or false, for musketry (kind shoot): the shooter "
                            "moved a cell this turn (no +1 for standing still)")
        return 1
    return 1 if system == "density" and kind == "melee" else 0  # contact made by moving


def _extras(system: str, table: Any, period: str, data: dict[str, Any], board: Any,
            t_cell: tuple[int, int], a_cell: tuple[int, int], extras: dict[str, Any]) -> None:
    """Each system's own extras, written into the scenario (validated there)."""
    attacker, target = data["units"][0], data["units"][1]
    span = table["periods"][period].get("year_range")
    if system == "ohw" and (span is not None or "year" in extras):
        data["year"] = extras.get("year", table["periods"][period]["year_split"] - 1 if span
                                  else None)
    if system == "portable":
        for key, unit in (("quality", attacker), ("target_quality", target)):
            if key in extras:
                unit["quality"] = extras[key]
    if system == "napoleonic":
        for key, unit in (("formation", attacker), ("target_formation", target)):
            if key in extras:
                unit["formation"] = extras[key]
        if extras.get("commander"):
            data["units"].append(_unit("commander", "red", "Commander", a_cell, "W"))
    if system == "ohw" and data["options"].get("trenches"):  # reserves for the barrage
        data["units"] += [_unit(f"target-reserve-{i}", "blue", target["type"],
                                (i - 1, board.height - 1), "E") for i in (2, 3)]
    if system == "density":
        for key, unit in (("density", attacker), ("target_density", target)):
            unit["density"] = extras.get(key, 3)
        for reserve in data["units"][2:]:
            reserve["density"] = 3
    if system == "frontier":
        levels = []
        for key, cell in (("attacker_level", a_cell), ("target_level", t_cell)):
            if key in extras:
                levels.append([*cell, _int(key, extras[key], 1, 3)])
                data["terrain"].setdefault("hill", [])
                if list(cell) not in data["terrain"]["hill"]:
                    data["terrain"]["hill"].append(list(cell))
        data["hill_levels"] = levels
        n = _int("attackers", extras.get("attackers", 1), 1, 4)
        around = [c for c in board.neighbours(t_cell) if c != a_cell]
        for i, cell in enumerate(around[:n - 1], 2):
            data["units"].append(_unit(f"attacker-{i}", "red", attacker["type"], cell,
                                       board.facing_to(cell, t_cell)))


def _dig_in(game: Game) -> None:
    """ohw.machine_age.trenches: the target's side defends, so the target (on open ground) is in
    a trench; the pre-game barrage (ohw.machine_age.barrage) strikes only reserves."""
    game.play(RolesOrder(defender="blue"))
    spared = [u.id for u in game.state.alive("blue") if u.id != "target"]
    game.play(BarrageOrder(targets=tuple(spared[:game.state.barrage_targets])))


def _advance(game: Game, phase: str) -> None:
    """End phases (the flow resolving what plays itself) until the attacker's side's ``phase``."""
    for _ in range(40):
        s = game.state
        if s.ended:
            raise OddsError("the battle ended before the attack")
        if s.side == "red" and s.phase == phase:
            return
        game.play(EndPhaseOrder())
    raise OddsError(f"the attacker's {phase} phase never came")


def _close_in(game: Game, system: str, board: Any, a_cell: tuple[int, int],
              start_cell: tuple[int, int]) -> None:
    """Move the attacker from ``start_cell`` to ``a_cell`` along the row, facing the target."""
    phase = {"portable": "activation", "napoleonic": "movement", "density": "actions"}[system]
    _advance(game, phase)
    path, cell = [], start_cell
    while cell != a_cell:
        cell = board.step(cell, "W")
        path.append(cell)
    try:
        game.play(RouteOrder(unit="attacker", path=tuple(path), facing="W"))
    except IllegalOrder as refused:
        raise OddsError(f"the attacker cannot close in: {refused}") from None
