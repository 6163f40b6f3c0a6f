"""decide(state, order, dice) -> events, and a Game that plays orders into a log.

decide is the only place that applies the rules: it checks the order (IllegalOrder names the rule
broken, and nothing is produced), records the order, asks the dice source for every die, writes
the consequences and runs the automatic phases that follow. It does no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from warlog.engine.dice import ManualDice, SeededDice
from warlog.engine.geometry import GRID_RULES
from warlog.engine.flow import Context, DiceSource, advance
from warlog.engine.fold import evolve, replay
from warlog.engine.inputs import InputError
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import Scenario
from warlog.engine.state import SIDES, GameState, other_side
from warlog.engine.takeback import take_back
from warlog.events import model
from warlog.events.fields import first_problem
from warlog.events.orders import EndPhaseOrder, Order
from warlog.events.replay_input import short_repr

Event = dict[str, Any]


def start(game: str, scenario: Scenario, *, seed: int | None = None,
          players: dict[str, str] | None = None, dice: str = "seeded",
          opening_dice: Iterable[int] = (), played: str | None = None) -> list[Event]:
    """The events that open a game: game_started, then the flow up to the first order. Dice
    rolled before any order (rolled armies, a roll-off) come from the seed, or for a game with
    manual dice from ``opening_dice``. ``played`` (YYYY-MM-DD) is recorded, never read: the
    caller, not the engine, knows the date."""
    first = model.to_dict(model.GameStarted(
        game=game, seq=1, turn=0, rule_system=scenario.rule_system, period=scenario.period,
        options=dict(scenario.options), scenario=scenario.model_dump(mode="json"), dice=dice,
        seed=seed, players=dict(players or {}), played=played,
        rules=GRID_RULES[scenario.grid.kind],
    ))
    source = SeededDice(seed or 0) if dice == "seeded" else ManualDice(opening_dice)
    return [first, *opening(first, source)]


def opening(first: Event, dice: DiceSource | None = None) -> list[Event]:
    """What follows a game_started event: the flow up to the first order."""
    state = evolve(None, first)
    ctx = Context(state, dice)
    advance(ctx, get_ruleset(state.rule_system))
    return ctx.events


def decide(state: GameState, order: Order, dice: DiceSource | None, *,
           by: str | None = None) -> list[Event]:
    """The events that follow from ``order`` in ``state`` (which is left untouched)."""
    return _resolve(state, order, dice, by).events


def successor(state: GameState, order: Order, dice: DiceSource | None) -> GameState:
    """The state after ``order``: decide's own working state, already folded, so a playout
    that only needs where the game goes does not fold every event a second time."""
    return _resolve(state, order, dice, None).state


def _resolve(state: GameState, order: Order, dice: DiceSource | None, by: str | None) -> Context:
    ruleset = get_ruleset(state.rule_system)
    ruleset.check(state, order)
    ctx = Context(state, dice)
    given = ctx.emit(model.OrderGiven, order=order, by=by, rules=(), side=state.to_act)
    ctx.cause = given["seq"]
    if isinstance(order, EndPhaseOrder) or ruleset.apply(ctx, order):
        advance(ctx, ruleset)
    return ctx


def legal_orders(state: GameState, unit: str | None = None) -> list[Order]:
    """Every legal order now: for one unit, or for the side to move (end_phase included)."""
    return get_ruleset(state.rule_system).legal_orders(state, unit)


# -- inputs at the table that are not orders: the seats, a concession -------------------------


def _waiting(state: GameState, what: str) -> None:
    """InputError unless the game still waits for an order: a seats change or a concession
    stands where an order could (a rest point), never after the end."""
    if state.ended:
        raise InputError(f"the game is over ({state.end_reason}): {what} only while it waits "
                         "for an order")


def _bots() -> dict[str, Any]:
    from warlog.engine.bots import POLICIES  # bots plays through this module: imported late

    return POLICIES


def reseat(state: GameState, players: Any, by: Any = None) -> Event:
    """The seats_changed event that seats ``players`` (side -> player name, every side named;
    a bot policy's name seats that bot) where ``state`` waits for an order: what the recorder
    and ``warlog fork --players`` append, and what verify expects in its place. InputError
    naming the field when the game is over, a side is missing or unknown, a name breaks the id
    rule, or a bot would play with manual dice (it cannot read real dice off a table)."""
    _waiting(state, "the seats change")
    if not isinstance(players, dict):
        raise InputError(f"field 'players': {short_repr(players, 40)} is not a mapping of each "
                         "side to its player")
    strangers = [side for side in players if side not in SIDES]
    if strangers:
        raise InputError(f"field 'players': a player for {short_repr(strangers[0], 40)}, which "
                         "is not a side; the sides are red and blue")
    missing = [side for side in SIDES if side not in players]
    if missing:
        raise InputError(f"field 'players': no player for {missing[0]}: a seats change names "
                         "the player of every side (red and blue)")
    try:
        event = model.to_dict(model.SeatsChanged(
            game=state.game, seq=state.seq + 1, turn=state.turn, side=None, phase=state.phase,
            players={side: players[side] for side in SIDES}, by=by))
    except ValidationError as exc:
        raise InputError(first_problem(exc)) from None
    bots = [side for side in SIDES if players[side] in _bots()]
    if bots and state.dice_mode != "seeded":
        raise InputError(f"field 'players': {bots[0]} would be played by the "
                         f"{players[bots[0]]} bot, but the dice are manual: bots play only with "
                         "seeded dice")
    return event


def concede(state: GameState, side: Any, by: Any = None) -> list[Event]:
    """The events of ``side`` conceding where ``state`` waits for an order: its side_conceded
    event, then game_ended with the other side the winner. Either side may concede, not only
    the side to act (a player may give up while the enemy is moving), but only a side a person
    plays: a bot never concedes, so verify could not re-choose it; reseat the side first.
    ``by`` is signed as an order is (the side's player, or None). InputError naming the field
    otherwise, or when the game is already over."""
    _waiting(state, "a side concedes")
    if side not in SIDES:
        raise InputError(f"field 'side': {short_repr(side, 40)} is not a side; the sides are red "
                         "and blue")
    player = state.players.get(side, side)
    if player in _bots():
        raise InputError(f"field 'side': {side} is played by the {player} bot, and a bot does "
                         "not concede: change the seats first to hand the side to a person")
    if by is not None and by != player:
        raise InputError(f"field 'by': the concession is signed by {short_repr(by, 40)}, but "
                         f"{side} is played by {player!r}: a side concedes by its own player")
    ctx = Context(state, None)
    try:
        conceded = ctx.emit(model.SideConceded, side=side, by=by)
    except ValidationError as exc:
        raise InputError(first_problem(exc)) from None
    ctx.cause = conceded["seq"]
    ctx.emit(model.GameEnded, winner=other_side(side), reason=f"{side} conceded",
             side=None, phase=None)
    return ctx.events


class Game:
    """A game being played: its log, its state, and its dice. ``play`` is decide, keeping the
    state decide folded its events into."""

    def __init__(self, events: Iterable[Event]) -> None:
        self.events: list[Event] = list(events)
        self.state = replay(self.events)
        if self.state.dice_mode == "seeded":
            self.dice: DiceSource = SeededDice(self.state.seed or 0, self.state.dice_rolled)
        else:
            self.dice = ManualDice()

    @classmethod
    def new(cls, game: str, scenario: Scenario, **kwargs: Any) -> Game:
        return cls(start(game, scenario, **kwargs))

    def play(self, order: Order, *, by: str | None = None,
             dice: DiceSource | None = None) -> list[Event]:
        """Apply one order; on IllegalOrder (or any error) nothing changes."""
        try:
            ctx = _resolve(self.state, order, dice or self.dice, by)
        except Exception:
            if self.state.dice_mode == "seeded":  # forget dice a failed decision drew
                self.dice = SeededDice(self.state.seed or 0, self.state.dice_rolled)
            raise
        self.state = ctx.state  # decide folded every event as it went: no second fold
        self.events.extend(ctx.events)
        return ctx.events

    def take_back(self, side: str, orders: int = 1, by: str | None = None) -> Event:
        """Take back ``side``'s last ``orders`` orders (engine/takeback.py): the event is
        appended and the game stands where it stood before them (TakeBackError otherwise,
        and nothing changes)."""
        event = take_back(self.state, self.events, side, orders, by)
        self.events.append(event)
        self.state = replay(self.events)
        return event

    def legal_orders(self, unit: str | None = None) -> list[Order]:
        return legal_orders(self.state, unit)
