"""The session a face holds for one stored game: what the Play page and `warlog record`'s prompt
ask and do, decided here so each face only parses, calls and shows.

Nothing here re-implements recording: every input goes through the one order writer
(warlog/app/recorder.py), which checks it by the rules and appends it with ``expected_seq``.
What a session adds is who sits at each side (a person or a bot, seats.py), which side this face
may order for (a game started for several browsers has a private link per person-side), the
legal orders worked out once per state (the board, the unit list and the fallback list all ask),
what a person may click (engine/vocabulary.py), the bots' moves, and every append's failure as
one line: another writer got there first (``GameMovedOn``), an order the rules refuse
(``OrderRefused``), a seat this face does not hold (``SeatError``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warlog.app.errors import GameMovedOn, OrderRefused, PlayError, SeatError
from warlog.app.feed import Entry, Feed
from warlog.app.recorder import Pending, Recorder, refusal
from warlog.app.seats import Seat, check_person
from warlog.app.table_dice import DiceNeeded, probed_die
from warlog.app.takeback_asks import TakeBackAsks
from warlog.engine import order_reasons, vocabulary
from warlog.engine.bots import next_order
from warlog.engine.game import decide
from warlog.engine.rules import IllegalOrder
from warlog.engine.state import GameState
from warlog.engine.takeback import last_order_side
from warlog.events import seat_links
from warlog.events.orders import Order
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.store import ConcurrencyError, EventStore
from warlog.app.notation import format_order

Event = dict[str, Any]


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
class BotStep:
    """What a bot ordered and the events it wrote; ``reason`` is the page's one line."""

    order: Order
    events: list[Event]
    reason: str


class Session(TakeBackAsks):
    """One stored game as a face holds it: the one order writer (a Recorder) with the seats read
    from the game, the legal orders worked out once per state, and every append's failure
    turned into one line."""

    def __init__(self, store: EventStore, game_id: str, seat_token: str | None = None, *,
                 every_seat: bool = False) -> None:
        """``every_seat``: this face holds the database file itself (the command line), so it
        plays every seat, as `warlog order` does; seat links keep browsers apart, not the
        file's holder."""
        self.recorder = Recorder(store, game_id)
        self._legal: tuple[tuple[int, int], list[Order]] | None = None
        self._feed = Feed()
        # A game started for several browsers has a private link per person-side
        # (events/seat_links.py): then only the holder of a side's link orders for it, and a
        # page without one watches. A game without links is played from any page (hot-seat).
        sqlite = isinstance(store, SQLiteEventStore)
        self.linked = sqlite and not every_seat and seat_links.has_links(store, game_id)
        self.holds = seat_links.side_of(store, game_id, seat_token) if (
            self.linked and seat_token) else None

    def may_order(self, side: str | None = None) -> bool:
        """Whether this page may give ``side``'s orders (default: the side to act's)."""
        side = self.state.to_act if side is None else side
        return not self.linked or (side is not None and side == self.holds)

    def _held(self) -> str:
        """What this page holds of a game played by links, for a refusal's first words."""
        return (f"this page holds {self.holds}'s seat link" if self.holds else
                "this page holds no seat link of this game (it watches)")

    def _check_seat(self) -> None:
        if not self.may_order():
            raise SeatError(f"{self._held()}: {self.state.to_act}'s orders are given from "
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
        """What happened so far, newest first (feed.py), kept up to date."""
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

    # -- what a face shows, decided once -------------------------------------------------------

    def person_may_order(self) -> bool:
        """Whether the side to act is a person's whose orders this page may give: only then are
        its units marked, its order widgets drawn and a unit selected for it."""
        seat = self.seat_to_act
        return seat is not None and not seat.bot and self.may_order()

    @property
    def watches(self) -> bool:
        """A game played by seat links of which this page holds none: it follows the moves,
        and writes no note (nor, unless it started the game, sets the bots' pace)."""
        return self.linked and self.holds is None

    def turn_panel(self) -> str | None:
        """What the panel beside the board is about in this turn (an order waiting for its dice
        aside): "bot" (a bot's turn), "follow" (a person's turn given from another page),
        "orders" (this page's person to act), or None once the game has ended."""
        seat = self.seat_to_act
        if seat is None:
            return None
        if seat.bot:
            return "bot"
        return "orders" if self.may_order() else "follow"

    def has_bot(self) -> bool:
        """Whether a bot plays any side (its workers are worth starting as soon as it opens)."""
        return any(Seat.of_player(name).bot for name in self.state.players.values())

    def selectable(self, unit: str | None) -> str | None:
        """The unit to keep selected given the one a page held: None for a unit removed or not
        of the side to act; for a person this page orders for, a unit that has acted is dropped
        and a lone unit that may act is selected for them (a unit that must choose after a
        hit, the last unit of a phase)."""
        state = self.state
        live = unit in state.units and not state.units[unit].removed
        if not live or state.units[unit].side != state.to_act:
            unit = None
        if self.person_may_order():
            acting = self.units_to_act()
            if unit not in acting:  # it has acted (here or on another page)
                unit = acting[0] if len(acting) == 1 else None
        return unit

    def moved_since(self, seen: int | None) -> bool:
        """Whether an input made on the board drawn at event ``seen`` (None: not known) comes
        too late: the game is read again first, and any append since that board means the
        input was made on a phase that may be gone (it is refused, never applied)."""
        moved = self.refresh()
        return moved or (seen is not None and seen != self.last_seq())

    def behind(self) -> bool:
        """Whether the store holds events this table has not read (a look, nothing read)."""
        return self.recorder.store.last_seq(self.game_id) != self.last_seq()

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
            raise PlayError(f"{self.state.to_act} is played by the {seat.name} bot, which gives "
                            "its own orders: a person orders only a side a person plays")
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

    def take_back(self, side: str | None = None, orders: int = 1) -> Event:
        """Take back ``side``'s last ``orders`` orders (default: the side that gave the last
        order); in a game played by links, only from the page holding that side's link. The
        rule and its refusals are the Recorder's (engine/takeback.py)."""
        side = last_order_side(self.events) if side is None else side
        if self.linked and side != self.holds:
            raise SeatError(f"{self._held()}: {side}'s orders are taken back from {side}'s own "
                            "link")
        event = self._moved_on(lambda: self.recorder.take_back(side, orders))
        self._legal = None
        return event

    def note(self, text: str) -> Event:
        """A note on the game; in a game played by links, only from a page holding a seat.
        Its author is the player of the seat this page holds (in a game without links, of the
        person whose turn it is): a page never writes in another player's name. A note the
        record refuses (too long, control characters, a direction override) is one line."""
        if self.linked and self.holds is None:
            raise SeatError("this page watches (it holds no seat link): notes are written "
                            "from a player's seat")
        return self._moved_on(lambda: self.recorder.note(text, self.author()))

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
        return self._moved_on(lambda: self.recorder.note(text, author, plan_of=side))

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
        events = self._moved_on(lambda: self.recorder.append_bot_order(order))
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
            if not seat.bot:
                check_person(side, seat.name)
        who = self.seat_to_act
        by = None if who is None or who.bot else who.name
        return self._moved_on(lambda: self.recorder.change_seats(
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
        return self._moved_on(lambda: self.recorder.concede(side, by))

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
        except ConcurrencyError:  # the Recorder has read the game again
            self._legal = None
            raise GameMovedOn(GameMovedOn.LINE) from None

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
        die = probed_die(lambda probe: decide(self.state, pending.order, probe,
                                               by=self.recorder.who),
                          pending.faces, pending.wanted)
        return DiceNeeded(pending.order, pending.text, self.label(pending.order),
                          tuple(pending.faces), (die,))


def fallback_orders(table: Session) -> list[tuple[str, Order]]:
    """Every legal order now in the command line's notation, for the searchable list beside the
    board (what to type when clicking is awkward, and what `warlog orders` prints)."""
    return [(format_order(order), order) for order in table.legal()]
