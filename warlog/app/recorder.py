"""The one order writer: a stored game being recorded, by a person at a table or a page, or by a
bot, every input checked by the rules and appended in its own transaction.

A ``Recorder`` holds one stored game as it was last read. Every order is checked by the rules
(``decide``) against that state; one that rolls dice waits, in a manual-dice game, for the faces
the real dice showed (given all at once or a few at a time), and until they are all in it may be
taken back (``undo``): the withdrawal is appended as an ``order_retracted`` event, a fact that
changes no state, and nothing else of the order is ever written. Every order, note and withdrawal
is appended in its own transaction with ``expected_seq`` = the last seq the recorder read, so a
concurrent writer makes the append fail whole (ConcurrencyError); the recorder then reloads.
What was appended is folded into the state the recorder holds (one fold: the state ``decide``
read is the state the new events move on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warlog.app.errors import PlayError
from warlog.app.notation import format_order, parse_order
from warlog.app.table_dice import MoreDice, TableDice, too_many
from warlog.engine.bots import POLICIES, next_order
from warlog.engine.dice import DiceError, SeededDice
from warlog.engine.fold import evolve, replay
from warlog.engine.game import Game, concede, decide, reseat
from warlog.engine.inputs import InputError, check_retractions
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.engine.state import SIDES, GameState
from warlog.engine.takeback import TakeBackError, last_order_side, take_back
from warlog.engine.verify import retraction
from warlog.events.model import make_note
from warlog.events.orders import Order
from warlog.events.orders import parse_order as order_of
from warlog.events.store import EventStore, StoreError

Event = dict[str, Any]


def refusal(exc: IllegalOrder) -> str:
    """An illegal order's reason, then its rule's id and catalogue text, on one line."""
    rule = catalogue().get(exc.rule)
    text = " ".join(rule.text.split()) if rule else "(not in the catalogue)"
    return f"{exc.message} — rule {exc.rule}: {text}"


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
                raise PlayError(f"there is no order number {text} (1 to {len(legal)})")
            return legal[int(text) - 1]
        return parse_order(text.split())

    # -- the three inputs --------------------------------------------------------------------

    def give(self, order: Order, faces: list[int] | None = None) -> list[Event] | None:
        """Check ``order`` and record it, with ``faces`` if it rolls dice. Return the events
        appended, or None if the order waits for (more of) its dice. IllegalOrder if the rules
        refuse it; then nothing is stored and nothing waits."""
        if self.pending is not None:
            raise PlayError(f"'{self.pending.text}' waits for its dice: give them "
                            "(e.g. dice 4), or undo it")
        state = self.state
        if state.ended:
            raise PlayError("the game is over: nothing more to record")
        if self.who in POLICIES:
            raise PlayError(f"{state.to_act} is played by the {self.who} bot in this game: "
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
            raise PlayError("no order is waiting for dice"
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
            raise PlayError("nothing to undo: undo takes back an order before its dice are "
                            f"entered{done}")
        try:
            check_retractions(sum(e["kind"] == "order_retracted" for e in self.events))
        except InputError as exc:
            raise PlayError(f"cannot undo: {exc}; enter the order's dice instead") from None
        event = retraction(self.state, self.pending.order, self.who)
        self._append([event])
        self.pending = None
        return event

    def take_back(self, side: str | None = None, orders: int = 1) -> Event:
        """Take back ``side``'s last ``orders`` orders (engine/takeback.py's rule: its own
        orders since anything else decided the game, a person's side), signed by its player:
        an orders_taken_back event is appended and the game stands where it stood before them.
        ``side`` None: the side that gave the last order. PlayError saying why not, and nothing
        is written; an order waiting for its dice is undone instead (``undo``)."""
        self._at_rest("orders are taken back")
        if side is None:
            side = last_order_side(self.events)
            if side is None:
                raise PlayError("nothing to take back: no order has been given")
        side = side.strip().lower()
        expected = self.events[-1]["seq"]
        try:
            event = take_back(self.state, self.events, side, orders,
                              self.state.players.get(side, side) if side in SIDES else None)
        except TakeBackError as exc:
            raise PlayError(f"cannot take back: {exc}") from None
        try:
            self.store.append(self.game_id, [event], expected)
        except StoreError:
            self.reload()
            raise
        self.game.events.append(event)
        self.game.state = replay(self.game.events, check=False)
        return event

    def note(self, text: str, author: str | None = None, plan_of: str | None = None) -> Event:
        """A note on the game as it stands (about its last event of the battle); with
        ``plan_of``, that side's plan (refused once the side has given an order)."""
        about = next((e["seq"] for e in reversed(self.events)
                      if e["kind"] not in ("note", "order_retracted")), 1)
        try:
            event = make_note(self.events, about, text, author, plan_of=plan_of)
        except ValueError as exc:
            raise PlayError(str(exc)) from None
        self._append([event])
        return event

    # -- inputs that are not orders: the seats, a concession; a bot's order ------------------

    def _at_rest(self, what: str) -> None:
        """PlayError unless nothing waits for its dice: a seats change or a concession stands
        where an order could, never inside one."""
        if self.pending is not None:
            raise PlayError(f"'{self.pending.text}' waits for its dice: give them or undo it "
                            f"before {what}")

    def change_seats(self, players: dict[str, str], by: str | None = None) -> Event:
        """Seat ``players`` (side -> name, every side; a bot policy's name seats that bot) from
        here on: a seats_changed event is appended, and the orders after it are signed and
        checked with the new seats. PlayError naming the rule if the game is over, an order
        waits for its dice, a side is missing or unknown, a name breaks the id rule, or a bot
        is seated in a manual-dice game."""
        self._at_rest("the seats change")
        try:
            event = reseat(self.state, players, by)
        except InputError as exc:
            raise PlayError(f"cannot change the seats: {exc}") from None
        self._append([event])
        return event

    def concede(self, side: str, by: str | None = None) -> list[Event]:
        """``side`` concedes: its side_conceded event and the game_ended the engine writes
        after it (the other side wins) are appended. Either side a person plays may concede
        (see engine.game.concede). PlayError if the game is over, an order waits for its
        dice, the side is unknown or a bot's, or ``by`` is not its player."""
        self._at_rest(f"{side} concedes")
        try:
            new = concede(self.state, side, by)
        except InputError as exc:
            raise PlayError(f"cannot concede: {exc}") from None
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
        anything else would make a game that does not verify. None: chosen here. PlayError
        if the game is over, nobody or a person holds the side, or the dice are manual."""
        state = self.state
        if state.ended:
            raise PlayError("the game is over: nothing more to play")
        self._at_rest("a bot plays")
        if self.who not in POLICIES:
            raise PlayError(f"{state.to_act} is played by {self.who!r}, not a bot: a person's "
                            "order is given with give()")
        if state.dice_mode != "seeded":
            raise PlayError("bots play only with seeded dice, and this game's are manual")
        return self._append_play(next_order(state) if order is None else order, None)

    # -- appending ---------------------------------------------------------------------------

    def _try_dice(self, faces: list[int]) -> list[Event] | None:
        pending = self.pending
        assert pending is not None
        try:
            new = self._append_play(pending.order, TableDice(faces))
        except MoreDice as more:
            pending.faces, pending.wanted = faces, more.number
            return None
        self.pending = None
        return new

    def _append_play(self, order: Order, dice: TableDice | None) -> list[Event]:
        """Decide ``order`` (the state is left as it is), append what follows, then fold it."""
        expected, by = self.events[-1]["seq"], self.who
        try:
            new = decide(self.state, order, dice if dice is not None else self.game.dice, by=by)
        except Exception:
            if dice is None:  # forget the seeded dice a refused decision drew
                self.game.dice = SeededDice(self.state.seed or 0, self.state.dice_rolled)
            raise
        if dice is not None and dice.rolled < len(dice.faces):
            raise too_many(dice.rolled, len(dice.faces))
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
