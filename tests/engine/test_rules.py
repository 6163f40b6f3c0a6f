"""The rule catalogue is consistent with the tables and options that cite it."""

from __future__ import annotations

from warlog.engine.rules import catalogue, rules_for, sources
from warlog.engine.rulesets.tables import load_table, systems


def test_every_rule_has_text_and_a_source():
    rules = catalogue()
    assert len(rules) >= 30
    for r in rules.values():
        assert r.text.strip() and r.source.strip(), r.id
        assert r.id.split(".")[0] in ("grid", *systems()), r.id


def test_options_and_interpretations_point_at_each_other():
    rules = catalogue()
    every = set()
    for system in systems():
        for name, spec in load_table(system)["options"].items():
            every.add(name)
            assert spec["rule"] in rules, f"option {name} cites unknown rule {spec['rule']}"
            assert rules[spec["rule"]].option == name, f"{spec['rule']} does not name option {name}"
    for r in rules.values():
        if r.option is not None:
            assert r.option in every, f"{r.id} names unknown option {r.option}"


def test_rules_for_a_period_leave_out_the_other_periods():
    ids = {r.id for r in rules_for("ohw", "ancients")}
    assert {"grid.arc", "ohw.turn", "ohw.ancients.armour"} <= ids
    assert not any(i.startswith("ohw.dark_ages.") for i in ids)


def test_every_interpretation_says_why_and_every_rule_names_a_real_source():
    """An interpretation carries a note or an option (what was read, what else could be), and a
    citation names a source described in the catalogue, never a file users do not have."""
    for r in catalogue().values():
        if r.interpretation:
            assert r.note or r.option, r.id
        assert r.section.strip(), r.id
        assert "/" not in r.citation and ".md" not in r.citation, r.id  # a book, not a file
        assert r.source in sources(), r.id


def test_every_rule_the_engine_cites_is_in_the_catalogue():
    """Rule ids written in the engine's code and tables (including per-period ids built from a
    pattern) all exist."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "engine"
    sources_of_rules = [*(root / "rulesets").rglob("*.py"), root / "flow.py",
                        root / "rulesets" / "ohw" / "table.toml",
                        root / "rulesets" / "portable" / "table.toml"]
    text = "".join(p.read_text("utf-8") for p in sources_of_rules)
    known = catalogue()
    for rule in set(re.findall(r'"((?:grid|ohw|portable)\.[a-z_0-9.]*[a-z0-9_])"', text)):
        if rule.count(".") >= 1 and not rule.endswith("."):
            assert rule in known, rule
    for suffix in set(re.findall(r'f"ohw\.\{[a-z_.]+\}\.([a-z_]+)"', text)):
        assert any(r.endswith("." + suffix) for r in known), suffix
