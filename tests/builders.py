"""Builders for small games shared by the tests: a scenario written inline, started with seeded or
manual dice. (tests/ is on pytest's pythonpath: `from builders import new_game`.)"""

from __future__ import annotations

from typing import Any

from warlog.engine.game import Game, start
from warlog.engine.scenario import Scenario, scenario_from_dict


def tiny_scenario(units: list[tuple], *, kind: str = "square", size: tuple[int, int] = (8, 6),
                  terrain: dict[str, list] | None = None, options: dict[str, Any] | None = None,
                  turn_limit: int = 15, objectives: list | None = None,
                  rule_system: str = "ohw", period: str = "ancients") -> Scenario:
    """units: (id, side, type, (col, row), facing) tuples; red plays first."""
    return scenario_from_dict(
        {
            "id": "tiny",
            "title": "Tiny",
            "rule_system": rule_system,
            "period": period,
            "first": "red",
            "grid": {"kind": kind, "width": size[0], "height": size[1]},
            "terrain": terrain or {},
            "sides": {"red": {"name": "Red"}, "blue": {"name": "Blue"}},
            "units": [
                {"id": i, "side": s, "type": t, "cell": list(c), "facing": f}
                for i, s, t, c, f in units
            ],
            "victory": {"turn_limit": turn_limit, "objectives": objectives or []},
            "options": options or {},
        },
        source="test",
    )


def new_game(units: list[tuple], *, seed: int | None = None, **kwargs: Any) -> Game:
    scenario = tiny_scenario(units, **kwargs)
    dice = "manual" if seed is None else "seeded"
    return Game(start("t", scenario, seed=seed, dice=dice))


def mutated(value):
    """A different value of the same shape (for tests that edit one value of an event)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return 0
    if isinstance(value, list):
        return [mutated(value[0]), *value[1:]] if value else ["x"]
    if isinstance(value, dict):
        key = sorted(value)[0]
        return {**value, key: mutated(value[key])}
    raise TypeError(value)


def table_game(store: Any, scenario: Scenario, game_id: str, *,
               players: dict[str, str] | None = None, dice: str = "manual",
               seed: int | None = None, opening_dice: list[int] | tuple[int, ...] = (),
               played: str | None = None) -> list[dict[str, Any]]:
    """A game started as `warlog new` starts it (warlog/app/start.py), every side a person
    (``players``: side -> name, default "red player"/"blue player"); its stored events."""
    from warlog.app.seats import Seat
    from warlog.app.start import start_game

    names = {"red": "red player", "blue": "blue player", **(players or {})}
    start_game(store, scenario, game_id=game_id, dice=dice, seed=seed,
               seats={side: Seat.person(name) for side, name in names.items()},
               opening_dice=opening_dice, played=played)
    return store.read(game_id)
