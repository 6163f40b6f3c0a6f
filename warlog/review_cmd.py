"""`warlog review`: a battle's review on the command line: was it the dice or the decisions, each
side's accuracy, every decision graded, and the moments that mattered.

Registered in warlog/cli.py. The search runs through warlog.jobs (in process for a short game,
else a local cluster, or a Dask scheduler by address), with a progress bar on stderr; Ctrl-C
prints one line and exits with 130. Text from the game (unit ids, names) is printed as text,
never as console markup.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from warlog.cli_common import DEFAULT_DB, SEED_RANGE, DbOption, OneLineErrors, friendly, out
from warlog.events.safe_files import check_output
from warlog.whatif_cmd import JsonOpt, RefArg, SchedulerOpt, WorkersOpt, _fail, _load

BudgetOpt = Annotated[Optional[int], typer.Option(
    "--budget", help="Candidate orders weighed at each decision (default 6): more finds better "
                     "orders, slower.", min=1, max=64)]
MarkdownOpt = Annotated[Optional[Path], typer.Option(
    "--markdown", help="Also write the review as Markdown to this file (for a club forum).")]
SeedOpt = Annotated[int, typer.Option(help="Seed of the sampled dice (orders with too many to "
                                           "walk): same seed, same review.", **SEED_RANGE)]
GRADE_MARK = {"best": "", "good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def _mover(value: float, side: str) -> float:
    return value if side == "red" else 1 - value


def review(
    ref: RefArg,
    budget: BudgetOpt = None,
    seed: SeedOpt = 0,
    scheduler: SchedulerOpt = "auto",
    workers: WorkersOpt = None,
    markdown: MarkdownOpt = None,
    as_json: JsonOpt = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Review a battle: who won from where, how much the orders and how much the dice moved it,
    each side's accuracy, every order graded against the best one found (best, good,
    inaccuracy, mistake, blunder), and the moments that mattered."""
    from warlog.engine.review import Budget
    from warlog.progress import run_job
    from warlog.review_job import run_review

    if markdown is not None:
        with friendly():
            check_output(markdown)  # a folder, a pipe or a device is refused before the work
    events = _load(ref, db)
    try:
        chosen = Budget.of(budget)
    except ValueError as exc:
        _fail(str(exc))
    result = run_review(events[0]["game"], events, budget=chosen, seed=seed, scheduler=scheduler,
                        workers=workers, runner=partial(run_job, label="review",
                                                        noun="decisions"))
    data = result.as_dict()
    if markdown is not None:
        from warlog.review_markdown import write_markdown

        with friendly():
            write_markdown(markdown, data)
    if as_json:
        out.print_json(json.dumps(data))
        return
    print_review(data)
    if markdown is not None:
        out.print(f"[dim]written: {escape(str(markdown))}[/dim]")


def print_review(data: dict[str, Any]) -> None:
    """The review in 80 columns: headline, accuracies, grades, the graded orders, moments."""
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
        before, expected = _mover(o["before"], o["side"]), _mover(o["expected"], o["side"])
        text = escape(o["text"]) + (f"\n  better: {escape(o['best_text'])} "
                                    f"({_pct(_mover(o['best'], o['side']))})"
                                    if o["best_text"] and o["grade"] not in ("best", "good")
                                    else "")
        table.add_row(str(o["index"] + 1), str(o["turn"]), o["side"], text,
                      f"{_pct(before)}>{_pct(expected)}",
                      o["grade"] + GRADE_MARK[o["grade"]])
    out.print(table)
    if data["moments"]:
        out.print("The moments that mattered:")
        for m in data["moments"]:
            o = orders[m["index"]]
            cause = "the dice" if abs(m["dice"]) > abs(m["decision"]) else "the order"
            out.print(f"  turn {o['turn']}, {o['side']}: {escape(o['text'])}: red "
                      f"{_pct(m['before'])} -> {_pct(m['after'])} ({cause})", soft_wrap=False)


def main() -> None:
    """The command as a program of its own (`python -m warlog.review_cmd ...`)."""
    app = typer.Typer(cls=OneLineErrors, add_completion=False, pretty_exceptions_enable=False)
    app.command()(review)
    app()


if __name__ == "__main__":
    main()
