"""Each rule system's event kinds live in its package (issue 40): the package owns a kind's
model (events.py) and its fold (folds.py) alike, its events module is data of the events layer
(it imports nothing of the engine), and the log's union is the core's kinds and the packages'."""

from __future__ import annotations

import ast
from importlib import import_module
from pathlib import Path

import pytest

from warlog.engine.fold import _fold_table
from warlog.engine.rulesets import BUILTIN, event_folds, event_models
from warlog.events.model import CORE_MODELS, event_kinds, parse_event

PACKAGES = ("common", *BUILTIN)
RULESETS = Path(__file__).resolve().parents[2] / "engine" / "rulesets"


def _kinds(models) -> list[str]:
    return [m.model_fields["kind"].default for m in models]


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_models_exactly_the_kinds_it_folds(name):
    models = import_module(f"warlog.engine.rulesets.{name}.events").MODELS
    folds = import_module(f"warlog.engine.rulesets.{name}.folds").FOLDS
    assert models, f"{name} models no kind"
    assert sorted(_kinds(models)) == sorted(folds)


@pytest.mark.parametrize("name", PACKAGES)
def test_a_packages_events_module_imports_only_the_events_layer(name):
    tree = ast.parse((RULESETS / name / "events.py").read_text("utf-8"))
    imported = [node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names]
    ours = [m for m in imported if m.startswith("warlog")]
    assert ours and all(m.startswith("warlog.events.") for m in ours), ours


def test_the_union_is_the_cores_kinds_then_the_packages_each_kind_once():
    kinds = event_kinds()
    assert list(kinds) == _kinds(CORE_MODELS) + _kinds(event_models())
    assert len(set(kinds)) == len(kinds)
    core_folds = {kind for kind in _fold_table(next(iter(BUILTIN))) if kind not in event_folds()}
    # the core models what the core folds (game_started begins a fold rather than folding in one)
    assert set(_kinds(CORE_MODELS)) == core_folds | {"game_started"}
    assert set(kinds) == core_folds | {"game_started"} | set(event_folds())


def test_a_system_kind_validates_through_the_union_and_a_wrong_field_is_named():
    event = {"kind": "unit_reformed", "game": "g", "seq": 5, "turn": 1, "unit": "r-1",
             "figures": 2, "v": 3}
    assert type(parse_event(event)).__module__ == "warlog.engine.rulesets.density.events"
    with pytest.raises(ValueError, match="figures"):
        parse_event({**event, "figures": -1})


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_tells_in_words_exactly_the_kinds_it_models(name):
    told = import_module(f"warlog.engine.rulesets.{name}.narration").NARRATE
    models = import_module(f"warlog.engine.rulesets.{name}.events").MODELS
    assert sorted(told) == sorted(_kinds(models))



def test_a_kind_two_packages_claim_is_an_error_naming_both():
    from warlog.engine.rulesets import _by_kind

    first = next(iter(BUILTIN))
    said = rf"'twice' is told by two packages \(common and {first}\)"
    with pytest.raises(ValueError, match=said):
        _by_kind(lambda name: {"twice": name} if name in ("common", first) else {}, "told")
