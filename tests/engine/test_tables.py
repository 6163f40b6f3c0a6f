"""Rule tables: discovery, frozen cached data, and option validation against [options.*]."""

from __future__ import annotations

import pytest

from warlog.engine.rulesets.tables import (
    OptionError,
    load_table,
    option_specs,
    periods,
    resolve_options,
    systems,
    unit_types,
)


def test_systems_are_tables_with_periods_only():
    assert "ohw" in systems()
    assert "rules" not in systems()  # the rule catalogue lives here too but is not a system
    assert systems() == sorted(systems())


def test_periods_and_unit_types_keep_table_order():
    assert periods("ohw")[0] == "ancients"
    assert unit_types("ohw", "ancients") == ["Infantry", "Archers", "Skirmishers", "Cavalry"]


def test_unknown_system_and_period_name_the_known_ones():
    with pytest.raises(ValueError, match="known: .*ohw"):
        load_table("chess")
    with pytest.raises(ValueError, match="unknown rule system"):
        load_table("../pyproject")  # never a path outside the package
    with pytest.raises(ValueError, match="unknown rule system 'rules'"):
        load_table("rules")  # the rule catalogue is not a system
    with pytest.raises(ValueError, match="known: ancients"):
        unit_types("ohw", "modern")


def test_table_is_cached_and_deep_frozen():
    table = load_table("ohw")
    assert load_table("ohw") is table
    assert table["periods"]["ancients"]["units"]["Cavalry"]["move"] == 4
    with pytest.raises(TypeError):
        table["periods"]["ancients"]["units"]["Cavalry"]["move"] = 9
    with pytest.raises(TypeError):
        table["terrain"]["impassable"][0] = "open"
    assert isinstance(table["terrain"]["kinds"], tuple)


def test_resolve_options_fills_every_default_sorted():
    specs = option_specs("ohw", "ancients")
    resolved = resolve_options("ohw", "ancients", {}, source="t")
    assert resolved == {name: spec["default"] for name, spec in specs.items()}
    assert list(resolved) == sorted(specs)
    assert resolved["hits_to_remove"] == 10


def test_options_belong_to_the_periods_they_name():
    """The optional square is Horse & Musket's; line of sight defaults on only in WWII."""
    assert "square" in resolve_options("ohw", "horse_and_musket", {}, source="t")
    assert "square" not in resolve_options("ohw", "ancients", {}, source="t")
    assert "attack_front_only" not in resolve_options("ohw", "ww2", {}, source="t")
    assert resolve_options("ohw", "ww2", {}, source="t")["line_of_sight"] is True
    assert resolve_options("ohw", "medieval", {}, source="t")["line_of_sight"] is False
    with pytest.raises(OptionError, match="applies only to horse_and_musket, not ancients"):
        resolve_options("ohw", "ancients", {"square": True}, source="t")
    with pytest.raises(OptionError, match="applies only to machine_age, not ww2"):
        resolve_options("ohw", "ww2", {"tanks": True}, source="t")


def test_resolve_options_keeps_given_values():
    resolved = resolve_options("ohw", "ancients", {"hits_to_remove": 15, "halving": "once"},
                               source="t")
    assert resolved["hits_to_remove"] == 15
    assert resolved["halving"] == "once"
    assert resolved["pivot_is_move"] is True


def test_every_default_satisfies_its_own_spec():
    for period in periods("ohw"):
        defaults = {name: spec["default"] for name, spec in option_specs("ohw", period).items()}
        assert resolve_options("ohw", period, defaults, source="t") == defaults


@pytest.mark.parametrize(
    ("given", "option", "phrase"),
    [
        ({"fog_of_war": True}, "fog_of_war", "known options: arc_degrees, attack_front_only"),
        ({"hits_to_remove": "10"}, "hits_to_remove", "expected a whole number"),
        ({"hits_to_remove": True}, "hits_to_remove", "expected a whole number"),
        ({"hits_to_remove": 10.0}, "hits_to_remove", "expected a whole number"),
        ({"hits_to_remove": 0}, "hits_to_remove", "below the minimum 1"),
        ({"arc_degrees": 181}, "arc_degrees", "above the maximum 180"),
        ({"pivot_is_move": 1}, "pivot_is_move", "expected true or false"),
        ({"halving": "halfway"}, "halving", "not one of: each, once"),
        ({"halving": 2}, "halving", "not one of"),
    ],
)
def test_resolve_options_rejects(given, option, phrase):
    with pytest.raises(OptionError) as caught:
        resolve_options("ohw", "ancients", given, source="my.toml")
    assert caught.value.option == option
    assert phrase in caught.value.problem
    assert str(caught.value).startswith(f"my.toml: options.{option}: ")
    assert isinstance(caught.value, ValueError)
