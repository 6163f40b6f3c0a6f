"""The rules reference as Markdown (docs/rules.md), generated from the catalogue and tables.

One page a player can read without warlog installed: every source, then every rule by system
and period, with its text, where it comes from, whether it is an interpretation (and the option
that switches it) and its note; then every scenario option. ``warlog rules --markdown`` prints it
and a test keeps docs/rules.md equal to it.
"""

from __future__ import annotations

from warlog.engine.rules import Rule, catalogue, sources
from warlog.engine.rulesets.tables import load_table, option_specs, periods

HEADER = """# Rules reference

Generated from the rule catalogue (`engine/rulesets/rules.toml`) and the period tables
(`engine/rulesets/ohw.toml`) by `warlog rules --markdown > docs/rules.md`; do not edit by hand.
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


def _group(rule: Rule, period_ids: set[str]) -> str:
    parts = rule.id.split(".")
    if parts[0] == "grid":
        return "grid"
    return parts[1] if parts[1] in period_ids else "common"


def markdown() -> str:
    ohw = load_table("ohw")
    period_ids = periods("ohw")
    out = [HEADER, "## Sources", ""]
    for source in sources().values():
        out += [f"- **{source.title}** ({source.author}): {source.part}. {source.about}"]
    groups: dict[str, list[Rule]] = {}
    for rule in catalogue().values():
        groups.setdefault(_group(rule, set(period_ids)), []).append(rule)
    titles = {"grid": "Grid: cells, distance, arcs, sight",
              "common": "One Hour Wargames: every period"}
    titles.update({p: f"One Hour Wargames: {ohw['periods'][p]['name']} "
                      f"({ohw['periods'][p]['years']})" for p in period_ids})
    for key in ("grid", "common", *period_ids):
        out += ["", f"## {titles[key]}", ""]
        if key in period_ids:
            table = ohw["periods"][key]
            out.append("Phases: " + ", ".join(table["phases"]) + ". Units (class, move, range, "
                       "shooting and melee modifiers): " + "; ".join(
                           f"{name} ({row['class']}, {row['move']}, {row['shoot_range'] or '-'}, "
                           f"{row['shoot_modifier']:+d}, {row.get('melee_modifier', 0):+d})"
                           for name, row in table["units"].items()) + ".")
            out.append("")
        for rule in groups.get(key, []):
            out += _rule(rule)
    out += ["", "## Options", "", "| option | periods | default | values | rule | what it does |",
            "|---|---|---|---|---|---|"]
    for name, spec in ohw["options"].items():
        where = ", ".join(spec.get("periods", ())) or "all"
        defaults = {option_specs("ohw", p).get(name, {}).get("default") for p in period_ids} - {None}
        default = spec["default"] if len(defaults) <= 1 else ", ".join(
            f"{p}: {option_specs('ohw', p)[name]['default']}" for p in period_ids
            if name in option_specs("ohw", p))
        values = (", ".join(spec["choices"]) if spec["type"] == "choice"
                  else f"{spec['min']}..{spec['max']}" if spec["type"] == "int" else "true, false")
        out.append(f"| `{name}` | {where} | {default} | {values} | `{spec['rule']}` | {spec['help']} |")
    return "\n".join(out) + "\n"
