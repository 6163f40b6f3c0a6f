"""Turns and phases, and the context decide() writes events through.

A Context holds a working copy of the state. ``emit`` validates an event against its model,
stamps the envelope (game, seq, turn, side, phase) and folds it at once, so the rules always read
the state their own events produce. The turn/phase sequence is separate from the rules, as in
boardgame.io: a ruleset names its phases and resolves the automatic ones.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Protocol

from warlog.engine.dice import DiceError
from warlog.engine.fold import evolve
from warlog.engine.state import GameState, other_side
from warlog.events import model

if TYPE_CHECKING:
    from warlog.engine.rulesets.base import Ruleset


class DiceSource(Protocol):
    """Where faces come from. A source may also have ``roll_deciding(sides, decides)``: the odds
    enumeration's does (engine/odds.py), to walk once the faces that decide alike."""

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
        evolve(self.state, event, check=False)  # a checksum made just now from this state
        self.events.append(event)
        return event

    def roll(self, purpose: str, rule: str, unit: str | None = None, *,
             decides: Callable[[int], Hashable] | None = None) -> int:
        """Roll one d6 for ``purpose``, recording it as a fact (the whole face, always).

        ``decides``: everything the rules go on to read from the face, where that is less than
        the face (hit or miss: ``lambda face: face + bonus >= needed``). Two faces for which it
        gives the same value must lead to the same play after the die. A source that walks every
        way the dice fall (the exact odds) then walks such faces once, weighted by how many they
        are; every other source ignores it."""
        if self.dice is None:
            raise DiceError("this step needs a die but no dice source was given")
        deciding = getattr(self.dice, "roll_deciding", None) if decides is not None else None
        try:
            face = deciding(6, decides) if deciding is not None else self.dice.roll(6)
        except DiceError as exc:  # a player entering real dice: say what this one is for
            whose = f", {unit}" if unit else ""
            raise DiceError(f"{exc} — die for {purpose}{whose}") from None
        self.emit(model.DiceRolled, purpose=purpose, faces=(face,), unit=unit, rules=(rule,))
        return face


def phase_name(phase: str | None) -> str:
    """A phase id in words, for people: ``missile_machines`` -> ``missile machines``."""
    return (phase or "").replace("_", " ")


Step = tuple[str, str | None]  # (phase, "first" | "second" | None: a phase of both sides)


def first_side(state: GameState) -> str:
    """Who goes first this turn: the initiative's winner, else the scenario's first side."""
    return state.first_side or state.scenario.first


def _at(state: GameState, turn: int, step: Step) -> tuple[int, str | None, str]:
    phase, role = step
    if role is None:
        return turn, None, phase
    first = first_side(state)
    return turn, first if role == "first" else other_side(first), phase


def next_phase(state: GameState, steps: tuple[Step, ...],
               pregame: tuple[tuple[str, str | None], ...] = ()) -> tuple[int, str | None, str] | None:
    """(turn, side, phase) after the current phase, or None when the last turn is over.
    ``steps``: one turn's phases in order, each with whose it is (the first side's, the second
    side's, or both sides'); who is first is read when a step starts, so an initiative roll inside
    the turn decides the steps after it. ``pregame``: the (phase, side) steps of turn 0, before
    the first turn (rolled armies, ...)."""
    if state.phase is None:
        if pregame:
            return 0, pregame[0][1], pregame[0][0]
        return _at(state, 1, steps[0])
    if state.turn == 0:
        names = [name for name, _ in pregame]
        i = names.index(state.phase)
        if i + 1 < len(pregame):
            return 0, pregame[i + 1][1], pregame[i + 1][0]
        return _at(state, 1, steps[0])
    role = None if state.side is None else (
        "first" if state.side == first_side(state) else "second")
    i = steps.index((state.phase, role))
    if i + 1 < len(steps):
        return _at(state, state.turn, steps[i + 1])
    if state.turn >= state.scenario.victory.turn_limit:
        return None
    return _at(state, state.turn + 1, steps[0])


def advance(ctx: Context, ruleset: Ruleset) -> None:
    """Run the game forward from the end of the current phase to the next phase that needs a
    player's orders (or to the end of the game). Automatic phases resolve on the way."""
    steps = ruleset.turn_steps(ctx.state)
    while not ctx.state.ended:
        nxt = next_phase(ctx.state, steps, ruleset.pregame(ctx.state))
        turn_over = ctx.state.phase is not None and (
            nxt is None or nxt[0] != ctx.state.turn
        )
        if turn_over:
            ctx.cause = None
            ctx.emit(model.StateChecksum, sha256=ctx.state.checksum(),
                     rules=ruleset.checksum_rules, phase=None, side=None)
            ruleset.end_turn(ctx)
            if ctx.state.ended:
                return
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
