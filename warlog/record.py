"""Recording a game (`warlog record`): the Recorder, a script (`--script`), and forking a game
from any point of another (`warlog fork`). The prompt at the table, and the command that picks
a script or the table, are in warlog/record_table.py.

A ``Recorder`` holds one stored game as it was last read. Every order is checked by the rules
(``decide``) against that state; one that rolls dice waits, in a manual-dice game, for the faces
the real dice showed (given all at once or a few at a time), and until they are all in it may be
taken back (``undo``): the withdrawal is appended as an ``order_retracted`` event, a fact that
changes no state, and nothing else of the order is ever written. Every order, note and withdrawal
is appended in its own transaction with ``expected_seq`` = the last seq the recorder read, so a
concurrent writer makes the append fail whole (ConcurrencyError); the recorder then reloads.

A script holds the same inputs one a line::

    # comments, and blank lines, are skipped
    move r-inf-1 E 3            # an order in the notation (warlog/notation.py)
    shoot r-arc-1 b-skm-1 dice 5   # an order and the faces its dice showed
    shoot r-arc-1 b-skm-1       # an order that rolls dice, given on the next line(s) ...
    dice 5                      # ... as `dice F,F,...`
    undo                        # the order waiting for its dice is taken back
    note the ford is the key    # a note on the game as it stands
    end                         # the end of the phase (an order like any other)
    concede blue                # blue gives up (signed by its player): red wins, the game ends

A new manual-dice game whose opening rolls dice (rolled armies, a roll-off) takes them from the
``dice`` lines before anything else. The first bad line stops the script with one line naming the
file, the line and the problem; everything before it is stored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from warlog.engine.bots import POLICIES, next_order
from warlog.engine.dice import DiceError, SeededDice
from warlog.engine.fold import evolve
from warlog.engine.game import Game, concede, decide, reseat, start
from warlog.engine.inputs import InputError, check_retractions
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.engine.scenario import Scenario, load_scenario
from warlog.engine.state import SIDES, GameState
from warlog.engine.verify import retraction, verify
from warlog.events.ids import IdError, check_id, normalised, shown
from warlog.events.model import make_note
from warlog.events.orders import Order
from warlog.events.orders import parse_order as order_of
from warlog.events.safe_files import FileKind, FileRefused, read_text
from warlog.events.store import EventStore, StoreError
from warlog.notation import NotationError, format_order, parse_order
from warlog.tabletop import free_game_id, new_game

Event = dict[str, Any]

INPUT_KINDS = ("order_given", "note", "order_retracted", "seats_changed", "side_conceded")
"""Events that start where the game waits for an order: an order and everything it decides, a
note, a withdrawn order, a change of seats, a concession (and the end it decides). A log cut just
before one of them (or at its end) is a game at rest."""

SCRIPT_FILE = FileKind("a script", "scripts", 4 * 1024 * 1024)
"""A record script: one input a line (a long game's script is a few hundred KB)."""


class RecordError(ValueError):
    """A mistake in recording (a bad script line, nothing to undo, ...): one line for the user."""


def parse_players(text: str | None, base: dict[str, str] | None = None) -> dict[str, str]:
    """``red=Ann,blue=Bo`` -> {"red": "Ann", "blue": "Bo"}; a side not named keeps its player
    in ``base`` (a fork's current seats), else its default (``red player``)."""
    players = {"red": "red player", "blue": "blue player", **(base or {})}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        side, sep, name = part.partition("=")
        side, name = side.strip().lower(), name.strip()
        if not sep or side not in ("red", "blue") or not name:
            raise RecordError(f"--players takes red=NAME,blue=NAME, not {shown(text)}")
        try:
            players[side] = check_id(normalised(name), "player name")
        except IdError as exc:
            raise RecordError(f"--players: {exc}") from None
    return players


def parse_faces(text: str) -> list[int]:
    """``3,5`` or ``3 5`` -> [3, 5]: the faces of d6s."""
    words = text.replace(",", " ").split()
    if not words:
        raise DiceError("give the faces the dice showed, e.g. 4 or 3,5")
    faces = []
    for word in words:
        if not word.isdigit() or not 1 <= int(word) <= 6:
            raise DiceError(f"a d6 shows 1 to 6, not {word!r}")
        faces.append(int(word))
    return faces


def refusal(exc: IllegalOrder) -> str:
    """An illegal order's reason, then its rule's id and catalogue text, on one line."""
    rule = catalogue().get(exc.rule)
    text = " ".join(rule.text.split()) if rule else "(not in the catalogue)"
    return f"{exc.message} — rule {exc.rule}: {text}"


# -- dice given at the table, a few at a time ---------------------------------------------------


class _MoreDice(Exception):
    """The rules asked for a die that has not been given yet."""

    def __init__(self, number: int) -> None:
        super().__init__(f"die number {number}")
        self.number = number


class _TableDice:
    """The faces given so far for one order; asking for one more raises _MoreDice."""

    mode = "manual"

    def __init__(self, faces: list[int]) -> None:
        self.faces = list(faces)
        self.rolled = 0

    def roll(self, sides: int = 6) -> int:
        if self.rolled >= len(self.faces):
            raise _MoreDice(self.rolled + 1)
        face = self.faces[self.rolled]
        if not 1 <= face <= sides:
            raise DiceError(f"a d{sides} shows 1 to {sides}, not {face}")
        self.rolled += 1
        return face


def _too_many(needed: int, given: int) -> DiceError:
    return DiceError(f"this order rolls {needed} dice but {given} were given; "
                     "nothing was recorded")


@dataclass
class Pending:
    """An order the rules accepted that waits for the faces of its dice."""

    order: Order
    faces: list[int] = field(default_factory=list)
    wanted: int = 1  # the number of the die the rules ask for next
    line: int | None = None  # where a script gave it

    @property
    def text(self) -> str:
        return format_order(self.order)


class Recorder:
    """One stored game being recorded: its log as last read, and the order waiting for dice."""

    def __init__(self, store: EventStore, game_id: str) -> None:
        self.store, self.game_id = store, game_id
        self.pending: Pending | None = None
        self.reload()

    def reload(self) -> None:
        """Read the game again from the store (after another writer appended)."""
        self.game = Game(self.store.read(self.game_id))
        self.pending = None

    @property
    def state(self) -> GameState:
        return self.game.state

    @property
    def events(self) -> list[Event]:
        return self.game.events

    @property
    def who(self) -> str | None:
        """The name of the player the game waits for."""
        side = self.state.to_act
        return self.state.players.get(side or "", side)

    def legal(self) -> list[Order]:
        return self.game.legal_orders()

    def order_from(self, text: str) -> Order:
        """A number from the list of legal orders, or an order in the notation."""
        text = text.strip()
        if text.isdigit():
            legal = self.legal()
            if not 1 <= int(text) <= len(legal):
                raise RecordError(f"there is no order number {text} (1 to {len(legal)})")
            return legal[int(text) - 1]
        return parse_order(text.split())

    # -- the three inputs --------------------------------------------------------------------

    def give(self, order: Order, faces: list[int] | None = None) -> list[Event] | None:
        """Check ``order`` and record it, with ``faces`` if it rolls dice. Return the events
        appended, or None if the order waits for (more of) its dice. IllegalOrder if the rules
        refuse it; then nothing is stored and nothing waits."""
        if self.pending is not None:
            raise RecordError(f"'{self.pending.text}' waits for its dice: give them "
                              "(e.g. dice 4), or undo it")
        state = self.state
        if state.ended:
            raise RecordError("the game is over: nothing more to record")
        if self.who in POLICIES:
            raise RecordError(f"{state.to_act} is played by the {self.who} bot in this game: "
                              "only the players' orders are recorded at the table")
        if state.dice_mode == "seeded":
            if faces:
                raise DiceError("this game rolls its own dice (--dice auto): give no dice")
            return self._append_play(order, None)
        self.pending = Pending(order)
        try:
            return self._try_dice(faces or [])
        except Exception:
            self.pending = None
            raise

    def dice(self, faces: list[int]) -> list[Event] | None:
        """More faces for the order waiting for its dice: the events appended once they are
        enough, None while the rules want more."""
        if self.pending is None:
            raise RecordError("no order is waiting for dice"
                              + (" (this game rolls its own)" if self.state.dice_mode == "seeded"
                                 else ""))
        try:
            return self._try_dice(self.pending.faces + faces)
        except IllegalOrder:  # the rules refused it past its first die
            self.pending = None
            raise

    def undo(self) -> Event:
        """Take back the order waiting for its dice: an order_retracted event is appended."""
        if self.pending is None:
            last = next((e for e in reversed(self.events) if e["kind"] == "order_given"), None)
            done = (f"; the last order ({format_order(order_of(last['order']))}) is "
                    "already recorded with its consequences" if last else "")
            raise RecordError("nothing to undo: undo takes back an order before its dice are "
                              f"entered{done}")
        try:
            check_retractions(sum(e["kind"] == "order_retracted" for e in self.events))
        except InputError as exc:
            raise RecordError(f"cannot undo: {exc}; enter the order's dice instead") from None
        event = retraction(self.state, self.pending.order, self.who)
        self._append([event])
        self.pending = None
        return event

    def note(self, text: str, author: str | None = None, plan_of: str | None = None) -> Event:
        """A note on the game as it stands (about its last event of the battle); with
        ``plan_of``, that side's plan (refused once the side has given an order)."""
        about = next((e["seq"] for e in reversed(self.events)
                      if e["kind"] not in ("note", "order_retracted")), 1)
        try:
            event = make_note(self.events, about, text, author, plan_of=plan_of)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        self._append([event])
        return event

    # -- inputs that are not orders: the seats, a concession; a bot's order ------------------

    def _at_rest(self, what: str) -> None:
        """RecordError unless nothing waits for its dice: a seats change or a concession stands
        where an order could, never inside one."""
        if self.pending is not None:
            raise RecordError(f"'{self.pending.text}' waits for its dice: give them or undo it "
                              f"before {what}")

    def change_seats(self, players: dict[str, str], by: str | None = None) -> Event:
        """Seat ``players`` (side -> name, every side; a bot policy's name seats that bot) from
        here on: a seats_changed event is appended, and the orders after it are signed and
        checked with the new seats. RecordError naming the rule if the game is over, an order
        waits for its dice, a side is missing or unknown, a name breaks the id rule, or a bot
        is seated in a manual-dice game."""
        self._at_rest("the seats change")
        try:
            event = reseat(self.state, players, by)
        except InputError as exc:
            raise RecordError(f"cannot change the seats: {exc}") from None
        self._append([event])
        return event

    def concede(self, side: str, by: str | None = None) -> list[Event]:
        """``side`` concedes: its side_conceded event and the game_ended the engine writes
        after it (the other side wins) are appended. Either side a person plays may concede
        (see engine.game.concede). RecordError if the game is over, an order waits for its
        dice, the side is unknown or a bot's, or ``by`` is not its player."""
        self._at_rest(f"{side} concedes")
        try:
            new = concede(self.state, side, by)
        except InputError as exc:
            raise RecordError(f"cannot concede: {exc}") from None
        self._append(new)
        return new

    def concede_as_player(self, side: str) -> list[Event]:
        """``side`` (as typed: `concede blue`) concedes, signed by the player seated there, as
        its orders are: `warlog record --concede`, and a `concede SIDE` line at the table or in
        a script."""
        side = side.strip().lower()
        return self.concede(side, self.state.players.get(side, side) if side in SIDES else None)

    def append_bot_order(self, order: Order | None = None) -> list[Event]:
        """The bot seated on the side to act gives one order, decided with the game's seeded
        dice and signed with its policy's name, then appended with expected_seq. ``order`` is
        the bot's choice if it was already made (``engine.bots.next_order`` on this very state,
        e.g. in a background thread): it is not chosen again here, and verify re-chooses it, so
        anything else would make a game that does not verify. None: chosen here. RecordError
        if the game is over, nobody or a person holds the side, or the dice are manual."""
        state = self.state
        if state.ended:
            raise RecordError("the game is over: nothing more to play")
        self._at_rest("a bot plays")
        if self.who not in POLICIES:
            raise RecordError(f"{state.to_act} is played by {self.who!r}, not a bot: a person's "
                              "order is given with give()")
        if state.dice_mode != "seeded":
            raise RecordError("bots play only with seeded dice, and this game's are manual")
        return self._append_play(next_order(state) if order is None else order, None)

    # -- appending ---------------------------------------------------------------------------

    def _try_dice(self, faces: list[int]) -> list[Event] | None:
        pending = self.pending
        assert pending is not None
        try:
            new = self._append_play(pending.order, _TableDice(faces))
        except _MoreDice as more:
            pending.faces, pending.wanted = faces, more.number
            return None
        self.pending = None
        return new

    def _append_play(self, order: Order, dice: _TableDice | None) -> list[Event]:
        """Decide ``order`` (the state is left as it is), append what follows, then fold it."""
        expected, by = self.events[-1]["seq"], self.who
        try:
            new = decide(self.state, order, dice if dice is not None else self.game.dice, by=by)
        except Exception:
            if dice is None:  # forget the seeded dice a refused decision drew
                self.game.dice = SeededDice(self.state.seed or 0, self.state.dice_rolled)
            raise
        if dice is not None and dice.rolled < len(dice.faces):
            raise _too_many(dice.rolled, len(dice.faces))
        self._append(new, expected)
        return new

    def _append(self, new: list[Event], expected: int | None = None) -> None:
        """One transaction; on any refusal (another writer first) the game is read again."""
        try:
            self.store.append(self.game_id, new,
                              self.events[-1]["seq"] if expected is None else expected)
        except StoreError:
            self.reload()
            raise
        for event in new:
            evolve(self.state, event, check=False)
        self.events.extend(new)


# -- starting or resuming a game ---------------------------------------------------------------


def start_game(store: EventStore, scenario: Scenario, game_id: str, *, players: dict[str, str],
               dice: str, seed: int | None, faces: list[int], played: str | None) -> bool:
    """Store a new game's opening; False (and nothing stored) while a manual-dice opening wants
    more dice than ``faces``."""
    try:
        new_game(store, scenario, game_id, players=players, dice=dice, seed=seed,
                 opening_dice=faces, played=played)
    except DiceError:
        if dice == "manual":
            try:
                start(game_id, scenario, players=players, dice="manual", opening_dice=faces)
            except DiceError:
                return False  # the faces are good, there are too few of them
        raise
    return True


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
            raise RecordError(f"game {setup.game!r} is already in the database: "
                              f"{', '.join(given)} only set up a new game")
        if setup.scenario is not None:
            first = store.read(setup.game, 1)[0]
            wanted = load_scenario(setup.scenario).id
            if first["scenario"].get("id") != wanted:
                raise RecordError(f"game {setup.game!r} is a game of "
                                  f"{first['scenario'].get('id')!r}, not {wanted!r}")
        return setup.game, None, {}
    if setup.scenario is None:
        raise RecordError("give a scenario to start a game, or --game with a game in the "
                          "database to carry on recording it")
    scenario = load_scenario(setup.scenario)
    mode = {"manual": "manual", None: "manual", "auto": "seeded", "seeded": "seeded"}.get(
        setup.dice)
    if mode is None:
        raise RecordError(f"--dice is manual or auto, not {setup.dice!r}")
    if mode == "manual" and setup.seed is not None:
        raise RecordError("--seed is for --dice auto: with manual dice the players roll")
    seed = setup.seed
    if mode == "seeded" and seed is None:
        seed = int.from_bytes(os.urandom(4), "big")  # chance read at the edge, then recorded
    if setup.game is not None:  # a new game: its id is made here
        try:
            check_id(setup.game, "game id")
        except IdError as exc:
            raise RecordError(f"--game: {exc}") from None
    players = parse_players(setup.players)
    for side, name in players.items():
        if name in POLICIES:
            raise RecordError(f"player name {name!r} for {side} is the name of a bot policy; "
                              "choose another (bots are for `warlog simulate`)")
    how = {"players": players, "dice": mode, "seed": seed,
           "played": date.today().isoformat()}  # today is read here, never by the engine
    return setup.game or free_game_id(store, scenario), scenario, how


# -- a script ------------------------------------------------------------------------------


@dataclass
class ScriptResult:
    game: str
    orders: int = 0
    withdrawn: int = 0
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


def split_dice(words: list[str]) -> tuple[list[str], list[int] | None]:
    lowered = [w.lower() for w in words]
    if "dice" not in lowered:
        return words, None
    i = lowered.index("dice")
    return words[:i], parse_faces(" ".join(words[i + 1:]))


def run_script(store: EventStore, path: Path, game_id: str, scenario: Scenario | None,
               how: dict[str, Any]) -> ScriptResult:
    """Record the inputs of the script at ``path`` into ``game_id`` (started from ``scenario``
    with ``how`` if it is new). RecordError names the first bad line; all before it is kept."""
    try:  # a regular file under the limit only: a pipe or /dev/zero would never end
        lines = read_text(path, SCRIPT_FILE).splitlines()
    except FileRefused as exc:
        raise RecordError(str(exc)) from None
    result = ScriptResult(game_id)
    rec: Recorder | None = None if scenario is not None else Recorder(store, game_id)
    opening: list[int] = []
    opening_line: int | None = None  # the first `dice` line, for the opening's dice

    def fail(number: int, problem: str) -> RecordError:
        return RecordError(f"{path} line {number}: {problem}")

    def begin(number: int) -> Recorder:
        assert scenario is not None
        try:
            started = start_game(store, scenario, game_id, faces=opening, **how)
        except DiceError as exc:  # more dice than the opening rolls, or dice it does not take
            raise fail(opening_line or number, str(exc)) from None
        if not started:
            raise fail(number, f"the game opens with dice rolls (army tables or a roll-off) and "
                       f"needs die number {len(opening) + 1}: give them first, on `dice` lines")
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
            elif verb == "concede" and len(words) == 2:
                rec.concede_as_player(words[1])
            elif verb == "dice":
                if rec.dice(parse_faces(" ".join(words[1:]))) is not None:
                    result.orders += 1
            else:
                if rec.pending is not None:
                    raise RecordError(
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
        except RecordError as exc:
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


# -- forking ---------------------------------------------------------------------------------


def rest_points(events: list[Event]) -> list[int]:
    """Every length a prefix of ``events`` may be cut to and leave a game waiting for an order
    (or over): just before each input, and the whole log."""
    return [i for i in range(1, len(events)) if events[i]["kind"] in INPUT_KINDS] + [len(events)]


def fork(store: EventStore, game_id: str, at: int, new_id: str | None = None,
         players: str | dict[str, str] | None = None, by: str | None = None
         ) -> tuple[str, int]:
    """Start a new game from event ``at`` of ``game_id``: its events up to there, cut back to
    the last point where the game waits for an order, under a new game id (the store builds
    the new hash chain). ``players`` (``red=NAME,blue=NAME`` or a mapping; a side not named
    keeps its seat) reseats it: a seats_changed event after the copied ones, signed ``by``.
    Returns (new id, the seq it was cut at)."""
    events = store.read(game_id)
    if not 1 <= at <= len(events):
        raise RecordError(f"{game_id} has events 1 to {len(events)}: there is no event {at}")
    points = rest_points(events)
    cut = max((k for k in points if k <= at), default=None)
    if cut is None:
        raise RecordError(f"event {at} is inside {game_id}'s opening: the game first waits for "
                          f"an order after event {points[0]}; fork at {points[0]} or later")
    given = new_id is not None
    if new_id is None:
        n = 1
        while store.has_game(f"{game_id}-fork-{n}"):
            n += 1
        new_id = f"{game_id}-fork-{n}"
    try:
        check_id(new_id, "game id")
    except IdError as exc:
        raise RecordError(f"--new-id: {exc}" if given else
                          f"the new game's id {exc.args[0].removeprefix('the game id ')}; give "
                          "one with --new-id") from None
    copied = [{**e, "game": new_id} for e in events[:cut]]
    if players is not None:
        copied.append(_reseated(copied, players, by))
    report = verify(copied)
    if not report.ok:
        raise RecordError(f"{game_id} does not verify up to event {cut}, so it cannot be "
                          f"forked there: {report.mismatch.message}")  # type: ignore[union-attr]
    store.append(new_id, copied, 0)
    return new_id, cut


def _reseated(events: list[Event], players: str | dict[str, str], by: str | None) -> Event:
    """The seats_changed event that reseats the game ``events`` at its end (a side not named
    keeps its seat: its player, or the side's own name when it had none, as orders are signed);
    RecordError naming the rule it breaks."""
    state = Game(events).state
    current = {side: state.players.get(side, side) for side in ("red", "blue")}
    given = parse_players(players, current) if isinstance(players, str) else {**current,
                                                                              **players}
    try:
        return reseat(state, given, by)
    except InputError as exc:
        raise RecordError(f"--players: cannot change the seats: {exc}") from None
