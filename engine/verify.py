"""verify: re-derive a whole game from its inputs and compare, event by event, with the log.

The inputs of a game are its first event (scenario, options, seed, players), its orders and, for
a tabletop game, its dice. Everything else is a consequence, and the rules must produce it again
byte for byte. For a seeded game the dice are re-rolled from the seed, and for a side played by a
bot its orders are re-chosen by that bot, so an edited die or order is caught where it stands.
The first difference is reported: the rules changed, the file was edited, or the engine has a bug.

Two kinds of event are inputs that decide no consequence: a ``note`` (about an event before it,
with that event's turn: the note ``engine.inputs.expected_note`` makes there) and an
``order_retracted`` (an order withdrawn at the table before its dice were entered): the rules
must accept the withdrawn order where it stands, and the event must be the one ``retraction``
makes there. Two more inputs stand where an order could: ``seats_changed`` (who plays each side
from there on: the one ``engine.game.reseat`` makes there, every side named, no bot with manual
dice; the orders after it are checked against the new seats, a bot's re-chosen) and
``side_conceded`` (a side a person plays gives up: it and the ``game_ended`` after it must be
what ``engine.game.concede`` makes there). What every input field may hold is stated once, in engine/inputs.py: an order's
signature, a table die's face, a note's envelope, the caps on notes and withdrawn orders (and
every field's own rule and cap, in events/fields.py).

verify never raises, whatever it is given (a hand-edited file, a damaged database): anything the
rules cannot follow is reported as the mismatch at the event where they stopped.
:func:`what_was_checked` says in words what an ok report proves, and
:func:`require_rederived` is the gate every import goes through.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from warlog.engine.bots import POLICIES, SEARCH_POLICIES, next_order
from warlog.engine.dice import DiceError, RecordedDice, SeededDice
from warlog.engine.fold import TAKEBACK, FoldError, LiveLine
from warlog.engine.game import concede, decide, opening, reseat
from warlog.engine.inputs import InputError, check_retractions, check_signature, expected_note
from warlog.engine.rules import IllegalOrder
from warlog.engine.scenario import ScenarioError
from warlog.engine.state import SIDES, GameState
from warlog.engine.takeback import TakeBackError, take_back
from warlog.events import model
from warlog.events.fields import first_problem
from warlog.events.orders import Order, parse_order
from warlog.events.replay_file import ReplayError

Event = dict[str, Any]


@dataclass(frozen=True)
class Mismatch:
    seq: int
    message: str


@dataclass(frozen=True)
class Report:
    """What verify found. ``dice``: the game's dice ("seeded": re-rolled from the seed, or
    "manual": taken from the log); ``bots``: (side, policy) for each side a bot played, whose
    orders were re-chosen (``bot_orders`` of the ``orders``)."""

    events: int
    orders: int
    finished: bool
    mismatch: Mismatch | None = None
    dice: str | None = None
    bots: tuple[tuple[str, str], ...] = ()
    bot_orders: int = 0

    @property
    def ok(self) -> bool:
        return self.mismatch is None


class _Stop(Exception):
    def __init__(self, seq: int, message: str) -> None:
        # One line, whatever an exception's text holds (pydantic's runs over several).
        lines = [line.strip() for line in message.splitlines()
                 if line.strip() and not line.strip().startswith("For further information")]
        self.mismatch = Mismatch(seq, " ".join(lines))


class _Withheld(Exception):
    """The first die of an order whose dice were never given."""


class _NoDice:
    """A dice source with no dice: the rules go as far as the order's first die."""

    rolled = 0

    def roll(self, sides: int = 6) -> int:
        raise _Withheld


def check_order(state: GameState, order: Order) -> None:
    """Raise IllegalOrder unless the rules accept ``order`` in ``state``, as far as they go
    before its first die (``state`` is left untouched)."""
    try:
        decide(state, order, _NoDice())
    except _Withheld:
        pass


def retraction(state: GameState, order: Order, by: str | None = None) -> Event:
    """The order_retracted event that withdraws ``order`` where ``state`` waits for an order:
    what a recorder appends on ``undo``, and what verify expects in its place."""
    return model.to_dict(model.OrderRetracted(
        game=state.game, seq=state.seq + 1, turn=state.turn, side=state.to_act,
        phase=state.phase, order=order, by=by))


def _short(value: Any, width: int = 100) -> str:
    """repr(value), cut short: a message stays one readable line whatever the log holds."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _describe(event: Event) -> str:
    if not isinstance(event, dict):
        return f"an event that is a {type(event).__name__}, not an object"
    seq, kind = event.get("seq", "?"), event.get("kind", "?")
    seq = seq if type(seq) is int or seq == "?" else _short(seq, 24)
    kind = (kind if type(kind) is str and len(kind) <= 40 and kind.isprintable()
            else _short(kind, 40))
    return f"event seq {seq} ({kind})"


_ABSENT = object()


def _compare(logged: list[Event], derived: list[Event], after_seq: int) -> None:
    for have, want in zip(logged, derived):
        if have == want:
            continue
        if not isinstance(have, dict):
            raise _Stop(want["seq"], f"{_describe(have)}: the rules give a {want['kind']} event")
        keys = sorted(set(have) | set(want), key=str)
        key = next(k for k in keys if have.get(k, _ABSENT) != want.get(k, _ABSENT))
        said = _short(have[key]) if key in have else "missing"
        given = _short(want[key]) if key in want else "nothing"
        raise _Stop(  # named by where it stands: its own seq field may be the edit
            want["seq"],
            f"{_describe(have)}: {key} is {said} in the log, but the rules give {given}",
        )
    if len(logged) < len(derived):
        missing = derived[len(logged)]
        raise _Stop(missing["seq"], f"the log stops after seq {after_seq + len(logged)}, but the "
                    f"rules continue with a {missing['kind']} event")


def _check_retraction(state: GameState, logged: Event, i: int) -> None:
    """An order_retracted event: its order legal where it stands, the event as the rules
    would write it there."""
    seq = logged.get("seq", i + 1)
    try:
        order = parse_order(logged["order"])
        derived = retraction(state, order, logged.get("by"))
    except ValidationError as exc:
        raise _Stop(seq, f"{_describe(logged)}: not a valid withdrawn order: "
                    f"{first_problem(exc)}") from None
    except KeyError:
        raise _Stop(seq, f"{_describe(logged)}: not a valid withdrawn order: it has no order") \
            from None
    player = state.players.get(state.to_act or "")
    if player in POLICIES or logged.get("by") in POLICIES:
        raise _Stop(seq, f"{_describe(logged)}: a bot takes no order back ({state.to_act} is "
                    f"played by {player!r})")
    try:
        check_signature(state, logged.get("by"))
    except InputError as exc:
        raise _Stop(seq, f"{_describe(logged)}: {exc}") from None
    try:
        check_order(state, order)
    except IllegalOrder as exc:
        raise _Stop(seq, f"{_describe(logged)}: the withdrawn order is illegal: {exc}") from None
    _compare([logged], [derived], i)


Progress = Callable[[int, int], None]  # (orders re-derived, orders in the log)


def search_sides(first: Event, events: list[Event] | None = None) -> list[str]:
    """The sides a search bot played, in ``first`` (a game_started event), or, given the whole
    log (``events``), seated by any seats_changed event in it too: re-choosing each of its
    orders plays its playouts again, seconds an order, so verifying such a game takes minutes,
    where any other takes a second."""
    seatings = [first] + [e for e in events or () if isinstance(e, dict)
                          and e.get("kind") == "seats_changed"]
    found: set[str] = set()
    for seating in seatings:
        players = seating.get("players") if isinstance(seating, dict) else None
        if isinstance(players, dict):
            found.update(side for side in SIDES if players.get(side) in SEARCH_POLICIES)
    return [side for side in SIDES if side in found]


def order_count(events: list[Event]) -> int:
    """The orders in a log: what ``progress`` counts up to."""
    return sum(isinstance(e, dict) and e.get("kind") == "order_given" for e in events)


@dataclass(frozen=True)
class _Deferred:
    """A bot's order whose re-choice runs elsewhere (``pool``) while the consequences go on:
    what the mismatch would say, and the counts verify had reached there."""

    seq: int
    orders: int  # orders re-derived before it
    bot_orders: int  # bot orders met, it included
    said: str  # "<event>: the <bot> bot playing <side>"
    order: Order
    chosen: Future


def verify(events: list[Event], progress: Progress | None = None,
           pool: Executor | None = None) -> Report:
    """Check that every consequence in ``events`` follows from its inputs. Never raises: what
    the rules cannot follow is the mismatch, at the event where they stopped. ``progress`` is
    told (orders re-derived, orders in the log) as each order is. With ``pool`` (processes),
    bots' orders are re-chosen there, side by side, while the consequences are followed here:
    the report is the one verify gives without it, the first difference whichever kind it is."""
    at: dict[str, Any] = {"at": 0, "orders": 0, "bot_orders": 0}
    deferred: list[_Deferred] = []
    total = 0
    try:
        total = order_count(events)
        tell = progress or _silent
        tell(0, total)
        report = _rederive(events, at, tell if pool is None else _silent, total, pool, deferred)
    except Exception as exc:  # noqa: BLE001 - a log the rules cannot follow is a finding
        report = _crashed(events, at, exc)
    if pool is None:
        return report
    return _settle(report, deferred, events, progress or _silent, total)


def _settle(report: Report, deferred: list[_Deferred], events: list[Event], tell: Progress,
            total: int) -> Report:
    """The deferred re-choices, in order, up to the report's own mismatch: the first bot order
    that differs is the mismatch instead (verify without a pool would have stopped there)."""
    for n, d in enumerate(deferred):
        if report.mismatch is not None and d.seq >= report.mismatch.seq:
            break
        chosen = d.chosen.result()
        if chosen != d.order:
            for later in deferred[n + 1:]:
                later.chosen.cancel()
            first = events[0] if isinstance(events[0], dict) else {}
            return Report(len(events), d.orders, False,
                          Mismatch(d.seq, f"{d.said} orders {chosen.model_dump()}, the log says "
                                          f"{d.order.model_dump()}"),
                          **_inputs(first, {"bot_orders": d.bot_orders,
                                             "seated": list(report.bots)}))
        tell(d.orders + 1, total)
    for left in deferred:
        left.chosen.cancel()
    tell(report.orders, total)
    return report


def _snapshot(state: GameState) -> GameState:
    """The position a bot chooses from, to send to another process: without the per-game memo
    (values that are always the value: nothing a bot chooses depends on what it holds)."""
    copy = state.copy()
    copy.memo = {}
    return copy


def _crashed(events: list[Event], at: dict[str, Any], exc: Exception) -> Report:
    """The report of a log the rules could not follow at all (an exception, not a mismatch)."""
    where_at = at["at"]
    try:
        event = events[where_at]
        seq = event.get("seq") if isinstance(event, dict) else None
        seq = seq if type(seq) is int and seq >= 1 else where_at + 1
        where = _describe(event)
    except Exception:  # noqa: BLE001 - not even a list of events
        seq, where = 1, "the log"
    what = (f"no {_short(exc.args[0], 40)} field where the rules need one"
            if isinstance(exc, KeyError) and exc.args
            else f"{type(exc).__name__}: {_short(str(exc))}")
    message = f"{where}: the rules cannot follow it ({what})"
    try:
        count = len(events)
    except TypeError:
        count = 0
    return Report(count, at["orders"], False, Mismatch(seq, message))


def _silent(done: int, total: int) -> None:
    pass


def _rederive(events: list[Event], progress: dict[str, Any], tell: Progress, total: int,
              pool: Executor | None, deferred: list[_Deferred]) -> Report:
    orders = notes = retracted = taken = 0
    state = None
    first: Event = {}
    try:
        if not events or not isinstance(events[0], dict) or events[0].get("kind") != "game_started":
            raise _Stop(1, "a game log starts with its game_started event")
        first = events[0]
        _check_inputs(first, events)
        dice = (SeededDice(first.get("seed") or 0) if first["dice"] == "seeded"
                else RecordedDice.from_events(events))
        try:
            derived = opening(first, dice)
        except (ScenarioError, ValueError, KeyError) as exc:
            said = str(exc).removeprefix(f"{_describe(first)}: ")
            raise _Stop(1, f"{_describe(first)}: cannot start the game: {said}") from None
        _compare(events[1 : 1 + len(derived)], derived, 1)
        line = LiveLine()
        state = line.push(first)
        for event in derived:
            line.push(event)
        i = 1 + len(derived)
        while i < len(events):
            progress["at"], progress["orders"] = i, orders
            logged = events[i]
            if not isinstance(logged, dict):
                raise _Stop(i + 1, f"{_describe(logged)}: every event is a JSON object")
            if logged.get("kind") == "note":  # a comment, not a consequence: its own rules
                try:
                    derived_note = expected_note(events, state, logged, notes)
                except InputError as exc:
                    raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: {exc}") from None
                _compare([logged], [derived_note], i)
                notes += 1
                line.push(logged)
                i += 1
                continue
            if logged.get("kind") == TAKEBACK:  # a side's own orders taken back: go back
                _taken_back(line, events, i, taken)
                state = line.state
                taken += 1
                i += 1
                continue
            if state.ended:
                raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)} comes after the end "
                            "of the game")
            if logged.get("kind") in _TABLE_INPUTS:  # seats changed, a side conceded
                i += _TABLE_INPUTS[logged["kind"]](line, events, i, progress)
                continue
            if logged.get("kind") == "order_retracted":  # withdrawn before its dice: no state
                try:
                    check_retractions(retracted)
                except InputError as exc:
                    raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: {exc}") from None
                _check_retraction(state, logged, i)
                retracted += 1
                line.push(logged)
                i += 1
                continue
            if logged.get("kind") != "order_given":
                raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: the rules wait for "
                            "an order here")
            try:
                order = parse_order(logged["order"])
            except (ValidationError, KeyError) as exc:
                raise _Stop(logged["seq"],
                            f"{_describe(logged)}: not a valid order: {exc}") from None
            player = state.players.get(state.to_act)
            by = logged.get("by")
            if by in POLICIES and player != by:
                raise _Stop(logged["seq"], f"{_describe(logged)}: the order is signed by the {by} "
                            f"bot, but {state.to_act} is played by {_short(player)}")
            if player not in POLICIES:
                try:
                    check_signature(state, by)
                except InputError as exc:
                    raise _Stop(logged["seq"], f"{_describe(logged)}: {exc}") from None
            else:
                progress["bot_orders"] += 1
                by = player  # a bot's orders are signed with its policy's name
                said = f"{_describe(logged)}: the {player} bot playing {state.to_act}"
                if pool is not None:
                    deferred.append(_Deferred(logged["seq"], orders, progress["bot_orders"], said,
                                              order, pool.submit(next_order, _snapshot(state))))
                else:
                    chosen = next_order(state)
                    if chosen != order:
                        raise _Stop(logged["seq"], f"{said} orders {chosen.model_dump()}, the "
                                    f"log says {order.model_dump()}")
            try:
                produced = decide(state, order, dice, by=by)
            except IllegalOrder as exc:
                raise _Stop(logged["seq"],
                            f"{_describe(logged)}: the order is illegal: {exc}") from None
            except DiceError as exc:
                raise _Stop(logged["seq"], f"{_describe(logged)}: {exc}") from None
            _compare(events[i : i + len(produced)], produced, i)
            for event in produced:
                line.push(event)
            orders += 1
            tell(orders, total)
            i += len(produced)
    except _Stop as stop:
        return Report(len(events), orders, False, stop.mismatch, **_inputs(first, progress))
    except FoldError as exc:
        seq = events[progress["at"]].get("seq", 1) if progress["at"] else 1
        return Report(len(events), orders, False, Mismatch(seq, str(exc)),
                      **_inputs(first, progress))
    return Report(len(events), orders, bool(state and state.ended), **_inputs(first, progress))


def _taken_back(line: LiveLine, events: list[Event], i: int, taken: int) -> None:
    """An orders_taken_back event: the one ``take_back`` makes where the game stands, for the
    log's own side, count and signer (the rule of engine/takeback.py: the side's own orders
    since anything else decided the game, a person's side); then the line goes back to the
    position before them, and the orders after it are checked from there. The voided orders
    were re-derived as given, their dice drawn: a seeded game's dice go on from there."""
    logged = events[i]
    try:
        derived = take_back(line.state, events[:i], logged.get("side"), logged.get("orders"),
                            logged.get("by"), taken=taken)
    except TakeBackError as exc:
        raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: {exc}") from None
    _compare([logged], [derived], i)
    line.push(logged)


def _seats_changed(line: LiveLine, events: list[Event], i: int,
                   progress: dict[str, Any]) -> int:
    """A seats_changed event: the one ``reseat`` makes where the game stands, with the log's
    own players and signer; folded, so the orders after it are checked against the new seats
    (a bot seated here has its orders re-chosen). Every bot seated is remembered for the
    report. Returns the events it took (one)."""
    logged = events[i]
    try:
        derived = reseat(line.state, logged.get("players"), logged.get("by"))
    except InputError as exc:
        raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: {exc}") from None
    _compare([logged], [derived], i)
    line.push(logged)
    seated = progress.setdefault("seated", [])
    seated.extend((side, name) for side, name in logged["players"].items()
                  if name in POLICIES and (side, name) not in seated)
    return 1


def _side_conceded(line: LiveLine, events: list[Event], i: int,
                   progress: dict[str, Any]) -> int:
    """A side_conceded event and the game_ended the engine writes after it, both compared with
    what ``concede`` makes where the game stands. Returns the events they took (two)."""
    logged = events[i]
    try:
        derived = concede(line.state, logged.get("side"), logged.get("by"))
    except InputError as exc:
        raise _Stop(logged.get("seq", i + 1), f"{_describe(logged)}: {exc}") from None
    _compare(events[i : i + len(derived)], derived, i)
    for event in derived:
        line.push(event)
    return len(derived)


_TABLE_INPUTS: dict[str, Callable[[LiveLine, list[Event], int, dict[str, Any]], int]] = {
    "seats_changed": _seats_changed,
    "side_conceded": _side_conceded,
}
"""Inputs at a rest point that are not orders, each checked by its own function."""


def _check_inputs(first: Event, events: list[Event]) -> None:
    """What the first event claims about who rolled and who chose, checked against itself:
    players are for the two sides only, and bots play only with seeded dice (they cannot read
    real dice off a table)."""
    players = first.get("players") or {}
    strangers = [side for side in players if side not in ("red", "blue")] \
        if isinstance(players, dict) else []
    if strangers:
        raise _Stop(1, f"{_describe(first)}: a player for {_short(strangers[0], 40)}, which is "
                    "not a side; the sides are red and blue")
    bots = sorted(side for side, name in players.items() if name in POLICIES) \
        if isinstance(players, dict) else []
    if first.get("dice") == "manual" and bots:
        raise _Stop(1, f"{_describe(first)}: {bots[0]} is played by the {players[bots[0]]} bot, "
                    "but the dice are manual: bots play only with seeded dice")


def _inputs(first: Event, progress: dict[str, Any]) -> dict[str, Any]:
    """The report's word on the inputs: the dice, and every (side, bot) that played, those of
    the first event (red first, as people say), then those seated later, in order."""
    players = first.get("players") if isinstance(first, dict) else None
    bots = tuple((side, players[side]) for side in SIDES
                 if players.get(side) in POLICIES) if isinstance(players, dict) else ()
    bots += tuple(seat for seat in progress.get("seated", ()) if seat not in bots)
    dice = first.get("dice") if isinstance(first, dict) else None
    return {"dice": dice if isinstance(dice, str) else None, "bots": bots,
            "bot_orders": progress["bot_orders"]}


def what_was_checked(report: Report, *, chain: bool = True, chain_error: str | None = None) -> str:
    """In words, what ``report`` proves about a game (``chain``: its hash chain was checked too;
    ``chain_error``: what that check found wrong, if anything).

    A seeded game with bots on both sides is re-derived entirely: the dice re-rolled from the
    seed and every order re-chosen by its bot, so nothing is taken on trust. Orders a player gave,
    and dice rolled on a real table (manual dice), are inputs: verify takes them from the log and
    checks everything that follows from them, which proves the game consistent with the rules,
    not that the dice fell that way or that the players chose those orders. The first event (the
    scenario, options, seed and players) is every game's input, taken as given."""
    if chain_error is not None:
        return f"Not verified: the hash chain is broken: {chain_error}"
    chained = "hash chain intact; " if chain else ""
    if not report.ok:
        intact = "the hash chain is intact, but " if chain else ""
        return f"Not verified: {intact}the game does not re-derive: {report.mismatch.message}"
    parts = [f"Verified: {chained}{report.events} events re-derived from their inputs "
             f"({report.orders} orders)"]
    bots = dict(report.bots)
    if report.dice == "seeded":
        parts.append("seeded dice re-rolled from the seed")
    else:
        parts.append("dice taken as the players rolled them (manual dice)")
    if report.orders and report.bot_orders == report.orders:
        played = ", ".join(f"{side}: {name}" for side, name in report.bots)
        parts.append(f"every order re-chosen by its bot ({played}); nothing but the first event "
                     "(scenario, options, seed) taken as given")
    elif bots:
        played = ", ".join(f"{side}'s by the {name} bot" for side, name in report.bots)
        parts.append(f"bot orders re-chosen ({played}); the players' orders taken as their own")
    else:
        parts.append("orders taken as the players' own")
    if report.dice != "seeded":
        parts.append("a tabletop game with manual dice proves only that it is consistent with "
                     "the rules")
    elif report.orders and report.bot_orders < report.orders:
        parts.append("the players' orders are proven legal, not chosen")
    return "; ".join(parts) + "."


class NotRederived(ReplayError):
    """A game that does not re-derive from its inputs: refused, nothing stored."""

    def __init__(self, source: Any, mismatch: Mismatch) -> None:
        self.source, self.mismatch = source, mismatch
        super().__init__(f"{source}: line {mismatch.seq + 1}: refused: the game does not "
                         f"re-derive from its own orders and dice: {mismatch.message}")


def require_rederived(events: list[Event], source: Any = "replay",
                      progress: Progress | None = None, pool: Executor | None = None) -> Report:
    """verify ``events`` (a replay's, line N + 1 holding seq N); NotRederived naming the line
    and the first difference unless every event follows from the game's inputs."""
    report = verify(events, progress, pool)
    if not report.ok:
        raise NotRederived(source, report.mismatch)
    return report
