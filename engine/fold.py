"""The fold: evolve(state, event) -> state, and replay(events) -> state.

A take-back (``orders_taken_back``, engine/takeback.py) voids the events from its ``back_to``
on: the log folds as its *live* line, every voided stretch skipped (``live``), or, walked event
by event with the voided events' states as they were, by a ``LiveLine``, which goes back to a
kept position at each take-back. evolve alone cannot go back (it holds one state, no history):
given a take-back on a state that has not been taken back, it says so (FoldError) rather than
fold a wrong position.

evolve knows no rules and rolls no dice: it writes down what an event says happened. Scrubbing a
replay therefore never runs the rules, and is fast. Events are the canonical JSON dicts the store
and replay files hold. For speed evolve updates ``state`` in place and returns it; callers that
need the old state keep a ``copy()``.

This module folds only what every game has (issue 40: the core names no rule system). A system's
own event kinds are folded in its package (engine/rulesets/<system>/folds.py, common/folds.py for
the kinds several write), gathered by the registry (``rulesets.event_folds``); what the core's
kinds do to a system's own fields (a phase's marks, the cells a unit moved) is a hook its records
name (``State.fold_hooks``), run right after the core's part. Each system's table is built once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import takewhile
from typing import Any

import orjson

from warlog.engine.geometry import make_grid
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import Scenario, ScenarioError, scenario_from_dict
from warlog.engine.state import GameState, Unit

Event = dict[str, Any]
TAKEBACK = "orders_taken_back"


class FoldError(ValueError):
    """An event that cannot apply to the state (e.g. it names a unit that does not exist)."""


class DivergenceError(FoldError):
    """A state checksum in the log does not match the state the fold reached."""

    def __init__(self, seq: int, expected: str, actual: str) -> None:
        super().__init__(
            f"event seq {seq}: the state checksum in the log ({expected[:12]}...) does not match "
            f"the folded state ({actual[:12]}...): the log was changed or the engine differs"
        )
        self.seq = seq


def _options(event: Event, scenario_options: dict[str, Any]) -> dict[str, Any]:
    """The options a game_started event records, checked: every option of its period, each
    valid, none unknown, and the same as its scenario's (a file edited by hand is refused)."""
    from warlog.engine.rulesets.tables import OptionError, resolve_options

    where = f"event seq {event['seq']} (game_started)"
    options = event["options"]
    try:
        resolved = resolve_options(event["rule_system"], event["period"], options, source=where)
    except OptionError as exc:
        raise FoldError(str(exc)) from None
    missing = [name for name in resolved if name not in options]
    if missing:
        raise FoldError(f"{where}: options.{missing[0]}: missing; a game records every option "
                        "in force")
    if options != scenario_options:
        differ = next(n for n in sorted(options) if options[n] != scenario_options.get(n))
        raise FoldError(f"{where}: options.{differ} is {options[differ]!r}, but the game's "
                        f"scenario says {scenario_options.get(differ)!r}")
    return dict(options)


def _scenario(event: Event) -> Scenario:
    """The game's scenario, validated. Bot games and what-if playouts start thousands of games
    from one scenario, and validating it was a tenth of a short game's time: a scenario whose
    canonical JSON was validated before is that same (frozen) Scenario."""
    data, source = event["scenario"], f"game {event['game']}"
    try:
        key = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        return _valid_scenario(key)
    except (TypeError, ScenarioError):  # not JSON, or invalid: say why, naming this game
        return scenario_from_dict(data, source=source)


@lru_cache(maxsize=64)
def _valid_scenario(canonical: bytes) -> Scenario:
    return scenario_from_dict(orjson.loads(canonical), source="scenario")


def initial_state(event: Event) -> GameState:
    """The state right after a game_started event."""
    from warlog.engine.rulesets.tables import load_table

    scenario = _scenario(event)
    for name in ("rule_system", "period"):  # the scenario's were checked against the tables
        if event[name] != getattr(scenario, name):
            raise FoldError(f"event seq {event['seq']} (game_started): {name} is "
                            f"{str(event[name])[:40]!r}, but the game's scenario says "
                            f"{getattr(scenario, name)!r}")
    rows = load_table(event["rule_system"])["periods"][event["period"]]["units"]
    ruleset = get_ruleset(event["rule_system"])  # its records (State, Unit): its own fields
    units = {spec.id: ruleset.Unit.from_spec(spec, rows.get(spec.type, {}))
             for spec in scenario.units}
    return ruleset.State(
        game=event["game"],
        rule_system=event["rule_system"],
        period=event["period"],
        options=_options(event, scenario.options),
        scenario=scenario,
        grid=make_grid(scenario.grid.kind, scenario.grid.width, scenario.grid.height),
        units=units,
        terrain={cell: kind for kind, cells in scenario.terrain.items() for cell in cells},
        dice_mode=event["dice"],
        seed=event.get("seed"),
        players=dict(event.get("players") or {}),
        seq=event["seq"],
    )


Fold = Callable[[GameState, Event], None]


def unit_of(state: GameState, event: Event, key: str = "unit") -> Unit:
    """The unit an event names under ``key``; FoldError naming the event if the game has none
    (the packages' folds, engine/rulesets/*/folds.py, find their units through it too)."""
    try:
        return state.units[event[key]]
    except KeyError:
        raise FoldError(f"event seq {event['seq']}: no unit {event.get(key)!r} in this game") from None


def _hooked_folds(hooks: dict[str, Fold]) -> dict[str, Fold]:
    """The core's folds of the kinds a rule system may follow with a hook of its own
    (``State.fold_hooks``, event kind -> hook): each writes the core's part, then calls the
    hook. Built per rule system, the hook a closure's cell: one call less per event than a
    wrapper or a ``partial`` (phase starts and moves are a quarter of a game's events). An
    order's core part is nothing (an order is an input), so its hook is its whole fold. A hook
    for any other kind is refused: it would never run."""
    unknown = sorted(set(hooks) - {"phase_started", "order_given", "unit_moved", "unit_removed"})
    if unknown:
        raise ValueError(f"no core fold takes a hook for {', '.join(unknown)}")
    on_phase_started = hooks.get("phase_started", _nothing)
    on_unit_moved = hooks.get("unit_moved", _nothing)
    on_unit_removed = hooks.get("unit_removed", _nothing)

    def phase_started(state: GameState, e: Event) -> None:
        state.turn, state.side, state.phase = e["turn"], e["side"], e["phase"]
        on_phase_started(state, e)

    def unit_moved(state: GameState, e: Event) -> None:
        u = unit_of(state, e)
        u.cell = tuple(e["to_cell"])
        u.moved = True
        on_unit_moved(state, e)

    def unit_removed(state: GameState, e: Event) -> None:
        u = unit_of(state, e)
        u.removed = True
        state.pending = [p for p in state.pending if p["unit"] != u.id]
        on_unit_removed(state, e)

    return {"phase_started": phase_started, "order_given": hooks.get("order_given", _nothing),
            "unit_moved": unit_moved, "unit_removed": unit_removed}


def _dice_rolled(state: GameState, e: Event) -> None:
    state.dice_rolled += len(e["faces"])


def _unit_turned(state: GameState, e: Event) -> None:
    u = unit_of(state, e)
    u.facing = e["to_facing"]
    if e.get("used_move"):
        u.moved = True


def _game_ended(state: GameState, e: Event) -> None:
    state.ended = True
    state.winner = e["winner"]
    state.end_reason = e["reason"]


def _seats_changed(state: GameState, e: Event) -> None:
    """Who plays each side from here on: a new dict (a copy of the state shares the old one,
    and a snapshot taken before the change must keep the seats it had)."""
    state.players = dict(e["players"])


def _nothing(state: GameState, e: Event) -> None:
    return None


def _taken_back(state: GameState, e: Event) -> None:
    if state.seq >= e["back_to"]:
        raise FoldError(f"event seq {e['seq']}: a take-back folds on the position before seq "
                        f"{e['back_to']}, not after seq {state.seq}: fold the live log "
                        "(engine.fold.live or LiveLine)")
    state.dice_rolled = e["dice_rolled"]  # the dice go on forward: never the same dice again


_CORE: dict[str, Fold] = {
    "dice_rolled": _dice_rolled,
    "unit_turned": _unit_turned,
    "state_checksum": _nothing,
    "note": _nothing,  # a player's comment: no fact of the battle
    "order_retracted": _nothing,  # an order taken back before its dice: never decided
    TAKEBACK: _taken_back,  # the position before back_to, rebuilt by live() or a LiveLine
    "seats_changed": _seats_changed,
    "side_conceded": _nothing,  # the game_ended the engine writes after it ends the game
    "game_ended": _game_ended,
}
"""The core's other kinds: no rule system adds to what they write (a turn writes only what every
system has: facing, and ``moved`` when the turn used the move)."""


def _fold_table(system: str) -> dict[str, Fold]:
    """Every kind a game of ``system`` may fold: the core's, each followed by the system's hook
    where its records name one (``State.fold_hooks``), and every package's kinds (the registry's
    one table: a forged log holding another system's kind folds as it always did)."""
    from warlog.engine.rulesets import event_folds

    hooks = getattr(get_ruleset(system).State, "fold_hooks", {})
    table = _hooked_folds(hooks)
    table.update(_CORE)
    table.update(event_folds())
    return table


_TABLES: dict[str, dict[str, Fold]] = {}
"""Rule system -> its fold table, built the first time a game of it folds in this process (a
state may arrive pickled in a worker that never started a game) and kept: evolve, the hottest
loop, looks a kind up on every event (a plain dict: its lookups are the fastest)."""


def _first_fold(state: GameState, event: Event) -> Fold:
    """The fold of ``event`` when the fast lookup missed: the rule system's table built (its
    first event in this process), or FoldError for a kind no table has."""
    table = _TABLES.get(state.rule_system)
    if table is None:
        table = _TABLES[state.rule_system] = _fold_table(state.rule_system)
    apply = table.get(event["kind"])
    if apply is None:
        raise FoldError(f"event seq {event['seq']}: unknown event kind {event['kind']!r}")
    return apply


def live(events: Iterable[Event]) -> list[Event]:
    """The log as the game now stands: each take-back's voided stretch (its ``back_to`` up to
    itself) left out, the take-back kept. A log without take-backs comes back whole."""
    out: list[Event] = []
    for event in events:
        if event.get("kind") == TAKEBACK:
            back_to = event.get("back_to")
            while out and isinstance(back_to, int) and out[-1]["seq"] >= back_to:
                out.pop()
        out.append(event)
    return out


def evolve(state: GameState | None, event: Event, *, check: bool = True) -> GameState:
    """Apply one event. ``state`` is None only before a game_started event."""
    kind = event["kind"]
    if kind == "game_started":
        if state is not None:
            raise FoldError(f"event seq {event['seq']}: a game can start only once")
        return initial_state(event)
    if state is None:
        raise FoldError(f"event seq {event['seq']}: the first event must be game_started")
    try:
        apply = _TABLES[state.rule_system][kind]
    except KeyError:  # the system's first event in this process, or a kind nobody folds
        apply = _first_fold(state, event)
    if check and kind == "state_checksum":
        actual = state.checksum()
        if actual != event["sha256"]:
            raise DivergenceError(event["seq"], event["sha256"], actual)
    apply(state, event)
    state.seq = event["seq"]
    return state


def replay(events: Iterable[Event], upto: int | None = None, *, check: bool = True) -> GameState:
    """Fold a game's events (those with seq <= upto) into its state: its live line, every
    take-back's voided stretch left out."""
    state: GameState | None = None
    if upto is not None:
        events = takewhile(lambda event: event["seq"] <= upto, events)
    for event in live(events):
        state = evolve(state, event, check=check)
    if state is None:
        raise FoldError("no events: a game needs at least its game_started event")
    return state


class LiveLine:
    """A log folded event by event as it was played: ``state`` after each event, a voided
    event's as it stood before it was taken back, and after a take-back the position it goes
    back to. Why positions are kept (a copy at the start and at every phase): a take-back
    rebuilds its position from the nearest kept one before its ``back_to``, a phase's fold at
    most, not the whole game's."""

    def __init__(self, *, check: bool = True) -> None:
        self.state: GameState | None = None
        self.check = check
        self._live: list[Event] = []  # the live line so far
        self._kept: list[tuple[int, GameState]] = []  # (live events folded into it, a copy)

    def push(self, event: Event) -> GameState:
        """Fold one more event of the log; the state after it (the one object, moved on)."""
        if event.get("kind") == TAKEBACK:
            self._go_back(event)
        self.state = evolve(self.state, event, check=self.check)
        self._live.append(event)
        if len(self._live) == 1 or event["kind"] in ("phase_started", TAKEBACK):
            self._kept.append((len(self._live), self.state.copy()))
        return self.state

    def _go_back(self, event: Event) -> None:
        back_to = event.get("back_to")
        if not isinstance(back_to, int) or back_to <= 1:
            raise FoldError(f"event seq {event.get('seq')}: a take-back goes back to an order "
                            "after the start (back_to)")
        while self._live and self._live[-1]["seq"] >= back_to:
            self._live.pop()
        while self._kept and self._kept[-1][0] > len(self._live):
            self._kept.pop()
        folded, kept = self._kept[-1]  # the start is always kept: back_to > 1
        state = kept.copy()
        for earlier in self._live[folded:]:
            state = evolve(state, earlier, check=False)
        self.state = state


class Timeline:
    """Random access to the state after any event, for scrubbing: a snapshot at the end of
    every turn (its state_checksum, which every rule system writes) and at every phase, then a
    short fold from the nearest snapshot."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events = list(events)
        self._snapshots: list[tuple[int, GameState]] = []  # (index of last event folded, state)
        line = LiveLine()
        for i, event in enumerate(self.events):
            state = line.push(event)
            # a take-back is kept too: the short fold in state_at never goes back
            if i == 0 or event["kind"] in ("phase_started", "state_checksum", TAKEBACK):
                self._snapshots.append((i, state.copy()))
        self.final = line.state

    def state_at(self, index: int) -> GameState:
        """The state after events[index] (0-based)."""
        if not 0 <= index < len(self.events):
            raise IndexError(f"event index {index} is outside 0..{len(self.events) - 1}")
        start, snap = 0, None
        for i, s in self._snapshots:
            if i > index:
                break
            start, snap = i, s
        state = snap.copy()
        for event in self.events[start + 1 : index + 1]:
            state = evolve(state, event, check=False)
        return state
