"""The rules reference as Markdown (docs/rules.md), generated from the catalogue and tables.

One page a player can read without warlog installed: every source, then every rule by system
and period, with its text, where it comes from, whether it is an interpretation (and the option
that switches it) and its note; then every scenario option. ``warlog rules --markdown`` prints it
and a test keeps docs/rules.md equal to it.
"""

from __future__ import annotations

from warlog.engine.rules import Rule, catalogue, sources
from warlog.engine.rulesets import reference_extras
from warlog.engine.rulesets.tables import (SYSTEM_TITLES, load_table, option_specs, periods,
                                           systems)

HEADER = """# Rules reference

Generated from the rule catalogue (`engine/rulesets/rules.toml` and the `rules.toml` of each rule
system's package that has its own) and the rule systems' tables (`table.toml` in each package,
`engine/rulesets/<system>/`) by `warlog rules --markdown > docs/rules.md`; do not edit by hand.
Events cite these ids; `warlog log --rules` and the dashboard show the same texts.

A rule marked **interpretation** is warlog's reading where the source is silent, ambiguous or cut
off; the option named beside it lets a scenario choose another reading. The options in force are
recorded in every game's first event, so a replay always says which rules produced it.
"""


def _rule(rule: Rule) -> list[str]:
    flags = []
    if rule.interpretation:
        flags.append("**interpretation**")
    if rule.option:
        flags.append(f"option `{rule.option}`")
    lines = [f"- `{rule.id}` {rule.text}", f"  *{rule.citation}*" + (
        f" · {' · '.join(flags)}" if flags else "")]
    if rule.note:
        lines.append(f"  Note: {rule.note}")
    return lines


def _in_order() -> list[str]:
    """The rule systems in the reference's order: One Hour Wargames first."""
    return [s for s in SYSTEM_TITLES if s in systems()] + [
        s for s in systems() if s not in SYSTEM_TITLES]


def _group(rule: Rule) -> str:
    """grid, <system>, or <system>.<period> for a period's own rules."""
    parts = rule.id.split(".")
    if parts[0] == "grid":
        return "grid"
    system = parts[0]
    if len(parts) > 2 and system in systems() and parts[1] in periods(system) and len(periods(system)) > 1:
        return f"{system}.{parts[1]}"
    return system


def _units_line(table) -> str:
    def row(name, r) -> str:
        if "shoot_range" in r:  # One Hour Wargames: class, move, range, shooting and melee modifiers
            return (f"{name} ({r['class']}, {r['move']}, {r['shoot_range'] or '-'}, "
                    f"{r['shoot_modifier']:+d}, {r.get('melee_modifier', 0):+d})")
        if "strength" in r:
            return f"{name} (move {r['move'] or '-'}, strength {r['strength']}, range {r['range']})"
        if "when" in r:  # density: a One Hour Wargames type, fielded under some options
            when = "; ".join(f"{k} {', '.join(v)}" for k, v in r["when"].items())
            return f"{name} ({when})"
        return f"{name} ({r['sp']} SP, move {r['move']}, range {r['range'] or '-'})"
    rows = list(table["units"].values())
    what = ("class, move, range, shooting and melee modifiers" if "shoot_range" in rows[0]
            else "move, strength, range" if "strength" in rows[0]
            else "the option values that field them; move from density" if "when" in rows[0]
            else "strength points, move, range")
    return f"Units ({what}): " + "; ".join(row(n, r) for n, r in table["units"].items()) + "."




def _options(system: str) -> list[str]:
    out = []
    for name, spec in load_table(system).get("options", {}).items():
        where = ", ".join(spec.get("periods", ())) or "all"
        defaults = {option_specs(system, p).get(name, {}).get("default") for p in periods(system)} - {None}
        default = spec["default"] if len(defaults) <= 1 else ", ".join(
            f"{p}: {option_specs(system, p)[name]['default']}" for p in periods(system)
            if name in option_specs(system, p))
        values = (", ".join(spec["choices"]) if spec["type"] == "choice"
                  else f"{spec['min']}..{spec['max']}" if spec["type"] == "int" else "true, false")
        out.append(f"| {system} | `{name}` | {where} | {default} | {values} | `{spec['rule']}` | "
                   f"{spec['help']} |")
    return out


def markdown() -> str:
    out = [HEADER, "## Sources", ""]
    for source in sources().values():
        out += [f"- **{source.title}** ({source.author}): {source.part}. {source.about}"]
    groups: dict[str, list[Rule]] = {}
    for rule in catalogue().values():
        groups.setdefault(_group(rule), []).append(rule)
    order = [("grid", "Grid: cells, distance, arcs, sight", None)]
    for system in _in_order():
        table = load_table(system)
        name = SYSTEM_TITLES.get(system, system)
        many = len(periods(system)) > 1
        order.append((system, f"{name}: every period" if many else name,
                      None if many else table["periods"][periods(system)[0]]))
        if many:
            order += [(f"{system}.{p}", f"{name}: {table['periods'][p]['name']} "
                                        f"({table['periods'][p]['years']})", table["periods"][p])
                      for p in periods(system)]
    for key, title, table in order:
        out += ["", f"## {title}", ""]
        if table is not None:
            if "phases" in table:
                out.append("Phases: " + ", ".join(table["phases"]) + ". " + _units_line(table))
            else:
                out.append(_units_line(table))
            out.append("")
        for rule in groups.get(key, []):
            out += _rule(rule)
        if key in systems():  # a system's own tables, shown after its rules
            out += reference_extras(key)
    out += ["", "## Options", "",
            "| system | option | periods | default | values | rule | what it does |",
            "|---|---|---|---|---|---|---|"]
    for system in _in_order():
        out += _options(system)
    return "\n".join(out) + "\n"
