"""`warlog verify`, `export` and `import`: a game's trust and its replay file. verify checks a
game's hash chain and re-derives every consequence from its inputs; export writes a stored game
as a replay file; import adds a replay file's game to the database only if it re-derives.

Registered in warlog/cli.py, each where it stands in `warlog --help`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from warlog.cli_common import (DEFAULT_DB, DbOption, database, err, friendly, open_store, out,
                                rederiving)


def verify(
    ref: Annotated[str, typer.Argument(help="A replay file or a game id in the database.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Check a game's hash chain and re-derive it from its inputs.

    The chain first, then every consequence re-derived from the game's orders and dice."""
    import sqlite3

    from warlog.engine.verify import verify as rederive
    from warlog.events.model import EventError
    from warlog.events.replay_file import ReplayError, load_replay
    from warlog.events.store import StoreError

    try:
        if Path(ref).exists() or ref.endswith((".jsonl", ".jsonl.gz")):
            events = load_replay(ref)  # chain, header, schema, numbering; upcast (a v1 file too)
        else:
            with open_store(db) as store:
                store.verify(ref)  # the chain over the stored rows, to the recorded head
                events = store.read(ref)
    except (ReplayError, StoreError, EventError, OSError, sqlite3.Error) as exc:
        err.print(f"FAIL {exc}", style="red", markup=False)
        raise typer.Exit(1) from None
    with rederiving(events, ref) as how:
        report = rederive(events, **how)
    if not report.ok:
        err.print(f"FAIL {ref}: {report.mismatch.message}", style="red", markup=False)
        raise typer.Exit(1)
    state = "finished" if report.finished else "not finished"
    out.print(f"OK {ref}: hash chain intact; {report.events} events, "
              f"{report.orders} orders re-derived; game {state}", style="green", markup=False)


def export_cmd(
    game: Annotated[str, typer.Argument(help="Game id in the database.")],
    out_file: Annotated[Path, typer.Option("--out", help="Replay file to write.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a stored game as a replay file.

    One file, gzip-compressed if --out ends in .gz."""
    from warlog.events.replay_file import export_game
    from warlog.events.safe_files import check_output

    with friendly():
        check_output(out_file)  # before the database is opened: a pipe or device is refused
    with friendly(), database(db, game) as store:
        export_game(store, game, out_file)
    out.print(f"{game} written to {out_file}", markup=False)


def import_cmd(
    file: Annotated[Path, typer.Argument(help="A replay file.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add a replay file's game to the database if it re-derives.

    The file (.jsonl or .jsonl.gz) is checked, and its game added only if it
    re-derives: every event must follow from the game's own orders and dice."""
    from warlog.engine.verify import require_rederived, what_was_checked
    from warlog.events.replay_file import load_replay, store_game

    with friendly():
        events = load_replay(file)  # every check on the file itself, line by line
        with rederiving(events, file) as how:  # trust by default: nothing stored otherwise
            report = require_rederived(events, file, **how)
        with database(db) as store:
            game = store_game(store, events, file)
    out.print(f"imported {game} into {db}", markup=False)
    out.print(f"  {what_was_checked(report)}", markup=False)
