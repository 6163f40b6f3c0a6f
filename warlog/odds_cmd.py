"""`warlog odds`: the exact odds of an attack, for two unit types on a minimal board or for two
units of a real game at any event. Thin: the engine (engine/odds.py) computes, this prints.

Registered in warlog/cli.py with ``app.command()(odds)``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from warlog.cli_common import DEFAULT_DB, DbOption, events_of, fail, friendly


def _value(text: str) -> Any:
    """An option's value as the scenario would hold it: true/false, a whole number, or text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _pairs(given: list[str]) -> dict[str, Any]:
    out = {}
    for item in given:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise typer.BadParameter(f"--option takes KEY=VALUE (e.g. halving=once), not {item!r}")
        out[key.strip()] = _value(value)
    return out


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"


def _how(p: Fraction) -> str:
    return f"{p} = {float(p):.3f}" if p.denominator != 1 else str(p)


def _print(result, title: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from warlog.cli_common import out
    table = Table("outcome", "probability", "%", title=escape(title))
    for label, p in result.outcomes:
        table.add_row(escape(label), str(p), _percent(p))
    out.print(table)
    also = "also" if result.on_target is not None else "nearby"  # an empty cell: no target
    for who, effect in (("target", result.on_target), ("attacker", result.on_attacker),
                        *((also, e) for e in result.others)):
        if effect is None:
            continue
        what = "hits" if effect.measure == "hits" else "strength lost"
        name = effect.unit if effect.unit == who else f"{who} {effect.unit}"
        line = (f"{name} ({effect.type}): average {what} {_how(effect.mean)}; "
                f"at least one hit {_how(effect.p_hit)} ({_percent(effect.p_hit)})")
        if effect.p_removed:
            line += f"; destroyed {_percent(effect.p_removed)}"
        if effect.p_choice:
            line += f"; owner's choice owed {_percent(effect.p_choice)}"
        out.print(escape(line))
    for note in result.notes:
        out.print(f"[dim]note: {escape(note)}[/dim]")
    dice = f"{result.dice} die" if result.dice == 1 else f"{result.dice} dice"
    out.print(f"[dim]{result.leaves} ways for the dice to fall, every one counted (at most "
              f"{dice} each)[/dim]")


def odds(
    what: Annotated[list[str], typer.Argument(
        help="ATTACKER TARGET (two unit types; the barrage: TARGET alone), or a replay file "
             "or game id (with --unit and --target).")],
    system: Annotated[Optional[str], typer.Option(
        help="Rule system: ohw, portable, frontier, napoleonic, density.")] = None,
    period: Annotated[Optional[str], typer.Option(help="Period (ohw: ancients, ...).")] = None,
    kind: Annotated[Optional[str], typer.Option(
        help="The attack: shoot, melee, bombard or barrage (the ones the system has).")] = None,
    terrain: Annotated[str, typer.Option(help="The target's terrain.")] = "open",
    aspect: Annotated[str, typer.Option(
        help="Where the attack lands: front, flank, rear.")] = "front",
    grid: Annotated[str, typer.Option(help="square, hex or brick.")] = "square",
    distance: Annotated[Optional[int], typer.Option(help="Cells between them (shooting; "
                                                         "default 2).")] = None,
    option: Annotated[Optional[list[str]], typer.Option(
        "--option", help="KEY=VALUE: a game option (halving=once) or an extra (formation, "
                         "density, disorder, same_cell, quality, commander, moved, year, ...); "
                         "repeat it.")] = None,
    choice: Annotated[Optional[str], typer.Option(
        help="How an owed hit-table choice is answered: lose or retreat (default: left "
             "owed).")] = None,
    at: Annotated[Optional[int], typer.Option("--at", help="A game: the position after this "
                                                           "event (see `warlog log`).")] = None,
    unit: Annotated[Optional[str], typer.Option(help="A game: the attacking unit (none for "
                                                     "the barrage).")] = None,
    target: Annotated[Optional[str], typer.Option(help="A game: the unit attacked.")] = None,
    cell: Annotated[Optional[str], typer.Option(
        help="A game: the cell X,Y a Frontier battery (--unit) fires at, a unit there or not; "
             "every unit the shell can strike is shown.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Work out the exact odds of an attack from the dice.

    Computed, not sampled: every outcome with its
    probability, and the average. Two unit types (--system, --period, --kind, --terrain,
    --aspect, --option) or two units of a game (FILE_OR_GAME --at SEQ --unit A --target B), or
    a battery's bombardment of a cell (FILE_OR_GAME --at SEQ --unit A --cell X,Y)."""
    from warlog.engine.odds import OddsError

    try:
        if len(what) == 2 or (len(what) == 1 and system is not None and kind == "barrage"):
            types = what if len(what) == 2 else [None, what[0]]  # a barrage: the target only
            result, title = _hypothetical(types, system, period, kind, terrain, aspect, grid,
                                          distance, _pairs(option or []), choice,
                                          (at, unit, target, cell))
        elif len(what) == 1 and system is not None and kind is not None:
            raise OddsError(f"kind: one unit type alone is the target of a barrage (--kind "
                            f"barrage); a {kind} names two (ATTACKER TARGET), and a game "
                            "(FILE_OR_GAME) takes no --system")
        elif len(what) == 1:
            with friendly():
                result, title = _in_game(what[0], at, unit, (target, cell), kind, choice, db,
                                         (system, period, terrain != "open", aspect != "front",
                                          grid != "square", distance, option))
        else:
            raise typer.BadParameter("give two unit types (ATTACKER TARGET; a barrage: TARGET "
                                     "with --system), or one game (FILE_OR_GAME with --unit "
                                     "and --target)")
    except OddsError as exc:
        fail(str(exc))
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps({"title": title, **result.as_dict()}, indent=2))
        return
    _print(result, title)


def _hypothetical(types: list[str], system, period, kind, terrain, aspect, grid, distance,
                  given: dict[str, Any], choice, game_only: tuple):
    from warlog.engine.odds import KINDS, OddsError, hypothetical
    from warlog.engine.rulesets.tables import load_table, systems

    if any(v is not None for v in game_only):
        raise typer.BadParameter("--at, --unit, --target and --cell are for a game (one "
                                 "FILE_OR_GAME)")
    if system is None:
        raise OddsError(f"system: name the rule system with --system ({', '.join(systems())})")
    if system not in systems():
        raise OddsError(f"system: unknown rule system {system!r}; known: {', '.join(systems())}")
    if kind is None:
        raise OddsError(f"kind: name the attack with --kind ({', '.join(KINDS[system])})")
    game_options = load_table(system).get("options", {})
    options = {k: v for k, v in given.items() if k in game_options}
    extras = {k: v for k, v in given.items() if k not in game_options}
    result = hypothetical(system, period, types[0], types[1], kind=kind, terrain=terrain,
                          aspect=aspect, options=options, grid=grid, distance=distance,
                          choice=choice, **extras)
    where = f"on {terrain}" if terrain != "open" else "in the open"
    if types[0] is None:  # the barrage: no attacker, so no aspect
        title = f"{result.kind} on {types[1]} ({where}) — {system} {result.period}"
    else:
        title = (f"{types[0]} {result.kind} {types[1]} ({where}, {aspect}) — {system} "
                 f"{result.period}")
    return result, title


def _in_game(ref: str, at, unit, struck: tuple, kind, choice, db: Path,
             hypothetical_only: tuple):
    from warlog.engine.fold import replay
    from warlog.engine.odds import attack, bombard_cell

    if any(v is not None and v is not False and v != [] for v in hypothetical_only):
        raise typer.BadParameter("--system, --period, --terrain, --aspect, --grid, --distance "
                                 "and --option are for two unit types; a game has its own")
    target, cell = struck
    aimed = None if cell is None else _cell(cell, target, unit, kind, choice)
    if aimed is None and (target is None or (unit is None and kind != "barrage")):
        raise typer.BadParameter("a game needs --unit (the attacker) and --target (a barrage: "
                                 "--target only; a battery: --cell X,Y instead of --target)")
    events = events_of(ref, db)
    last = events[-1]["seq"]
    if at is not None and not 1 <= at <= last:
        raise typer.BadParameter(f"--at: event {at} is not in this game (1 to {last})")
    state = replay(events, at)
    if state.ended:
        raise typer.BadParameter(f"the game is over at event {at or last}: give --at SEQ, an "
                                 "event before its end (see `warlog log`)")
    if aimed is not None:
        result = bombard_cell(state, unit, aimed)
        kind, target = "bombard", f"cell {aimed[0]},{aimed[1]}"
    else:
        if kind is None:
            kind = _kind_for(state, unit, target)
        result = attack(state, unit, target, kind, choice=choice)
    where = f"after event {at}" if at is not None else f"at the end (event {last})"
    title = f"{unit} {kind} {target}" if unit is not None else f"{kind} on {target}"
    title += f" in {state.game}, {where}"
    return result, title


def _cell(text: str, target, unit, kind, choice) -> tuple[int, int]:
    """--cell X,Y, and the options that cannot go with it (one line naming the field)."""
    from warlog.engine.odds import OddsError
    from warlog.app.notation import parse_cell

    if target is not None:
        raise OddsError("cell: --cell and --target both name what is fired at; give one")
    if kind not in (None, "bombard"):
        raise OddsError(f"kind: --cell is a battery's bombardment of a cell (--kind bombard), "
                        f"not a {kind}")
    if unit is None:
        raise OddsError("unit: a bombardment of a cell needs the battery (--unit)")
    if choice is not None:
        raise OddsError("choice: a Frontier bombardment leaves no choice to answer")
    cell = parse_cell(text)
    if cell is None:
        raise OddsError(f"cell: give the cell as X,Y (two whole numbers, e.g. 3,2), not {text!r}")
    return cell


def _kind_for(state, unit: str, target: str) -> str:
    """The attack meant when --kind is not given: for units in contact melee first, else the
    ranged ones; the first the rules allow here (else the first, whose refusal is shown)."""
    from warlog.engine.odds import KINDS, OddsError, plan

    a, b = state.units.get(unit), state.units.get(target)
    kinds = KINDS[state.rule_system]
    touching = a is not None and b is not None and state.grid.distance(a.cell, b.cell) == 1
    candidates = [k for k in kinds if (k == "melee") == touching] or list(kinds)
    for kind in candidates:
        try:
            plan(state, unit, target, kind)
        except OddsError:
            continue
        return kind
    return candidates[0]
