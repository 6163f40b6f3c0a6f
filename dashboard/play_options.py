"""A scenario's options as the Play page's start form shows them: each with the rule it switches,
that rule's text, whether it is warlog's interpretation, and the values it may take; and the
scenario with the player's choices, checked as a scenario file's ``[options]`` are.

The options come from the rule system's own table (``option_specs``), so the page shows the
options of whatever system the scenario plays and names none itself. No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warlog.engine.rules import catalogue
from warlog.engine.rulesets.tables import option_specs
from warlog.engine.scenario import Scenario, scenario_from_dict


@dataclass(frozen=True)
class OptionRow:
    """One option of a scenario: its kind (bool, int or choice), the value the scenario sets
    (or the system's default), and the words beside its widget."""

    name: str
    kind: str
    value: Any
    default: Any
    help: str
    rule: str | None
    rule_text: str | None
    interpretation: bool
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None

    def words(self) -> str:
        """The help a player reads: what the option does, then the rule's own text."""
        parts = [self.help]
        if self.rule is not None:
            mark = " (warlog's interpretation)" if self.interpretation else ""
            parts.append(f"Rule {self.rule}{mark}: {self.rule_text or ''}".rstrip(": "))
        return "\n\n".join(p for p in parts if p)


def option_rows(scenario: Scenario) -> list[OptionRow]:
    """Every option of the scenario's system and period, with its current value."""
    rules = catalogue()
    rows = []
    for name, spec in option_specs(scenario.rule_system, scenario.period).items():
        rule = rules.get(spec.get("rule", ""))
        rows.append(OptionRow(
            name=name, kind=spec.get("type", "choice"),
            value=scenario.options.get(name, spec["default"]), default=spec["default"],
            help=spec.get("help", ""), rule=spec.get("rule"),
            rule_text=None if rule is None else rule.text,
            interpretation=bool(rule is not None and rule.interpretation),
            choices=tuple(spec.get("choices", ())), low=spec.get("min"), high=spec.get("max")))
    return rows


def with_options(scenario: Scenario, chosen: dict[str, Any]) -> Scenario:
    """The scenario with ``chosen`` option values, validated and resolved as a scenario file's
    options are (ScenarioError naming the option otherwise). Unchanged options stay as the
    scenario had them; the game records the options in force in its first event."""
    if all(scenario.options.get(k) == v for k, v in chosen.items()):
        return scenario
    data = scenario.model_dump(mode="json")
    data["options"] = {**data.get("options", {}), **chosen}
    return scenario_from_dict(data, source=f"the options of {scenario.id}")
