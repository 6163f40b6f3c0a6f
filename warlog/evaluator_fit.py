"""Fitting the evaluator (engine/evaluator.py) to bot games, and checking it on games it never saw.

Why bot games of mixed policies: a review judges people's games, whose play is neither the
best bot's nor the worst's, and a tactician-only set is one-sided in many scenarios (the same
side wins nearly every game, so nothing separates a good position from a bad one). Each
bundled scenario is played by every pair of POLICIES, seeds from `task_seed`, and every k-th
position that waits for an order is kept with the game's final result as its label.

Why held out by game, not by position: positions of one game share its outcome, so a position
held out beside its neighbours in the fit would flatter the model. A game is held out by its
replicate number, before anything is played, so held-out seeds are never fitted.

The model is a 3-class softmax fitted per rule system by Newton's method with a small L2
penalty; its covariance is clustered by game (the sandwich estimator), because a game's 30
positions are closer to one piece of evidence than to 30.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from warlog.engine.bots import play_out
from warlog.engine.evaluator import (CLASSES, FEATURE_NAMES, WEIGHTS_PATH, features,
                                     probabilities, weights_version)
from warlog.engine.scenario import bundled_scenarios, load_scenario
from warlog.engine.state import GameState
from warlog.jobs import Progress, run_tasks, task_seed

POLICY_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (red, blue) for red in ("tactician", "aggressive", "cautious")
    for blue in ("tactician", "aggressive", "cautious"))
DEFAULT_JOB_SEED = 38  # issue 38, the battle review
DEFAULT_EVERY = 4  # keep every 4th waiting position: neighbours say nearly the same thing
HOLDOUT_EVERY = 4  # every 4th replicate of each policy pair is held out
L2 = 1.0  # the penalty on every coefficient: keeps a class never seen (draws) finite
BINS = 10


@dataclass(frozen=True)
class GameTask:
    """One bot game to play (everything it needs travels with it: any worker, same rows)."""

    scenario: str
    seed: int
    red: str
    blue: str
    every: int
    held_out: bool


def play_task(task: GameTask) -> dict[str, Any]:
    """Play one game and return its sampled positions' features and its result: a small row,
    never the game (workers ship rows, not logs)."""
    rows: list[tuple[float, ...]] = []
    offset = task.seed % task.every  # not always the same phase of the turn
    played = [0]

    def watch(state: GameState) -> None:  # the position after each order: one that waits
        played[0] += 1
        if not state.ended and (played[0] + offset) % task.every == 0:
            rows.append(features(state))

    scenario = load_scenario(task.scenario)
    try:
        game = play_out(f"fit-{task.scenario}-{task.seed}", scenario, seed=task.seed,
                        red=task.red, blue=task.blue, watch=watch)
    except RuntimeError:  # a policy looping past MAX_ORDERS: no result to learn from
        label, rows = None, []
    else:
        winner = game.state.winner
        label = CLASSES.index(winner if winner in ("red", "blue") else "draw")
    return {"scenario": task.scenario, "system": scenario.rule_system, "seed": task.seed,
            "red": task.red, "blue": task.blue, "held_out": task.held_out, "label": label,
            "features": rows}


def game_tasks(games_per_scenario: int, *, job_seed: int = DEFAULT_JOB_SEED,
               every: int = DEFAULT_EVERY, scenarios: Sequence[str] | None = None
               ) -> list[GameTask]:
    """Every scenario's games, policy pairs in turn; replicate r of a pair is held out when
    r % HOLDOUT_EVERY == HOLDOUT_EVERY - 1 (with fewer replicates, the last game of a scenario
    is held out, so every scenario is checked)."""
    ids = list(scenarios) if scenarios is not None else [s.id for s in bundled_scenarios()]
    tasks = []
    for i, scenario in enumerate(ids):
        for g in range(games_per_scenario):
            red, blue = POLICY_PAIRS[g % len(POLICY_PAIRS)]
            replicate = g // len(POLICY_PAIRS)
            held = (replicate % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
                    or (games_per_scenario < len(POLICY_PAIRS) * HOLDOUT_EVERY
                        and g == games_per_scenario - 1))
            tasks.append(GameTask(scenario, task_seed(job_seed, i * 1_000_003 + g), red, blue,
                                  every, held))
    return tasks


# -- the maths ---------------------------------------------------------------------------------


def design(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """Feature rows with the intercept's column of ones in front."""
    x = np.asarray(rows, dtype=float).reshape(len(rows), -1)
    return np.hstack([np.ones((x.shape[0], 1)), x])


def fit_softmax(x: np.ndarray, labels: np.ndarray, groups: np.ndarray, *, l2: float = L2,
                iterations: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """The penalised maximum-likelihood coefficients (2, d) of the red and draw logits against
    blue, by Newton's method, and their covariance clustered by ``groups`` (one id per row: the
    game), H^-1 (sum over games of score score^T) H^-1."""
    n, d = x.shape
    y = np.zeros((n, 3))
    y[np.arange(n), labels] = 1.0
    beta = np.zeros((2, d))
    hessian = np.eye(2 * d)
    for _ in range(iterations):
        p = probabilities(beta, x)
        gradient = np.concatenate([x.T @ (y[:, k] - p[:, k]) for k in (0, 1)]) - l2 * beta.ravel()
        hessian = _information(x, p) + l2 * np.eye(2 * d)
        step = np.linalg.solve(hessian, gradient)
        beta = beta + step.reshape(2, d)
        if np.max(np.abs(step)) < 1e-9:
            break
    p = probabilities(beta, x)
    per_row = np.hstack([x * (y[:, [k]] - p[:, [k]]) for k in (0, 1)])  # (n, 2d) scores
    _, inverse = np.unique(groups, return_inverse=True)
    per_group = np.zeros((inverse.max() + 1, 2 * d))
    np.add.at(per_group, inverse, per_row)
    g = per_group.shape[0]
    meat = per_group.T @ per_group * (g / max(1, g - 1))
    bread = np.linalg.inv(hessian)
    return beta, bread @ meat @ bread


def _information(x: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The softmax's Fisher information: block (k, l) is X^T diag(p_k (delta_kl - p_l)) X."""
    d = x.shape[1]
    out = np.zeros((2 * d, 2 * d))
    for k in (0, 1):
        for m in (0, 1):
            w = p[:, k] * ((k == m) - p[:, m])
            out[k * d:(k + 1) * d, m * d:(m + 1) * d] = x.T @ (x * w[:, None])
    return out


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


def _arrays(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, labels, games = [], [], []
    for game_index, row in enumerate(rows):
        for f in row["features"]:
            x.append(f)
            labels.append(row["label"])
            games.append(game_index)
    return design(x) if x else np.zeros((0, 1 + len(FEATURE_NAMES))), \
        np.asarray(labels, dtype=int), np.asarray(games, dtype=int)


def fit_rows(rows: list[dict[str, Any]], *, l2: float = L2) -> dict[str, dict[str, Any]]:
    """Per rule system: coefficients, covariance, what was fitted, held-out calibration."""
    out = {}
    for system in sorted({r["system"] for r in rows}):
        ours = [r for r in rows if r["system"] == system and r["label"] is not None]
        fitting = [r for r in ours if not r["held_out"]]
        held = [r for r in ours if r["held_out"]]
        x, labels, games = _arrays(fitting)
        beta, covariance = fit_softmax(x, labels, games, l2=l2)
        hx, hlabels, hgames = _arrays(held)
        p = probabilities(beta, hx) if len(hx) else np.zeros((0, 3))
        out[system] = {
            "coefficients": beta.tolist(),
            "covariance": ((covariance + covariance.T) / 2).tolist(),
            "fitted": {"games": len(fitting), "positions": int(len(x)),
                       "red_wins": sum(r["label"] == 0 for r in fitting),
                       "draws": sum(r["label"] == 1 for r in fitting),
                       "unfinished": sum(r["system"] == system and r["label"] is None
                                         for r in rows)},
            "calibration": calibration(p[:, 0], (hlabels == 0).astype(float), hgames),
        }
    return out


def play_games(tasks: Sequence[GameTask], *, scheduler: str = "auto",
               workers: int | None = None, progress: Progress | None = None
               ) -> list[dict[str, Any]]:
    """Every game's row, in task order (through `run_tasks`: same rows on any workers)."""
    return run_tasks(play_task, tasks, scheduler=scheduler, workers=workers, progress=progress)


def weights_from_rows(rows: list[dict[str, Any]], tasks: Sequence[GameTask], *,
                      games_per_scenario: int, job_seed: int, every: int) -> dict[str, Any]:
    """The weights file's content: what was played, every system's fit, the content hash."""
    content: dict[str, Any] = {
        "version": "",
        "features": list(FEATURE_NAMES),
        "model": f"3-class softmax (red, draw against blue), L2 {L2:g}, covariance "
                 "clustered by game",
        "training": {"games_per_scenario": games_per_scenario, "job_seed": job_seed,
                     "every": every, "holdout_every": HOLDOUT_EVERY,
                     "policy_pairs": [list(p) for p in POLICY_PAIRS],
                     "scenarios": sorted({t.scenario for t in tasks})},
        "systems": fit_rows(rows),
    }
    content["version"] = weights_version(content)
    return content


def fit(games_per_scenario: int, *, job_seed: int = DEFAULT_JOB_SEED,
        every: int = DEFAULT_EVERY, scenarios: Sequence[str] | None = None,
        scheduler: str = "auto", workers: int | None = None,
        progress: Progress | None = None, write: Path | None = None) -> dict[str, Any]:
    """Play the games, fit every rule system, and return the weights (``write``: also save
    them there as JSON, the shipped file's form)."""
    tasks = game_tasks(games_per_scenario, job_seed=job_seed, every=every, scenarios=scenarios)
    rows = play_games(tasks, scheduler=scheduler, workers=workers, progress=progress)
    content = weights_from_rows(rows, tasks, games_per_scenario=games_per_scenario,
                                job_seed=job_seed, every=every)
    if write is not None:
        write_weights(content, write)
    return content


def write_weights(content: dict[str, Any], path: Path = WEIGHTS_PATH) -> None:
    path.write_text(json.dumps(content, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def calibration_markdown(weights: dict[str, Any]) -> str:
    """The held-out calibration of every rule system as markdown (for docs/evaluator.md)."""
    lines = [f"Evaluator `{weights['version']}`: held-out bot games, never fitted on "
             f"({weights['training']['games_per_scenario']} games per scenario, every "
             f"{weights['training']['holdout_every']}th replicate of each policy pair held out).",
             ""]
    for system, entry in sorted(weights["systems"].items()):
        cal = entry["calibration"]
        fitted = entry["fitted"]
        lines += [f"### {system}", "",
                  f"Fitted on {fitted['games']} games ({fitted['positions']} positions); checked "
                  f"on {cal['games']} held-out games ({cal['positions']} positions). Brier score "
                  f"of P(red wins): {_num(cal['brier'])} (always 50%: {_num(cal['brier_half'])}; "
                  f"always the base rate: {_num(cal['brier_base_rate'])}).", "",
                  "| predicted | positions | games | mean predicted | observed |",
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
DOC_INTRO = """# The evaluator and its calibration

The review (docs/review.md) weighs every order by the evaluator's win probability of where it
leads: engine/evaluator.py, a 3-class softmax (red wins, draw, blue wins) over generic features
of a position (strength left, units standing, objectives held and how near each side is to
them, exhaustion, defensive ground, the share of the turn limit gone and its products with
material and objectives, whose side acts), one set of weights per rule system. The weights are
data (engine/evaluator_weights.json), fitted by Newton's method with a small L2 penalty to the
results of bot games of every bundled scenario (all nine pairings of the tactician, aggressive
and cautious bots), every 4th waiting position of each game. Whole games are held out before
any is played, and the tables below are measured on them alone. The 95% interval an evaluation
states is the doubt about the weights (delta method, the covariance clustered by game, since a
game's positions share its result), not the dice.

A bin of predicted P(red wins) is calibrated when red won about as often as predicted there;
the Brier score is the mean squared error of P(red wins) against the result (0 is perfect;
saying 50% everywhere scores 0.25). Regenerate this page from the shipped weights with
`python -m warlog.evaluator_fit --docs`; refit (about 11 minutes on 2 cores at 216 games a
scenario) with `python -m warlog.evaluator_fit 216 2`.

"""


def evaluator_doc(weights: dict[str, Any]) -> str:
    """docs/evaluator.md: the method, then the held-out calibration of every rule system."""
    return DOC_INTRO + calibration_markdown(weights)


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m warlog.evaluator_fit GAMES [WORKERS]`: fit, write the shipped weights and
    docs/evaluator.md; `--docs`: write docs/evaluator.md from the shipped weights only."""
    import sys

    from warlog.engine.evaluator import load_weights
    from warlog.progress import progress_bar

    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--docs"]:
        DOC_PATH.write_text(evaluator_doc(load_weights()), encoding="utf-8")
        return
    games = int(args[0]) if args else 36
    workers = int(args[1]) if len(args) > 1 else 2
    with progress_bar("fitting the evaluator", noun="games") as progress:
        weights = fit(games, scheduler="local", workers=workers, progress=progress,
                      write=WEIGHTS_PATH)
    DOC_PATH.write_text(evaluator_doc(weights), encoding="utf-8")
    print(calibration_markdown(weights))


if __name__ == "__main__":
    main()
