"""What the Play page's inputs mean for its session state, decided without Streamlit.

The page (views/play.py) parses a click, calls one of these and shows what they leave behind;
what an input means for the game and its seats is the Session's (warlog/app/session.py). Here
is only what lives between two runs of the page: the open table, the selected unit, the orders a
click offered, the dice an order waits for, the page's one line about the last input, the bots
started by this page, the seat links its starter was given, and the address. Every function
takes the session state (``session``: ``st.session_state``, a plain dict in tests) and, where
the address matters, the query parameters (``params``: ``st.query_params``), so it is tested
as plain Python.

Keys: ``play_game`` (the game being played), ``play_unit`` (the selected unit), ``play_offer``
(several orders one click offered), ``play_table`` (the open table: an order waiting for its
dice lives only there), ``play_dice`` (what that order waits for), ``play_message`` (the line).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from warlog.app.errors import GameMovedOn, PlayError
from warlog.app.session import Session
from warlog.app.table_dice import DiceNeeded
from warlog.engine.narration import takeback_text
from warlog.events.orders import Order
from warlog.events.store import EventStore

State = MutableMapping[str, Any]

MOVED_ON = ("The game moved on before your click arrived (another page, a bot or the command "
            "line moved first): nothing was given. Look at the board as it stands and click "
            "again.")

_GAME_KEYS = ("play_game", "play_unit", "play_offer", "play_dice", "play_bots_started_at",
              "play_seat_token", "play_links", "play_reseat")


# -- the table and the address ------------------------------------------------------------------


def table_of(session: State, path: str, game: str, open_store: Callable[[str], EventStore],
             hold: Callable[[EventStore], None]) -> Session:
    """The open table of ``game``, kept across reruns (a pending order lives in it), read again
    if anyone appended meanwhile (the orders a click offered are then dropped). A table for
    another game, database or seat is closed and replaced; ``hold`` registers its store with
    the browser session (dashboard/table_registry.py gives it back when the session ends)."""
    held = session.get("play_table")
    token = session.get("play_seat_token")
    if held is None or held[0] != (path, game, token):
        if held is not None:
            held[1].recorder.store.close()  # the table it replaces
        store = open_store(path)
        try:
            held = ((path, game, token), Session(store, game, token))
        except BaseException:
            store.close()
            raise
        session["play_table"] = held
    table = held[1]
    hold(table.recorder.store)
    if table.refresh():
        session.pop("play_offer", None)
    return table


def leave(session: State, params: State) -> None:
    """The game is left: its table closed, everything the page kept about it forgotten, the
    address back to the landing."""
    held = session.pop("play_table", None)
    if held is not None:
        held[1].recorder.store.close()
    for key in _GAME_KEYS:
        session.pop(key, None)
    for param in ("play", "seat"):
        params.pop(param, None)


def open_game(session: State, params: State, game: str,
              links: dict[str, str] | None = None) -> None:
    """Open ``game`` at the table (any game held before left), its id in the address; ``links``:
    the seat links of a game this page just started, to show its starter."""
    leave(session, params)
    session["play_game"] = game
    if links:
        session["play_links"] = (game, links)  # this game's, never shown for another
    params["play"] = game
    session["play_link_read"] = (game, None)


def links_of(session: State, game: str) -> dict[str, str] | None:
    """The seat links this page issued for ``game`` when it started it (None for any other
    game: a page that started one game never shows its links on another)."""
    held = session.get("play_links")
    return held[1] if isinstance(held, tuple) and held[0] == game else None


def read_link(session: State, params: State) -> None:
    """A link to a game (``?play=ID``, with ``&seat=TOKEN`` for a player's seat) opens it,
    once per link: the page then goes on as usual. (``play``, not the Replay page's ``game``:
    a game being watched in the replay is not thereby opened at the table.)"""
    game, token = params.get("play"), params.get("seat")
    if game is None or session.get("play_link_read") == (game, token):
        return
    session["play_link_read"] = (game, token)
    links = links_of(session, game)
    leave(session, params)
    if links and token in links.values():
        session["play_links"] = (game, links)  # the starter opened one of its own
    session["play_game"] = game
    session["play_seat_token"] = token
    session["play_link_read"] = (game, token)


def keep_address(session: State, params: State, table: Session, game: str) -> None:
    """The address names the game, and the seat this page holds, so a reload reopens both (a
    seat link's token stays in its own tab's address, where it came from); a token that is no
    seat of this game is dropped from it (the page watches, and says so)."""
    token = session.get("play_seat_token")
    seat = token if token is not None and table.holds is not None else None
    if params.get("play") != game or params.get("seat") != seat:
        params["play"] = game
        if seat is None:
            params.pop("seat", None)
        else:
            params["seat"] = seat
        session["play_link_read"] = (game, seat)


def to_replay(session: State, game: str) -> None:
    """The Replay page opens on ``game`` (its own keys, read as a link's would be)."""
    session["game"] = game
    session["source"] = "Database"
    session["game_link_read"] = True


# -- inputs -------------------------------------------------------------------------------------


def say(session: State, kind: str, text: str) -> None:
    """The page's one line for the last input: "info" (why a click gave nothing), "warning"
    (the game moved on), "error" (a refusal), "success" (a note written)."""
    session["play_message"] = (kind, text)


def stale(session: State, table: Session, seen: int | None) -> bool:
    """Whether an input was made on a board drawn before the game moved on (the Session
    decides); such an input is refused with a line, and the orders offered are dropped."""
    if table.moved_since(seen):
        session.pop("play_offer", None)
        say(session, "warning", MOVED_ON)
        return True
    return False


def attempt(session: State, action: Callable[[], Any]) -> tuple[bool, Any]:
    """Run one input: (True, what it returned), or (False, None) with its refusal as the page's
    one line (a warning when the game moved on, else an error)."""
    try:
        return True, action()
    except PlayError as exc:
        say(session, "warning" if isinstance(exc, GameMovedOn) else "error", str(exc))
        return False, None


def act(session: State, table: Session, action: Callable[[], Any]) -> None:
    """Run one input; its failure (or the dice it now waits for) becomes the page's one line."""
    session.pop("play_offer", None)
    done, result = attempt(session, action)
    if done:
        session["play_dice"] = result if isinstance(result, DiceNeeded) else None


def give(session: State, table: Session, order: Order, seen: int | None = None) -> None:
    """A person's order, from a board (or button) drawn at event ``seen``."""
    if not stale(session, table, seen):
        act(session, table, lambda: table.give(order))


def clicked(session: State, table: Session, outcome: Any) -> None:
    """What a click on the board leaves (``outcome``: play_clicks.resolve's): a unit selected,
    an order given, orders offered to choose from, or the line saying why nothing was given."""
    session.pop("play_offer", None)
    if outcome.select is not None:
        session["play_unit"] = outcome.select
    elif outcome.give is not None:
        give(session, table, outcome.give)
    elif outcome.offer:
        session["play_offer"] = list(outcome.offer)
    elif outcome.say:
        say(session, "info", outcome.say)


def forget_position(session: State) -> None:
    """A take-back put the game back where it stood earlier: the selected unit, the orders a
    click offered and the dice an order waited for belonged to the position that is gone."""
    for key in ("play_unit", "play_offer", "play_dice"):
        session.pop(key, None)


def _orders(n: int) -> str:
    return f"{n} order{'s' if n != 1 else ''}"


def take_back(session: State, table: Session, side: str, orders: int) -> None:
    """The take-back control's click: ``side``'s last ``orders`` orders taken back at once (a
    hot-seat game, or against a bot), or the other seat asked to agree (two browsers); the
    page's one line says which, or why not. Nothing of the position that is gone is kept."""
    if table.take_back_needs_asking():
        if attempt(session, lambda: table.ask_take_back(orders))[0]:
            say(session, "info", f"Asked the other seat to agree to take back {side}'s last "
                                 f"{_orders(orders)}: its page shows the question now.")
        return
    done, event = attempt(session, lambda: table.take_back(side, orders))
    if not done:
        return
    forget_position(session)
    say(session, "success", takeback_text(event))


def answer_take_back(session: State, table: Session, agree: bool) -> None:
    """The other seat's Agree or Refuse: the orders taken back (the line says so, and what was
    selected is forgotten) or the request dropped; a refusal of the answer is the line."""
    done, event = attempt(session, lambda: table.answer_take_back(agree))
    if not done:
        return
    if event is None:
        say(session, "info", "You refused: the orders stand, and the asking page says so.")
        return
    forget_position(session)
    say(session, "success", takeback_text(event))


def pick_unit(session: State, picked: str | None) -> None:
    """A unit chosen from the list beside the board (None: none); the last click's offer,
    made for another unit, is dropped."""
    session["play_unit"] = picked
    session.pop("play_offer", None)


def settle_selection(session: State, table: Session) -> str | None:
    """The unit selected on this run (Session.selectable), kept for the next."""
    unit = session["play_unit"] = table.selectable(session.get("play_unit"))
    return unit


def dice_waited(session: State, table: Session) -> DiceNeeded | None:
    """What the order given here waits for; forgotten once no order waits (its dice were given
    or it was taken back elsewhere)."""
    needed = session.get("play_dice")
    if needed is not None and table.pending is None:
        needed = session["play_dice"] = None
    return needed


def side_panel(table: Session, needed: DiceNeeded | None) -> str | None:
    """The panel beside the board: "dice" while an order waits for them, else the turn's
    (Session.turn_panel: "bot", "follow", "orders", or None)."""
    return "dice" if needed is not None else table.turn_panel()


def note(session: State, table: Session) -> None:
    """The note box's text written on the game, and the box emptied; or the line why not."""
    text = session.get("play_note", "").strip()
    if not text:
        say(session, "info", "The note is empty: write something first")
        return
    try:
        event = table.note(text)
    except PlayError as exc:
        say(session, "error", f"The note was not saved: {exc}")
        return
    session["play_note"] = ""
    by = f", signed {event['author']}" if event.get("author") else ""
    say(session, "success", f"Note saved on event {event['about']}{by}: the Replay page shows "
                            "it there.")


def plan(session: State, table: Session, side: str) -> None:
    """``side``'s plan box written on the game, and the box emptied; or the line why not."""
    text = session.get(f"play_plan_{side}", "").strip()
    if not text:
        say(session, "info", "The plan is empty: write it first")
        return
    try:
        table.plan(side, text)
    except PlayError as exc:
        say(session, "error", f"The plan was not saved: {exc}")
        return
    session[f"play_plan_{side}"] = ""
    say(session, "success", f"{side}'s plan is saved: the review's after-action report sets the "
                            "battle against it.")


def reseat(session: State, table: Session, seats: dict[str, Any] | None) -> str | None:
    """The reseat form's result: ``seats`` recorded (None: the seats kept as they were), the
    form closed; or the refusal's line, the form left open to correct it."""
    if seats is not None:
        try:
            table.change_seats(seats)
        except PlayError as exc:
            return str(exc)
    session.pop("play_reseat", None)
    return None


# -- the bots -----------------------------------------------------------------------------------


def paces_here(session: State, table: Session) -> bool:
    """Whether this page sets the bots' pace and pauses them: a page that may play (a seat of
    the game, any page of a game without links, the page that started it), never a watcher."""
    return not table.watches or links_of(session, table.game_id) is not None


def bots_next(session: State, table: Session, run: Any, pace: str) -> str:
    """What the bots' panel does on this run, given the game's latest bots' ``run`` (None: none
    in this server) and the ``pace`` set: "pause" (a run is under way: offer to pause it),
    "bot moves" (a step at a time, or this page already started the bots at this very position:
    wait for a click), "play on" (the last run failed or was paused: a click lets them go on),
    or "start" (they play at once, recorded as started here at this position)."""
    if run is not None and not run.done:
        return "pause"
    held_back = run is not None and (run.error is not None or run.paused)
    position = (table.game_id, len(table.events))
    if held_back:
        return "play on"
    if pace == "a step at a time" or session.get("play_bots_started_at") == position:
        return "bot moves"
    session["play_bots_started_at"] = position
    return "start"


def rerun_now(run: Any, moved: bool, was_running: bool, bot_wait: float) -> bool:
    """Whether the watcher reruns the page: when anyone appended (``moved``), unless the bots
    are playing a whole turn at once and only just began thinking over the next order (each
    rerun costs what a fast bot's turn does); or when the run the page saw under way
    (``was_running``) has ended."""
    whole_turn = (run is not None and not run.done and run.pace == "at once"
                  and run.thinking_for() < bot_wait)
    return (moved and not whole_turn) or (was_running and run is not None and run.done)
