"""Forking: a new game from any point of a stored one, cut back to where it waits for an order,
optionally reseated (``warlog fork``, the Replay page's "Continue from here", the review's "Try
it")."""

from __future__ import annotations

from typing import Any

from warlog.app.errors import PlayError
from warlog.engine.game import Game, reseat
from warlog.engine.inputs import InputError
from warlog.engine.verify import verify
from warlog.events.ids import IdError, check_id, normalised, shown
from warlog.events.store import EventStore

Event = dict[str, Any]

INPUT_KINDS = ("order_given", "note", "order_retracted", "orders_taken_back", "seats_changed",
               "side_conceded")
"""Events that start where the game waits for an order: an order and everything it decides, a
note, a withdrawn order, a take-back, a change of seats, a concession (and the end it decides).
A log cut just before one of them (or at its end) is a game at rest."""


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
            raise PlayError(f"--players takes red=NAME,blue=NAME, not {shown(text)}")
        try:
            players[side] = check_id(normalised(name), "player name")
        except IdError as exc:
            raise PlayError(f"--players: {exc}") from None
    return players


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
        raise PlayError(f"{game_id} has events 1 to {len(events)}: there is no event {at}")
    points = rest_points(events)
    cut = max((k for k in points if k <= at), default=None)
    if cut is None:
        raise PlayError(f"event {at} is inside {game_id}'s opening: the game first waits for "
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
        raise PlayError(f"--new-id: {exc}" if given else
                        f"the new game's id {exc.args[0].removeprefix('the game id ')}; give "
                        "one with --new-id") from None
    copied = [{**e, "game": new_id} for e in events[:cut]]
    if players is not None:
        copied.append(_reseated(copied, players, by))
    report = verify(copied)
    if not report.ok:
        raise PlayError(f"{game_id} does not verify up to event {cut}, so it cannot be "
                        f"forked there: {report.mismatch.message}")  # type: ignore[union-attr]
    store.append(new_id, copied, 0)
    return new_id, cut


def _reseated(events: list[Event], players: str | dict[str, str], by: str | None) -> Event:
    """The seats_changed event that reseats the game ``events`` at its end (a side not named
    keeps its seat: its player, or the side's own name when it had none, as orders are signed);
    PlayError naming the rule it breaks."""
    state = Game(events).state
    current = {side: state.players.get(side, side) for side in ("red", "blue")}
    given = parse_players(players, current) if isinstance(players, str) else {**current,
                                                                              **players}
    try:
        return reseat(state, given, by)
    except InputError as exc:
        raise PlayError(f"--players: cannot change the seats: {exc}") from None
