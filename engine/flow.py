"""Turns and phases, and the context decide() writes events through.

A Context holds a working copy of the state. ``emit`` validates an event against its model,
stamps the envelope (game, seq, turn, side, phase) and folds it at once, so the rules always read
the state their own events produce. The turn/phase sequence is separate from the rules, as in
boardgame.io: a ruleset names its phases and resolves the automatic ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from warlog.engine.dice import DiceError
from warlog.engine.fold import evolve
from warlog.engine.state import GameState, other_side
from warlog.events import model

if TYPE_CHECKING:
    from warlog.engine.rulesets.base import Ruleset


class DiceSource(Protocol):
    rolled: int

    def roll(self, sides: int = 6) -> int: ...


class Context:
    """One decision in progress: the events emitted so far and the state they lead to."""

    def __init__(self, state: GameState, dice: DiceSource | None) -> None:
        self.state = state.copy()
        self.dice = dice
        self.events: list[dict[str, Any]] = []
        self.cause: int | None = None

    def emit(self, cls: type[model.Envelope], *, rules: tuple[str, ...] = (), **fields: Any) -> dict:
        s = self.state
        fields.setdefault("turn", s.turn)
        fields.setdefault("side", s.side)
        fields.setdefault("phase", s.phase)
        event = model.to_dict(
            cls(game=s.game, seq=s.seq + 1, cause=self.cause, rules=rules, **fields)
        )
        evolve(self.state, event)
        self.events.append(event)
        return event

    def roll(self, purpose: str, rule: str, unit: str | None = None) -> int:
        """Roll one d6 for ``purpose``, recording it as a fact."""
        if self.dice is None:
            raise DiceError("this step needs a die but no dice source was given")
        face = self.dice.roll(6)
        self.emit(model.DiceRolled, purpose=purpose, faces=(face,), unit=unit, rules=(rule,))
        return face


def next_phase(state: GameState, phases: tuple[str, ...],
               pregame: tuple[tuple[str, str | None], ...] = ()) -> tuple[int, str | None, str] | None:
    """(turn, side, phase) after the current phase, or None when the last turn is over.
    ``pregame``: the (phase, side) steps of turn 0, before the first turn (rolled armies, ...)."""
    first = state.scenario.first
    if state.phase is None:
        if pregame:
            return 0, pregame[0][1], pregame[0][0]
        return 1, first, phases[0]
    if state.turn == 0:
        names = [name for name, _ in pregame]
        i = names.index(state.phase)
        if i + 1 < len(pregame):
            return 0, pregame[i + 1][1], pregame[i + 1][0]
        return 1, first, phases[0]
    i = phases.index(state.phase)
    if i + 1 < len(phases):
        return state.turn, state.side, phases[i + 1]
    if state.side == first:
        return state.turn, other_side(first), phases[0]
    if state.turn >= state.scenario.victory.turn_limit:
        return None
    return state.turn + 1, first, phases[0]


def advance(ctx: Context, ruleset: Ruleset) -> None:
    """Run the game forward from the end of the current phase to the next phase that needs a
    player's orders (or to the end of the game). Automatic phases resolve on the way."""
    phases = ruleset.phases(ctx.state)
    while not ctx.state.ended:
        nxt = next_phase(ctx.state, phases, ruleset.pregame(ctx.state))
        turn_over = ctx.state.phase is not None and (
            nxt is None or nxt[0] != ctx.state.turn
        )
        if turn_over:
            ctx.cause = None
            ctx.emit(model.StateChecksum, sha256=ctx.state.checksum(), rules=("ohw.turn",),
                     phase=None, side=None)
        if nxt is None:
            ruleset.end_of_game(ctx)
            return
        turn, side, phase = nxt
        ctx.cause = None
        started = ctx.emit(model.PhaseStarted, turn=turn, side=side, phase=phase,
                           rules=ruleset.phase_rules(ctx.state, phase))
        ctx.cause = started["seq"]
        ruleset.begin_phase(ctx)
        if phase not in ruleset.automatic_phases:
            return
        ruleset.resolve_phase(ctx)
