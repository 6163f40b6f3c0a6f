"""The board as text for a terminal: one three-character cell per grid cell.

A unit is its side's letter (R, B), its type's initial and an arrow for its facing ("RI→" is a
red Infantry facing east); an empty cell shows its terrain's mark. Hex and brick rows are offset
by half a cell, as on the board. Returned as rich markup so units can be coloured.
"""

from __future__ import annotations

from warlog.engine.state import GameState

TERRAIN_MARK = {
    "open": " . ", "woods": " ♣ ", "village": " ▲ ", "hill": " ^ ", "marsh": " ≈ ",
    "lake": " o ", "river": " ~ ", "ford": " f ", "bridge": " = ", "road": " - ",
    "fortification": " # ", "stream": " : ", "field": " , ", "hedge": " | ",
}
TERRAIN_STYLE = {
    "woods": "green", "village": "yellow", "hill": "bright_black", "marsh": "cyan",
    "lake": "blue", "river": "blue", "ford": "cyan", "bridge": "white", "road": "white",
    "fortification": "magenta", "stream": "cyan", "field": "yellow", "hedge": "green",
}
ARROW = {"E": "→", "W": "←", "N": "↑", "S": "↓", "NE": "↗", "NW": "↖", "SW": "↙", "SE": "↘"}
SIDE_STYLE = {"red": "bold red", "blue": "bold blue"}


def _escape(text: str) -> str:
    return text.replace("[", r"\[")


def type_codes(state: GameState) -> dict[str, str]:
    """One letter per unit type of the game's period, unique: the first letter of the name's
    words not yet taken, else of its other letters (Heavy Infantry H, Heavy Cavalry C, ...)."""
    from warlog.engine.rulesets.tables import unit_types

    codes: dict[str, str] = {}
    for name in unit_types(state.rule_system, state.period):
        words = name.replace("-", " ").split()
        letters = [w[0] for w in words] + [c for c in name if c.isalpha()]
        codes[name] = next((c.upper() for c in letters if c.upper() not in codes.values()), "?")
    return codes


def board_lines(state: GameState) -> list[str]:
    """The board, one string of rich markup per row, with column numbers on top."""
    grid, scenario = state.grid, state.scenario
    offset = grid.kind in ("hex", "brick")
    units = {u.cell: u for u in state.alive()}
    codes = type_codes(state)
    objectives = {tuple(c) for c in scenario.victory.objectives}
    lines = ["    " + "".join(f"{c:^3}" for c in range(grid.width))]
    for row in range(grid.height):
        cells = []
        for col in range(grid.width):
            unit = units.get((col, row))
            if unit is not None:
                mark = f"{unit.side[0].upper()}{codes.get(unit.type, '?')}{ARROW[unit.facing]}"
                cells.append(f"[{SIDE_STYLE[unit.side]}]{_escape(mark)}[/]")
                continue
            terrain = scenario.terrain_at((col, row))
            mark = TERRAIN_MARK[terrain]
            if (col, row) in objectives:
                mark = f"({mark.strip()})"
            style = TERRAIN_STYLE.get(terrain)
            cells.append(f"[{style}]{_escape(mark)}[/]" if style else _escape(mark))
        indent = " " if offset and row % 2 else ""
        lines.append(f"{row:>3} " + indent + "".join(cells))
    return lines


def legend(state: GameState) -> str:
    used = sorted({state.scenario.terrain_at(c) for c in state.grid.cells()} - {"open"})
    parts = [f"{TERRAIN_MARK[t].strip()} {t}" for t in used]
    if state.scenario.victory.objectives:
        parts.append("( ) objective")
    codes = type_codes(state)
    types = [f"{code} {name}" for name, code in codes.items()
             if any(u.type == name for u in state.units.values())]
    example = next(iter(state.units.values()))
    sample = f"{example.side[0].upper()}{codes.get(example.type, '?')}→ {example.side} {example.type} facing E"
    return _escape("   ".join(parts + types + [sample]))
