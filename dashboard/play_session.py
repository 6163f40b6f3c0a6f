"""The logic behind the dashboard's Play page (issue 22, "the dashboard becomes the table"),
kept free of Streamlit so it is tested here and the page stays thin: it draws, this decides.

Nothing here re-implements the recording: a game is started as `warlog new` starts it
(warlog/tabletop.py, warlog/record.py) and played through a ``Recorder`` (warlog/record.py),
which checks every order by the rules and appends it with ``expected_seq``. What the page adds is
who sits at each side (a person or a bot), what a person may click (engine/vocabulary.py), the
bot's move, and the errors a page shows in one line: another writer got there first
(``GameMovedOn``), an order the rules refuse (``OrderRefused``), a start the CLI would refuse
(``SeatError``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from warlog.engine import order_reasons, vocabulary
from warlog.engine.bots import POLICIES, SEARCH_POLICIES, next_order
from warlog.engine.dice import DiceError
from warlog.engine.game import decide, opening
from warlog.engine.game import start as opening_events
from warlog.engine.rules import IllegalOrder
from warlog.engine.scenario import Scenario
from warlog.engine.state import GameState
from warlog.dashboard.play_feed import Entry, Feed
from warlog.events import seat_links
from warlog.events.ids import check_id
from warlog.events.orders import Order
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError, EventStore
from warlog.notation import format_order
from warlog.record import Pending, Recorder, RecordError, refusal, start_game
from warlog.tabletop import free_game_id

Event = dict[str, Any]


class PlayError(ValueError):
    """A mistake the Play page shows as it is: one line for the player."""


class SeatError(PlayError):
    """A game the command line would not start either (a bot with manual dice, a person named
    like a bot, an unknown policy): nothing was stored."""


class OrderRefused(PlayError):
    """The rules refused the order (record.refusal's line: the reason, the rule and its text);
    nothing was stored and nothing waits."""


class OpeningDiceNeeded(PlayError):
    """A manual-dice game whose opening rolls dice (armies from the tables, a roll-off) needs
    ``die`` before it can be stored: nothing was stored yet. Give the faces so far and this one
    to ``start`` again."""

    def __init__(self, die: Die) -> None:
        self.die = die
        super().__init__(f"the game opens with dice rolls: roll die {die.number} (d{die.sides})"
                         + (f" for {die.purpose}" if die.purpose else ""))


class GameMovedOn(PlayError):
    """Another page or the command line appended to the game since this table read it, so this
    append was refused whole; the table has read the game again. Nothing was lost or doubled:
    look at the board again and give the order anew if it still stands."""

    LINE = ("The game moved on before your order arrived (another page, a bot or the command "
            "line ordered first): your order was not given. The board shows the game as it "
            "stands now; give your order again if it still makes sense.")


# -- seats and policies ------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """Who sits at a side: a person (``name`` is how the game records them) or a bot (``name``
    is its policy). A stored game knows a bot only by its player name being a policy name,
    which is why a person may not take a policy's name."""

    name: str
    bot: bool = False

    @classmethod
    def person(cls, name: str) -> Seat:
        return cls(name, False)

    @classmethod
    def of_bot(cls, policy: str) -> Seat:
        return cls(policy, True)

    @classmethod
    def of_player(cls, name: str) -> Seat:
        """The seat a stored game's player name stands for."""
        return cls(name, name in POLICIES)


POLICY_WORDS: dict[str, str] = {
    # One line each, from docs/bots.md: how strong, then how fast.
    "random": "any legal order at random, the weakest; instant",
    "aggressive": "closes with the enemy and attacks whenever it can, a fair opponent; fast",
    "cautious": "holds good ground and attacks only the weak or a flank, the weakest of the "
                "heuristics; fast",
    "tactician": "reads the position (walking distances, attack odds, ground), the strongest "
                 "heuristic; fast",
    "search": "playouts over the tactician's best orders, one exchange deep, stronger than the "
              "tactician; slow (about a hundred times its work a move)",
    "deep-search": "the same search two exchanges deep, the strongest bot; slowest (about 2.8 "
                   "times the search, seconds a decision)",
}


def policies() -> list[tuple[str, str]]:
    """Every bot a seat may take, with a word on its strength and speed, for the seat picker.
    KeyError if engine/bots.py gains a policy this module has no word for (a test checks)."""
    return [(name, POLICY_WORDS[name]) for name in POLICIES]


def is_slow(policy: str) -> bool:
    """A search policy plays playouts at every decision: the page should say it is thinking."""
    return policy in SEARCH_POLICIES


def start(store: EventStore, scenario: Scenario, *, game_id: str | None = None,
          seats: dict[str, Seat], dice: Literal["seeded", "manual"] = "seeded",
          seed: int | None = None, played: str | None = None,
          opening_dice: tuple[int, ...] | list[int] = ()) -> str:
    """Store a new game of ``scenario`` with ``seats`` (side -> Seat) and return its id: the
    game `warlog new` starts (its opening, players, dice mode, seed and day), in the same store.
    A seeded game without ``seed`` gets one read from the OS here, at the edge, and recorded, as
    `warlog record --dice auto` does; ``played`` defaults to today. SeatError for what the
    command line refuses; a manual-dice opening that rolls dice needs all of them in
    ``opening_dice``."""
    if dice not in ("seeded", "manual"):
        raise SeatError(f"dice are seeded or manual, not {dice!r}")
    missing = [side for side in scenario.sides if side not in seats]
    if missing:
        raise SeatError(f"no seat for {', '.join(missing)}: every side needs a person or a bot")
    for side, seat in seats.items():
        if seat.bot and seat.name not in POLICIES:
            raise SeatError(f"{side}: no bot is called {seat.name!r}; choose one of "
                            f"{', '.join(POLICIES)}")
        if seat.bot and dice == "manual":
            raise SeatError(f"{side} is the {seat.name} bot: a bot needs seeded dice (verify "
                            "re-chooses its orders from the seed), so choose seeded dice")
        if not seat.bot and seat.name in POLICIES:
            raise SeatError(f"player name {seat.name!r} for {side} is the name of a bot policy; "
                            "choose another, or seat the bot itself")
    if dice == "seeded" and seed is None:
        seed = int.from_bytes(os.urandom(4), "big")  # chance read at the edge, then recorded
    played = played or date.today().isoformat()  # today is read here, never by the engine
    players = {side: seat.name for side, seat in seats.items()}
    game_id = game_id or free_game_id(store, scenario)
    if not any(seat.bot for seat in seats.values()):
        try:
            started = start_game(store, scenario, game_id, players=players, dice=dice,
                                 seed=seed, faces=list(opening_dice), played=played)
        except DiceError as exc:
            raise PlayError(str(exc)) from None
        if not started:
            raise OpeningDiceNeeded(opening_die(scenario, list(opening_dice)))
        return game_id
    # tabletop.new_game refuses every policy name (bots are for `warlog simulate` there), so a
    # game with a bot seat is opened by the engine, with new_game's other checks, seeded dice.
    check_id(game_id, "game id")
    for seat in seats.values():
        check_id(seat.name, "player name")
    if opening_dice:
        raise SeatError("a game with seeded dice rolls its own opening dice: give none")
    events = opening_events(game_id, scenario, seed=seed, players=players, dice="seeded",
                            played=played)
    store.append(game_id, events, 0)
    return game_id


def issue_seat_links(store: SQLiteEventStore, game_id: str, seats: dict[str, Seat]
                     ) -> dict[str, str]:
    """A private seat link (a token) for every person-side of a new game, for two browsers:
    from then on only a side's link orders for it (a bot's side needs none: it plays itself).
    SeatError when no side is a person's."""
    people = [side for side, seat in seats.items() if not seat.bot]
    if not people:
        raise SeatError("seat links are for people: every side here is a bot")
    return seat_links.issue(store, game_id, people)


# -- a game at the table -----------------------------------------------------------------------


@dataclass(frozen=True)
class Die:
    """One die the rules want now: its number among the order's dice, its sides and what for."""

    number: int
    sides: int
    purpose: str | None
    unit: str | None = None


@dataclass(frozen=True)
class DiceNeeded:
    """An order the rules accepted that waits for real dice: what to roll next. Only the next
    die is known: whether (and why) a later one is rolled can hang on this one's face."""

    order: Order
    notation: str
    label: str
    given: tuple[int, ...]
    dice: tuple[Die, ...]

    def prompt(self) -> str:
        wanted = "; ".join(f"die {d.number} (d{d.sides})" + (f" for {d.purpose}" if d.purpose
                                                              else "")
                           + (f", {d.unit}" if d.unit else "") for d in self.dice)
        return f"{self.label}: roll {wanted}"


@dataclass(frozen=True)
class BotStep:
    """What a bot ordered and the events it wrote; ``reason`` is the page's one line."""

    order: Order
    events: list[Event]
    reason: str


class _Probe:
    """Dice for asking the rules what the next wanted die is for: the faces given, then ones.
    The dice_rolled event of die N names its purpose, which only the faces before it decide."""

    mode = "manual"

    def __init__(self, faces: list[int]) -> None:
        self.faces, self.rolled, self.sides = list(faces), 0, []

    def roll(self, sides: int = 6) -> int:
        if self.rolled > 10_000:
            raise DiceError("too many dice")
        self.sides.append(sides)
        face = self.faces[self.rolled] if self.rolled < len(self.faces) else 1
        self.rolled += 1
        return face


class Table:
    """One stored game at the Play page: a Recorder with the seats read from the game, the legal
    orders worked out once per state (the board, the unit list and the fallback list all ask),
    and every append's failure turned into one line."""

    def __init__(self, store: EventStore, game_id: str, seat_token: str | None = None) -> None:
        self.recorder = Recorder(store, game_id)
        self._legal: tuple[tuple[int, int], list[Order]] | None = None
        self._feed = Feed()
        # A game started for several browsers has a private link per person-side
        # (events/seat_links.py): then only the holder of a side's link orders for it, and a
        # page without one watches. A game without links is played from any page (hot-seat).
        sqlite = isinstance(store, SQLiteEventStore)
        self.linked = sqlite and seat_links.has_links(store, game_id)
        self.holds = seat_links.side_of(store, game_id, seat_token) if (
            self.linked and seat_token) else None

    def may_order(self, side: str | None = None) -> bool:
        """Whether this page may give ``side``'s orders (default: the side to act's)."""
        side = self.state.to_act if side is None else side
        return not self.linked or (side is not None and side == self.holds)

    def _check_seat(self) -> None:
        if not self.may_order():
            held = f"this page holds {self.holds}'s seat link" if self.holds else \
                "this page holds no seat link of this game (it watches)"
            raise SeatError(f"{held}: {self.state.to_act}'s orders are given from "
                            f"{self.state.to_act}'s own link")

    @property
    def game_id(self) -> str:
        return self.recorder.game_id

    @property
    def state(self) -> GameState:
        return self.recorder.state

    @property
    def events(self) -> list[Event]:
        return self.recorder.events

    @property
    def pending(self) -> Pending | None:
        """The order waiting for its dice, if any."""
        return self.recorder.pending

    @property
    def seat_to_act(self) -> Seat | None:
        """Whose turn it is (a person or a bot), None once the game has ended."""
        state = self.state
        if state.ended or not state.to_act:
            return None
        return Seat.of_player(state.players.get(state.to_act, state.to_act))

    def legal(self) -> list[Order]:
        """Every legal order now, computed once per state (keyed by the game object and its
        length: an append, a reload or a refresh makes it new)."""
        key = (id(self.recorder.game), len(self.events))
        if self._legal is None or self._legal[0] != key:
            self._legal = (key, [] if self.state.ended else self.recorder.legal())
        return self._legal[1]

    def choices(self, unit: str | None = None) -> vocabulary.Choices:
        """What ``unit`` (None: nobody selected) may do, by what a player clicks."""
        return vocabulary.choices(self.state, unit, self.legal())

    def happened(self) -> list[Entry]:
        """What happened so far, newest first (dashboard/play_feed.py), kept up to date."""
        return self._feed.update(self.events)

    def last_about(self, unit: str) -> Entry | None:
        """The newest step that names ``unit`` (the attack behind a choice it must make)."""
        self.happened()
        return self._feed.last_about(unit)

    def last_seq(self) -> int:
        """The seq of the last stored event this table has read: what the board it drew shows."""
        return self.events[-1]["seq"]

    def units_to_act(self) -> list[str]:
        return vocabulary.units_to_act(self.state, self.legal())

    def label(self, order: Order) -> str:
        return vocabulary.label(self.state, order)

    # -- a person's inputs -----------------------------------------------------------------

    def give(self, order: Order, faces: list[int] | None = None) -> list[Event] | DiceNeeded:
        """A person's order (with the faces of its dice, if any are already rolled): the events
        appended, or DiceNeeded while a manual-dice order waits for its dice. OrderRefused if
        the rules refuse it, GameMovedOn if another writer was first, PlayError if a bot
        holds this side."""
        seat = self.seat_to_act
        if seat is not None and seat.bot:
            raise PlayError(f"{self.state.to_act} is played by the {seat.name} bot: "
                            "let it move (bot_step)")
        self._check_seat()
        return self._input(lambda: self.recorder.give(order, faces))

    def dice(self, faces: list[int]) -> list[Event] | DiceNeeded:
        """More faces for the order waiting for its dice."""
        self._check_seat()
        return self._input(lambda: self.recorder.dice(faces))

    def undo(self) -> Event:
        """Take back the order waiting for its dice (an order_retracted event)."""
        self._check_seat()
        return self._moved_on(self.recorder.undo)

    def note(self, text: str) -> Event:
        """A note on the game; in a game played by links, only from a page holding a seat.
        Its author is the player of the seat this page holds (in a game without links, of the
        person whose turn it is): a page never writes in another player's name. A note the
        record refuses (too long, control characters, a direction override) is one line."""
        if self.linked and self.holds is None:
            raise SeatError("this page watches (it holds no seat link): notes are written "
                            "from a player's seat")
        return self._recorded(lambda: self.recorder.note(text, self.author()))

    def plannable(self) -> list[str]:
        """The sides this page may write a plan for: a person's side this page plays (its own
        in a game played by links) that has not given an order yet (a plan comes first)."""
        from warlog.events.model import first_decision

        return [side for side in self.concedable()
                if first_decision(self.events, side) is None]

    def plan(self, side: str, text: str) -> Event:
        """``side``'s plan for the battle, signed by its player (the review's after-action
        report sets what happened against it)."""
        if side not in self.plannable():
            raise SeatError(f"this page may not write {side}'s plan now: a plan is written by "
                            "the side's own player, before its first order")
        name = self.state.players.get(side)
        author = None if name is None or Seat.of_player(name).bot else name
        return self._recorded(lambda: self.recorder.note(text, author, plan_of=side))

    def author(self) -> str | None:
        """Who this page writes as: the seat's player (a person, never a bot)."""
        side = self.holds if self.linked else self.state.to_act
        name = self.state.players.get(side) if side else None
        return None if name is None or Seat.of_player(name).bot else name

    def bot_step(self) -> BotStep:
        """The bot of the side to act gives one order (engine.bots.next_order, as verify will
        re-choose it), decided with the game's seeded dice and appended with expected_seq."""
        seat = self.seat_to_act
        if seat is None:
            raise PlayError("the game is over: nothing more to play")
        if not seat.bot:
            raise PlayError(f"{self.state.to_act} is {seat.name}'s to play, not a bot's")
        before, side = self.state.copy(), self.state.to_act  # folded forward in place
        order = next_order(self.state)
        label, notation = self.label(order), format_order(order)
        events = self._recorded(lambda: self.recorder.append_bot_order(order))
        because = order_reasons.why(before, order, self.state)
        return BotStep(order, events, f"{seat.name} ({side}): {label} — {notation}"
                       + (f" · {because}" if because else ""))

    def change_seats(self, seats: dict[str, Seat]) -> Event:
        """Who plays each side from here on (a fork continued with fresh seats): a
        seats_changed event. A page holding a seat link may not reseat the game."""
        if self.linked:
            raise SeatError("a game played by seat links keeps its seats: fork it to play on "
                            "with others")
        for side, seat in seats.items():
            if not seat.bot and seat.name in POLICIES:
                raise SeatError(f"player name {seat.name!r} for {side} is the name of a bot "
                                "policy; choose another, or seat the bot itself")
        who = self.seat_to_act
        by = None if who is None or who.bot else who.name
        return self._recorded(lambda: self.recorder.change_seats(
            {side: seat.name for side, seat in seats.items()}, by))

    def concedable(self) -> list[str]:
        """The sides this page may concede for: a person's side, this page's own in a game
        played by links; none once the game is over."""
        state = self.state
        if state.ended:
            return []
        people = [side for side in state.scenario.sides
                  if not Seat.of_player(state.players.get(side, side)).bot]
        return [side for side in people if not self.linked or side == self.holds]

    def concede(self, side: str) -> list[Event]:
        """``side`` gives up the battle: its side_conceded and the game_ended that follows."""
        if side not in self.concedable():
            raise SeatError(f"this page may not concede for {side}")
        by = self.state.players.get(side)
        return self._recorded(lambda: self.recorder.concede(side, by))

    def refresh(self) -> bool:
        """Read the game again if anyone appended since; True if it moved on. An order waiting
        for dice is kept when nothing changed (it is not in the store yet)."""
        rec = self.recorder
        if rec.store.last_seq(rec.game_id) == self.events[-1]["seq"]:
            return False
        rec.reload()
        self._legal = None
        return True

    # -- failures in one line ----------------------------------------------------------------

    def _moved_on(self, append):
        try:
            return append()
        except ConcurrencyError as exc:  # the Recorder has read the game again
            self._legal = None
            raise GameMovedOn(GameMovedOn.LINE) from None

    def _recorded(self, append):
        """An append the Recorder checks itself: its refusal (RecordError) as one line."""
        try:
            return self._moved_on(append)
        except RecordError as exc:
            raise PlayError(str(exc)) from None

    def _input(self, append) -> list[Event] | DiceNeeded:
        try:
            new = self._moved_on(append)
        except IllegalOrder as exc:
            raise OrderRefused(refusal(exc)) from None
        if new is not None:
            return new
        pending = self.recorder.pending
        assert pending is not None
        return self._needed(pending)

    def _needed(self, pending: Pending) -> DiceNeeded:
        die = _probed_die(lambda probe: decide(self.state, pending.order, probe,
                                               by=self.recorder.who),
                          pending.faces, pending.wanted)
        return DiceNeeded(pending.order, pending.text, self.label(pending.order),
                          tuple(pending.faces), (die,))


def _probed_die(play, faces: list[int], number: int) -> Die:
    """Die ``number`` of a resolution, with what it is for: ``play`` resolves with a _Probe (the
    faces given, then ones), and the dice_rolled event of that die names its purpose, which
    only the faces before it decide."""
    probe = _Probe(faces)
    purpose = unit = None
    try:
        rolls = [e for e in play(probe) if e["kind"] == "dice_rolled"]
        if len(rolls) >= number:
            purpose, unit = rolls[number - 1]["purpose"], rolls[number - 1].get("unit")
    except Exception:  # noqa: BLE001 - the purpose is a courtesy; the die is still wanted
        pass
    sides = probe.sides[number - 1] if len(probe.sides) >= number else 6
    return Die(number, sides, purpose, unit)


def opening_die(scenario: Scenario, faces: list[int]) -> Die:
    """The next die a manual-dice opening wants after ``faces``, with what it is for."""
    return _probed_die(  # the opening after its game_started event alone
        lambda probe: opening(opening_events("probe", scenario, seed=0)[0], probe),
        faces, len(faces) + 1)


def fallback_orders(table: Table) -> list[tuple[str, Order]]:
    """Every legal order now in the command line's notation, for the searchable list beside the
    board (what to type when clicking is awkward, and what `warlog orders` prints)."""
    return [(format_order(order), order) for order in table.legal()]
