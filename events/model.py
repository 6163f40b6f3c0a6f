"""What happened in a game: one pydantic model per event kind under a common envelope (the
orders some of them carry are in events/orders.py).

The models are the schema. Inside a running process the canonical form of an event is its JSON
dict (``event.model_dump(mode="json")``): that is what the store writes, what the fold reads and
what replay files hold, so reading a game back never pays for validation. Validation happens at
the edges: events made by the engine, files coming in (``parse_event``).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from warlog.events.fields import (MAX_UNITS, ArmyClasses, Attackers, AuthorName, Cell, Cells,
                                  Facing, Faces, Formation, GameId, Halvings, Modifiers, MovePath,
                                  NoteText, Options, Pairs, Period, PerSide, Phase, PlayedDate,
                                  PlayerName, Players, RuleId, Rules, RuleSystem, ScenarioData,
                                  Sentence, Sha256, Side, UnitId, UnitType, first_problem,
                                  iso_date, items)
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


class MeleeJoined(Envelope):
    """``attacker`` has closed with ``defender``; ``aspect`` is where it struck the defender."""

    kind: Literal["melee_joined"] = "melee_joined"
    attacker: UnitId
    defender: UnitId
    aspect: Literal["front", "flank", "rear"]


class HitsInflicted(OmitsUnset, Envelope):
    """Hits from one shot or one melee roll, with the arithmetic that produced them.
    ``disorder``: what the source's figures out of formation took off its die (density)."""

    kind: Literal["hits_inflicted"] = "hits_inflicted"
    attack: Literal["shooting", "melee", "barrage"]
    source: UnitId | None  # None: the pre-game barrage, fired by no unit on the board
    target: UnitId
    die: int
    modifier: int
    base: int
    doubled: bool = False
    halvings: Halvings = ()
    hits: int
    total: int
    disorder: int = Field(default=0, le=0)

    omitted_when_default: ClassVar[tuple[str, ...]] = ("disorder",)


class MeleeEnded(Envelope):
    """A melee that ends with both units still on the board (a regrouping attacker)."""

    kind: Literal["melee_ended"] = "melee_ended"
    attacker: UnitId
    defender: UnitId


class OutOfAmmo(Envelope):
    """The unit has run out of ammunition and may not shoot for the rest of the game."""

    kind: Literal["out_of_ammo"] = "out_of_ammo"
    unit: UnitId


class FormationChanged(Envelope):
    kind: Literal["formation_changed"] = "formation_changed"
    unit: UnitId
    from_formation: Formation | None
    to_formation: Formation


class EnemiesSpotted(Envelope):
    """The spotting phase: every (spotter, enemy) pair the phasing side sees."""

    kind: Literal["enemies_spotted"] = "enemies_spotted"
    seen: Pairs


class RollOff(Envelope):
    """Both sides rolled (the dice events before this one); the higher die won."""

    kind: Literal["roll_off"] = "roll_off"
    winner: Side


class RolesChosen(Envelope):
    """Attacker and defender are set; the defender's units on open ground are in trenches."""

    kind: Literal["roles_chosen"] = "roles_chosen"
    attacker: Side
    defender: Side
    trenches: Cells = ()


class BarragePlanned(Envelope):
    """The attacker's halved die: how many enemy units the barrage may strike."""

    kind: Literal["barrage_planned"] = "barrage_planned"
    targets: int


class ArmyUnit(StrictModel):
    id: UnitId
    type: UnitType
    cell: Cell
    facing: Facing


ArmyUnits = items(ArmyUnit, MAX_UNITS, "a rolled army has at most 6 units")


class ArmyRolled(Envelope):
    """A side's army, rolled on the army table: its units join the game where they stand."""

    kind: Literal["army_rolled"] = "army_rolled"
    size: int
    roll: int
    classes: ArmyClasses
    units: ArmyUnits


class InitiativeWon(Envelope):
    """Both sides rolled for the initiative (the dice before this); the winner goes first."""

    kind: Literal["initiative_won"] = "initiative_won"
    winner: Side


class UnitActivated(Envelope):
    """A unit's activation begins; the one active before it is done for the turn."""

    kind: Literal["unit_activated"] = "unit_activated"
    unit: UnitId


class AttackRolled(Envelope):
    """One attack's die: every modifier with its rule, the total and what it needed."""

    kind: Literal["attack_rolled"] = "attack_rolled"
    attack: Literal["shooting", "melee", "strike_back", "missile_machine", "pila", "artillery",
                    "musketry", "pila_volley"]
    source: UnitId
    target: UnitId
    die: int
    modifiers: Modifiers = ()
    total: int
    needed: int
    hit: bool


class HitTaken(Envelope):
    """A hit unit's roll on the hit table: it loses a strength point, or its owner chooses."""

    kind: Literal["hit_taken"] = "hit_taken"
    unit: UnitId
    attacker: UnitId
    die: int
    outcome: Literal["lose", "choose", "lose_no_retreat"]
    retreat_to: Cell | None = None


class StrengthLost(Envelope):
    kind: Literal["strength_lost"] = "strength_lost"
    unit: UnitId
    amount: int
    total: int
    left: int


class UnitRetreated(Envelope):
    kind: Literal["unit_retreated"] = "unit_retreated"
    unit: UnitId
    from_cell: Cell
    to_cell: Cell


class ExhaustionPoints(Envelope):
    """Each army's starting strength and the strength it may lose before it is exhausted."""

    kind: Literal["exhaustion_points"] = "exhaustion_points"
    strength: PerSide
    points: PerSide


class ArmyExhausted(Envelope):
    kind: Literal["army_exhausted"] = "army_exhausted"
    lost: int
    point: int


class ShellLanded(Envelope):
    """Where a battery's shot fell (the fall-of-shot die before this), and whether the battery
    saw the cell it aimed at (direct fire) or not (indirect)."""

    kind: Literal["shell_landed"] = "shell_landed"
    unit: UnitId
    aimed: Cell
    fall: Literal["on target", "left", "over", "right", "short"]
    landed: Cell | None  # None: off the board, the shot is lost
    direct: bool


class UnitMarked(Envelope):
    """Destroyed by artillery: removed with the other losses once every battery has fired."""

    kind: Literal["unit_marked"] = "unit_marked"
    unit: UnitId


class CombatFought(Envelope):
    """Frontier's combat: both dice (before this) against both strengths, every modifier."""

    kind: Literal["combat_fought"] = "combat_fought"
    target: UnitId
    attackers: Attackers
    faced: UnitId
    attacker_die: int
    attacker_strength: int
    attacker_modifiers: Modifiers = ()
    defender_die: int
    defender_strength: int
    defender_modifiers: Modifiers = ()
    target_destroyed: bool
    attacker_destroyed: bool


class MeleeRolled(Envelope):
    """One side's die in a melee where both roll (napoleonic): every modifier with its rule,
    the total, and whether it is low enough (``at_most``) that this unit takes a hit."""

    kind: Literal["melee_rolled"] = "melee_rolled"
    unit: UnitId
    opponent: UnitId
    attacking: bool
    die: int
    modifiers: Modifiers = ()
    total: int
    at_most: int
    hit: bool


class AdvanceOffered(Envelope):
    """The winner of a melee may advance into the cell its enemy left (napoleonic.advance)."""

    kind: Literal["advance_offered"] = "advance_offered"
    unit: UnitId
    cell: Cell


class DisorderTested(Envelope):
    """A disorder test (density): the die against the unit's density; below it, that many
    figures fall out of formation."""

    kind: Literal["disorder_tested"] = "disorder_tested"
    unit: UnitId
    reason: Literal["terrain", "friends", "turn"]
    die: int
    density: int
    figures: int = Field(ge=0)


class UnitReformed(Envelope):
    """Figures out of formation rejoin the unit on a Reform action (density)."""

    kind: Literal["unit_reformed"] = "unit_reformed"
    unit: UnitId
    figures: int = Field(ge=0)


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


EVENT_MODELS: tuple[type[Envelope], ...] = (
    GameStarted,
    PhaseStarted,
    OrderGiven,
    DiceRolled,
    UnitTurned,
    UnitMoved,
    MeleeJoined,
    HitsInflicted,
    MeleeEnded,
    OutOfAmmo,
    FormationChanged,
    EnemiesSpotted,
    RollOff,
    RolesChosen,
    BarragePlanned,
    ArmyRolled,
    InitiativeWon,
    UnitActivated,
    AttackRolled,
    HitTaken,
    StrengthLost,
    UnitRetreated,
    ExhaustionPoints,
    ArmyExhausted,
    ShellLanded,
    UnitMarked,
    CombatFought,
    MeleeRolled,
    AdvanceOffered,
    DisorderTested,
    UnitReformed,
    Note,
    OrderRetracted,
    OrdersTakenBack,
    SeatsChanged,
    SideConceded,
    UnitRemoved,
    StateChecksum,
    GameEnded,
)
Event = Annotated[Union[EVENT_MODELS], Field(discriminator="kind")]
# Built on first use, not at import: a command that only folds a log never validates an
# event, and building the union's schema costs a short command a third of its start-up.
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=ConfigDict(defer_build=True))
EVENT_KINDS: tuple[str, ...] = tuple(m.model_fields["kind"].default for m in EVENT_MODELS)


class EventError(ValueError):
    """An event that does not match its schema; the message names the event and the field."""


def parse_event(data: dict[str, Any]) -> Event:
    """Validate one event dict (after upcasting), raising EventError with a readable message."""
    from warlog.events.upcast import UpcastError, upcast

    try:
        return EVENT_ADAPTER.validate_python(upcast(data))
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
