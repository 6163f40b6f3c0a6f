"""What happened in a game: one pydantic model per event kind under a common envelope (the
orders some of them carry are in events/orders.py). Here are the envelope and the core's kinds;
each rule system's own kinds are models in its package (engine/rulesets/<system>/events.py),
and ``event_models`` joins them into the union a log is validated against.

The models are the schema. Inside a running process the canonical form of an event is its JSON
dict (``event.model_dump(mode="json")``): that is what the store writes, what the fold reads and
what replay files hold, so reading a game back never pays for validation. Validation happens at
the edges: events made by the engine, files coming in (``parse_event``).
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError, model_validator

from warlog.events.fields import (AuthorName, Cell, Facing, Faces, GameId, MovePath, NoteText,
                                  Options, Period, PerSide, Phase, PlayedDate, PlayerName, Players,
                                  RuleId, Rules, RuleSystem, ScenarioData, Sentence, Sha256, Side,
                                  UnitId, first_problem)
from warlog.events.omits import OmitsUnset  # re-exported: scenarios and events share it
from warlog.events.orders import Order, StrictModel

SCHEMA_VERSION = 3


class Envelope(StrictModel):
    """Fields every event carries. ``cause`` is the seq of the event this one follows from
    (the order, or the phase start); ``rules`` are the ids of the rules that produced it."""

    game: GameId
    seq: int = Field(ge=1)
    turn: int = Field(ge=0)
    side: Side | None = None
    phase: Phase | None = None
    v: int = SCHEMA_VERSION
    cause: int | None = None
    rules: Rules = ()


class GameStarted(OmitsUnset, Envelope):
    """First event of every game: everything needed to rebuild it from nothing.

    ``played`` is the day the game was played, as its recorder said (the engine never reads it:
    no clock in the rules). Unknown (None) it is left out of the dict, so logs written before it
    existed keep their bytes, hashes and golden files."""

    kind: Literal["game_started"] = "game_started"
    rule_system: RuleSystem
    period: Period
    options: Options
    scenario: ScenarioData
    dice: Literal["seeded", "manual"]
    seed: int | None = None
    players: Players = {}
    played: PlayedDate | None = None

    omitted_when_default: ClassVar[tuple[str, ...]] = ("played",)


class PhaseStarted(Envelope):
    kind: Literal["phase_started"] = "phase_started"


class OrderGiven(Envelope):
    kind: Literal["order_given"] = "order_given"
    order: Order
    by: PlayerName | None = None


class DiceRolled(Envelope):
    """A die is a fact: its faces, why it was rolled, and for which unit."""

    kind: Literal["dice_rolled"] = "dice_rolled"
    purpose: Sentence
    faces: Faces
    unit: UnitId | None = None
    sides: int = 6


class UnitTurned(Envelope):
    """``used_move``: the turn spent the unit's move for this turn (a pivot in place)."""

    kind: Literal["unit_turned"] = "unit_turned"
    unit: UnitId
    from_facing: Facing
    to_facing: Facing
    used_move: bool = False


class UnitMoved(Envelope):
    """``stopped_by``: the rule that ended the move before the cells ordered (a terrain feature
    entered), so the order asked for more than the unit could do."""

    kind: Literal["unit_moved"] = "unit_moved"
    unit: UnitId
    path: MovePath
    from_cell: Cell
    to_cell: Cell
    road_bonus: bool = False
    stopped_by: RuleId | None = None


MAX_RETRACTIONS = 5_000
"""Withdrawn orders (``order_retracted`` events) in one game: an undo at the table takes back
one order before its dice, and the longest bundled games hold a few hundred orders. Verify
checks every withdrawn order against the rules where it stands, as it checks an order, so the
cap keeps an import of them within seconds, as ``MAX_NOTES`` does for notes."""
MAX_NOTES = 5_000
"""Notes in one game. A review comments on moments, not on every die: the longest bundled bot
games hold about 3,000 events. The cap keeps a replay of notes within what readers and charts
handle in seconds (every note is read, printed and placed on the timeline)."""


class Note(OmitsUnset, Envelope):
    """A player's note on a moment of the game (the step ending at event ``about``). Appended to
    the log like any fact, it changes no state; replay files keep it.

    A *plan* (``plan`` true) is a side's plan for the battle, written before that side's first
    order (``side`` names it): the review's after-action report sets what happened against it.
    Left out of the dict when false, so every note written before plans existed keeps its
    bytes."""

    omitted_when_default: ClassVar[tuple[str, ...]] = ("plan",)
    kind: Literal["note"] = "note"
    about: int = Field(ge=1)
    text: NoteText
    author: AuthorName | None = None
    plan: bool = False

    @model_validator(mode="after")
    def _a_plan_names_its_side(self) -> Note:
        if self.plan and self.side is None:
            raise ValueError("a plan names the side whose plan it is (side)")
        return self


class OrderRetracted(Envelope):
    """An order a player gave and took back before its dice were entered (``undo`` while
    recording at the table). It was checked against the rules but never decided: it changes no
    state, and this fact is all the log keeps of it (nothing is ever deleted). ``side`` is who
    gave it, ``by`` the player's name."""

    kind: Literal["order_retracted"] = "order_retracted"
    order: Order
    by: PlayerName | None = None


MAX_TAKEBACKS = 1_000
"""Take-backs (``orders_taken_back`` events) in one game. Folding one rebuilds the position it
goes back to from the live log, so the cap keeps a replay of a hostile file within seconds; a
real game holds a handful."""


class OrdersTakenBack(Envelope):
    """A side took back its own orders, from the order of seq ``back_to`` on (a take-back at the
    table or on the Play page): everything from that event up to this one is void, and the game
    stands where it stood before ``back_to``. Allowed while every decision since ``back_to`` is
    that side's and a person plays it (a bot's orders are never taken back); nothing is deleted,
    the voided events stay in the log (the replay shows them struck through) and verify
    re-derives them as given. ``dice_rolled`` is how many dice the game had rolled when the
    take-back was made: a seeded game's dice go on from there, never rolling the same dice
    again for the orders given anew. ``side`` is whose orders, ``by`` its player's name."""

    kind: Literal["orders_taken_back"] = "orders_taken_back"
    back_to: int = Field(ge=1)
    dice_rolled: int = Field(ge=0)
    orders: int = Field(ge=1)
    by: PlayerName | None = None

    @model_validator(mode="after")
    def _names_its_side(self) -> OrdersTakenBack:
        if self.side is None:
            raise ValueError("a take-back names the side whose orders it takes back (side)")
        if self.back_to >= self.seq:
            raise ValueError(f"back_to {self.back_to} is not before the take-back (seq {self.seq})")
        return self


class SeatsChanged(Envelope):
    """Who plays each side from here on: ``players`` names every side's player (a bot policy's
    name seats that bot, as in ``game_started``). Written where the game waits for an order (a
    forked game continued with other seats: two bots' game taken over by a person), it changes
    no fact of the battle; verify checks the orders after it against the new seats, and the
    orders before it against the old. ``by``: who made the change, if it was said."""

    kind: Literal["seats_changed"] = "seats_changed"
    players: Players
    by: PlayerName | None = None


class SideConceded(Envelope):
    """``side`` gives the battle up where the game waits for an order (either side, played by a
    person: a bot plays on). The engine's own ``game_ended`` follows it, the other side winning,
    so verify re-derives the end from the concession. ``by``: the conceding side's player, as
    an order is signed, or unsigned."""

    kind: Literal["side_conceded"] = "side_conceded"
    side: Side
    by: PlayerName | None = None


class UnitRemoved(Envelope):
    kind: Literal["unit_removed"] = "unit_removed"
    unit: UnitId
    hits: int


class StateChecksum(Envelope):
    """sha256 of the canonical state at the end of a turn: divergence shows up at once."""

    kind: Literal["state_checksum"] = "state_checksum"
    sha256: Sha256


class GameEnded(Envelope):
    kind: Literal["game_ended"] = "game_ended"
    winner: Side | None
    reason: Sentence
    objectives: PerSide = {}


CORE_MODELS: tuple[type[Envelope], ...] = (
    GameStarted,
    PhaseStarted,
    OrderGiven,
    DiceRolled,
    UnitTurned,
    UnitMoved,
    Note,
    OrderRetracted,
    OrdersTakenBack,
    SeatsChanged,
    SideConceded,
    UnitRemoved,
    StateChecksum,
    GameEnded,
)
"""The core's kinds: what a game of any rule system writes. Each rule system's own kinds are in
its package (engine/rulesets/<system>/events.py, the shared ones in common/events.py)."""


@cache
def event_models() -> tuple[type[Envelope], ...]:
    """Every kind a log may hold: the core's, then the rule system packages' (the registry's
    ``event_models``: common first, then the systems in registry order). Why the events layer
    asks the registry, above it: a log's schema is the union of the core's kinds and every
    registered system's, and the store and replay files validate against it before any rule
    is read; the registry is a light module and the packages' events modules import only this
    layer (pyproject's import-linter contract names this one exception)."""
    from warlog.engine.rulesets import event_models as package_models

    return CORE_MODELS + package_models()


@cache
def event_kinds() -> tuple[str, ...]:
    """The ``kind`` of every model of ``event_models()``, in the same order."""
    return tuple(m.model_fields["kind"].default for m in event_models())


@cache
def event_adapter() -> TypeAdapter:
    """The discriminated union of every kind, built on first use: a command that only folds a
    log never validates an event, and building the union's schema costs a short command a
    third of its start-up."""
    union = Annotated[Union[event_models()], Field(discriminator="kind")]
    return TypeAdapter(union)


class EventError(ValueError):
    """An event that does not match its schema; the message names the event and the field."""


def parse_event(data: dict[str, Any]) -> Envelope:
    """Validate one event dict (after upcasting), raising EventError with a readable message."""
    from warlog.events.upcast import UpcastError, upcast

    try:
        return event_adapter().validate_python(upcast(data))
    except UpcastError as exc:
        raise EventError(str(exc)) from None
    except ValidationError as exc:
        where = f"event seq {data.get('seq', '?')} ({data.get('kind', 'no kind')})"
        raise EventError(f"{where}: {first_problem(exc, skip=1)}") from None


def to_dict(event: Envelope) -> dict[str, Any]:
    """The canonical JSON dict of an event (tuples become lists, as they do on disk)."""
    return event.model_dump(mode="json")


def make_note(events: list[dict[str, Any]], about: int, text: str,
              author: str | None = None, plan_of: str | None = None) -> dict[str, Any]:
    """The note event to append to ``events`` (a whole game) about the event with seq
    ``about``; with ``plan_of``, that side's plan (refused once the side has decided anything:
    a plan is what was meant before the first order, not an account after it). ValueError
    with a readable message if it cannot be."""
    if not events:
        raise ValueError("a note needs a game to comment on")
    if not 1 <= about <= len(events):
        raise ValueError(f"there is no event {about} to write a note about (1..{len(events)})")
    text = text.strip()
    if not text:
        raise ValueError("a note needs some text")
    if sum(e.get("kind") == "note" for e in events) >= MAX_NOTES:
        raise ValueError(f"this game already holds {MAX_NOTES:,} notes, the most a game keeps")
    if plan_of is not None:
        if plan_of not in ("red", "blue"):
            raise ValueError(f"a plan is a side's, red or blue, not {plan_of[:24]!r}")
        first = first_decision(events, plan_of)
        if first is not None:
            raise ValueError(f"{plan_of} gave its first order at event {first}: a plan is "
                             f"written before a side's first order (a note on a moment can "
                             f"still say what it meant)")
    try:
        note = Note(game=events[0]["game"], seq=events[-1]["seq"] + 1,
                    turn=events[about - 1]["turn"], about=about, text=text, author=author,
                    **({} if plan_of is None else {"plan": True, "side": plan_of}))
    except ValidationError as exc:
        raise ValueError(f"note: {first_problem(exc)}") from None
    return to_dict(note)


def first_decision(events: list[dict[str, Any]], side: str) -> int | None:
    """The seq of ``side``'s first decision (an order, or giving the battle up), if it made one:
    a plan is written before it."""
    return next((e["seq"] for e in events
                 if e.get("kind") in ("order_given", "side_conceded") and e.get("side") == side),
                None)
