"""The evaluator: exact at the end, a probability everywhere, deterministic, lower for the side
that lost more, fitted by maths that recover a known model, shipped with weights for every rule
system, and calibrated on bot games it never saw."""

from __future__ import annotations

import json

import numpy as np
import pytest

from warlog import evaluator_fit as fit
from warlog.engine import evaluator
from warlog.engine.bots import play_out
from warlog.engine.evaluator import FEATURE_NAMES, evaluate, features
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import bundled_scenarios, load_scenario
from warlog.engine.state import GameState


def _states(scenario: str, seed: int, red: str = "tactician", blue: str = "aggressive"
            ) -> list[GameState]:
    states: list[GameState] = []
    play_out(f"ev-{scenario}-{seed}", load_scenario(scenario), seed=seed, red=red, blue=blue,
             watch=states.append)
    return states


@pytest.fixture(scope="module")
def games() -> dict[str, list[GameState]]:
    """Two real games of two rule systems, every position after every order."""
    return {"ohw": _states("ancients-battle-for-the-hill", 11),
            "portable": _states("portable-the-axona", 12)}


def test_an_ended_game_evaluates_to_its_result_exactly(games):
    for states in games.values():
        end = states[-1]
        assert end.ended
        e = evaluate(end)
        assert e.exact
        expected = {"red": (1, 0, 0), "blue": (0, 1, 0), None: (0, 0, 1)}[end.winner]
        assert (e.red, e.blue, e.draw) == expected
        assert e.low == e.high == e.score
    drawn = games["ohw"][-1].copy()
    drawn.winner = None
    e = evaluate(drawn)
    assert (e.red, e.blue, e.draw, e.score, e.low, e.high) == (0, 0, 1, 0.5, 0.5, 0.5)


def test_probabilities_sum_to_one_and_the_interval_holds_the_score(games):
    for states in games.values():
        for state in states[:-1]:
            e = evaluate(state)
            assert not e.exact
            assert all(0.0 <= p <= 1.0 for p in (e.red, e.blue, e.draw))
            assert e.red + e.blue + e.draw == pytest.approx(1.0, abs=1e-12)
            assert 0.0 <= e.low <= e.score <= e.high <= 1.0
            assert e.high - e.low > 0  # a fitted model states a doubt


def test_same_state_same_numbers(games):
    state = games["portable"][len(games["portable"]) // 2]
    again = _states("portable-the-axona", 12)[len(games["portable"]) // 2]
    assert evaluate(state) == evaluate(state.copy()) == evaluate(again)
    assert features(state) == features(again)
    assert len(features(state)) == len(FEATURE_NAMES)


@pytest.mark.parametrize("system", ["ohw", "portable"])
def test_a_side_that_lost_much_more_strength_is_evaluated_lower(games, system):
    state = next(s for s in games[system] if s.turn >= 3 and not s.ended)
    ruleset = get_ruleset(state.rule_system)
    base = evaluate(state).score

    def hurt(side: str) -> GameState:
        worse = state.copy()
        for unit in worse.alive(side)[: max(1, len(worse.alive(side)) // 2)]:
            full, _ = ruleset.strength(worse, unit)
            unit.hits = full - 1 if full > 1 else unit.hits  # all but its last point or hit
        return worse

    def remove(side: str) -> GameState:
        worse = state.copy()
        for unit in worse.alive(side)[: max(1, len(worse.alive(side)) // 2)]:
            unit.removed = True
        return worse

    for change in (hurt, remove):
        red_hit, blue_hit = change("red"), change("blue")
        assert features(blue_hit)[0] > features(state)[0] > features(red_hit)[0]
        assert evaluate(blue_hit).score > base > evaluate(red_hit).score, change.__name__


def test_the_fit_recovers_a_known_softmax():
    rng = np.random.default_rng(20261206)
    n = 20_000
    rows = rng.normal(size=(n, 2))
    truth = np.array([[0.3, 1.5, -0.8], [-1.2, 0.0, 0.6]])  # red and draw logits against blue
    x = fit.design(rows)
    p = evaluator.probabilities(truth, x)
    labels = np.array([rng.choice(3, p=row) for row in p])
    beta, covariance = fit.fit_softmax(x, labels, np.arange(n), l2=1e-6)
    errors = np.abs(beta - truth)
    assert errors.max() < 0.1
    standard = np.sqrt(np.diag(covariance)).reshape(2, 3)
    assert (errors < 4 * standard).all()  # the stated doubt covers the truth
    assert (standard < 0.05).all()
    # a position's score interval is narrower with more data: the covariance scales as 1/n
    _, quarter = fit.fit_softmax(x[: n // 4], labels[: n // 4], np.arange(n // 4), l2=1e-6)
    assert np.trace(quarter) > 3 * np.trace(covariance)


def test_games_held_out_are_never_fitted_and_every_scenario_is_checked():
    tasks = fit.game_tasks(9, scenarios=["ancients-river-crossing", "portable-zama"])
    held = {t.seed for t in tasks if t.held_out}
    fitted = {t.seed for t in tasks if not t.held_out}
    assert held and fitted and not held & fitted
    assert {t.scenario for t in tasks if t.held_out} == {"ancients-river-crossing", "portable-zama"}
    assert len({(t.red, t.blue) for t in tasks}) == len(fit.POLICY_PAIRS)
    assert fit.play_task(tasks[0]) == fit.play_task(tasks[0])


def test_the_shipped_weights_cover_every_rule_system_under_a_stable_version():
    weights = evaluator.load_weights()
    raw = json.loads(evaluator.WEIGHTS_PATH.read_text(encoding="utf-8"))
    assert raw["version"] == evaluator.weights_version(raw) == evaluator.EVALUATOR_VERSION
    assert evaluator.EVALUATOR_VERSION.startswith("ev-")
    assert tuple(weights["features"]) == FEATURE_NAMES
    systems = {s.rule_system for s in bundled_scenarios()}
    assert systems <= set(weights["systems"])
    d = 1 + len(FEATURE_NAMES)
    for entry in weights["systems"].values():
        assert np.shape(entry["coefficients"]) == (2, d)
        covariance = np.asarray(entry["covariance"])
        assert covariance.shape == (2 * d, 2 * d)
        assert np.allclose(covariance, covariance.T)
        eigen = np.linalg.eigvalsh(covariance)
        assert eigen.min() > -1e-9 * eigen.max()  # a covariance: never a negative
        assert covariance[0, 0] > 0 and covariance[d, d] > 0  # variance; the intercepts vary
        assert len(entry["calibration"]["bins"]) == fit.BINS
        assert entry["fitted"]["games"] > 0 and entry["calibration"]["games"] > 0
    text = fit.calibration_markdown(weights)
    assert evaluator.EVALUATOR_VERSION in text
    assert all(f"### {system}" in text for system in systems)


def test_a_system_without_weights_says_it_does_not_know(games, monkeypatch):
    monkeypatch.setattr(evaluator, "_model", lambda system: None)
    e = evaluate(games["ohw"][5])
    assert (e.red, e.blue, e.low, e.high, e.exact) == (0.5, 0.5, 0.0, 1.0, False)


# Seeds of their own (fitted games' seeds are 64-bit SplitMix64 outputs; checked below).
HELD_OUT = [(scenario, seed, red, blue)
            for scenario in ("ancients-battle-for-the-hill", "ancients-river-crossing",
                             "ancients-village-between-marshes", "horse-and-musket-koniggratz",
                             "horse-and-musket-quatre-bras", "machine-age-hill-sixty",
                             "medieval-between-the-woods", "pike-and-shot-auldearn")
            for seed, (red, blue) in enumerate([("tactician", "aggressive"),
                                                ("aggressive", "cautious"),
                                                ("cautious", "tactician"),
                                                ("tactician", "tactician")], start=900)]


def test_calibrated_on_bot_games_it_never_saw():
    training = evaluator.load_weights()["training"]
    fitted = {t.seed for t in fit.game_tasks(training["games_per_scenario"],
                                             job_seed=training["job_seed"],
                                             every=training["every"],
                                             scenarios=training["scenarios"])}
    assert not fitted & {seed for _, seed, _, _ in HELD_OUT}
    predicted, red_won, game = [], [], []
    for i, (scenario, seed, red, blue) in enumerate(HELD_OUT):
        states = _states(scenario, seed, red, blue)
        for state in states[:-1]:
            predicted.append(evaluate(state).red)
            red_won.append(states[-1].winner == "red")
            game.append(i)
    table = fit.calibration(np.array(predicted), np.array(red_won, dtype=float), np.array(game))
    checked = [b for b in table["bins"] if b["count"] >= 30]
    assert len(checked) >= 4  # the model spreads its answers: a 50%-everywhere one fills one
    for b in checked:
        assert b["low"] - 0.15 <= b["observed"] <= b["high"] + 0.15, b
    assert table["brier"] < table["brier_half"] - 0.03
    assert table["brier"] < table["brier_base_rate"]


def test_the_calibration_page_is_the_shipped_weights_own():
    """docs/evaluator.md is regenerated from the weights (python -m warlog.evaluator_fit
    --docs): a refit that forgot it leaves the page describing another evaluator."""
    from warlog.evaluator_fit import DOC_PATH, evaluator_doc

    assert DOC_PATH.read_text(encoding="utf-8") == evaluator_doc(evaluator.load_weights())
