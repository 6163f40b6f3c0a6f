"""`warlog simulate` (one game, or a balance study of many) and `warlog analyze` (the same
figures over replay files, study files and the database). Registered in warlog/cli.py.

One game behaves as simulate always has. Many games run on Dask through warlog.app.jobs (in process
for a small study, a local cluster for a large one, or an existing cluster), each game carrying
its own seed, rows back in task order: the same seed gives the same numbers on any number of
workers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape

from warlog.cli_common import (DEFAULT_DB, MAX_GAMES, MAX_SEED, SEED_RANGE, WORKERS_RANGE,
                                database, err, fail, friendly, open_store, out, slow_bar,
                                slow_reason)
from warlog.terminal import fitted

STORE_BATCH = 500
"""Games played between two writes to the database when a study stores its games: the games
waiting are held as JSON (about 100 KB a game), so a long study never holds more than this."""
ANALYZE_PROGRESS_MIN = 20  # inputs to read before analyze shows a progress bar
SIMULATE_BY = ("scenario", "policies", "first")


def _record(store, events: list[dict]) -> None:
    """Append a whole game, accepting an identical copy already stored (simulate is repeatable)."""
    from warlog.events.store import StoreError

    game = events[0]["game"]
    if store.has_game(game):
        if store.read(game) == events:
            return
        raise StoreError(f"game {game!r} is already in the database with different events")
    store.append(game, events, 0)


@contextmanager
def _friendly() -> Iterator[None]:
    """cli_common.friendly, and a study's own mistakes (a bad --by key, a malformed study file) as one
    line and exit code 1 too."""
    from warlog.app.study import StudyError

    with friendly():
        try:
            yield
        except StudyError as exc:
            fail(str(exc))
            raise typer.Exit(1) from None


def _check_policies(*names: str) -> None:
    from warlog.engine.bots import POLICIES, get_policy

    for name in names:
        if name not in POLICIES:
            try:
                get_policy(name)
            except ValueError as exc:
                raise typer.BadParameter(str(exc)) from None


# -- simulate ----------------------------------------------------------------------------------


def simulate(
    scenario: Annotated[str, typer.Argument(help="A bundled scenario id or a .toml file.")],
    games: Annotated[int, typer.Option("--games", "-n", help="Games to play: seeds SEED to "
                                       "SEED+N-1 (each once per first mover and seating).",
                                       min=1, max=MAX_GAMES)] = 1,
    seed: Annotated[int, typer.Option(help="Seed for the dice and the bots (the first "
                                      "game's).", **SEED_RANGE)] = 1,
    red: Annotated[str, typer.Option(help="Policy playing red.")] = "aggressive",
    blue: Annotated[str, typer.Option(help="Policy playing blue.")] = "cautious",
    first: Annotated[Optional[str], typer.Option(
        help="Who moves first: red, blue, or both (every game once each way). Default: the "
             "scenario's.")] = None,
    swap: Annotated[bool, typer.Option("--swap", help="Also play every game with the two "
                                       "policies' seats swapped.")] = False,
    scheduler: Annotated[str, typer.Option(help="auto, inprocess, local, or tcp://HOST:PORT "
                                           "of a running Dask scheduler.")] = "auto",
    workers: Annotated[Optional[int], typer.Option(help="Worker processes of a local cluster "
                                                   "(default: every core).",
                                                   **WORKERS_RANGE)] = None,
    out_file: Annotated[Optional[Path], typer.Option(
        "--out", help="One game: write its replay file. Many: write the study's rows (CSV if "
                      "the name ends in .csv, else JSON lines).")] = None,
    db: Annotated[Optional[Path], typer.Option(
        "--db", envvar="WARLOG_DB", help="Database for the games (or set WARLOG_DB).")] = None,
    store: Annotated[bool, typer.Option("--store", help="Many games: record every one in the "
                                        "database (--db, WARLOG_DB or warlog.db).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Let two bots play a scenario, or N games for a balance study.

    One game is played to the end; with --games N, a balance study: win rates with
    95% intervals, game lengths, losses, and whether the scenario is lopsided. Same seed, same
    games and the same numbers, byte for byte, on any number of workers."""
    from warlog.engine.scenario import load_scenario
    from warlog.events.safe_files import check_output
    from warlog.app.study import GameTask

    if seed + games - 1 > MAX_SEED:
        raise typer.BadParameter(f"--seed {seed} with --games {games}: the last game's seed "
                                 f"would pass {MAX_SEED:,} (seeds are 64-bit); give a smaller "
                                 "--seed")
    if first not in (None, "red", "blue", "both"):
        raise typer.BadParameter(f"--first must be red, blue or both, not {first!r}")
    with _friendly():
        scn = load_scenario(scenario)
        if out_file is not None:  # before any game is played: a pipe or device is refused
            check_output(out_file)
    _check_policies(red, blue)
    firsts = [scn.first] if first is None else (["red", "blue"] if first == "both" else [first])
    pairs = [(red, blue)] + ([(blue, red)] if swap and red != blue else [])
    tasks = [GameTask(scn, s, r, b, f, keep_events=store)
             for s in range(seed, seed + games) for f in firsts for r, b in pairs]
    if len(tasks) == 1:
        _one_game(tasks[0], out_file, db, store, as_json)
    else:
        _study(tasks, scheduler, workers, out_file, db, as_json)


def _one_game(task, out_file: Path | None, db: Path | None, store: bool, as_json: bool) -> None:
    """simulate as it always was: play, write the replay, record it (in --db, or in warlog.db
    when no replay file is asked for, or with --store), print one line."""
    from warlog.engine.bots import play_out
    from warlog.events.replay_file import write_replay
    from warlog.app.study import game_id, summarize

    scn, moved = task.scenario, task.first != task.scenario.first
    if moved:
        scn = scn.model_copy(update={"first": task.first})
    gid = game_id(scn.id, task.red, task.blue, task.seed, task.first if moved else None)
    with _friendly(), _watching(gid, scn.victory.turn_limit, task.red, task.blue) as watch:
        game = play_out(gid, scn, seed=task.seed, red=task.red, blue=task.blue, watch=watch)
        if out_file is not None:
            write_replay(out_file, game.events)
        if db is not None or out_file is None or store:
            with open_store(db or DEFAULT_DB) as st:
                _record(st, game.events)
    if as_json:
        out.print_json(json.dumps(summarize(game.events)))
        return
    s = game.state
    result = f"{s.winner} wins" if s.winner else "draw"
    out.print(f"{game.state.game}: {result} ({s.end_reason}); {len(game.events)} events"
              + (f"; replay written to {out_file}" if out_file else ""), markup=False)


@contextmanager
def _watching(gid: str, turns: int, red: str, blue: str) -> Iterator[Any]:
    """A game a search bot plays takes minutes (it plays playouts at every move): a bar of the
    turns (``slow_bar``); any other game takes a second: nothing."""
    from warlog.engine.bots import SEARCH_POLICIES

    searched = [f"{side}: {name}" for side, name in (("red", red), ("blue", blue))
                if name in SEARCH_POLICIES]
    why = (f"playing {gid}: the search bot ({', '.join(searched)}) plays playouts at every move, "
           "which can take minutes") if searched else None
    with slow_bar(f"playing {gid}", "turns", why) as progress:
        yield lambda state: progress(min(state.turn, turns), turns)


def _study(tasks: list, scheduler: str, workers: int | None, out_file: Path | None,
           db: Path | None, as_json: bool) -> None:
    from warlog.app.study_io import write_rows

    scn, store = tasks[0].scenario, tasks[0].keep_events
    with _friendly():
        if store:
            with database(db or DEFAULT_DB) as st:
                rows = _play(tasks, scheduler, workers, scn.id, st)
        else:
            rows = _play(tasks, scheduler, workers, scn.id, None)
        if out_file is not None:
            write_rows(out_file, rows)
    seeds = sorted({t.seed for t in tasks})
    title = (f"{scn.id}: {len(rows):,} games, seeds {seeds[0]}-{seeds[-1]}"
             + (f"; rows written to {out_file}" if out_file else "")
             + (f"; games recorded in {db or DEFAULT_DB}" if store else ""))
    _report(rows, SIMULATE_BY, title, as_json, extra={"seeds": [seeds[0], seeds[-1]]})


def _play(tasks: list, scheduler: str, workers: int | None, label: str, store) -> list[dict]:
    """Run the games on Dask with one progress bar; with a store, in batches of STORE_BATCH,
    each recorded before the next is played. Ctrl-C: one line, exit 130 (games already recorded
    stay recorded, and the line says how many)."""
    import orjson

    from warlog.app.jobs import JobError, JobInterrupted, resolve_scheduler, run_tasks
    from warlog.progress import INTERRUPTED_EXIT, progress_bar
    from warlog.app.study import play_task

    total = len(tasks)
    size = STORE_BATCH if store is not None else total
    rows: list[dict] = []
    try:
        where = resolve_scheduler(scheduler, total)  # one choice for every batch
        with progress_bar(label, noun="games", console=err) as progress:
            for start in range(0, total, size):
                done = len(rows)
                results = run_tasks(play_task, tasks[start:start + size], scheduler=where,
                                    workers=workers,
                                    progress=lambda k, _n, done=done: progress(done + k, total))
                if store is None:
                    rows.extend(results)
                    continue
                for row, events in results:
                    _record(store, orjson.loads(events))
                    rows.append(row)
    except (JobInterrupted, KeyboardInterrupt) as exc:  # the latter: while recording a batch
        done = len(rows) + (exc.done if isinstance(exc, JobInterrupted) else 0)
        kept = f"; {len(rows):,} games recorded in {store.path}" if store is not None else ""
        err.print(escape(f"stopped after {done:,} of {total:,} games{kept}"))
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except JobError as exc:
        fail(str(exc))
        raise typer.Exit(1) from None
    return rows


# -- analyze -----------------------------------------------------------------------------------


def analyze(
    ctx: typer.Context,
    files: Annotated[Optional[list[Path]], typer.Argument(
        help="Replay files and study files (rows written by simulate --games N --out).",
        show_default=False)] = None,
    db: Annotated[Optional[Path], typer.Option(
        "--db", envvar="WARLOG_DB", help="Also every game in this database. With no FILES, "
        "the database is read by default (WARLOG_DB or warlog.db).")] = None,
    by: Annotated[str, typer.Option(help="Group by any of scenario, policies, system, first "
                                    "(comma separated).")] = "scenario,policies,system,first",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Work out balance figures over recorded games.

    Win rates with 95% intervals, game lengths,
    attrition and exhaustion per group, and which groups are lopsided. Games not finished are
    counted apart, never as draws."""
    from warlog.app.study import parse_by

    with _friendly():
        keys = parse_by(by)
        if not keys:
            raise typer.BadParameter("--by needs one or more of scenario, policies, system, "
                                     "first")
        # by name: recent typers carry their own copy of click, and its own ParameterSource
        from_cli = getattr(ctx.get_parameter_source("db"), "name", None) == "COMMANDLINE"
        path = db or DEFAULT_DB
        use_db = from_cli or not files
        if use_db and not path.is_file():
            from warlog.events.store import StoreError

            raise StoreError(f"{path}: no such database" + ("" if files else
                             " (name replay or study files, or a database with --db)"))
        rows, duplicates = _gather(files or [], path if use_db else None)
    sources = [f"{len(files)} file{'s' * (len(files) != 1)}"] if files else []
    if use_db:
        sources.append(str(path))
    title = f"{len(rows):,} games from {', '.join(sources)}" + (
        f"; {duplicates:,} duplicate game ids counted once" if duplicates else "")
    _report(rows, keys, title, as_json, extra={"duplicates": duplicates})


def _inputs(files: list[Path], db: Path | None) -> Iterator[tuple[str, Any]]:
    """(kind, source) for every game source: each file, then each game of the database."""
    from warlog.app.study_io import kind_of

    for f in files:
        yield kind_of(f), f
    if db is not None:

        with database(db) as store:
            ids = [g.id for g in store.games() if g.events]
        for gid in ids:
            yield "stored", gid


def _gather(files: list[Path], db: Path | None) -> tuple[list[dict], int]:
    """Every game's row (a game id met twice is counted once), read in the order given."""
    from warlog.engine.verify import require_rederived
    from warlog.events.replay_file import load_replay
    from warlog.progress import INTERRUPTED_EXIT, progress_bar
    from warlog.app.study import summarize
    from warlog.app.study_io import read_rows

    inputs = list(_inputs(files, db))
    rows: dict[str, dict] = {}
    duplicates = 0
    done = 0
    try:
        with progress_bar("analyze", noun="inputs", console=err,
                          enabled=len(inputs) >= ANALYZE_PROGRESS_MIN) as progress, \
                (database(db) if db is not None else nullcontext()) as store:
            progress(0, len(inputs))
            for kind, source in inputs:
                if kind == "replay":  # trust by default: a file's game must re-derive
                    events = load_replay(source)
                    why = slow_reason(events, source)
                    if why:  # above the bar of the inputs, if one is shown
                        err.print(why, markup=False)
                    require_rederived(events, str(source))
                    found = [summarize(events)]
                elif kind == "stored":
                    found = [summarize(store.read(source))]
                else:
                    found = read_rows(source)
                for row in found:
                    duplicates += row["game"] in rows
                    rows.setdefault(row["game"], row)
                done += 1
                progress(done, len(inputs))
    except KeyboardInterrupt:
        err.print(escape(f"stopped after {done:,} of {len(inputs):,} inputs"))
        raise typer.Exit(INTERRUPTED_EXIT) from None
    return list(rows.values()), duplicates


def _say(text: str) -> None:
    """One sentence of the report, as text: wrapped at the width where the output is fitted
    (``terminal.fitted``), whole on one line for a script reading a pipe."""
    out.print(text, markup=False, soft_wrap=not fitted(out))


def _print_whole(console, table) -> None:
    """A terminal (or a width given by COLUMNS) gets the table fitted to its width; a file or a
    pipe gets it whole, one row a line, however wide (a script reads it, nothing wraps)."""
    from rich.measure import Measurement

    if fitted(console):
        console.print(table)
        return
    from warlog.terminal import SafeConsole

    wide = Measurement.get(console, console.options.update_width(10_000), table).maximum
    SafeConsole(file=console.file, width=max(wide, console.width), highlight=False).print(table)


def _too_wide(console, table) -> bool:
    """Whether ``table``, each row on one line, is wider than ``console``."""
    from rich.measure import Measurement

    wide = console.options.update_width(10_000)
    return Measurement.get(console, wide, table).maximum > console.width


def _groups_table(varying: list[str], figures: list[str], rows: list[tuple[str, list[str]]], *,
                  stacked: bool):
    """The study's table: a group's keys, one a line, then its figures. ``stacked`` (for a
    terminal too narrow for a row on one line) puts each word of a figure on a line of its own:
    the figures' columns never shrink (no_wrap), so a number is never cut, and the keys take
    what is left, shortened in the middle."""
    from rich.table import Column

    from warlog.terminal import Middle, narrow_table

    def cell(text: str) -> str:
        return text.replace(" ", "\n") if stacked else text

    table = narrow_table(*(["\n".join(varying)] if varying else []),
                         *(Column(cell(f), no_wrap=True) for f in figures))
    for keys, cells in rows:
        # the keys take at most a quarter of the width: past that, the figures are stacked
        table.add_row(*([Middle(keys, share=4)] if varying else []), *(cell(c) for c in cells))
    return table


# -- the report --------------------------------------------------------------------------------


def _rate(r: dict[str, Any]) -> str:
    if not r["n"]:
        return "-"
    return f"{100 * r['rate']:.0f}% ({100 * r['low']:.0f}-{100 * r['high']:.0f})"


def _turns(t: dict[str, Any] | None) -> str:
    if t is None:
        return "-"
    return f"{t['mean']:.1f} ({t['median']:g}; {t['min']}-{t['max']})"


def _report(rows: list[dict], by: tuple[str, ...], title: str, as_json: bool,
            extra: dict[str, Any]) -> None:
    """The study: JSON, or a table of the groups and the lopsided report. A key every group
    shares goes in the heading rather than in a column of the same word."""
    from warlog.app.study import LOPSIDED_RULE, aggregate, describe, lopsided

    groups = aggregate(rows, by)
    flagged = lopsided(groups)
    unfinished = sum(not r["finished"] for r in rows)
    if as_json:
        out.print_json(json.dumps({"games": len(rows), "unfinished": unfinished, "by": list(by),
                                   **extra, "rule": LOPSIDED_RULE, "groups": groups,
                                   "lopsided": flagged}))
        return
    shared = [k for k in by if len({g["key"][k] for g in groups}) == 1]
    varying = [k for k in by if k not in shared]
    _say(title)
    if groups and shared:
        _say(describe({k: groups[0]["key"][k] for k in shared}))
    exhaustion = any(g["curves"] and g["curves"]["exhausted"]["red"] is not None for g in groups)
    figures = ["games", "red wins", "blue wins", "draws", "turns", "lost r/b",
               *(["exhausted r/b"] if exhaustion else [])]
    rows = []
    for g in groups:
        lost = "-" if not g["n"] else f"{g['lost']['red']:.1f}/{g['lost']['blue']:.1f}"
        ex = []
        if exhaustion:
            shares = g["curves"]["exhausted"] if g["curves"] else {"red": None}
            ex = ["-" if shares["red"] is None else
                  f"{100 * shares['red'][-1]:.0f}%/{100 * shares['blue'][-1]:.0f}%"]
        games = str(g["n"]) + (f" +{g['unfinished']} unfinished" if g["unfinished"] else "")
        rows.append(("\n".join(str(g["key"][k]) for k in varying),
                     [games, _rate(g["red"]), _rate(g["blue"]), _rate(g["draw"]),
                      _turns(g["turns"]), lost, *ex]))
    table = _groups_table(varying, figures, rows, stacked=False)
    if fitted(out) and _too_wide(out, table):
        table = _groups_table(varying, figures, rows, stacked=True)
    _print_whole(out, table)
    _say("wins: % (95% interval); turns: mean (median; range); lost: mean strength lost "
         "by the end" + ("; exhausted: share of games by the end" if exhaustion else ""))
    if unfinished:
        _say(f"{unfinished:,} game{'s' * (unfinished != 1)} not finished: counted apart, "
             "left out of every figure.")
    rule = f"(a group is {LOPSIDED_RULE})"
    if not flagged:
        _say(f"Lopsided: none {rule}")
    for i, f in enumerate(flagged):
        if i == 0:
            _say(f"Lopsided {rule}:")
        _say(f"  {describe(f['key'])}: {f['why']}")
