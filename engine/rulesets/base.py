"""The Ruleset protocol: what a rule system provides to the generic engine.

A rule system is one module registered by id (see __init__.py). The engine's flow (flow.py) asks
it for its phases and lets it resolve the automatic ones; decide (game.py) asks it to check an
order and to write the order's consequences. Like a chess variant overriding a few methods of a
board, a period of a system is a table plus a few hooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from warlog.engine.flow import Context
from warlog.engine.reach import FireZone
from warlog.engine.rulesets.order_kinds import OrderKind
from warlog.engine.state import GameState, Unit
from warlog.events.orders import Order


class Ruleset(Protocol):
    system: str
    # Its records: the dataclasses (subclasses of the core's GameState and Unit) the fold builds
    # a game's state and units from, holding the system's own fields beside the core's.
    State: type[GameState]
    Unit: type[Unit]
    automatic_phases: frozenset[str]
    checksum_rules: tuple[str, ...]  # cited by the state checksum that closes every turn
    measure: str  # "hits" (hits taken count up) or "strength" (strength points count down)
    # Unit fields beyond the common ones that this system's rules read (moved_cells, ...):
    # they join its games' state checksum. Optional; none by default.
    unit_state: tuple[str, ...]
    # The order vocabulary: every type of order its legal_orders gives, with how a player
    # points at the board to give it (engine/rulesets/order_kinds.py); the pages that play a
    # game read this, never the system's name.
    orders: tuple[OrderKind, ...]

    def turn_steps(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        """One game turn's phases in order, each with whose it is: "first" (the side going
        first this turn), "second", or None (a phase of both sides, e.g. an initiative roll)."""

    def end_turn(self, ctx: Context) -> None:
        """Whatever the rules check once a turn is over (e.g. both armies exhausted)."""

    def pregame(self, state: GameState) -> tuple[tuple[str, str | None], ...]:
        """The (phase, side) steps before the first turn (turn 0), e.g. rolling the armies."""

    def begin_phase(self, ctx: Context) -> None:
        """Whatever happens as a phase starts, before any order (e.g. a roll-off)."""

    def phase_rules(self, state: GameState, phase: str) -> tuple[str, ...]:
        """Rule ids cited by the start of ``phase``."""

    def check(self, state: GameState, order: Order) -> None:
        """Raise IllegalOrder (naming the rule) unless ``order`` is legal now."""

    def apply(self, ctx: Context, order: Order) -> bool:
        """Emit the consequences of a legal order (not end_phase: the flow handles that).
        True when the order also ends its phase (a one-order phase such as a roll-off choice)."""

    def legal_orders(self, state: GameState, unit: str | None = None) -> list[Order]:
        """Every legal order now (for one unit, or for all plus end_phase)."""

    def resolve_phase(self, ctx: Context) -> None:
        """Resolve an automatic phase (e.g. melee, removal)."""

    def end_of_game(self, ctx: Context) -> None:
        """The last turn is over: emit game_ended with the result."""

    def strength(self, state: GameState, unit: Unit) -> tuple[int, int]:
        """(the unit's starting strength, how much of it is lost), in the system's own measure
        (hits a unit can take, strength points): what the exhaustion chart adds up."""

    def exhaustion_point(self, state: GameState, side: str, start: int) -> tuple[float, str | None]:
        """The strength a side may lose before it is exhausted, and the rule that says so; a
        system without an exhaustion rule gives a reference (one third of ``start``) and None."""

    def fire_zone(self, state: GameState, unit: Unit) -> FireZone | None:
        """How far and in which arc ``unit`` shoots or strikes from where it stands (None: only
        by moving into contact); the dashboard draws it when the unit is selected."""


class BoardHooks(Protocol):
    """What a rule system may add to the board a player sees, each optional (the board asks
    with ``getattr``, and a system without one is drawn the generic way): so the board draws a
    system's own marks without importing its modules or naming it."""

    def move_words(self, state: GameState, unit: Unit) -> str | None:
        """How far ``unit`` moves, in the rules' words, where its table's row does not say it
        (None: the row's ``move`` in cells)."""

    def trench_cells(self, state: GameState) -> list:
        """Cells to draw as trenches (dug or held), in drawing order."""


class AnalysisHooks(Protocol):
    """What a rule system may say of its own dice to the analysis, optional as BoardHooks are:
    a system whose dice are read otherwise than a hits roll, a hit-or-miss die or a melee die
    that holds (engine/rulesets/common/luck.py, the reading the others share) weighs them
    itself (engine/analysis.py ``resolutions`` asks)."""

    def luck_dice(self, events: list, units: dict) -> Iterator[tuple[int, str, float, float]]:
        """Every die resolved in ``events`` (a live log) as (turn, side, what it gave, what an
        average die gives)."""
