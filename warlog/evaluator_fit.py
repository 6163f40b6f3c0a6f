"""Fitting the evaluator (engine/evaluator.py) to bot games, and checking it on games it never saw.

Why bot games of mixed policies: a review judges people's games, whose play is neither the
best bot's nor the worst's, and a tactician-only set is one-sided in many scenarios (the same
side wins nearly every game, so nothing separates a good position from a bad one). Each
bundled scenario is played by every pair of POLICIES, seeds from `task_seed`, and every k-th
position that waits for an order is kept with the game's final result as its label.

Why held out by game, not by position: positions of one game share its outcome, so a position
held out beside its neighbours in the fit would flatter the model. A game is held out by its
replicate number, before anything is played, so held-out seeds are never fitted. The other
games are split again by replicate into folds for the calibration map
(warlog/evaluator_calibration.py): each fold's positions are predicted by coefficients fitted on
the other folds only, and the map is fitted to those predictions; held-out games are in neither.

The model is a 3-class softmax fitted per rule system by Newton's method with a small L2
penalty; its covariance is clustered by game (the sandwich estimator), because a game's 30
positions are closer to one piece of evidence than to 30.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from warlog.engine.bots import play_out
from warlog.engine.evaluator import (CLASSES, FEATURE_NAMES, IDENTITY, WEIGHTS_PATH, features,
                                     probabilities, weights_version)
from warlog.engine.scenario import bundled_scenarios, load_scenario
from warlog.engine.state import GameState
from warlog.evaluator_calibration import (BINS, DOC_PATH, PLAYOUT_POSITIONS, PlayoutTask,
                                          calibration, calibration_markdown, evaluator_doc,
                                          fit_logit_map, playout_comparison, playout_task,
                                          sample_positions, worst_bin_miss)
from warlog.app.jobs import Progress, run_tasks, task_seed

# the table, its page and the map live in evaluator_calibration; named here for the callers
__all__ = ["BINS", "DOC_PATH", "calibration", "calibration_markdown", "evaluator_doc"]

POLICY_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (red, blue) for red in ("tactician", "aggressive", "cautious")
    for blue in ("tactician", "aggressive", "cautious"))
DEFAULT_JOB_SEED = 38  # issue 38, the battle review
DEFAULT_CHECK_SEED = 4338  # the check set's: never the fit's (`check` refuses that)
DEFAULT_EVERY = 4  # keep every 4th waiting position: neighbours say nearly the same thing
HOLDOUT_EVERY = 4  # every 4th replicate of each policy pair is held out
L2 = 1.0  # the penalty on every coefficient: keeps a class never seen (draws) finite


@dataclass(frozen=True)
class GameTask:
    """One bot game to play (everything it needs travels with it: any worker, same rows)."""

    scenario: str
    seed: int
    red: str
    blue: str
    every: int
    held_out: bool
    fold: int = 0  # the replicate's fold: the map's predictions come from the other folds


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
            "red": task.red, "blue": task.blue, "held_out": task.held_out,
            "fold": task.fold, "label": label, "features": rows}


def game_tasks(games_per_scenario: int, *, job_seed: int = DEFAULT_JOB_SEED,
               every: int = DEFAULT_EVERY, scenarios: Sequence[str] | None = None
               ) -> list[GameTask]:
    """Every scenario's games, policy pairs in turn; replicate r of a pair is held out when
    r % HOLDOUT_EVERY == HOLDOUT_EVERY - 1, else it is in fold r % HOLDOUT_EVERY (with fewer
    replicates, the last game of a scenario is held out, so every scenario is checked)."""
    ids = list(scenarios) if scenarios is not None else [s.id for s in bundled_scenarios()]
    tasks = []
    for i, scenario in enumerate(ids):
        for g in range(games_per_scenario):
            red, blue = POLICY_PAIRS[g % len(POLICY_PAIRS)]
            replicate = g // len(POLICY_PAIRS)
            few = games_per_scenario < len(POLICY_PAIRS) * HOLDOUT_EVERY
            held = (replicate % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
                    or (few and g == games_per_scenario - 1))
            tasks.append(GameTask(scenario, task_seed(job_seed, i * 1_000_003 + g), red, blue,
                                  every, held, replicate % HOLDOUT_EVERY))
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
    """Per rule system: coefficients and covariance (fitted on the fitting games), the
    calibration map (fitted on every fitting position as coefficients fitted without its fold
    predict it: cross-fitting), what was fitted, and the held-out calibration with the map and
    without it."""
    out = {}
    for system in sorted({r["system"] for r in rows}):
        ours = [r for r in rows if r["system"] == system and r["label"] is not None]
        fitting = [r for r in ours if not r["held_out"]]
        held = [r for r in ours if r["held_out"]]
        x, labels, games = _arrays(fitting)
        beta, covariance = fit_softmax(x, labels, games, l2=l2)
        logit_map, mapped = _cross_fitted_map(fitting, l2=l2)
        out[system] = {
            "coefficients": beta.tolist(),
            "covariance": ((covariance + covariance.T) / 2).tolist(),
            "calibration_map": {"method": "vector scaling: (scale, shift) of the red and draw "
                                          "logits, maximum likelihood, L2 toward the identity",
                                "logits": logit_map.tolist(), "games": mapped[0],
                                "positions": mapped[1]},
            "fitted": {"games": len(fitting), "positions": int(len(x)),
                       "red_wins": sum(r["label"] == 0 for r in fitting),
                       "draws": sum(r["label"] == 1 for r in fitting),
                       "unfinished": sum(r["system"] == system and r["label"] is None
                                         for r in rows)},
            "calibration": held_out_table(beta, logit_map, held),
        }
    return out


def held_out_table(coefficients: np.ndarray, logit_map: np.ndarray,
                   held: list[dict[str, Any]]) -> dict[str, Any]:
    """The calibration table of ``held`` games' positions as the model predicts them, with
    its map, and the Brier score and worst bin without the map (what the map changed)."""
    hx, hlabels, hgames = _arrays(held)
    red_won = (hlabels == 0).astype(float)
    raw = probabilities(coefficients, hx) if len(hx) else np.zeros((0, 3))
    p = probabilities(coefficients, hx, logit_map) if len(hx) else np.zeros((0, 3))
    before = calibration(raw[:, 0], red_won, hgames)
    return {**calibration(p[:, 0], red_won, hgames),
            "uncalibrated": {"brier": before["brier"], "worst_bin_miss": worst_bin_miss(before)}}


def _cross_fitted_map(fitting: list[dict[str, Any]], *, l2: float
                      ) -> tuple[np.ndarray, tuple[int, int]]:
    """The calibration map fitted on out-of-fold predictions: for each fold, coefficients
    fitted on the other folds predict its positions. With one fold there is nothing to
    predict from: the identity. Also (games, positions) it was fitted on."""
    folds = sorted({r.get("fold", 0) for r in fitting})
    if len(folds) < 2:
        return IDENTITY, (0, 0)
    logits, labels = [], []
    for fold in folds:
        x, y, g = _arrays([r for r in fitting if r.get("fold", 0) != fold])
        beta, _ = fit_softmax(x, y, g, l2=l2)
        fx, fy, _ = _arrays([r for r in fitting if r.get("fold", 0) == fold])
        logits.append(fx @ beta.T)
        labels.append(fy)
    all_logits = np.concatenate(logits)
    return fit_logit_map(all_logits, np.concatenate(labels)), (len(fitting), len(all_logits))


def playout_picks(rows: list[dict[str, Any]], *, every: int
                  ) -> dict[str, list[tuple[PlayoutTask, tuple[float, ...], float]]]:
    """Per system, PLAYOUT_POSITIONS held-out positions spread over its held-out games (in task
    order): the task that plays each out, its features and whether red won."""
    out: dict[str, list[tuple[PlayoutTask, tuple[float, ...], float]]] = {}
    for system in sorted({r["system"] for r in rows}):
        flat = [(r, j) for r in rows if r["system"] == system and r["held_out"]
                and r["label"] is not None for j in range(len(r["features"]))]
        out[system] = [(PlayoutTask(r["scenario"], r["seed"], r["red"], r["blue"], every, j),
                        tuple(r["features"][j]), float(r["label"] == 0))
                       for r, j in (flat[i] for i in sample_positions(len(flat),
                                                                      PLAYOUT_POSITIONS))]
    return out


def add_playout_comparison(content: dict[str, Any], picks: dict[str, list], wins: list[int]
                           ) -> None:
    """Put each system's Brier scores against the playouts into its calibration entry (``wins``:
    red's playout wins for every pick, systems in order), and rename the content by its hash."""
    at = 0
    for system, chosen in picks.items():
        entry = content["systems"][system]
        ours = wins[at:at + len(chosen)]
        at += len(chosen)
        if not chosen:
            continue
        x = design([f for _, f, _ in chosen])
        p = probabilities(np.asarray(entry["coefficients"]), x,
                          np.asarray(entry["calibration_map"]["logits"]))
        entry["calibration"]["playouts"] = playout_comparison(
            p[:, 0], np.array([won for _, _, won in chosen]), ours)
    content["version"] = weights_version(content)


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
                 "clustered by game, then each system's calibration map of the logits",
        "training": {"games_per_scenario": games_per_scenario, "job_seed": job_seed,
                     "every": every, "holdout_every": HOLDOUT_EVERY,
                     "calibration_folds": HOLDOUT_EVERY - 1,
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
    picks = playout_picks(rows, every=every)
    wins = run_tasks(playout_task, [t for chosen in picks.values() for t, _, _ in chosen],
                     scheduler=scheduler, workers=workers, progress=progress)
    add_playout_comparison(content, picks, wins)
    if write is not None:
        write_weights(content, write)
    return content


def check_tasks(systems: Sequence[str], games_per_scenario: int, *,
                job_seed: int = DEFAULT_CHECK_SEED, every: int = DEFAULT_EVERY
                ) -> list[GameTask]:
    """A fresh check set: ``games_per_scenario`` games of every bundled scenario of
    ``systems`` (the policy pairs in turn, as the fit plays them), every one held out. Its job
    seed is not the fit's, so none of its games was fitted on."""
    ids = [s.id for s in bundled_scenarios() if s.rule_system in systems]
    return [replace(t, held_out=True, fold=0)
            for t in game_tasks(games_per_scenario, job_seed=job_seed, every=every,
                                scenarios=ids)]


def check(content: dict[str, Any], systems: Sequence[str], games_per_scenario: int, *,
          job_seed: int = DEFAULT_CHECK_SEED, scheduler: str = "auto",
          workers: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """The weights ``content`` with ``systems``' held-out tables and playout figures measured
    on a fresh check set instead (no refit: coefficients and maps unchanged). Why: a system of
    two or three scenarios holds out only 108 to 162 games, and a bin of 30 to 100 of them
    cannot tell a bias from luck; the check set holds as many games as we care to play."""
    if job_seed == content["training"]["job_seed"]:
        raise ValueError(f"the check set's job seed {job_seed} is the fit's: pick another")
    every = content["training"]["every"]
    tasks = check_tasks(systems, games_per_scenario, job_seed=job_seed, every=every)
    rows = play_games(tasks, scheduler=scheduler, workers=workers, progress=progress)
    out = checked_tables(content, rows, systems=systems, games_per_scenario=games_per_scenario,
                         job_seed=job_seed)
    picks = playout_picks(rows, every=every)
    wins = run_tasks(playout_task, [t for chosen in picks.values() for t, _, _ in chosen],
                     scheduler=scheduler, workers=workers, progress=progress)
    add_playout_comparison(out, picks, wins)
    return out


def checked_tables(content: dict[str, Any], rows: list[dict[str, Any]], *,
                   systems: Sequence[str], games_per_scenario: int, job_seed: int
                   ) -> dict[str, Any]:
    """A copy of ``content`` whose ``systems`` tables are measured on the check set's ``rows``
    and which says how that set was made (its "check" entry)."""
    out = json.loads(json.dumps(content))  # a copy: the shipped weights are cached
    unfinished = {}
    for system in sorted(systems):
        entry = out["systems"][system]
        ours = [r for r in rows if r["system"] == system]
        unfinished[system] = sum(r["label"] is None for r in ours)
        entry["calibration"] = held_out_table(
            np.asarray(entry["coefficients"]), np.asarray(entry["calibration_map"]["logits"]),
            [r for r in ours if r["label"] is not None])
    out["check"] = {"systems": sorted(systems), "games_per_scenario": games_per_scenario,
                    "job_seed": job_seed, "every": content["training"]["every"],
                    "unfinished": unfinished, "scenarios": sorted({r["scenario"] for r in rows})}
    return out


def write_weights(content: dict[str, Any], path: Path = WEIGHTS_PATH) -> None:
    path.write_text(json.dumps(content, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m warlog.evaluator_fit GAMES [WORKERS]`: fit, write the shipped weights and
    docs/evaluator.md; `--docs`: write docs/evaluator.md from the shipped weights only;
    `--check-systems density,portable --check-games N [--check-seed S] [--workers W]`: measure
    the shipped model of those systems on a fresh check set (`check`), write both."""
    import argparse
    import sys

    from warlog.engine.evaluator import load_weights
    from warlog.progress import progress_bar

    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--docs"]:
        DOC_PATH.write_text(evaluator_doc(load_weights()), encoding="utf-8")
        return
    if any(a.startswith("--check") for a in args):
        parser = argparse.ArgumentParser(prog="python -m warlog.evaluator_fit")
        parser.add_argument("--check-systems", required=True)
        parser.add_argument("--check-games", type=int, required=True)
        parser.add_argument("--check-seed", type=int, default=DEFAULT_CHECK_SEED)
        parser.add_argument("--workers", type=int, default=2)
        options = parser.parse_args(args)
        systems = options.check_systems.split(",")
        with progress_bar("checking the evaluator", noun="games, then positions") as progress:
            weights = check(load_weights(), systems, options.check_games,
                            job_seed=options.check_seed, scheduler="local",
                            workers=options.workers, progress=progress)
    else:
        games = int(args[0]) if args else 36
        workers = int(args[1]) if len(args) > 1 else 2
        with progress_bar("fitting the evaluator", noun="games, then positions") as progress:
            weights = fit(games, scheduler="local", workers=workers, progress=progress)
    write_weights(weights)
    DOC_PATH.write_text(evaluator_doc(weights), encoding="utf-8")
    print(calibration_markdown(weights))


if __name__ == "__main__":
    main()
