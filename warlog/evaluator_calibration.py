"""The evaluator's calibration: the map fitted after the softmax, the held-out table, and the
comparison with 16-playout estimates.

Why a map at all: a logistic fit is calibrated on its own games by construction (its
likelihood equations make the mean prediction match the mean result there), but on new games it
can be overconfident where it learnt a game's accidents. So the map is fitted on predictions of
games the predicting coefficients never saw: the fitting games are split by replicate into
folds before anything is played, each fold is predicted by coefficients fitted on the others
(cross-fitting), and the map is fitted on all those predictions; the shipped coefficients are
then fitted on every fitting game. A single split (coefficients on half, the map on a quarter)
was tried: the map then learnt its quarter's luck (ohw's map quarter: red won 58% of its games, the
held-out quarter's 55%) and made the held-out table worse. The held-out games stay out of both.

Why vector scaling of the logits (Platt's method, one scale and one shift per logit, the
multinomial form of temperature scaling): four numbers a system are fitted well by a few
hundred games, where a binned or isotonic map would chase a bin's handful of games; it is
monotone (a better position stays better), smooth (the delta-method interval goes through it by
the chain rule), and the three probabilities still come from one softmax, so they sum to 1.

Why 16-playout estimates: the Replay page's win-probability curve plays a position out 16
times with the game's own bots (engine/whatif.py). The evaluator replaces that with one
function call, so the table says how much worse (or better) its Brier score is than the
playouts' on the same held-out positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from warlog.engine.bots import play_out
from warlog.engine.evaluator import IDENTITY, calibrated_logits, softmax_of
from warlog.engine.scenario import load_scenario
from warlog.engine.state import GameState
from warlog.engine.whatif import mix, playout_from

BINS = 10
MAP_L2 = 1.0  # pulls the map toward changing nothing: keeps a class never seen (draws) finite
PLAYOUTS = 16  # as the Replay page's curve
PLAYOUT_POSITIONS = 30  # held-out positions per system played out (about 10 CPU-minutes in all)


# -- the map -----------------------------------------------------------------------------------


def fit_logit_map(logits: np.ndarray, labels: np.ndarray, *, l2: float = MAP_L2,
                  iterations: int = 100) -> np.ndarray:
    """The (scale, shift) of the red and draw logits (2, 2) that maximise the likelihood of
    ``labels`` (0 red, 1 draw, 2 blue) given the uncalibrated ``logits`` (n, 2), by Newton's
    method with an L2 pull toward the identity (scale 1, shift 0). Steps are halved until the
    penalised likelihood rises: logits of a nearly separable fit are large, and a full Newton
    step from the identity can overshoot."""
    n = logits.shape[0]
    y = np.zeros((n, 3))
    y[np.arange(n), labels] = 1.0
    u = [np.stack([logits[:, k], np.ones(n)], axis=1) for k in (0, 1)]  # each class's inputs
    identity = IDENTITY.ravel()

    def objective(theta: np.ndarray) -> float:
        p = softmax_of(calibrated_logits(logits, theta.reshape(2, 2)))
        return float(np.sum(y * np.log(np.maximum(p, 1e-300)))
                     - l2 / 2 * np.sum((theta - identity) ** 2))

    theta = identity.copy()
    current = objective(theta)
    for _ in range(iterations):
        p = softmax_of(calibrated_logits(logits, theta.reshape(2, 2)))
        gradient = np.concatenate([u[k].T @ (y[:, k] - p[:, k]) for k in (0, 1)])
        gradient -= l2 * (theta - identity)
        hessian = np.eye(4) * l2
        for k in (0, 1):
            for m in (0, 1):
                w = p[:, k] * ((k == m) - p[:, m])
                hessian[2 * k:2 * k + 2, 2 * m:2 * m + 2] += u[k].T @ (u[m] * w[:, None])
        step = np.linalg.solve(hessian, gradient)
        for _ in range(50):
            tried = objective(theta + step)
            if tried >= current:
                break
            step = step / 2
        theta, current = theta + step, max(current, tried)
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta.reshape(2, 2)


# -- the table ---------------------------------------------------------------------------------


def calibration(p_red: np.ndarray, red_won: np.ndarray, games: np.ndarray) -> dict[str, Any]:
    """Held-out calibration of P(red wins): BINS equal bins (count, distinct games, mean
    predicted, observed share), and Brier scores: the model's, always-50%'s and the base
    rate's (always the held-out share of red wins: what features must beat)."""
    bins = []
    which = np.minimum((p_red * BINS).astype(int), BINS - 1)
    for b in range(BINS):
        mask = which == b
        count = int(mask.sum())
        bins.append({"low": b / BINS, "high": (b + 1) / BINS, "count": count,
                     "games": int(len(np.unique(games[mask]))) if count else 0,
                     "predicted": float(p_red[mask].mean()) if count else None,
                     "observed": float(red_won[mask].mean()) if count else None})
    base = float(red_won.mean()) if len(red_won) else 0.5
    return {"positions": int(len(p_red)), "games": int(len(np.unique(games))), "bins": bins,
            "brier": float(np.mean((p_red - red_won) ** 2)) if len(p_red) else None,
            "brier_half": float(np.mean((0.5 - red_won) ** 2)) if len(p_red) else None,
            "brier_base_rate": float(np.mean((base - red_won) ** 2)) if len(p_red) else None}


def worst_bin_miss(table: dict[str, Any], *, at_least: int = 30) -> float | None:
    """The largest |observed - mean predicted| over bins of ``at_least`` positions."""
    misses = [abs(b["observed"] - b["predicted"]) for b in table["bins"]
              if b["count"] >= at_least]
    return max(misses) if misses else None


# -- the playouts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayoutTask:
    """Play a held-out game again to its ``position``-th sampled position (the same sampling as
    the fit's `play_task`), then play that position out PLAYOUTS times."""

    scenario: str
    seed: int
    red: str
    blue: str
    every: int
    position: int


class _Reached(Exception):
    def __init__(self, state: GameState) -> None:
        super().__init__("reached")
        self.state = state


def playout_task(task: PlayoutTask) -> int:
    """How many of the position's PLAYOUTS playouts red won: fresh dice and bot choices from
    `whatif.mix` of the game's seed and the playout's number, the game's own bots."""
    offset = task.seed % task.every
    played = [0]
    sampled = [0]

    def watch(state: GameState) -> None:  # as evaluator_fit.play_task samples, then stop
        played[0] += 1
        if not state.ended and (played[0] + offset) % task.every == 0:
            if sampled[0] == task.position:
                raise _Reached(state.copy())
            sampled[0] += 1

    try:
        play_out(f"fit-{task.scenario}-{task.seed}", load_scenario(task.scenario),
                 seed=task.seed, red=task.red, blue=task.blue, watch=watch)
    except _Reached as reached:
        start = reached.state
    else:
        raise ValueError(f"{task.scenario} seed {task.seed} has no position {task.position}")
    policies = {"red": task.red, "blue": task.blue}
    wins = 0
    for i in range(PLAYOUTS):
        result = playout_from(start.copy(), seed=mix(task.seed, 1_000 + i), policies=policies)
        wins += result.winner == "red"
    return wins


def sample_positions(count: int, n: int) -> list[int]:
    """``n`` indices spread evenly over ``count`` positions (the middle of each n-th share):
    deterministic, and across every game and every stage of the games."""
    if count <= n:
        return list(range(count))
    return [(2 * i + 1) * count // (2 * n) for i in range(n)]


def playout_comparison(p_red: np.ndarray, red_won: np.ndarray, wins: Sequence[int]
                       ) -> dict[str, Any]:
    """Brier scores on the played-out positions: the playouts' share of red wins and the
    evaluator's P(red wins), each against the game's result."""
    estimate = np.asarray(wins, dtype=float) / PLAYOUTS
    return {"positions": int(len(wins)), "playouts": PLAYOUTS,
            "brier_playouts": float(np.mean((estimate - red_won) ** 2)),
            "brier_evaluator": float(np.mean((p_red - red_won) ** 2)),
            "brier_half": float(np.mean((0.5 - red_won) ** 2))}


# -- the page ----------------------------------------------------------------------------------


def calibration_markdown(weights: dict[str, Any]) -> str:
    """The held-out calibration of every rule system as markdown (for docs/evaluator.md)."""
    training = weights["training"]
    lines = [f"Evaluator `{weights['version']}`: held-out bot games, never fitted on "
             f"({training['games_per_scenario']} games per scenario, every "
             f"{training['holdout_every']}th replicate of each policy pair held out; the "
             f"calibration map cross-fitted over {training.get('calibration_folds', '-')} folds "
             "of the others).", ""]
    check = weights.get("check")
    checked = set(check["systems"]) if check else set()
    if check:
        lines[0] += (f" The tables of {', '.join(check['systems'])} are measured instead on a "
                     f"fresh check set: {check['games_per_scenario']} games per scenario of "
                     f"job seed {check['job_seed']} (all nine policy pairs), none of them "
                     "fitted on.")
    for system, entry in sorted(weights["systems"].items()):
        cal = entry["calibration"]
        fitted = entry["fitted"]
        kind = "fresh games of the check set" if system in checked else "held-out games"
        lines += [f"### {system}", "",
                  f"Fitted on {fitted['games']} games ({fitted['positions']} positions); checked "
                  f"on {cal['games']} {kind} ({cal['positions']} positions). Brier score "
                  f"of P(red wins): {_num(cal['brier'])} (always 50%: {_num(cal['brier_half'])}; "
                  f"always the base rate: {_num(cal['brier_base_rate'])})."]
        logit_map = entry.get("calibration_map")
        before = cal.get("uncalibrated")
        if logit_map is not None and before is not None:
            (red_scale, red_shift), (draw_scale, draw_shift) = logit_map["logits"]
            lines[-1] += (f" Calibration map, fitted on the fitting games' "
                          f"{logit_map['positions']} positions predicted out of fold: red "
                          f"logit x {red_scale:.2f} "
                          f"{red_shift:+.2f}, draw logit x {draw_scale:.2f} {draw_shift:+.2f}; "
                          f"without it the Brier score is {_num(before['brier'])} and the worst "
                          f"bin of 30 positions or more misses by "
                          f"{_pct(before['worst_bin_miss'])}, with it by "
                          f"{_pct(worst_bin_miss(cal))}.")
        playouts = cal.get("playouts")
        if playouts is not None:
            lines[-1] += (f" On {playouts['positions']} of these positions played out "
                          f"{playouts['playouts']} times each: Brier score of the playouts' share "
                          f"{_num(playouts['brier_playouts'])}, of the evaluator "
                          f"{_num(playouts['brier_evaluator'])} (always 50%: "
                          f"{_num(playouts['brier_half'])}).")
        lines += ["", "| predicted | positions | games | mean predicted | observed |",
                  "|---|---:|---:|---:|---:|"]
        for b in cal["bins"]:
            lines.append(f"| {b['low']:.0%}-{b['high']:.0%} | {b['count']} | {b['games']} | "
                         f"{_pct(b['predicted'])} | {_pct(b['observed'])} |")
        lines.append("")
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


DOC_PATH = Path(__file__).resolve().parents[1] / "docs" / "evaluator.md"
DOC_INTRO = f"""# The evaluator and its calibration

The review (docs/review.md) weighs every order by the evaluator's win probability of where it
leads: engine/evaluator.py, a 3-class softmax (red wins, draw, blue wins) over generic features
of a position (strength left, units standing, objectives held and how near each side is to
them, exhaustion, defensive ground, the share of the turn limit gone and its products with
material and objectives, whose side acts), one set of weights per rule system, then a
calibration map per rule system. The weights and maps are data
(engine/evaluator_weights.json), fitted to the results of bot games of every bundled scenario
(all nine pairings of the tactician, aggressive and cautious bots), every 4th waiting position
of each game. The games are split by replicate before any is played: a quarter are held out,
and the tables below are measured on them alone; the rest fit the softmax's coefficients
(Newton's method, a small L2 penalty) and, in three folds, the calibration map. The 95%
interval an evaluation states is the doubt about the coefficients (delta method through the
map, the covariance clustered by game, since a game's positions share its result), not the dice.

**Why a calibration map.** A logistic fit is calibrated on its own games by construction, but on
new games it leans the way its games happened to go: with two or three scenarios a system
(frontier, density, portable), a few hundred games teach it some accidents, and it was 15 to 20
points off in the middle bins of held-out games. The map is vector scaling (Platt's method for
each logit, the multinomial form of temperature scaling): the red and the draw logit are each
multiplied by a scale and shifted, four numbers fitted by maximum likelihood on every fitting
position as predicted by coefficients fitted on the other two folds (games those coefficients
never saw, which is what a review's positions are: cross-fitting). A single split (a quarter of
the games for the map alone) was tried and rejected: the map learnt that quarter's luck. Four
numbers need few games, where a binned or isotonic map of P(red wins) would follow each bin's
handful of games; a positive scale keeps the
order of positions (a better one stays better), the map is smooth, so the interval passes
through it by the chain rule, and the three probabilities still come from one softmax, so they
sum to 1. An ended game is not evaluated by the model: it is its result, exactly.

**What the tables can show.** The maps come out near the identity: out of fold, the softmax was
already about as calibrated as its fitting games can tell. A system of two or three scenarios
(density, frontier, portable) holds out only 108 to 162 games, a bin's positions come from 30
to 100 of them, and a game's positions share its result: there the worst bins missed by 11, 19
and 14 points, which looked like the held-out games' luck (frontier's were won by red 47% of
the time against 57% in its fitting games). That was tested on a fresh check set, 324 games a
scenario of a job seed never fitted (648 to 972 games a system, 19,000 to 46,000 positions),
and the tables of those three systems below are measured on it, the model unchanged
(`python -m warlog.evaluator_fit --check-systems density,frontier,portable --check-games 324`:
18 minutes to play on 2 busy cores, then the playouts). Density's worst bin now misses by 8
points and frontier's by 9 (its red won 51%): luck, mostly. Portable's does not go away: it
predicts red 11 points too high in the 30-50% bins, nearly all of it in two of its three
scenarios (Issus: red won 33% where 40% was predicted on average; the Axona's 30-50% positions),
and the result hangs on the policy pair (Issus: the tactician as red beat the cautious bot 75%
of the time, the cautious bot as red never beat the tactician), which no feature sees. Fitted
again on 729 of the check set's games, portable's held-out quarter misses by 8 points, the same
bin the same way: more fitting games shrink it, and what remains is what the generic features
cannot tell apart (the map, who plays), not luck.

**Against playouts.** The Replay page's win-probability curve plays a position out 16 times
with the game's own bots (engine/whatif.py). For {PLAYOUT_POSITIONS} held-out positions a
system, spread evenly over its held-out games, the fit plays each out {PLAYOUTS} times the same
way (seeds from `whatif.mix` of the game's seed and the playout's number) and gives the Brier
score of the playouts' share of red wins beside the evaluator's on the same positions: what is
given up by asking one function instead of 16 games. The playouts use the very bots that played
the game, so they know what the features cannot (how those bots go on to play), and they score
far better everywhere; the evaluator is what a review can afford at thousands of positions.

A bin of predicted P(red wins) is calibrated when red won about as often as predicted there;
the Brier score is the mean squared error of P(red wins) against the result (0 is perfect;
saying 50% everywhere scores 0.25). Regenerate this page from the shipped weights with
`python -m warlog.evaluator_fit --docs`; refit (about 30 minutes on 2 busy cores at 216 games a
scenario: 25 to play the games, 5 for the playouts, 8 CPU-minutes) with
`python -m warlog.evaluator_fit 216 2`.

"""


def evaluator_doc(weights: dict[str, Any]) -> str:
    """docs/evaluator.md: the method, then the held-out calibration of every rule system."""
    return DOC_INTRO + calibration_markdown(weights)
