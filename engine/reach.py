"""What one unit can do at a state: where it may shoot or strike, where it may move, whom it may
attack. The dashboard draws this when a unit is selected.

Each rule system says how far and in which arc a unit reaches (``Ruleset.fire_zone``); the
moves and targets come from the system's own ``legal_orders``, so what is drawn is exactly what
the engine would accept at that step, never a second reading of the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from warlog.engine import vocabulary
from warlog.engine.flow import phase_name
from warlog.engine.geometry import Cell
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import GameState


@dataclass(frozen=True)
class FireZone:
    """How far a unit strikes: from ``near`` to ``far`` cells, within ``arc`` degrees of its
    facing (None: all round); ``what`` names it for a player, ``rules`` say why."""

    near: int
    far: int
    arc: float | None
    what: str
    rules: tuple[str, ...]
    ahead_only: bool = False  # only the cell it faces (Frontier's combat)


@dataclass(frozen=True)
class UnitReach:
    unit: str
    zone: FireZone | None  # None: the unit does not shoot or strike at a distance
    zone_cells: tuple[Cell, ...]  # the cells within its reach and arc, row by row
    moves: tuple[Cell, ...]  # cells a legal order now would end its move on
    targets: tuple[str, ...]  # enemies a legal order now would shoot at or attack
    aimed_cells: tuple[Cell, ...]  # cells a legal order now would bombard
    acting: bool  # whether its side is to act at this state (otherwise no moves or targets)


def _row_major(cell: Cell) -> tuple[int, int]:
    return cell[1], cell[0]


def unit_reach(state: GameState, unit_id: str) -> UnitReach:
    """The reach of ``unit_id`` at ``state``. KeyError for a unit the game does not have."""
    unit = state.units[unit_id]
    ruleset = get_ruleset(state.rule_system)
    zone = None if unit.removed else ruleset.fire_zone(state, unit)
    cells: list[Cell] = []
    if zone is not None:
        grid = state.grid
        if zone.ahead_only:
            ahead = grid.step(unit.cell, unit.facing)
            cells = [ahead] if grid.contains(ahead) else []
        else:
            cells = [c for c in grid.cells()
                     if zone.near <= grid.distance(unit.cell, c) <= zone.far
                     and (zone.arc is None or grid.in_arc(unit.cell, unit.facing, c, zone.arc))]
    acting = not unit.removed and not state.ended and state.to_act == unit.side
    moves: tuple[Cell, ...] = ()
    targets: tuple[str, ...] = ()
    aimed: tuple[Cell, ...] = ()
    if acting:
        own = ruleset.legal_orders(state, unit_id)
        # Orders of a whole side (Frontier's combat names only its target) when the unit has
        # none of its own: the vocabulary says whether it takes part.
        side_orders = [] if own else [o for o in ruleset.legal_orders(state)
                                      if vocabulary.unit_of(state, o) is None]
        offered = vocabulary.choices(state, unit_id, own + side_orders)
        ends = (vocabulary.kind_of(state, o).ends_on(state, o) for o in offered.orders())
        moves = tuple(dict.fromkeys(cell for cell in ends if cell is not None))
        targets = tuple(enemy for enemy, orders in offered.enemies.items()
                        if any(vocabulary.kind_of(state, o).strikes for o in orders))
        aimed = tuple(offered.aims)
    return UnitReach(unit=unit_id, zone=zone, zone_cells=tuple(sorted(cells, key=_row_major)),
                     moves=tuple(sorted(moves, key=_row_major)),
                     targets=tuple(sorted(targets)), aimed_cells=tuple(sorted(aimed, key=_row_major)),
                     acting=acting)


def describe(state: GameState, reach: UnitReach) -> str:
    """The selected unit's reach in words, for the panel under the board (markdown)."""
    u = state.units[reach.unit]
    head = f"**{u.id}** ({u.type}, {u.side}) at ({u.cell[0]}, {u.cell[1]}), facing {u.facing}"
    if u.removed:
        return head + ": removed from the game."
    parts = [head + "."]
    z = reach.zone
    if z is None:
        parts.append("It strikes only by moving into contact.")
    else:
        span = (f"{z.far} cell{'s' * (z.far != 1)}" if z.near <= 1
                else f"{z.near}–{z.far} cells")
        arc = "" if z.arc is None or z.ahead_only else f" within a {z.arc:g}° arc of its facing"
        rules = ", ".join(f"`{r}`" for r in z.rules)
        parts.append(f"Its {z.what}: {span}{arc}, shaded ({rules}).")
    if not reach.acting:
        who = state.to_act or "nobody"
        parts.append(f"At this step {who} is to act, so it has no orders here: step to a "
                     f"{u.side} phase to see its legal moves and targets.")
        return " ".join(parts)
    moves, now = len(reach.moves), f"Now ({phase_name(state.phase)})"
    parts.append(f"{now}: {moves} cell{'s' * (moves != 1)} it may move to (dots)"
                 if moves else f"{now}: no legal move")
    if reach.targets:
        parts[-1] += "; it may attack " + ", ".join(reach.targets) + " (rings)"
    if reach.aimed_cells:
        parts[-1] += f"; it may fire at {len(reach.aimed_cells)} cells (crosses)"
    parts[-1] += "."
    return " ".join(parts)
