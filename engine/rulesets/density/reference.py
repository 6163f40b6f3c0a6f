"""What the rules reference (docs/rules.md, engine/rules_doc.py) shows of the density system
after its rules: its allowance table (the registry's ``reference_extras`` finds this module).
Moved verbatim from engine/rules_doc.py (issue 40).
"""

from __future__ import annotations

from warlog.engine.rulesets.density.move import cells_for
from warlog.engine.rulesets.tables import load_table, option_specs


def extras() -> list[str]:
    """density.grid_scale: every density's allowance at the default scale, computed by the
    referee's own arithmetic, so the table cannot drift from the rule it shows."""
    table, specs = load_table("density"), option_specs("density", "density")
    period = table["periods"]["density"]
    scale = specs["inches_per_cell"]["default"]
    rounding = specs["allowance_rounding"]["default"]
    other = next(c for c in specs["allowance_rounding"]["choices"] if c != rounding)
    out = ["", f"Allowance by density (`density.grid_scale`, `density.rounding`) at the default "
               f"{scale} inches a cell, `allowance_rounding` = {rounding}, and with {other}; each "
               "side turned while moving costs a cell of it (`density.wheel`):", "",
           f"| density | inches | cells ({rounding}) | cells ({other}) |", "|---|---|---|---|"]
    for d in range(period["density"]["min"], period["density"]["max"] + 1):
        inches = period["move_inches"] - d
        out.append(f"| {d} | {period['move_inches']} - {d} = {inches} | "
                   f"{cells_for(inches, scale, rounding)} | {cells_for(inches, scale, other)} |")
    return out
