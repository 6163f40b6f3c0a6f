"""The `warlog` command: thin. It parses, calls the engine and the store, and prints.

Every error a user can cause (a bad scenario, a malformed replay, an illegal order, a game that
is not in the database) is a typed error whose message is printed as one line on stderr, with
exit code 1; never a traceback.
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
    OneLineErrors,
    database,
    events_of,
    friendly,
    id_option,
    open_store,
    out,
    stored_damage,
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


def show(
    ref: Annotated[str, typer.Argument(help="A replay file or a game id in the database.")],
    turn: Annotated[Optional[int], typer.Option(
        help="Show the state at the end of this turn.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    board: Annotated[bool, typer.Option("--board/--no-board", help="Draw the board.")] = True,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Show a game's board, turn, side to move and every unit.

    The state at the end of the game, or of --turn: the board drawn, the turn, phase and side to
    move, every unit with its losses and state, the options and each side's exhaustion."""
    from warlog.engine.fold import replay

    with friendly(), stored_damage(ref, db):
        events = events_of(ref, db)
        upto = None
        if turn is not None:
            last_turn = max(e["turn"] for e in events)
            if not 0 <= turn <= last_turn:
                raise typer.BadParameter(f"turn {turn} is not in this game (turns 0 to "
                                         f"{last_turn})")
            upto = [e["seq"] for e in events if e["turn"] <= turn][-1]
        state = replay(events, upto)
    view = state.public()
    if as_json:
        out.print_json(json.dumps(view))
        return
    from warlog.board_text import board_lines, legend
    from warlog.engine.flow import phase_name

    if board:
        for line in board_lines(state):
            out.print(line)  # rich markup made by board_text, every name in it escaped
        out.print(f"[dim]{legend(state)}[/dim]")
    title = (f"{state.scenario.title} — turn {state.turn}, {state.side or '-'} "
             f"{phase_name(state.phase)}")
    if state.ended:
        title += f" — ended: {state.winner or 'draw'} ({state.end_reason})"
    from warlog.engine.analysis import unit_status

    from warlog.engine.rulesets import get_ruleset

    from rich.table import Table

    lost = "SP lost" if get_ruleset(state.rule_system).measure == "strength" else "hits"
    table = Table("unit", "side", "type", "cell", "facing", lost, "state", title=escape(title))
    for u in state.units.values():
        style = "dim" if u.removed else ("red" if u.side == "red" else "blue")
        status = ", ".join(unit_status(state, u)) if not u.removed else ""
        table.add_row(escape(u.id), u.side, escape(u.type), str(u.cell), u.facing,
                      f"{u.hits}" + (" removed" if u.removed else ""), status, style=style)
    out.print(table)
    options = ", ".join(f"{k}={v}" for k, v in state.options.items())
    out.print(f"[dim]options: {escape(options)}[/dim]")
    shown = events if upto is None else [e for e in events if e["seq"] <= upto]
    out.print(_exhaustion_line(shown))
    taken = [e for e in shown if e["kind"] == "orders_taken_back"]
    if taken:  # the position is the live line's; say what it left out
        out.print("[dim]taken back: " + "; ".join(
            f"{e['orders']} of {e['side']}'s orders at event {e['seq']} (from event "
            f"{e['back_to']})" for e in taken) + " (`warlog log` shows them struck out)[/dim]")


def _exhaustion_line(events: list[dict]) -> str:
    """Each side's strength lost against its exhaustion point (or the one-third reference), and
    the turn it was reached."""
    from warlog.engine.analysis import exhaustion, exhausted_turns

    rows = exhaustion(events)
    reached = exhausted_turns(rows)
    last = {r["side"]: r for r in rows}
    parts = []
    for side, r in last.items():
        when = ""
        if side in reached:
            when = (f", exhausted in turn {reached[side]}" if r["basis"] == "rule"
                    else f", past it in turn {reached[side]}")
        parts.append(f"{side} lost {r['lost']} of {r['start']} (line {r['threshold']:g}{when})")
    basis = ("exhaustion points" if rows and rows[-1]["basis"] == "rule"
             else "reference line at 1/3 of the starting strength, not a rule")
    return f"Exhaustion ({basis}): " + "; ".join(parts)


def log_cmd(
    ref: Annotated[str, typer.Argument(help="A replay file or a game id in the database.")],
    turn: Annotated[Optional[int], typer.Option(help="Only this turn.")] = None,
    rules: Annotated[bool, typer.Option(
        "--rules", help="Show the text of every rule cited.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Tell the game as a commentary, every event with its rules.

    Every event in plain words, step by step, with the rules it applied (--rules: their
    text)."""
    from warlog.engine.analysis import steps
    from warlog.engine.narration import narrate_all
    from warlog.engine.rules import catalogue

    with friendly(), stored_damage(ref, db):
        events = events_of(ref, db)
        lines = narrate_all(events)
        told = steps(events)
    if turn is not None and not any(e["turn"] == turn for e in events):
        raise typer.BadParameter(f"turn {turn} is not in this game")
    chosen = [i for i, e in enumerate(events) if turn is None or e["turn"] == turn]
    if as_json:
        step_of = {i: step.index + 1 for step in told for i in range(step.first, step.last + 1)}
        out.print_json(json.dumps([
            {"seq": events[i]["seq"], "step": step_of[i], "turn": events[i]["turn"],
             "side": events[i]["side"], "phase": events[i]["phase"], "kind": events[i]["kind"],
             "text": lines[i], "rules": events[i]["rules"]} for i in chosen]))
        return
    wanted = set(chosen)
    known = catalogue()
    for step in told:
        shown = [i for i in range(step.first, step.last + 1) if i in wanted]
        if not shown:
            continue
        # the step's number is the Replay page's ("Step 12 of 97"), the numbers below its
        # events' (what `fork --at`, `note` and the page's ?event= take)
        out.print(f"[bold]Step {step.index + 1} · {escape(step.title)}[/bold]")
        for i in shown:  # narration quotes names, notes and ids: printed as text, not markup
            cited = escape(" ".join(events[i]["rules"]))
            out.print(f"  {events[i]['seq']:>5}  {escape(lines[i])}"
                      + (f"  [dim]{cited}[/dim]" if cited else ""), markup=True)
            if rules:
                for rule_id in events[i]["rules"]:
                    r = known.get(rule_id)
                    if r is not None:
                        flag = " (interpretation)" if r.interpretation else ""
                        out.print(f"         [dim]{escape(rule_id)}{flag}: {escape(r.text)}[/dim]")


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


def report(
    ref: Annotated[str, typer.Argument(help="A replay file or a game id in the database.")],
    out_path: Annotated[Path, typer.Option("--out", help="The HTML file to write.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a battle as one self-contained HTML file.

    No server, no network: the scenario, a
    board per turn to step through, the narration with its rules, the charts, the notes and,
    for a stored game reviewed with `warlog review`, was it the dice or the decisions."""
    from warlog.events.replay_file import write_bytes_atomic
    from warlog.events.safe_files import check_output
    from warlog.report import report_html
    from warlog.app.reviews import stored_review

    with friendly():
        check_output(out_path)  # a pipe or a device is refused before the game is read
        events = events_of(ref, db)
        # a stored game's review, if one is stored (a replay file's reviews never are)
        review = None if Path(ref).exists() else stored_review(db, events)
        page = report_html(events, review=review)
        write_bytes_atomic(out_path, page.encode("utf-8"))
    out.print(f"wrote {escape(str(out_path))} ({len(page) // 1024} KiB)")


def note(
    game: Annotated[str, typer.Argument(help="Game id in the database.")],
    about: Annotated[int, typer.Argument(help="The seq of the event the note is about (see "
                                              "`warlog log`).")],
    text: Annotated[str, typer.Argument(help="The note.")],
    author: Annotated[Optional[str], typer.Option(help="Who wrote it.",
                                                  callback=id_option("author name"))] = None,
    plan: Annotated[Optional[str], typer.Option(
        help="The note is this side's plan for the battle, written before its first order; "
             "the review's after-action report sets what happened against it.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a note on a moment of a stored game.

    Appended as a `note` event, changing nothing
    in the battle, kept in its replay file and shown at that step in the dashboard. With
    --plan SIDE, that side's plan (`warlog note GAME 1 "Hold the ford; turn their left" --plan
    red`)."""
    from warlog.events.model import make_note

    with friendly(), open_store(db) as store:
        events = store.read(game)
        try:
            event = make_note(events, about, text, author, plan_of=plan)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        store.append(game, [event], events[-1]["seq"])
    what = "note on" if plan is None else f"{plan}'s plan, as of"
    out.print(f"  {event['seq']:>5}  {what} event {about} of {escape(game)}")


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


def luck_cmd(
    ref: Annotated[str, typer.Argument(help="A replay file or a game id in the database.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Weigh each side's dice against what average dice give.

    Every resolved die against what an average die gives in the same roll: per side, then
    cumulative turn by turn (> 0: the dice favoured that side)."""
    from rich.table import Table

    from warlog.engine import analysis

    with friendly():
        events = events_of(ref, db)
    table = Table("side", "dice", "mean face", "gave", "average dice give", "luck",
                  title=f"Luck in {escape(ref)}")
    for r in analysis.luck(events):
        mean = "-" if r["mean_face"] is None else f"{r['mean_face']:.2f}"
        table.add_row(r["side"], str(r["dice"]), mean, str(r["hits"]),
                      f"{r['expected_hits']:.2f}", f"{r['luck']:+.2f}")
    out.print(table)
    turns = Table("turn", "red (so far)", "blue (so far)", title="Cumulative luck by turn")
    rows = analysis.luck_by_turn(events)
    for turn in sorted({r["turn"] for r in rows}):
        mine = {r["side"]: r["luck"] for r in rows if r["turn"] == turn}
        turns.add_row(str(turn), f"{mine['red']:+.2f}", f"{mine['blue']:+.2f}")
    out.print(turns)


# -- `warlog --help`: every command in the panel a player would look in --------------------
PLAY, REVIEW, SHARE, MANAGE = "Play and record", "Review and analyse", "Share", "Manage"

COMMANDS: list[tuple[str, str, object]] = [
    (PLAY, "new", "warlog.tabletop_cmd:new"), (PLAY, "orders", "warlog.tabletop_cmd:orders"),
    (PLAY, "order", "warlog.tabletop_cmd:order"),
    (PLAY, "takeback", "warlog.tabletop_cmd:takeback_cmd"),
    (PLAY, "record", "warlog.tabletop_cmd:record_cmd"), (PLAY, "note", note),
    (PLAY, "fork", "warlog.tabletop_cmd:fork_cmd"),
    (REVIEW, "show", show), (REVIEW, "log", log_cmd), (REVIEW, "review", "warlog.review_cmd:review"),
    (REVIEW, "luck", luck_cmd), (REVIEW, "odds", "warlog.odds_cmd:odds"),
    (REVIEW, "whatif", "warlog.whatif_cmd:whatif"), (REVIEW, "winprob", "warlog.whatif_cmd:winprob"),
    (REVIEW, "simulate", "warlog.study_cmd:simulate"),
    (REVIEW, "analyze", "warlog.study_cmd:analyze"), (REVIEW, "army", army), (REVIEW, "rules", rules),
    (SHARE, "export", "warlog.replay_cmd:export_cmd"),
    (SHARE, "import", "warlog.replay_cmd:import_cmd"), (SHARE, "verify", "warlog.replay_cmd:verify"),
    (SHARE, "report", report), (SHARE, "schema", schema_cmd),
    (MANAGE, "games", games), (MANAGE, "scenarios", scenarios), (MANAGE, "dashboard", dashboard),
    (MANAGE, "version", version),
]
"""Panel, name and function of every command, in the order `warlog --help` lists them; a
command living in a module of its own is named "module:function" and imported only when it is
built (each of those modules imports warlog.cli only inside its functions)."""


def command_function(spec: object) -> object:
    """A command's function: itself, or the one a "module:function" name points at."""
    if not isinstance(spec, str):
        return spec
    from importlib import import_module

    module, name = spec.split(":")
    return getattr(import_module(module), name)


def build(names: set[str] | None = None) -> typer.Typer:
    """The `warlog` application with the commands ``names`` (None: every command)."""
    built = typer.Typer(
        cls=OneLineErrors,
        help="Grid wargames as append-only event logs: simulate, show, verify, share and scrub "
             "them.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    chosen = [(panel, name, spec) for panel, name, spec in COMMANDS
              if names is None or name in names]
    for panel, name, spec in chosen:
        built.command(name, rich_help_panel=panel)(command_function(spec))
    if len(chosen) == 1:  # one command alone would become the program itself, not a subcommand
        built.callback()(_group)
    return built


def _group() -> None:
    """Grid wargames as append-only event logs: simulate, show, verify, share and scrub them."""


def main() -> None:
    """The console script. Why it builds only the command asked for: typer makes every command
    it holds (and Python imports every command's module) before it runs one, and a player at the
    table runs `warlog order GAME end` for every phase; so `warlog WORD ...` builds WORD alone,
    and `warlog`, `warlog --help` or a word that names no command build them all (the help
    lists every command; the error names the nearest). The same functions either way."""
    word = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    known = {name for _, name, _ in COMMANDS}
    build({word} if word in known else None)()


def __getattr__(name: str) -> object:
    """``warlog.cli.app``: the application with every command, built on first use."""
    if name == "app":
        globals()["app"] = built = build()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
