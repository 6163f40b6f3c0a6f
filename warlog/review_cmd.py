"""`warlog review`: a battle's review on the command line: was it the dice or the decisions, each
side's accuracy, every decision graded, and the moments that mattered.

Registered in warlog/cli.py. The search runs through warlog.app.jobs (in process for a short game,
else a local cluster, or a Dask scheduler by address), with a progress bar on stderr; Ctrl-C
prints one line and exits with 130. Text from the game (unit ids, names) is printed as text,
never as console markup.

A stored game's review is stored beside it (events/analysis_store.py), keyed by the budget, the
seed, the evaluator and the game's last seq, so asking again is instant. Why only an exact
match is reused, and a near miss is said in one line: a review by another evaluator, or with
another budget or seed, grades otherwise, and showing it silently would pass off old numbers
as an answer to this question. It is stored once the whole review is computed, in one
transaction: Ctrl-C or an error mid-review leaves nothing behind. A replay file's review is
not stored: the file has no database to keep it beside.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from warlog.cli_common import (DEFAULT_DB, SEED_RANGE, DbOption, OneLineErrors, err, friendly,
                                out)
from warlog.engine.review_score import mover, percent
from warlog.events.safe_files import check_output
from warlog.whatif_cmd import JsonOpt, RefArg, SchedulerOpt, WorkersOpt, _fail, _load

BudgetOpt = Annotated[Optional[int], typer.Option(
    "--budget", help="Candidate orders weighed at each decision (default 6): more finds better "
                     "orders, slower.", min=1, max=64)]
MarkdownOpt = Annotated[Optional[Path], typer.Option(
    "--markdown", help="Also write the review as Markdown to this file (for a club forum).")]
SeedOpt = Annotated[int, typer.Option(help="Seed of the sampled dice (orders with too many to "
                                           "walk): same seed, same review.", **SEED_RANGE)]
RecomputeOpt = Annotated[bool, typer.Option(
    "--recompute", help="Review again even if a review with these settings is stored.")]
FEW_PICTURES = 3  # more moments than this to draw: a progress bar
GRADE_MARK = {"best": "", "good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def review(
    ref: RefArg,
    budget: BudgetOpt = None,
    seed: SeedOpt = 0,
    scheduler: SchedulerOpt = "auto",
    workers: WorkersOpt = None,
    markdown: MarkdownOpt = None,
    recompute: RecomputeOpt = False,
    as_json: JsonOpt = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Review a battle: every order graded, the dice weighed.

    Who won from where, how much the orders and how much the dice moved it, each side's
    accuracy, every order graded against the best one found (best, good,
    inaccuracy, mistake, blunder), and the moments that mattered. A stored game's review is
    stored beside it and reused while the game, the settings and the evaluator are the same."""
    from warlog.engine.evaluator import load_weights
    from warlog.engine.review import Budget
    from warlog.progress import run_job
    from warlog.app.review_job import run_review
    from warlog.app.reviews import review_params

    if markdown is not None:
        from warlog.review_markdown import check_pictures_folder

        with friendly():
            check_output(markdown)  # a folder, a pipe or a device is refused before the work
            check_pictures_folder(markdown)  # and its pictures' folder name taken by a file
    events = _load(ref, db)
    try:
        chosen = Budget.of(budget)
    except ValueError as exc:
        _fail(str(exc))
    from_file = Path(ref).exists()
    game, last = events[0]["game"], events[-1]["seq"]
    params = review_params(chosen, seed, load_weights()["version"])
    data = None if from_file or recompute else _stored_review(db, game, params, last)
    reused = kept = data is not None
    if data is None:
        result = run_review(game, events, budget=chosen, seed=seed, scheduler=scheduler,
                            workers=workers, runner=partial(run_job, label="review",
                                                            noun="decisions"))
        data = result.as_dict()
        if not from_file:
            kept = _store(db, game, params, last, data)
    if markdown is not None:
        _write_markdown(markdown, data, events)
    if as_json:
        out.print_json(json.dumps(data))
        return
    print_review(data, events)
    if markdown is not None:
        out.print(f"[dim]written: {escape(str(markdown))}[/dim]")
    if from_file:
        out.print("[dim]a replay file: the review is not stored (import the game to keep "
                  "it)[/dim]")
    elif kept:  # (else the database refused it, and _store said why)
        out.print(f"[dim]{'already stored' if reused else 'stored'} in {escape(str(db))}"
                  f"{' (--recompute to review it again)' if reused else ''}[/dim]")


def _write_markdown(path: Path, data: dict[str, Any], events: list[dict]) -> None:
    """The Markdown and its moments' pictures, with a bar on stderr when there are more than a
    few (kaleido takes seconds); Ctrl-C while they are drawn writes nothing: one line, exit 130."""
    from warlog.progress import INTERRUPTED_EXIT, progress_bar
    from warlog.review_markdown import write_markdown

    try:
        with friendly(), progress_bar("pictures", noun="pictures",
                                      enabled=len(data["moments"]) > FEW_PICTURES) as progress:
            left_out = write_markdown(path, data, events, progress=progress)
        if left_out:
            err.print(left_out, markup=False)
    except KeyboardInterrupt:
        err.print("stopped while drawing the pictures: the Markdown was not written",
                  markup=False)
        raise typer.Exit(INTERRUPTED_EXIT) from None


def _stored_review(db: Path, game: str, params: dict[str, Any], last: int) -> dict | None:
    """The review stored for exactly this request, or None; when one stored for this game does
    not fit, one line on stderr says why it is reviewed again."""
    from warlog.app.reviews import exact_review

    with friendly():
        data, why = exact_review(db, game, params, last)
    if why:
        err.print(why, markup=False)
    return data


def _store(db: Path, game: str, params: dict[str, Any], last: int, data: dict) -> bool:
    """Store the finished review (one transaction); a database that refuses it (read-only,
    altered outside warlog) costs the review nothing: one line on stderr, and it is printed."""
    from warlog.app.reviews import store_review
    from warlog.events.store import StoreError

    try:
        store_review(db, game, params, last, data)
    except StoreError as exc:
        err.print(f"note: the review is not stored: {' '.join(str(exc).splitlines())}",
                  markup=False)
        return False
    return True


def print_review(data: dict[str, Any], events: list[dict]) -> None:
    """The review in 80 columns: headline, accuracies, grades, the graded orders, then the
    battle's chapters with their moments."""
    orders = data["orders"]
    out.print(f"Review of {escape(data['game'])}", soft_wrap=False)
    out.print(f"{len(orders)} decisions, evaluator {data['evaluator']}"
              + ("" if data["ended"] else " (the game goes on)"))
    if not orders:
        out.print("no decision was made in this game yet: nothing to review")
        return
    for side in ("red", "blue"):
        out.print(escape(data["headline"][side]), soft_wrap=False)
    counts = {side: {} for side in ("red", "blue")}
    for o in orders:
        counts[o["side"]][o["grade"]] = counts[o["side"]].get(o["grade"], 0) + 1
    for side in ("red", "blue"):
        acc = data["accuracy"].get(side)
        tally = ", ".join(f"{counts[side].get(g, 0)} {g}" for g in
                          ("best", "good", "inaccuracy", "mistake", "blunder"))
        out.print(f"{side}: accuracy {'-' if acc is None else f'{acc:.1f}'}; {tally}")
    table = Table("#", "turn", "side", "order", "win %", "grade", box=None, pad_edge=False)
    for o in orders:
        before, expected = mover(o["before"], o["side"]), mover(o["expected"], o["side"])
        text = escape(o["text"]) + (f"\n  better: {escape(o['best_text'])} "
                                    f"({percent(mover(o['best'], o['side']))})"
                                    if o["best_text"] and o["grade"] not in ("best", "good")
                                    else "")
        table.add_row(str(o["index"] + 1), str(o["turn"]), o["side"], text,
                      f"{percent(before)}>{percent(expected)}",
                      o["grade"] + GRADE_MARK[o["grade"]])
    out.print(table)
    print_story(data, events)


def print_story(data: dict[str, Any], events: list[dict]) -> None:
    """The after-action report's plans (when a side wrote one) and the battle in chapters, each
    with the moments that mattered in it (engine/review_aar: the same words as the Markdown, the
    HTML report and the Review page), indented so a chapter's moments read under it."""
    from warlog.engine.review_aar import after_action, sections

    report = after_action(data, events)
    planned, happened = sections(report, data)[:2]
    if any(report.plans.values()):
        out.print(f"{planned.heading}:")
        for item in planned.items:
            out.print(f"  {escape(item.text)}", soft_wrap=False)
    out.print("The battle in chapters, and the moments that mattered:")
    for item in happened.items:
        out.print(f"  {escape(item.text)}", soft_wrap=False)
        for moment in item.under:
            out.print(f"    {escape(moment.text)}", soft_wrap=False)


def main() -> None:
    """The command as a program of its own (`python -m warlog.review_cmd ...`)."""
    app = typer.Typer(cls=OneLineErrors, add_completion=False, pretty_exceptions_enable=False)
    app.command()(review)
    app()


if __name__ == "__main__":
    main()
