"""decide(state, order, dice) -> events, and a Game that plays orders into a log.

decide is the only place that applies the rules: it checks the order (IllegalOrder names the rule
broken, and nothing is produced), records the order, asks the dice source for every die, writes
the consequences and runs the automatic phases that follow. It does no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from warlog.engine.dice import ManualDice, SeededDice
from warlog.engine.geometry import GRID_RULES
from warlog.engine.flow import Context, DiceSource, advance
from warlog.engine.fold import evolve, replay
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import Scenario
from warlog.engine.state import GameState
from warlog.events import model
from warlog.events.orders import EndPhaseOrder, Order

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

    def legal_orders(self, unit: str | None = None) -> list[Order]:
        return legal_orders(self.state, unit)
