"""The evaluator: a calibrated win probability for any position that waits for an order.

A battle review weighs every leaf of every candidate order, thousands of positions a game, so a
playout per position is out of reach. Instead a small value function, fitted to the outcomes of
bot games (warlog/evaluator_fit.py), turns a handful of generic features of the position into
P(red wins), P(draw), P(blue wins): a 3-class softmax (multinomial logistic regression), blue
the reference class, one coefficient set per rule system. The coefficients are DATA
(engine/evaluator_weights.json), so a refit changes numbers, never code, and
`EVALUATOR_VERSION` (the weights' content hash) tells a stored review which evaluator made it.

The features reach the rules only through the Ruleset hooks (`strength`, `exhaustion_point`)
and the state's own facts, so they mean the same thing in every system; what differs between
systems is only how much each one weighs, which is what the per-system fit learns.

The softmax's logits then pass through a per-system calibration (`calibrated_logits`): each of
the red and draw logits is scaled and shifted (vector scaling, Platt's method per logit), with
the four numbers fitted on bot games the coefficients never saw (warlog/evaluator_calibration.py).
A logistic fit is calibrated on its own games by construction but overconfident or biased on
new ones; a monotone map of the logits corrects that without changing which position is better,
and the three probabilities still come from one softmax, so they sum to 1.

The uncertainty stated (`low`, `high`) is a 95% interval on red's expected score from the
coefficients' covariance (delta method; the covariance is clustered by game, because the
positions of one game share its outcome and are not independent evidence). It is the
evaluator's doubt about its own weights, not the dice: a 50% position is a coin toss however
narrow the interval.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.common import objectives_held
from warlog.engine.state import GameState
from warlog.engine.tactician import Tactician

WEIGHTS_PATH = Path(__file__).with_name("evaluator_weights.json")
Z95 = 1.959963984540054
CLASSES = ("red", "draw", "blue")  # blue is the softmax's reference class (its logit is 0)
SCORE_OF_CLASS = (1.0, 0.5, 0.0)  # red's score for each class
IDENTITY = np.array([[1.0, 0.0], [1.0, 0.0]])  # a calibration that changes nothing

FEATURE_NAMES: tuple[str, ...] = (
    "material",       # red's share of its starting strength left, less blue's
    "standing",       # red's share of its units still standing, less blue's
    "objectives",     # objectives held by red less blue's, over the scenario's objectives
    "exhaustion",     # red's distance to its exhaustion point, less blue's (0: no such rule)
    "exhausted",      # +1 blue exhausted and red not, -1 the reverse, 0 neither or both
    "ground",         # share of red's standing units on defensive ground, less blue's
    "army_balance",   # (red's starting strength - blue's) over both: the scenario's odds
    "time",           # share of the turn limit gone
    "time_material",  # time x material: losses late are harder to make good
    "time_objectives",  # time x objectives: who holds them at the end usually wins
    "to_act",         # +1 red acts now, -1 blue, 0 neither
    "reach",          # per objective, blue's nearest unit's distance less red's, over the board
)


def features(state: GameState) -> tuple[float, ...]:
    """The position as numbers, each red-minus-blue (so swapping the sides negates it), in
    FEATURE_NAMES' order. Generic: rules are read only through the Ruleset hooks."""
    ruleset = get_ruleset(state.rule_system)
    full = {"red": 0.0, "blue": 0.0}
    lost = {"red": 0.0, "blue": 0.0}
    units = {"red": 0, "blue": 0}
    standing = {"red": 0, "blue": 0}
    ground = {"red": 0, "blue": 0}
    for unit in state.units.values():
        side = unit.side
        start, gone = ruleset.strength(state, unit)
        full[side] += start
        lost[side] += start if unit.removed else min(gone, start)
        units[side] += 1
        if not unit.removed:
            standing[side] += 1
            ground[side] += Tactician.good_ground(state, unit.cell)
    left = {s: 1.0 - lost[s] / full[s] if full[s] else 0.0 for s in full}
    share_standing = {s: standing[s] / units[s] if units[s] else 0.0 for s in units}
    on_ground = {s: ground[s] / standing[s] if standing[s] else 0.0 for s in standing}
    margin = {}
    for side in ("red", "blue"):
        point, rule = ruleset.exhaustion_point(state, side, int(full[side]))
        margin[side] = (point - lost[side]) / full[side] if rule is not None and full[side] else 0.0
    victory = state.scenario.victory
    held = objectives_held(state) if victory.objectives else {"red": 0, "blue": 0}
    objectives = (held["red"] - held["blue"]) / max(1, len(victory.objectives))
    material = left["red"] - left["blue"]
    time = min(1.0, max(0.0, state.turn / victory.turn_limit))
    acting = state.to_act
    both = full["red"] + full["blue"]
    reach = _objective_reach(state) if victory.objectives else 0.0
    return (
        material,
        share_standing["red"] - share_standing["blue"],
        objectives,
        margin["red"] - margin["blue"],
        float(("blue" in state.exhausted) - ("red" in state.exhausted)),
        on_ground["red"] - on_ground["blue"],
        (full["red"] - full["blue"]) / both if both else 0.0,
        time,
        time * material,
        time * objectives,
        1.0 if acting == "red" else -1.0 if acting == "blue" else 0.0,
        reach,
    )


def _objective_reach(state: GameState) -> float:
    """Who is nearer the objectives: for each, blue's nearest standing unit's distance less
    red's (a side with none standing counts as the board's size away), averaged, over the
    board's size. Holding says who has them now; reach says who can take them next."""
    grid = state.grid
    size = grid.width + grid.height
    total = 0.0
    objectives = state.scenario.victory.objectives
    for cell in objectives:
        target = tuple(cell)
        nearest = {"red": size, "blue": size}
        for unit in state.units.values():
            if not unit.removed:
                d = grid.distance(unit.cell, target)
                if d < nearest[unit.side]:
                    nearest[unit.side] = d
        total += nearest["blue"] - nearest["red"]
    return total / len(objectives) / size


@dataclass(frozen=True)
class Evaluation:
    """The chances of each result from a position. ``low``/``high``: a 95% interval on red's
    expected score (``score``); ``exact``: the game is over and this is its result."""

    red: float
    blue: float
    draw: float
    low: float
    high: float
    exact: bool = False

    @property
    def score(self) -> float:
        """Red's expected score (a win 1, a draw 1/2): what a review compares orders by."""
        return self.red + self.draw / 2


@dataclass(frozen=True)
class SystemModel:
    """One rule system's fitted coefficients, as arrays ready for the arithmetic."""

    coefficients: np.ndarray  # (2, 1 + features): the red and draw logits against blue
    covariance: np.ndarray  # (2 * (1 + features),) squared, red's block first
    calibration: np.ndarray  # (2, 2): (scale, shift) of the red and draw logits


def calibrated_logits(logits: np.ndarray, calibration: np.ndarray | None) -> np.ndarray:
    """The red and draw logits (n, 2) after the calibration's scale and shift of each (None:
    unchanged). Positive scales keep it monotone: a better position stays better."""
    if calibration is None:
        return logits
    return logits * calibration[:, 0] + calibration[:, 1]


def softmax_of(logits: np.ndarray) -> np.ndarray:
    """(P(red), P(draw), P(blue)) from the red and draw logits (n, 2), blue's fixed at 0: a
    stable softmax."""
    full = np.concatenate([logits, np.zeros((logits.shape[0], 1))], axis=1)
    full -= full.max(axis=1, keepdims=True)
    e = np.exp(full)
    return e / e.sum(axis=1, keepdims=True)


def probabilities(coefficients: np.ndarray, x: np.ndarray,
                  calibration: np.ndarray | None = None) -> np.ndarray:
    """(P(red), P(draw), P(blue)) for design rows ``x`` (n, 1 + features), with the calibration
    applied when given. Shared with the fit, so both read the model alike."""
    return softmax_of(calibrated_logits(x @ coefficients.T, calibration))


def score_gradient(p: np.ndarray, x: np.ndarray,
                   scales: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """d(score)/d(coefficients) for one position, flattened red's block first: for class k,
    p_k (w_k - score) a_k x, where w is red's score for the class (the softmax's derivative)
    and a_k the calibration's scale of that logit (the chain rule through it)."""
    score = p[0] * SCORE_OF_CLASS[0] + p[1] * SCORE_OF_CLASS[1]
    return np.concatenate([p[k] * (SCORE_OF_CLASS[k] - score) * scales[k] * x for k in (0, 1)])


MODEL_PARTS = ("coefficients", "covariance", "calibration_map")
"""What an evaluation reads of a system's entry: the version names these (with the features
and the model's form), not the calibration tables and checks measured on them, so re-measuring
an evaluator on more games does not make its stored reviews look older."""


def weights_version(content: dict[str, Any]) -> str:
    """The content hash that names a set of weights: the features, the model's form and each
    system's MODEL_PARTS, as canonical JSON, so a refit (or a hand edit of a number an
    evaluation reads) is a new evaluator and a new check of the same one is not."""
    import hashlib

    body = {"features": content["features"], "model": content.get("model"),
            "systems": {name: {k: entry.get(k) for k in MODEL_PARTS}
                        for name, entry in content["systems"].items()}}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return "ev-" + hashlib.sha256(canonical).hexdigest()[:12]


@functools.cache
def load_weights() -> dict[str, Any]:
    """The shipped weights, read once. Refuses weights fitted on other features: their
    coefficients would be read against the wrong numbers."""
    content = json.loads(WEIGHTS_PATH.read_text(encoding="utf-8"))
    if tuple(content["features"]) != FEATURE_NAMES:
        raise ValueError(f"{WEIGHTS_PATH.name} was fitted on features {content['features']}, "
                         f"not {list(FEATURE_NAMES)}: refit (warlog/evaluator_fit.py)")
    return content


@functools.cache
def _model(system: str) -> SystemModel | None:
    entry = load_weights()["systems"].get(system)
    if entry is None:
        return None
    map_ = entry.get("calibration_map")
    return SystemModel(np.asarray(entry["coefficients"], dtype=float),
                       np.asarray(entry["covariance"], dtype=float),
                       IDENTITY if map_ is None else np.asarray(map_["logits"], dtype=float))


def __getattr__(name: str) -> Any:
    """``EVALUATOR_VERSION`` is read from the weights on first use, not on import: the engine
    is imported by everything, and most of it never evaluates."""
    if name == "EVALUATOR_VERSION":
        return load_weights()["version"]
    raise AttributeError(name)


_UNKNOWN = Evaluation(red=0.5, blue=0.5, draw=0.0, low=0.0, high=1.0)


def evaluate(state: GameState) -> Evaluation:
    """The chances from ``state``: exact for an ended game; else the fitted model of its rule
    system; a system with no weights yet gets even chances with the widest interval (it says
    it does not know rather than failing a review)."""
    if state.ended:
        red = 1.0 if state.winner == "red" else 0.0
        blue = 1.0 if state.winner == "blue" else 0.0
        draw = 1.0 - red - blue
        score = red + draw / 2
        return Evaluation(red=red, blue=blue, draw=draw, low=score, high=score, exact=True)
    model = _model(state.rule_system)
    if model is None:
        return _UNKNOWN
    x = np.array((1.0, *features(state)))
    p = probabilities(model.coefficients, x[None, :], model.calibration)[0]
    gradient = score_gradient(p, x, tuple(model.calibration[:, 0]))
    half = Z95 * math.sqrt(max(0.0, float(gradient @ model.covariance @ gradient)))
    score = float(p[0] + p[1] / 2)
    return Evaluation(red=float(p[0]), blue=float(p[2]), draw=float(p[1]),
                      low=max(0.0, score - half), high=min(1.0, score + half))
