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

from warlog.engine.dice import RecordedDice
from warlog.engine.game import Game, decide, start
from warlog.engine.geometry import GRID_KINDS, make_grid
from warlog.engine.odds import KINDS, OddsError
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets.tables import load_table, periods, systems
from warlog.engine.scenario import ScenarioError, scenario_from_dict
from warlog.engine.state import GameState
from warlog.events.orders import (
    BarrageOrder,
    BombardOrder,
    EndPhaseOrder,
    RolesOrder,
    RouteOrder,
)

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
                   "moved": "the attacker moves a cell before it fires (true or false)",
                   "same_cell": "the battery fired at the target's cell the turn before, and "
                                "missed (true or false; kind bombard)"},
    "density": {"density": "the attacker's formation density (1 to 6; default 3)",
                "target_density": "the target's formation density (1 to 6; default 3)",
                "disorder": "the attacker's figures out of formation (0 to 5), put there by "
                            "disorder tests as it turns in place"},
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


def position(system: str, period: str | None, attacker_type: str | None, target_type: str, *,
             kind: str, terrain: str, aspect: str, options: dict[str, Any], grid: str,
             distance: int | None, extras: dict[str, Any]) -> GameState:
    """The game state from which the unit ``attacker`` (red) attacks the unit ``target`` (blue)
    with ``kind``: a real position, legal by the system's own scenario checks and orders. For
    the barrage (no attacking unit, ``attacker_type`` None) the attacker's side has units of the
    target's type that take no part."""
    period = _period(system, period)
    table = load_table(system)
    _pick("kind", kind, KINDS[system])
    if kind == "barrage":
        attacker_type, options = _barrage(table, period, attacker_type, target_type, options,
                                          distance)
    elif attacker_type is None:
        raise OddsError(f"attacker: a {kind} needs the attacker's unit type")
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
    tests = _disorder_tests(extras) if system == "density" and "disorder" in extras else []
    width, height, row = 3 + reach + approach + 4, 7, 3
    board = make_grid(grid, width, height)
    t_cell, a_cell = (3, row), (3 + reach, row)
    start_cell = (3 + reach + approach, row)
    t_facing = _facing_for(board, t_cell, aspect)
    units = [_unit("attacker", "red", attacker_type, start_cell, _start_facing(board, tests)),
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
    if kind == "barrage":
        game.play(RolesOrder(defender="blue"))  # the barrage phase: red's barrage strikes blue
        return game.state
    if scenario.options.get("trenches"):
        _dig_in(game)
    _prepare(game, system, kind, board, tests, extras)
    if approach:
        _close_in(game, system, board, a_cell, start_cell)
    return game.state


def _barrage(table: Any, period: str, attacker_type: str | None, target_type: str,
             options: dict[str, Any], distance: int | None) -> tuple[str, dict[str, Any]]:
    """ohw.machine_age.barrage: only with the trenches option (on here), and no attacker."""
    rule = "ohw.machine_age.barrage"
    trenches = table.get("options", {}).get("trenches", {})
    if period not in trenches.get("periods", ()):
        raise OddsError(f"kind: the barrage belongs to the trenches option of "
                        f"{', '.join(trenches.get('periods', ()))} ({rule}), not {period}")
    if options.get("trenches", True) is not True:
        raise OddsError(f"trenches: the barrage comes with the trenches option ({rule}); leave "
                        "it on")
    if attacker_type is not None:
        raise OddsError(f"attacker: the barrage has no attacking unit ({rule}); name only the "
                        "target's type")
    if distance is not None:
        raise OddsError(f"distance: the barrage has no attacking unit to stand anywhere ({rule})")
    _types(table, period, "target", target_type)
    units = table["periods"][period]["units"]  # the attacker's side: its first fighting type
    return next(t for t, row in units.items() if row.get("class") != "commander" and
                not row.get("option")), {**options, "trenches": True}


def _unit(uid: str, side: str, unit_type: str, cell: tuple[int, int], facing: str) -> dict:
    return {"id": uid, "side": side, "type": unit_type, "cell": list(cell), "facing": facing}


def _start_facing(board: Any, tests: list[int]) -> str:
    """The attacker's facing when the game starts: west, toward the target, unless disorder
    ``tests`` (density) are to turn it in place there, once a test, ending facing west."""
    return next(f for f in board.facings if f != "W") if len(tests) % 2 else "W"


def _disorder_tests(extras: dict[str, Any]) -> list[int]:
    """The faces of the disorder tests that put ``disorder`` figures out of formation: each a
    die below the attacker's density (density.disorder_test), as few tests as may be."""
    figures = _int("disorder", extras.get("disorder", 0), 0, 5)
    most = _int("density", extras.get("density", 3), 1, 6) - 1
    if figures and not most:
        raise OddsError("disorder: at density 1 no die is below the density, so the unit never "
                        "has figures out of formation (density.disorder_test)")
    return [min(most, figures - done) for done in range(0, figures, most or 1)]


def _prepare(game: Game, system: str, kind: str, board: Any, tests: list[int],
             extras: dict[str, Any]) -> None:
    """Conditions a turn before leaves in the real state: density's disorder, made by the
    attacker turning in place with the disorder ``tests``; a Napoleonic battery's aim at the
    cell."""
    if tests:
        facing = _start_facing(board, tests)
        for face in tests:
            facing = "W" if facing != "W" else next(f for f in board.facings if f != "W")
            _advance(game, "actions")
            game.play(RouteOrder(unit="attacker", facing=facing), dice=RecordedDice([face]))
            game.play(EndPhaseOrder())
        _advance(game, "actions")  # the attacker's next turn: its action is its own again
    if system == "napoleonic" and "same_cell" in extras:
        if not isinstance(extras["same_cell"], bool) or kind != "bombard":
            raise OddsError("same_cell: true or false, for artillery (kind bombard): the battery "
                            "fired at the target's cell the turn before")
        if extras["same_cell"]:
            _fired_before(game)


def _fired_before(game: Game) -> None:
    """napoleonic.artillery_fire.same_cell: the battery fires at the target's cell in the turn
    before, with the first face that misses (so the target stands as it was), through the
    referee's own order; the fold records the aim."""
    order = BombardOrder(unit="attacker", cell=game.state.units["target"].cell)
    for face in range(1, 7):
        events = decide(game.state, order, RecordedDice([face, 1]))  # 1: a hit's table die
        rolled = next(e for e in events if e["kind"] == "attack_rolled")
        if not rolled["hit"]:
            game.play(order, dice=RecordedDice([face]))
            game.play(EndPhaseOrder())
            _advance(game, "artillery")
            return
    total = sum(v for _, v in rolled["modifiers"])
    raise OddsError(f"same_cell: last turn's fire at this cell would hit on every die (modifiers "
                    f"{total:+d}, {rolled['needed']}+ hits: napoleonic.artillery_fire), so the "
                    "target could not stand there unharmed; ask from a real game's position")


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
