"""The rule catalogue is consistent with the tables and options that cite it."""

from __future__ import annotations

from warlog.engine.rules import catalogue, rules_for
from warlog.engine.rulesets.tables import load_table


def test_every_rule_has_text_and_a_source():
    rules = catalogue()
    assert len(rules) >= 30
    for r in rules.values():
        assert r.text.strip() and r.source.strip(), r.id
        assert r.id.split(".")[0] in ("grid", "ohw"), r.id


def test_options_and_interpretations_point_at_each_other():
    options = load_table("ohw")["options"]
    rules = catalogue()
    for name, spec in options.items():
        assert spec["rule"] in rules, f"option {name} cites unknown rule {spec['rule']}"
        assert rules[spec["rule"]].interpretation, f"option {name} switches a non-interpretation"
    for r in rules.values():
        if r.option is not None:
            assert r.option in options, f"{r.id} names unknown option {r.option}"


def test_rules_for_a_period_leave_out_the_other_periods():
    ids = {r.id for r in rules_for("ohw", "ancients")}
    assert {"grid.arc", "ohw.turn", "ohw.ancients.armour"} <= ids
    assert not any(i.startswith("ohw.dark_ages.") for i in ids)
