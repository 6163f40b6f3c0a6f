"""Take-backs on a page (issue 39): which sides may take orders back from it, and in a game
played from two browsers, the request one seat makes and the other answers.

A mixin of ``session.Session`` (its one concern kept apart from seats and orders): the rule is
engine/takeback.py's, the take-back itself the Recorder's, the requests
events/takeback_requests.py's. In a hot-seat game, or against a bot, a take-back is immediate;
in a game played by seat links with a person on each side, the other seat agrees first.
"""

from __future__ import annotations

from typing import Any

from warlog.app.errors import PlayError, SeatError
from warlog.app.seats import Seat
from warlog.engine.takeback import TakeBackError, orders_to_take_back
from warlog.engine.takeback import take_back as take_back_event
from warlog.events import takeback_requests
from warlog.events.store import StoreError
from warlog.events.takeback_requests import Request

Event = dict[str, Any]


class TakeBackAsks:
    """The take-back methods of a Session (``self`` is the Session)."""

    def take_back_sides(self) -> dict[str, int]:
        """Each side this page may take orders back for now, with how many it may: a person's
        side (this page's own in a game played by links) whose own orders since the last other
        decision (engine/takeback.py's rule) are not none; none while an order waits for dice."""
        if self.pending is not None:
            return {}
        state = self.state
        sides = [side for side in state.scenario.sides
                 if not Seat.of_player(state.players.get(side, side)).bot
                 and (not self.linked or side == self.holds)]
        counts = {side: len(orders_to_take_back(self.events, side)) for side in sides}
        return {side: count for side, count in counts.items() if count}

    def take_back_needs_asking(self) -> bool:
        """Whether a take-back from this page must be agreed by the other seat first: a game
        played by links whose other side is a person's (in a hot-seat game, or against a bot,
        the take-back is immediate)."""
        if not self.linked or self.holds is None:
            return False
        state = self.state
        return any(side != self.holds and not Seat.of_player(state.players.get(side, side)).bot
                   for side in state.scenario.sides)

    def ask_take_back(self, orders: int = 1) -> Request:
        """This page's side asks the other seat to agree to take back its last ``orders``
        orders (events/takeback_requests.py), the game standing where it stands now. The rule
        is checked first, so a request the other seat sees is one the game allows. PlayError
        saying why not (SeatError from a page that holds no seat, or needs no asking)."""
        if self.linked and self.holds is None:
            raise SeatError("this page holds no seat link of this game (it watches): only a "
                            "player asks to take orders back")
        if not self.take_back_needs_asking():
            raise SeatError("no one to ask: take the orders back directly")
        self.refresh()
        side = self.holds
        assert side is not None
        if self.pending is not None:
            raise PlayError(f"'{self.pending.text}' waits for its dice: give them or undo it "
                            "before asking to take orders back")
        try:
            take_back_event(self.state, self.events, side, orders,
                            self.state.players.get(side, side))
        except TakeBackError as exc:
            raise PlayError(f"cannot take back: {exc}") from None
        return self._requests(lambda store: takeback_requests.ask(
            store, self.game_id, side, orders, self.last_seq()))

    def take_back_asked(self) -> Request | None:
        """The take-back request standing for this game: asked, not yet answered, made at the
        position the game still stands at (once the game moves on, it stands no more)."""
        newest = self._newest_request()
        if newest is None or newest.what != takeback_requests.ASKED:
            return None
        return newest if newest.stands_at(self.last_seq()) else None

    def take_back_refused(self) -> Request | None:
        """This page's own request, refused by the other seat while the game stands where it
        was asked (what the asker's page says)."""
        newest = self._newest_request()
        if (newest is None or newest.what != takeback_requests.REFUSED
                or newest.side != self.holds or not newest.stands_at(self.last_seq())):
            return None
        return newest

    def answer_take_back(self, agree: bool) -> Event | None:
        """The other seat's answer to the standing request: agreed, the take-back is appended,
        signed by the asking side's player (the rule checked again by the Recorder); refused,
        the request is dropped. Only from the other side's own seat link. PlayError if no
        request stands (the game moved on, or it was answered)."""
        self.refresh()
        request = self.take_back_asked()
        if request is None:
            raise PlayError("no take-back is asked now (the game moved on, or it was answered)")
        if self.holds is None or self.holds == request.side:
            raise SeatError(f"{request.side}'s request is answered from the other side's own "
                            "seat link")
        if not agree:
            self._requests(lambda store: takeback_requests.answer(
                store, request, self.game_id, takeback_requests.REFUSED))
            return None
        event = self._moved_on(lambda: self.recorder.take_back(request.side, request.orders))
        self._legal = None
        try:  # the answer's row is for the record: the take-back made the request stale anyway
            takeback_requests.answer(self.recorder.store, request, self.game_id,
                                     takeback_requests.AGREED)
        except StoreError:
            pass
        return event

    def request_mark(self) -> int | None:
        """The number of this game's newest take-back row (None: none, or a game without
        links): the watcher reruns the page when it changes, as when the store moves."""
        newest = self._newest_request()
        return None if newest is None else newest.n

    def _newest_request(self) -> Request | None:
        if not self.linked:
            return None
        return takeback_requests.newest(self.recorder.store, self.game_id)

    def _requests(self, write):
        try:
            return write(self.recorder.store)
        except StoreError as exc:
            raise PlayError(str(exc)) from None
