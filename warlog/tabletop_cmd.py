"""`warlog new`, `orders`, `order`, `takeback`, `record` and `fork`: recording a game played on a
real table, one order at a time (new, orders, order; takeback the last orders of a side) or turn
by turn at a prompt or from a script (record),
a side conceding (`record --game GAME --concede SIDE`), and a new game started from any point
of a stored one (fork), reseated if asked (`fork --players red=NAME,blue=NAME`). Thin: the
application (warlog/app/: start.py, recorder.py, forking.py) does the work; this parses and
prints.

Registered in warlog/cli.py, each where it stands in `warlog --help`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from warlog.cli_common import (DEFAULT_DB, SEED_RANGE, DbOption, database, err, friendly,
                                id_option, open_store, out)


def new(
    scenario: Annotated[str, typer.Argument(help="A bundled scenario id or a .toml file.")],
    game: Annotated[Optional[str], typer.Option(
        help="Game id (default: SCENARIO-1, -2, ...).", callback=id_option("game id"))] = None,
    red: Annotated[str, typer.Option(help="Who plays red.",
                                     callback=id_option("player name"))] = "red player",
    blue: Annotated[str, typer.Option(help="Who plays blue.",
                                      callback=id_option("player name"))] = "blue player",
    dice: Annotated[str, typer.Option(
        help="manual: you enter the real dice; seeded: warlog rolls.")] = "manual",
    seed: Annotated[Optional[int], typer.Option(help="Seed, for --dice seeded.",
                                                **SEED_RANGE)] = None,
    opening_dice: Annotated[Optional[str], typer.Option(
        help="Manual dice rolled before the first order (army tables, the trenches roll-off), "
             "e.g. 3,5.")] = None,
    played: Annotated[Optional[str], typer.Option(
        "--date", help="The day the game was played, YYYY-MM-DD (default: today).")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Start recording a game played on a real table.

    Then give its orders with `warlog order` (or `warlog record --game`)."""
    from datetime import date

    from warlog.engine.scenario import load_scenario
    from warlog.app.errors import PlayError
    from warlog.app.seats import Seat
    from warlog.app.start import start_game
    from warlog.app.table_dice import OpeningDiceNeeded
    from warlog.engine.dice import DiceError
    from warlog.events.fields import iso_date
    from warlog.events.model import EventError

    if dice not in ("manual", "seeded"):
        raise typer.BadParameter("--dice is manual or seeded")
    faces = _faces(opening_dice, "--opening-dice")
    with friendly():  # before the database is opened: a bad date leaves nothing behind
        try:
            # Today is read here, at the edge: the engine never looks at a clock.
            played = date.today().isoformat() if played is None else iso_date(played)
        except ValueError as exc:
            raise EventError(f"--date: {exc}") from None
    try:
        with friendly(), open_store(db) as store:
            scn = load_scenario(scenario)
            game_id = start_game(store, scn, game_id=game, dice=dice, seed=seed,
                                 seats={"red": Seat.person(red), "blue": Seat.person(blue)},
                                 opening_dice=faces or (), played=played)
    except OpeningDiceNeeded as exc:
        raise DiceError(f"{exc}; give them with --opening-dice") from None
    except PlayError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    elsewhere = db != DEFAULT_DB and str(db) != os.environ.get("WARLOG_DB")
    out.print(f"started {game_id} ({scn.title}); next: warlog orders {game_id}"
              + (f" --db {db}" if elsewhere else ""), markup=False)


def _faces(text: str | None, option: str) -> list[int] | None:
    try:
        return [int(f) for f in text.split(",")] if text else None
    except ValueError:
        raise typer.BadParameter(f"{option} takes whole numbers separated by commas, "
                                 f"not {text!r}") from None


def _print_state_line(state) -> None:
    from warlog.engine.flow import phase_name

    if state.ended:
        out.print(f"{state.game}: game over — {state.winner or 'draw'} ({state.end_reason})",
                  markup=False)
    else:
        who = state.players.get(state.side, state.side)
        out.print(f"{state.game}: turn {state.turn}, {state.side} ({who}) "
                  f"{phase_name(state.phase)}", markup=False)


def orders(
    game: Annotated[str, typer.Argument(help="Game id in the database.")],
    unit: Annotated[Optional[str], typer.Option(help="Only this unit's orders.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Every legal order now, in the notation `warlog order` takes."""
    from warlog.engine.game import Game
    from warlog.app.notation import format_order

    with friendly(), database(db, game) as store:
        current = Game(store.read(game))
    if unit is not None and unit not in current.state.units:
        raise typer.BadParameter(f"no unit {unit!r} in {game}")
    _print_state_line(current.state)
    for order in current.legal_orders(unit):
        out.print(f"  {format_order(order)}", markup=False)


def order(
    game: Annotated[str, typer.Argument(help="Game id in the database.")],
    words: Annotated[list[str], typer.Argument(help="The order, e.g. move r-inf-1 E 2 | "
                                                    "shoot r-arc-1 b-skm-1 | end.")],
    dice: Annotated[Optional[str], typer.Option(
        help="The faces the real dice showed, e.g. 4 or 4,6.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Record one order of a tabletop game, checked by the rules.

    The order is checked where the game stands, then appended with the faces the real dice
    showed (--dice); nothing is written if it is refused."""
    from warlog.app.errors import PlayError
    from warlog.app.recorder import Recorder
    from warlog.engine.dice import DiceError
    from warlog.engine.fold import evolve
    from warlog.engine.narration import narrate
    from warlog.app.notation import NotationError, parse_order

    faces = _faces(dice, "--dice")
    try:
        with friendly(), database(db, game) as store:
            try:
                parsed = parse_order(words)
            except NotationError as exc:
                raise typer.BadParameter(str(exc)) from None
            rec = Recorder(store, game)
            before = rec.state.copy()  # each new event is told from the state before it
            new_events = rec.give(parsed, faces)
            if new_events is None:  # one command, one order: its dice come with it
                assert rec.pending is not None
                raise DiceError(f"this order rolls more dice than were given (die number "
                                f"{rec.pending.wanted} is missing): give every face the real "
                                "dice showed with --dice; nothing was recorded")
    except PlayError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    for event in new_events:  # names and notes: as text
        out.print(f"  {event['seq']:>5}  {narrate(event, before)}", markup=False)
        before = evolve(before, event, check=False)
    _print_state_line(rec.state)


def takeback_cmd(
    game: Annotated[str, typer.Argument(help="Game id in the database.")],
    orders: Annotated[int, typer.Option(
        "--orders", help="How many of the side's last orders to take back.", min=1,
        max=1_000_000)] = 1,
    side: Annotated[Optional[str], typer.Option(
        help="Whose orders (red or blue; default: the side that gave the last order).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Take back a side's last orders, recorded with their consequences.

    A side takes back its own orders while nothing else decided the game since (the other
    side's order, a change of seats, a concession). The take-back is appended as an event:
    nothing is deleted, and the game stands where it stood before those orders."""
    from warlog.app.errors import PlayError
    from warlog.app.session import Session
    from warlog.engine.narration import takeback_text

    try:
        with friendly(), database(db, game) as store:
            session = Session(store, game, every_seat=True)
            event = session.take_back(side, orders)
            line = takeback_text(event)
    except PlayError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    out.print(line, markup=False)


def record_cmd(
    scenario: Annotated[Optional[str], typer.Argument(
        help="A bundled scenario id or a .toml file (not needed with --game of a stored "
             "game).")] = None,
    game: Annotated[Optional[str], typer.Option(
        help="Game id: a new one (default SCENARIO-1, -2, ...) or a stored game to carry "
             "on.")] = None,
    players: Annotated[Optional[str], typer.Option(help="Who plays: red=NAME,blue=NAME.")] = None,
    dice: Annotated[Optional[str], typer.Option(
        help="manual (default): enter the faces the real dice show; auto: warlog rolls.")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="Seed for --dice auto (default: a random one, recorded in the game).",
        **SEED_RANGE)] = None,
    script: Annotated[Optional[Path], typer.Option(
        help="Read the orders, dice, undos, take-backs and notes from this file, one a "
             "line.")] = None,
    concede: Annotated[Optional[str], typer.Option(
        "--concede", help="With --game: this side (red or blue) gives up; the other wins.")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Record a game at the table, turn by turn, with the real dice.

    Phase by phase (or from a --script): every order checked by the rules, the real dice
    entered, undo, notes; quit and carry on later. With --concede SIDE, that side of the stored
    --game concedes and the game ends."""
    from warlog.app.errors import PlayError
    from warlog.record import Setup
    from warlog.record_table import record_game

    if concede is not None:
        _concede(game, concede, others={"SCENARIO": scenario, "--players": players,
                                        "--dice": dice, "--seed": seed, "--script": script},
                 db=db)
        return
    flag = "" if db == DEFAULT_DB else f" --db {db}"
    try:
        with friendly(), open_store(db) as store:
            record_game(store, Setup(scenario, game, players, dice, seed), script=script,
                        ask=lambda prompt: out.input(prompt), say=out.print, db_flag=flag)
    except PlayError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None


def _concede(game: str | None, side: str, *, others: dict[str, object], db: Path) -> None:
    """`warlog record --game GAME --concede SIDE`: the side concedes, signed by its player as
    its orders are; the concession and the end it decides are printed as `warlog order` prints
    an order's events. One line, never a traceback, for a bad side, a bot's side, a game that
    is over or not in the database, or an option that only sets up or records a game."""
    from warlog.engine.narration import narrate
    from warlog.app.errors import PlayError
    from warlog.app.recorder import Recorder

    given = [name for name, value in others.items() if value is not None]
    try:
        if game is None:
            raise PlayError("--concede needs --game: the stored game a side concedes")
        if given:
            raise PlayError(f"--concede ends a stored game: {', '.join(given)} cannot go "
                            "with it")
        with friendly(), database(db, game) as store:
            rec = Recorder(store, game)
            new_events = rec.concede_as_player(side)
            state = rec.state
    except PlayError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    for event in new_events:
        out.print(f"  {event['seq']:>5}  {narrate(event, None)}", markup=False)
    _print_state_line(state)


def fork_cmd(
    game: Annotated[str, typer.Argument(help="Game id in the database.")],
    at: Annotated[int, typer.Option("--at", help="The event to fork at (see `warlog log`).")],
    new_id: Annotated[Optional[str], typer.Option(
        "--new-id", help="The new game's id (default GAME-fork-1, -2, ...).",
        callback=id_option("game id"))] = None,
    players: Annotated[Optional[str], typer.Option(
        help="Reseat the fork: red=NAME,blue=NAME (a side not named keeps its player; a bot "
             "policy's name seats that bot, with seeded dice only).")] = None,
    by: Annotated[Optional[str], typer.Option(
        help="Who changed the seats (with --players).", callback=id_option("player name"))
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Start a new game from any point of a stored one.

    Its events up to --at, cut back to where the game waits for an order, reseated with
    --players if given; carry on with `warlog record --game` or `warlog order`."""
    from warlog.app.errors import PlayError
    from warlog.app.forking import fork
    from warlog.engine.game import Game

    try:
        if by is not None and players is None:
            raise PlayError("--by says who changed the seats: give it with --players")
        with friendly(), open_store(db) as store:
            forked, cut = fork(store, game, at, new_id, players, by)
            state = Game(store.read(forked)).state
    except PlayError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    back = "" if cut == at else f" (cut back from {at}: the game waits for an order there)"
    out.print(f"forked {escape(game)} at event {cut}{back} as {escape(forked)}")
    if players is not None:
        from warlog.engine.narration import players_text

        out.print(f"seats changed: {players_text(state.players)}", markup=False)
    _print_state_line(state)
