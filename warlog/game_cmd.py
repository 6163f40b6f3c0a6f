"""`warlog show`, `log`, `luck`, `note` and `report`: one stored game or replay file, read and
shown (a module of its own so that a command builds and imports only what it runs:
warlog/cli.py's COMMANDS names each command's function).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from warlog.cli_common import (
    DEFAULT_DB,
    DbOption,
    events_of,
    friendly,
    id_option,
    open_store,
    out,
    stored_damage,
)


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
