"""`warlog record`'s set-up and its script (`--script`): what the command was asked, and a file
of inputs played through the application's Recorder (warlog/app/recorder.py). The prompt at the
table, and the command that picks a script or the table, are in warlog/record_table.py.

A script holds the same inputs one a line::

    # comments, and blank lines, are skipped
    move r-inf-1 E 3            # an order in the notation (warlog/app/notation.py)
    shoot r-arc-1 b-skm-1 dice 5   # an order and the faces its dice showed
    shoot r-arc-1 b-skm-1       # an order that rolls dice, given on the next line(s) ...
    dice 5                      # ... as `dice F,F,...`
    undo                        # the order waiting for its dice is taken back
    takeback 2                  # the last 2 orders (default 1) of the side that ordered last
    note the ford is the key    # a note on the game as it stands
    end                         # the end of the phase (an order like any other)
    concede blue                # blue gives up (signed by its player): red wins, the game ends

A new manual-dice game whose opening rolls dice (rolled armies, a roll-off) takes them from the
``dice`` lines before anything else. The first bad line stops the script with one line naming the
file, the line and the problem; everything before it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warlog.app.errors import PlayError
from warlog.app.forking import parse_players
from warlog.app.recorder import Recorder, refusal
from warlog.app.seats import Seat, check_seats
from warlog.app.start import free_game_id, start_game
from warlog.app.table_dice import OpeningDiceNeeded, parse_faces
from warlog.engine.dice import DiceError
from warlog.engine.rules import IllegalOrder
from warlog.engine.scenario import Scenario, load_scenario
from warlog.events.ids import IdError, check_id
from warlog.events.safe_files import FileKind, FileRefused, read_text
from warlog.events.store import EventStore, StoreError
from warlog.app.notation import NotationError, parse_order

Event = dict[str, Any]

SCRIPT_FILE = FileKind("a script", "scripts", 4 * 1024 * 1024)
"""A record script: one input a line (a long game's script is a few hundred KB)."""


@dataclass
class Setup:
    """What `warlog record` was asked to do, before any game is touched."""

    scenario: str | None
    game: str | None
    players: str | None
    dice: str | None
    seed: int | None


def prepare(store: EventStore, setup: Setup) -> tuple[str, Scenario | None, dict[str, Any]]:
    """(game id, the scenario of a new game or None to resume, how to start it)."""
    if setup.game is not None and store.has_game(setup.game):
        given = [name for name, value in (("--players", setup.players), ("--dice", setup.dice),
                                          ("--seed", setup.seed)) if value is not None]
        if given:
            raise PlayError(f"game {setup.game!r} is already in the database: "
                            f"{', '.join(given)} only set up a new game")
        if setup.scenario is not None:
            first = store.read(setup.game, 1)[0]
            wanted = load_scenario(setup.scenario).id
            if first["scenario"].get("id") != wanted:
                raise PlayError(f"game {setup.game!r} is a game of "
                                f"{first['scenario'].get('id')!r}, not {wanted!r}")
        return setup.game, None, {}
    if setup.scenario is None:
        raise PlayError("give a scenario to start a game, or --game with a game in the "
                        "database to carry on recording it")
    scenario = load_scenario(setup.scenario)
    mode = {"manual": "manual", None: "manual", "auto": "seeded", "seeded": "seeded"}.get(
        setup.dice)
    if mode is None:
        raise PlayError(f"--dice is manual or auto, not {setup.dice!r}")
    if mode == "manual" and setup.seed is not None:
        raise PlayError("--seed is for --dice auto: with manual dice the players roll")
    if setup.game is not None:  # a new game: its id is made here
        try:
            check_id(setup.game, "game id")
        except IdError as exc:
            raise PlayError(f"--game: {exc}") from None
    seats = {side: Seat.person(name) for side, name in parse_players(setup.players).items()}
    check_seats(scenario.sides, seats, mode)  # before anything is asked at the table
    how = {"seats": seats, "dice": mode, "seed": setup.seed}
    return setup.game or free_game_id(store, scenario), scenario, how


# -- a script ------------------------------------------------------------------------------


@dataclass
class ScriptResult:
    game: str
    orders: int = 0
    withdrawn: int = 0
    taken_back: int = 0
    notes: int = 0
    started: bool = False


def _strip_comment(line: str) -> str:
    """The line without its comment; a note's text is kept whole, # and all."""
    text = line.strip()
    if not text or text.startswith("#"):
        return ""
    if text.split(maxsplit=1)[0].lower() == "note":
        return text
    return text.split("#", 1)[0].strip()


def take_back_count(words: list[str]) -> int:
    """How many orders ``takeback [N]`` takes back (1 when not given); PlayError if N is not
    a whole number of 1 or more (the rule then says whether that many may go)."""
    if not words:
        return 1
    if not words[0].isdigit() or int(words[0]) < 1:
        raise PlayError(f"takeback takes a number of orders (1 or more), e.g. takeback 2, "
                        f"not {words[0]!r}")
    return int(words[0])


def split_dice(words: list[str]) -> tuple[list[str], list[int] | None]:
    lowered = [w.lower() for w in words]
    if "dice" not in lowered:
        return words, None
    i = lowered.index("dice")
    return words[:i], parse_faces(" ".join(words[i + 1:]))


def run_script(store: EventStore, path: Path, game_id: str, scenario: Scenario | None,
               how: dict[str, Any]) -> ScriptResult:
    """Record the inputs of the script at ``path`` into ``game_id`` (started from ``scenario``
    with ``how`` if it is new). PlayError names the first bad line; all before it is kept."""
    try:  # a regular file under the limit only: a pipe or /dev/zero would never end
        lines = read_text(path, SCRIPT_FILE).splitlines()
    except FileRefused as exc:
        raise PlayError(str(exc)) from None
    result = ScriptResult(game_id)
    rec: Recorder | None = None if scenario is not None else Recorder(store, game_id)
    opening: list[int] = []
    opening_line: int | None = None  # the first `dice` line, for the opening's dice

    def fail(number: int, problem: str) -> PlayError:
        return PlayError(f"{path} line {number}: {problem}")

    def begin(number: int) -> Recorder:
        assert scenario is not None
        try:
            start_game(store, scenario, game_id=game_id, opening_dice=opening, **how)
        except OpeningDiceNeeded:
            raise fail(number, f"the game opens with dice rolls (army tables or a roll-off) and "
                       f"needs die number {len(opening) + 1}: give them first, on `dice` "
                       "lines") from None
        except DiceError as exc:  # more dice than the opening rolls, or dice it does not take
            raise fail(opening_line or number, str(exc)) from None
        result.started = True
        return Recorder(store, game_id)

    for number, raw in enumerate(lines, 1):
        text = _strip_comment(raw)
        if not text:
            continue
        words = text.split()
        verb = words[0].lower()
        try:
            if rec is None:
                if verb == "dice":
                    opening.extend(parse_faces(" ".join(words[1:])))
                    opening_line = opening_line or number
                    continue
                rec = begin(number)
            if verb == "note":
                rec.note(text[len(words[0]):].strip())
                result.notes += 1
            elif verb == "undo" and len(words) == 1:
                rec.undo()
                result.withdrawn += 1
            elif verb == "takeback" and len(words) <= 2:
                result.taken_back += rec.take_back(None, take_back_count(words[1:]))["orders"]
            elif verb == "concede" and len(words) == 2:
                rec.concede_as_player(words[1])
            elif verb == "dice":
                if rec.dice(parse_faces(" ".join(words[1:]))) is not None:
                    result.orders += 1
            else:
                if rec.pending is not None:
                    raise PlayError(
                        f"'{rec.pending.text}' (line {rec.pending.line}) still needs die number "
                        f"{rec.pending.wanted}: give it on a `dice` line, or undo the order")
                order_words, faces = split_dice(words)
                order = parse_order(order_words)
                if rec.give(order, faces) is not None:
                    result.orders += 1
                elif rec.pending is not None:
                    rec.pending.line = number
        except IllegalOrder as exc:
            raise fail(number, f"illegal order '{text}': {refusal(exc)}") from None
        except PlayError as exc:
            if str(exc).startswith(f"{path} line "):
                raise
            raise fail(number, str(exc)) from None
        except (NotationError, DiceError, StoreError) as exc:
            raise fail(number, str(exc)) from None
    if rec is None:
        rec = begin(len(lines) + 1)
    if rec.pending is not None:
        raise fail(rec.pending.line or len(lines), f"'{rec.pending.text}' rolls dice, but the "
                   f"file ends before its die number {rec.pending.wanted}: add a `dice` line "
                   "or `undo`")
    return result
