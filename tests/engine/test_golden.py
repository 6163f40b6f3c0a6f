"""Golden games (tests/golden/*.toml): scenario + orders + dice -> the exact events and the
hand-worked final state. The rules' regression suite, like perft files for move generators.

A deliberate rules change: regenerate with ``.venv/bin/python tests/golden/regen.py [case ...]``
and review every changed ``.events.jsonl`` against the case's ``why`` and ``expect``.
"""

from __future__ import annotations

import copy

import orjson
import pytest

from golden.golden_runner import (
    GoldenError,
    case_paths,
    check_expect,
    compare_events,
    event_lines,
    load_case,
    play,
    read_event_lines,
)
from warlog.engine.fold import replay
from warlog.engine.rules import catalogue
from warlog.engine.rulesets.tables import periods, systems
from warlog.engine.verify import verify

PATHS = case_paths()


def _param(path):
    case = load_case(path)
    marks = [pytest.mark.xfail(reason=f"known engine bug: {case.known_bug}", strict=True)] if (
        case.known_bug
    ) else []
    return pytest.param(path, id=path.stem, marks=marks)


CASES = [_param(p) for p in PATHS]


def test_there_are_golden_cases_on_every_grid_kind():
    kinds = {load_case(p).scenario["grid"]["kind"] for p in PATHS}
    assert kinds == {"square", "hex", "brick"}


@pytest.mark.parametrize("path", CASES)
def test_golden_case(path):
    case = load_case(path)
    game, _ = play(case)  # strict: an illegal step must be refused citing exactly its rule
    problems = compare_events(event_lines(game.events), read_event_lines(case))
    problems += check_expect(case, game)
    assert not problems, f"{path.name}: " + "\n".join(problems)


@pytest.mark.parametrize("path", CASES)
def test_golden_log_folds_and_verifies(path):
    """The stored log alone rebuilds the same state (checksums checked) and re-derives byte for
    byte from its own orders and dice."""
    case = load_case(path)
    events = [orjson.loads(line) for line in read_event_lines(case)]
    game, _ = play(case)
    assert replay(events).public() == game.state.public()
    report = verify(events)
    assert report.ok, report.mismatch


def _cited(paths) -> set[str]:
    cited: set[str] = set()
    for path in paths:
        case = load_case(path)
        for line in read_event_lines(case):
            cited.update(orjson.loads(line)["rules"])
        cited.update(step.illegal for step in case.steps if step.illegal)
    return cited


@pytest.mark.parametrize("period", periods("ohw"))
def test_golden_games_of_each_period_cite_all_its_own_rules(period):
    """A period's own rules (ohw.<period>.*) are each cited by a golden game of that period."""
    cited = _cited(p for p in PATHS if load_case(p).scenario["period"] == period)
    wanted = [r.id for r in catalogue().values() if r.id.startswith(f"ohw.{period}.")]
    missing = [rule for rule in wanted if rule not in cited]
    assert wanted and not missing, f"no {period} golden game cites: {', '.join(missing)}"


@pytest.mark.parametrize("system", [s for s in systems() if s != "ohw"])
def test_golden_games_of_each_rule_system_cite_all_its_rules(system):
    cited = _cited(p for p in PATHS if load_case(p).scenario["rule_system"] == system)
    wanted = [r.id for r in catalogue().values() if r.id.startswith(f"{system}.")]
    missing = [rule for rule in wanted if rule not in cited]
    assert wanted and not missing, f"no {system} golden game cites: {', '.join(missing)}"


def test_every_catalogue_rule_has_a_golden_game():
    cited = _cited(PATHS)
    missing = [rule for rule in catalogue() if rule not in cited]
    assert not missing, f"no golden game cites: {', '.join(missing)}"


def test_case_rules_are_catalogue_ids():
    known = set(catalogue())
    for path in PATHS:
        case = load_case(path)
        named = set(case.rules) | {s.illegal for s in case.steps if s.illegal}
        assert named <= known, f"{path.name}: unknown rule ids {sorted(named - known)}"


# -- the runner itself must catch a wrong golden file ---------------------------------------------


def _case_with_hits():
    """A case whose expectations include a unit with hits, played once."""
    case = load_case(next(p for p in PATHS if p.stem == "shoot-cover-armour-square"))
    game, _ = play(case)
    return case, game


def test_runner_detects_a_wrong_expected_hit_count():
    case, game = _case_with_hits()
    assert check_expect(case, game) == []
    wrong = copy.deepcopy(case)
    wrong.expect["units"][0]["hits"] += 1
    problems = check_expect(wrong, game)
    assert problems and "b-inf.hits: expected 3, got 2" in problems[0]


def test_runner_detects_wrong_cell_facing_removal_and_winner():
    case, game = _case_with_hits()
    for key, value in (("cell", [0, 0]), ("facing", "E"), ("removed", True)):
        wrong = copy.deepcopy(case)
        wrong.expect["units"][0][key] = value
        assert check_expect(wrong, game), key
    wrong = copy.deepcopy(case)
    wrong.expect["winner"] = "red"
    assert check_expect(wrong, game)


def test_runner_detects_a_changed_event():
    case, game = _case_with_hits()
    expected = read_event_lines(case)
    actual = event_lines(game.events)
    assert compare_events(actual, expected) == []
    edited = [line.replace(b'"hits":2', b'"hits":3') for line in expected]
    assert edited != expected
    assert compare_events(actual, edited)
    assert compare_events(actual, expected[:-1])  # a missing event


def test_runner_detects_an_illegal_order_refused_for_another_reason():
    case = load_case(next(p for p in PATHS if p.stem == "shoot-cover-armour-square"))
    i = next(i for i, s in enumerate(case.steps) if s.illegal)
    wrong = copy.deepcopy(case)
    wrong.steps[i] = type(case.steps[i])(order=case.steps[i].order, illegal="ohw.shoot.arc")
    with pytest.raises(GoldenError, match="refused citing ohw.shoot.once, expected ohw.shoot.arc"):
        play(wrong)


def test_runner_detects_an_accepted_illegal_order_and_unused_dice():
    case = load_case(next(p for p in PATHS if p.stem == "shoot-cover-armour-square"))
    legal = next(i for i, s in enumerate(case.steps) if s.dice)
    wrong = copy.deepcopy(case)
    wrong.steps[legal] = type(case.steps[legal])(order=case.steps[legal].order, illegal="grid.arc")
    with pytest.raises(GoldenError, match="accepted"):
        play(wrong)
    wrong = copy.deepcopy(case)
    step = case.steps[legal]
    wrong.steps[legal] = type(step)(order=step.order, dice=step.dice + (6,))
    with pytest.raises(GoldenError, match="used 1 of the dice"):
        play(wrong)


def test_tolerant_play_undoes_a_wrongly_accepted_order_for_known_bugs():
    """regen.py plays a ``known_bug`` case tolerantly: the log it writes holds what the rules say
    (the wrongly accepted order undone), and the deviation is reported."""
    case = load_case(next(p for p in PATHS if p.stem == "terrain-road-square"))
    wrong = copy.deepcopy(case)
    first = case.steps[0]  # a legal move, pretended illegal
    wrong.steps[0] = type(first)(order=first.order, illegal="ohw.ancients.move")
    with pytest.raises(GoldenError, match="accepted"):
        play(wrong)
    game, deviations = play(wrong, tolerate=True)
    assert len(deviations) == 1 and "expected refusal (ohw.ancients.move)" in deviations[0]
    assert game.state.units["r-inf-a"].cell == (0, 1)  # undone
    assert game.state.units["r-inf-b"].cell == (2, 3)  # later steps still played
