"""The progress bar and the Ctrl-C line that long commands (what-if, win probability, balance
studies) share, around `warlog.app.jobs.run_tasks`.

On a terminal it is a rich bar on stderr; elsewhere (a pipe, a log file, a test) it is one plain
line per step on stderr, so whoever reads the output sees the job move without control codes,
and stdout stays clean for --json.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape

from warlog.app.jobs import JobError, JobInterrupted, run_tasks
from warlog.terminal import SafeConsole, terminal_safe

INTERRUPTED_EXIT = 130  # what a shell reports for a command stopped by Ctrl-C (128 + SIGINT)


@contextmanager
def progress_bar(label: str, *, noun: str = "tasks", console: Console | None = None,
                 enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback that draws ``label``'s progress while the block runs."""
    console = console or SafeConsole(stderr=True, highlight=False, soft_wrap=True)
    if not enabled:
        yield lambda done, total: None
        return
    if not console.is_terminal:
        last = [-1]

        def plain(done: int, total: int) -> None:
            if done != last[0]:
                last[0] = done
                console.print(f"{escape(label)}: {done:,} of {total:,} {noun}", markup=True)

        yield plain
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn(noun), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as bar:
        # the bar reads its description as markup itself, past the console's render_str
        task = bar.add_task(terminal_safe(escape(label)), total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def run_job(fn: Callable[[Any], Any], tasks: Sequence, *, label: str, noun: str = "tasks",
            scheduler: str = "auto", workers: int | None = None, show: bool = True,
            console: Console | None = None) -> list:
    """`run_tasks` for a command: a progress bar, then on Ctrl-C one line ('stopped after 312
    of 1,000 playouts') and exit code 130, on a bad scheduler or worker count one error line and
    exit code 1. Needs typer (a command's helper)."""
    import typer

    console = console or SafeConsole(stderr=True, highlight=False, soft_wrap=True)
    try:
        with progress_bar(label, noun=noun, console=console, enabled=show) as progress:
            return run_tasks(fn, tasks, scheduler=scheduler, workers=workers, progress=progress)
    except JobInterrupted as exc:
        console.print(escape(exc.message(noun)))
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except JobError as exc:
        console.print(f"[red]error:[/red] {escape(' '.join(str(exc).splitlines()))}")
        raise typer.Exit(1) from None
