"""`warlog games`, `scenarios`, `army`, `rules`, `dashboard`, `version` and `schema`: the
library, the rules and the program itself (a module of its own so that a command builds and
imports only what it runs: warlog/cli.py's COMMANDS names each command's function).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from warlog import __version__
from warlog.cli_common import (
    DEFAULT_DB,
    SEED_RANGE,
    DbOption,
    database,
    friendly,
    open_store,
    out,
)


def scenarios(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the bundled scenarios."""
    from rich.table import Column

    from warlog.engine.scenario import bundled_scenarios
    from warlog.terminal import Middle, narrow_table

    if as_json:
        out.print_json(json.dumps([s.model_dump(mode="json") for s in bundled_scenarios()]))
        return
    # the id (what `warlog new` takes) with the title under it, whole while the other columns
    # wrap to make room
    table = narrow_table(Column("id\ntitle", no_wrap=True), "rules", "grid", "units")
    for s in bundled_scenarios():
        counts = " v ".join(f"{s.armies[side].units} rolled" if side in s.armies
                            else str(sum(u.side == side for u in s.units))
                            for side in ("red", "blue"))
        table.add_row(Middle(f"{s.id}\n{s.title}"), f"{s.rule_system} {s.period}",
                      f"{s.grid.kind} {s.grid.width}x{s.grid.height}", counts)
    out.print(table)


def games(
    db: DbOption = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the games in the database."""
    from dataclasses import asdict

    from rich.table import Column

    from warlog.terminal import Middle, narrow_table

    with friendly(), database(db) as store:
        infos = store.games()
    if as_json:
        out.print_json(json.dumps([asdict(g) for g in infos]))
        return
    # The scenario under its game's id and each player on a line of their own, red first; an
    # id or a name too long for its column shortened in the middle: in 80 columns every cell
    # stays readable.
    table = narrow_table("game\nscenario", Column("date", no_wrap=True), "players",
                         Column("events", justify="right", no_wrap=True), "result")
    for g in infos:  # every cell is text from the database: plain text, never read as markup
        result = (g.winner or "draw") if g.ended else "in progress"
        players = g.players if isinstance(g.players, dict) else {}
        sides = sorted(players, key=lambda side: (side != "red", side))
        table.add_row(Middle(f"{g.id}\n{g.scenario_id or ''}"), escape(str(g.played or "")),
                      Middle("\n".join(str(players[side]) for side in sides),
                             labels=[f"{side}: " for side in sides]) if sides else "",
                      str(g.events), escape(str(result)))
    out.print(table)


def army(
    period: Annotated[str, typer.Option(help="A One Hour Wargames period, e.g. medieval.")],
    units: Annotated[int, typer.Option(help="3, 4 or 6 units.")],
    seed: Annotated[Optional[int], typer.Option(help="Roll with this seed (the same army every "
                                                     "time).", **SEED_RANGE)] = None,
    roll: Annotated[Optional[int], typer.Option(help="Take this row of the table (1-6) instead "
                                                     "of rolling: armies by agreement.")] = None,
    tanks: Annotated[bool, typer.Option(help="Machine Age: a class D unit is a Tank.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Roll an army on the One Hour Wargames army table.

    The table is rule ohw.army; --roll takes a row instead of rolling (armies by agreement)."""
    from warlog.engine.dice import SeededDice
    from warlog.engine.rulesets.ohw.army import army_types, classes_for
    from warlog.engine.rulesets.tables import load_table, periods

    if period not in periods("ohw"):
        raise typer.BadParameter(f"unknown period {period!r}; known: {', '.join(periods('ohw'))}")
    if tanks and period != "machine_age":
        raise typer.BadParameter("--tanks is the Machine Age optional rule")
    if roll is not None and seed is not None:
        raise typer.BadParameter("give --roll or --seed, not both")
    if roll is None:
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "big")
        roll = SeededDice(seed).roll(6)
    try:
        classes = classes_for(units, roll)
        types = army_types(period, units, roll, {"tanks": tanks})
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    name = load_table("ohw")["periods"][period]["name"]
    if as_json:
        out.print_json(json.dumps({"period": period, "units": units, "roll": roll, "seed": seed,
                                   "classes": classes, "types": types}))
        return
    how = f"rolled {roll}" + (f" (seed {seed})" if seed is not None else "") if seed is not None \
        else f"row {roll}"
    out.print(f"{name}, {units} units, {how}: " + ", ".join(
        f"{n} {c}" for c, n in classes.items() if n))
    counts: dict[str, int] = {}
    for t in types:
        counts[t] = counts.get(t, 0) + 1
    for t, n in counts.items():
        out.print(f"  {n} x {escape(t)}")


def rules(
    prefix: Annotated[str, typer.Argument(help="Only ids starting with this (e.g. ohw.ww2).")] = "",
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the whole reference as "
                                           "Markdown (docs/rules.md).")] = False,
) -> None:
    """List the rules the engine applies, with their text and source.

    The rule catalogue: every rule, its text, source, notes and whether it is an
    interpretation (and the option that switches it)."""
    from warlog.engine.rules import catalogue

    if markdown:
        from warlog.engine.rules_doc import markdown as reference

        print(reference(), end="")
        return
    chosen = [r for r in catalogue().values() if r.id.startswith(prefix)]
    if not chosen:
        raise typer.BadParameter(f"no rule id starts with {prefix!r}")
    from rich.table import Column

    from warlog.terminal import narrow_table

    # Each id (what `rules PREFIX` and the log cite) on a line of its own above its text, so
    # the text gets the width and an id up to half of it stays whole.
    table = narrow_table(Column("id\nrule", ratio=5), Column("source", ratio=2),
                         Column("interpretation (option)", ratio=2), expand=True)
    for r in chosen:
        interp = ("yes" if r.interpretation else "") + (f" (option {r.option})" if r.option else "")
        text = (f"[bold]{escape(r.id)}[/bold]\n{escape(r.text)}"
                + (f"\n[dim]Note: {escape(r.note)}[/dim]" if r.note else ""))
        table.add_row(text, escape(r.citation), escape(interp.strip()))
    out.print(table)


def dashboard(
    db: DbOption = DEFAULT_DB,
    port: Annotated[int, typer.Option(help="Port to serve on.", min=1, max=65535)] = 8501,
    address: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: the whole "
                                                 "network).")] = "localhost",
    open_browser: Annotated[bool, typer.Option("--open/--no-open",
                                               help="Open a browser tab when ready.")] = True,
) -> None:
    """Open the dashboard on the database.

    A database with no games is seeded with demo games on first run."""
    from importlib.resources import files

    from warlog.app.demo import ensure_demo_games
    from warlog.serve import serve

    with friendly(), open_store(db) as store:
        added = ensure_demo_games(store)
    if added:
        out.print(f"seeded {escape(str(db))} with {added} demo games")
    app_file = Path(str(files("warlog.dashboard").joinpath("app.py")))
    env = {**os.environ, "WARLOG_DB": str(Path(db).resolve())}
    # Headless, so Streamlit never stops to ask for an e-mail address on a fresh machine;
    # the browser tab is opened here instead, once the server answers.
    from warlog.server_options import STREAMLIT_OPTIONS

    cmd = [sys.executable, "-m", "streamlit", "run", str(app_file), "--server.port", str(port),
           "--server.address", address, *STREAMLIT_OPTIONS, "--client.toolbarMode", "minimal",
           "--runner.magicEnabled", "false"]  # the pages write nothing by a bare expression
    url = f"http://localhost:{port}"
    out.print(f"warlog dashboard on {url} (Ctrl+C to stop)")
    raise typer.Exit(serve(cmd, env, url if open_browser else None))


def version() -> None:
    """Print warlog's version."""
    out.print(__version__)


def schema_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the schemas to.")] = Path(
        "docs/schema"),
) -> None:
    """Write the JSON Schemas of the replay file format.

    The format is docs/replay-format.md: the header, every event kind, every order type, the
    scenario, the closing line, and index.json naming them."""
    from warlog import schema

    with friendly():
        written = schema.write(out_dir)
        stale = schema.stale_files(out_dir)
    for path in stale:
        out.print(f"[yellow]note:[/yellow] {escape(str(path))} is no longer generated; delete it")
    out.print(f"{len(schema.files())} schema files in {escape(str(out_dir))} "
              f"({len(written)} changed)")
