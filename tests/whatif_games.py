"""Small games for the what-if tests: a mirror-image One Hour Wargames (Ancients) scenario on a
small square board, the same units on both sides, mirrored east-west and facing each other.
(tests/ is on pytest's pythonpath: `from whatif_games import mirror_scenario`.)"""

from __future__ import annotations

from builders import tiny_scenario

from warlog.engine.bots import play_out
from warlog.engine.scenario import Scenario

WIDTH, HEIGHT = 8, 5
_ARMY = [("1", "Infantry", 1), ("2", "Infantry", 2), ("3", "Archers", 3)]  # (id, type, row)


def mirror_scenario(first: str = "red", turn_limit: int = 10, width: int = WIDTH,
                    army: list[tuple[str, str, int]] = _ARMY) -> Scenario:
    """Red in column 1 facing east, blue in column width - 2 facing west: cell (c, r) of one
    side is (width - 1 - c, r) of the other. ``army``: (id, type, row) of each side's units."""
    units = [(f"r{i}", "red", t, (1, row), "E") for i, t, row in army]
    units += [(f"b{i}", "blue", t, (width - 2, row), "W") for i, t, row in army]
    scenario = tiny_scenario(units, size=(width, HEIGHT), turn_limit=turn_limit)
    return scenario.model_copy(update={"first": first})


def bot_game(seed: int = 3, red: str = "aggressive", blue: str = "aggressive",
             first: str = "red") -> list[dict]:
    """A whole seeded game of the mirror scenario between two bots."""
    return play_out(f"mirror-{first}-s{seed}", mirror_scenario(first), seed=seed, red=red,
                    blue=blue).events


def far_apart_scenario() -> Scenario:
    """Infantry only, 17 cells apart: the first turns are moves, and no order needs a die."""
    return mirror_scenario(width=20, army=[("1", "Infantry", 1), ("2", "Infantry", 3)])
