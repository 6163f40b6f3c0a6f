"""`warlog whatif` and `warlog winprob`: what-if playouts from a step, and a game's
win-probability curve (computed, stored beside the game, printed).

The commands are registered in warlog/cli.py; `python -m warlog.whatif_cmd` runs them on their
own (the tests drive Ctrl-C that way). Long jobs show a progress bar on stderr; Ctrl-C prints
one line ("stopped after 312 of 1,000 playouts") and exits with 130.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape

from warlog.cli_common import (DEFAULT_DB, MAX_PLAYOUTS, SEED_RANGE, WORKERS_RANGE, DbOption,
                                OneLineErrors, err, events_of, fail, friendly, out,
                                stored_damage)
from warlog.terminal import fitted

RefArg = Annotated[str, typer.Argument(help="A replay file or a game id in the database.")]
PlayoutsOpt = Annotated[int, typer.Option("--playouts", "-n", help="Playouts (per turn, for a "
                                          "curve).", min=1, max=MAX_PLAYOUTS)]
SeedOpt = Annotated[int, typer.Option(help="Seed of the playouts: same seed, same numbers.",
                                      **SEED_RANGE)]
ModeOpt = Annotated[str, typer.Option(
    help="bots: both sides played by bots; recorded: the game's own later orders while they "
         "stay legal, then bots.")]
RedOpt = Annotated[Optional[str], typer.Option(help="Policy for red (default: the game's bot, "
                                                    "else tactician).")]
BlueOpt = Annotated[Optional[str], typer.Option(help="Policy for blue (default: the game's "
                                                     "bot, else tactician).")]
SchedulerOpt = Annotated[str, typer.Option(
    help="auto (in process when small, else a local cluster), inprocess, local, or "
         "tcp://HOST:PORT (an existing Dask scheduler).")]
WorkersOpt = Annotated[Optional[int], typer.Option(help="Worker processes of a local cluster "
                                                        "(default: every core).",
                                                   **WORKERS_RANGE)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _fail(message: str) -> None:
    fail(message)
    raise typer.Exit(1)


def _load(ref: str, db: Path) -> list[dict]:
    with friendly(), stored_damage(ref, db):
        return events_of(ref, db)


def _runner(label: str):
    from warlog.progress import run_job

    return partial(run_job, label=label, noun="playouts")


def _warn_if_slow(policies: dict[str, str], red: str | None, blue: str | None) -> None:
    """A side that keeps, by default, the search bot that played it makes every playout a
    hundred times longer: say so before the wait, and how to ask for a quick answer."""
    from warlog.engine.bots import SEARCH_POLICIES

    kept = [side for side, asked in (("red", red), ("blue", blue))
            if asked is None and policies[side] in SEARCH_POLICIES]
    if kept:
        who = " and ".join(f"{side} keeps {policies[side]}" for side in kept)
        flags = " ".join(f"--{side} tactician" for side in kept)
        err.print(f"note: {who}, the bot that played it: a search bot plays playouts of its own "
                  f"at every move, about a hundred times the tactician's work; {flags} for a "
                  f"quicker estimate", markup=False)


def _share(s: dict[str, float]) -> str:
    return f"{s['p']:.2f}  ({s['low']:.2f}-{s['high']:.2f})"


def whatif(
    ref: RefArg,
    at: Annotated[Optional[int], typer.Option(
        "--at", help="The step (event seq) to play on from (default: where the log ends); "
                     "snapped back to where the game waited for an order.")] = None,
    playouts: PlayoutsOpt = 200,
    seed: SeedOpt = 1,
    mode: ModeOpt = "bots",
    red: RedOpt = None,
    blue: BlueOpt = None,
    scheduler: SchedulerOpt = "auto",
    workers: WorkersOpt = None,
    as_json: JsonOpt = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Play a game on from a step many times with fresh dice.

    What if? From a step of a game, play the rest out many times with fresh dice: who wins
    how often, and how much each side loses, with 95% intervals."""
    from warlog.engine.whatif import WhatIfError
    from warlog.app.whatif_job import policies_for, run_whatif

    events = _load(ref, db)
    try:
        _warn_if_slow(policies_for(events, red, blue), red, blue)
        result = run_whatif(events, events[-1]["seq"] if at is None else at, playouts=playouts,
                            seed=seed, mode=mode, red=red, blue=blue, scheduler=scheduler,
                            workers=workers, runner=_runner("what-if"))
    except WhatIfError as exc:
        _fail(str(exc))
    if as_json:
        out.print_json(json.dumps(result.as_dict()))
        return
    e = result.estimate
    moved = "" if result.asked == result.seq else f" (asked {result.asked}: the order before it)"
    out.print(f"What if, from {escape(result.game)} step {result.seq}{moved}, turn {result.turn}: "
              f"{e.n:,} playouts, {result.mode}, red {escape(result.policies['red'])} v blue "
              f"{escape(result.policies['blue'])}, seed {result.seed}", markup=True,
              soft_wrap=not fitted(out))  # the heading wraps at a width given, never an id
    from rich.table import Table

    table = Table("", "probability", "95% interval", title=None)
    for label, s in (("red wins", e.red), ("blue wins", e.blue), ("draw", e.draw)):
        table.add_row(label, f"{s.p:.3f}", f"{s.low:.3f} - {s.high:.3f}")
    out.print(table)
    lost = Table("side", "strength lost from here (mean)", "95% interval", "exhausted")
    for side in ("red", "blue"):
        m, x = e.lost[side], e.exhausted[side]
        lost.add_row(side, f"{m.mean:.2f}", f"{m.low:.2f} - {m.high:.2f}",
                     f"{x.p:.2f}" if x.p else "-")
    out.print(lost)
    out.print(f"mean end turn {e.mean_end_turn:.1f}")


def winprob(
    ref: RefArg,
    playouts: PlayoutsOpt = 100,
    seed: SeedOpt = 1,
    mode: ModeOpt = "bots",
    red: RedOpt = None,
    blue: BlueOpt = None,
    scheduler: SchedulerOpt = "auto",
    workers: WorkersOpt = None,
    recompute: Annotated[bool, typer.Option("--recompute", help="Compute again even if a curve "
                                            "with these settings is stored.")] = False,
    as_json: JsonOpt = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Chart a game's chances of winning turn by turn.

    P(red wins) at the start of each turn, like a chess evaluation graph, with its turning
    points; stored beside a game in the database
    (the dashboard draws it), recomputed once the game grows."""
    from warlog.engine.whatif import WhatIfError
    from warlog.events.analysis_store import AnalysisStore
    from warlog.app.whatif_job import check_args, curve_params, policies_for, run_curve

    events = _load(ref, db)
    stored_game = not Path(ref).exists()
    game, last = events[0]["game"], events[-1]["seq"]
    try:
        check_args(playouts, mode)
        policies = policies_for(events, red, blue)
        params = curve_params(playouts, seed, mode, policies)
    except WhatIfError as exc:
        _fail(str(exc))
    curve = None
    if stored_game and not recompute:
        with friendly(), AnalysisStore(db) as store:
            curve = store.load_curve(game, params, last)
    reused = curve is not None
    if curve is None:
        _warn_if_slow(policies, red, blue)
        curve = run_curve(events, playouts=playouts, seed=seed, mode=mode, red=red, blue=blue,
                          scheduler=scheduler, workers=workers, runner=_runner("win probability"))
        if stored_game:
            with friendly(), AnalysisStore(db) as store:
                store.save_curve(game, curve["params"], last, curve)
    if as_json:
        out.print_json(json.dumps({**curve, "stored": stored_game, "reused": reused}))
        return
    _print_curve(curve, stored_game, reused, db)


def _print_curve(curve: dict[str, Any], stored: bool, reused: bool, db: Path) -> None:
    p = curve["params"]
    out.print(f"Win probability of {escape(curve['game'])}: {p['playouts']:,} playouts per turn, "
              f"{p['mode']}, red {escape(p['red'])} v blue {escape(p['blue'])}, seed {p['seed']}",
              markup=True, soft_wrap=not fitted(out))
    from rich.table import Table

    turning = {t["to_turn"]: t for t in curve["turning_points"]}
    table = Table("turn", "P(red wins)", "P(blue wins)", "P(draw)", "")
    for pt in curve["points"]:
        mark = turning.get(pt["turn"])
        table.add_row("end" if pt["final"] else str(pt["turn"]), _share(pt["red"]),
                      _share(pt["blue"]), _share(pt["draw"]),
                      f"turning point: {mark['why']}" if mark else "")
    out.print(table)
    for t in curve["turning_points"]:
        out.print(f"turn {t['turn']}: P(red wins) {t['from']:.2f} -> {t['to']:.2f} ({t['why']})")
    if stored:
        out.print(f"[dim]{'already stored' if reused else 'stored'} in {escape(str(db))}[/dim]")
    else:
        out.print("[dim]a replay file: the curve is not stored (import the game to keep it)[/dim]")


def main() -> None:
    """Both commands as a program of their own (`python -m warlog.whatif_cmd whatif ...`)."""

    app = typer.Typer(cls=OneLineErrors, add_completion=False, pretty_exceptions_enable=False)
    app.command()(whatif)
    app.command()(winprob)
    app()


if __name__ == "__main__":
    main()
