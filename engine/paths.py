"""Distances over the real board, for the bots: how many cells a unit must walk, round lakes,
rivers, marshes and ground its type may not enter, to reach an enemy or an objective.

As the crow flies, a unit on the wrong bank of a river is "one cell" from an enemy it can only
reach by the bridge; it walks back and forth along the bank. A breadth-first walk over the cells
its type may enter measures what the rules make it walk. The enemy's zone of control needs no
rule of its own here: the walk starts from every enemy at once, so a route that would pass by
another enemy is never the shortest (that enemy is nearer).

Fields depend only on the scenario and the cells searched from, so they are kept in the state's
memo (shared by every copy of one game's state, like the rule systems' own terrain facts).
"""

from __future__ import annotations

from collections.abc import Iterable

from warlog.engine.geometry import Cell
from warlog.engine.rulesets.tables import load_table
from warlog.engine.state import GameState, Unit

FAR = 10**6  # cells no walk reaches
_MEMO_KEY = "bots.paths"
_MEMO_LIMIT = 4096  # fields kept per game before the memo starts again


def blocked_kinds(state: GameState, unit_type: str) -> frozenset[str]:
    """The terrain kinds ``unit_type`` may not enter in this game: the system's impassable
    kinds, and any kind its period lets only other types enter."""
    memo = state.memo.setdefault("bots.blocked", {})
    if unit_type not in memo:
        memo[unit_type] = _blocked_kinds(state, unit_type)
    return memo[unit_type]


def _blocked_kinds(state: GameState, unit_type: str) -> frozenset[str]:
    table = load_table(state.rule_system)
    kinds = set(table.get("terrain", {}).get("impassable", ()))
    period = table.get("periods", {}).get(state.period, {})
    for kind, types in period.get("entry", {}).items():
        if unit_type not in types:
            kinds.add(kind)
    return frozenset(kinds)


def _field(state: GameState, blocked: frozenset[str], sources: tuple[Cell, ...]) -> dict[Cell, int]:
    """Steps from the nearest source to every reachable cell. A source's own cell counts 0
    whatever its ground (the enemy stands there); the walk enters only open-to-us cells."""
    grid, terrain = state.grid, state.terrain
    dist = {c: 0 for c in sources}
    frontier = list(sources)
    d = 0
    while frontier:
        d += 1
        nxt = []
        for cell in frontier:
            for n in grid.neighbours(cell):
                if n not in dist and terrain.get(n, "open") not in blocked:
                    dist[n] = d
                    nxt.append(n)
        frontier = nxt
    return dist


def field(state: GameState, unit_type: str, sources: Iterable[Cell]) -> dict[Cell, int]:
    """The walking distance field for ``unit_type`` from ``sources`` (memoised per game)."""
    blocked = blocked_kinds(state, unit_type)
    key = (blocked, tuple(sorted(sources)))
    memo = state.memo.setdefault(_MEMO_KEY, {})
    found = memo.get(key)
    if found is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        found = memo[key] = _field(state, blocked, key[1])
    return found


def enemy_field(state: GameState, unit: Unit) -> dict[Cell, int]:
    """Steps from each cell to the nearest enemy's own cell for ``unit``'s type (1 = next to it)."""
    return field(state, unit.type,
                 [e.cell for e in state.alive() if e.side != unit.side])


def objective_field(state: GameState, unit: Unit) -> dict[Cell, int] | None:
    """Cells ``unit`` must walk to the nearest objective; None when the scenario has none."""
    objectives = [tuple(c) for c in state.scenario.victory.objectives]
    return field(state, unit.type, objectives) if objectives else None


def walk(dist: dict[Cell, int], cell: Cell) -> int:
    return dist.get(cell, FAR)
