"""Golden games: the rules' regression suite (like perft files for chess move generators).

A golden case is one TOML file in this folder (``<case>.toml``)::

    name = "cavalry may not enter woods"
    why = "one sentence: the rule shown and the hand-worked arithmetic"
    rules = ["ohw.ancients.terrain"]          # the rule ids this case is about
    known_bug = "..."                         # optional: the engine is known to get this case wrong

    [scenario]                                # an inline scenario, scenarios/README.md format
    ...                                       # (``id`` defaults to the case's file name)

    [[steps]]
    order = {type = "move", unit = "r-cav", facing = "E", distance = 2}
    illegal = "ohw.ancients.terrain"          # refused citing exactly this rule; nothing produced
    [[steps]]
    order = {type = "end_phase"}
    dice = [4]                                # the faces the real dice showed for this order

    [expect]                                  # optional: ended, winner ("red"/"blue"/"draw"),
    ended = false                             #   melees ([[attacker, defender], ...])
    [[expect.units]]                          # hand-worked final values
    id = "r-cav"
    cell = [0, 1]
    facing = "E"
    hits = 0
    removed = false

and ``<case>.events.jsonl``: the exact events the case produces, one canonical JSON object per
line, written by ``regen.py``. The expectations are worked out by hand from the rules; the events
file pins every byte the engine writes so that any change of the rules shows up.

This module is shared by ``regen.py`` and ``tests/engine/test_golden.py``.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warlog.engine.dice import DiceError, ManualDice
from warlog.engine.game import Game, start
from warlog.engine.rules import IllegalOrder
from warlog.engine.scenario import Scenario, scenario_from_dict
from warlog.events.chain import canonical
from warlog.events.orders import parse_order

GOLDEN_DIR = Path(__file__).resolve().parent

_CASE_KEYS = {"name", "why", "rules", "known_bug", "scenario", "steps", "expect", "opening_dice"}
_STEP_KEYS = {"order", "dice", "illegal"}
_EXPECT_KEYS = {"units", "ended", "winner", "melees", "defender", "trenches", "spotted"}
_UNIT_KEYS = {"id", "cell", "facing", "hits", "removed", "out_of_ammo", "formation", "disordered"}
_UNIT_VALUES = ("cell", "facing", "hits", "removed", "out_of_ammo", "formation", "disordered")


class GoldenError(AssertionError):
    """A golden case that is malformed, or that the engine does not play as the case says."""


@dataclass(frozen=True)
class Step:
    order: dict[str, Any]
    dice: tuple[int, ...] = ()
    illegal: str | None = None


@dataclass
class Case:
    stem: str
    path: Path
    name: str
    why: str
    rules: list[str]
    scenario: dict[str, Any]
    steps: list[Step]
    expect: dict[str, Any] = field(default_factory=dict)
    known_bug: str | None = None
    opening_dice: tuple[int, ...] = ()

    @property
    def events_path(self) -> Path:
        return self.path.with_name(f"{self.stem}.events.jsonl")


def case_paths() -> list[Path]:
    """Every golden case file, sorted by name."""
    return sorted(GOLDEN_DIR.glob("*.toml"))


def _need(cond: bool, path: Path, problem: str) -> None:
    if not cond:
        raise GoldenError(f"{path.name}: {problem}")


def load_case(path: Path) -> Case:
    data = tomllib.loads(path.read_text("utf-8"))
    unknown = sorted(set(data) - _CASE_KEYS)
    _need(not unknown, path, f"unknown keys {unknown}")
    for key in ("name", "why", "rules", "scenario", "steps"):
        _need(key in data, path, f"missing {key!r}")
    _need(isinstance(data["rules"], list) and data["rules"], path, "rules must be a non-empty list")
    steps = []
    for i, raw in enumerate(data["steps"]):
        unknown = sorted(set(raw) - _STEP_KEYS)
        _need(not unknown, path, f"steps[{i}]: unknown keys {unknown}")
        _need("order" in raw, path, f"steps[{i}]: missing 'order'")
        _need(not (raw.get("illegal") and raw.get("dice")), path,
              f"steps[{i}]: an illegal order rolls no dice")
        steps.append(Step(order=raw["order"], dice=tuple(raw.get("dice", ())),
                          illegal=raw.get("illegal")))
    expect = data.get("expect", {})
    unknown = sorted(set(expect) - _EXPECT_KEYS)
    _need(not unknown, path, f"expect: unknown keys {unknown}")
    for i, unit in enumerate(expect.get("units", [])):
        unknown = sorted(set(unit) - _UNIT_KEYS)
        _need(not unknown, path, f"expect.units[{i}]: unknown keys {unknown}")
        _need("id" in unit and len(unit) > 1, path, f"expect.units[{i}]: needs id and a value")
    return Case(stem=path.stem, path=path, name=data["name"], why=data["why"],
                rules=list(data["rules"]), scenario=dict(data["scenario"]), steps=steps,
                expect=expect, known_bug=data.get("known_bug"),
                opening_dice=tuple(data.get("opening_dice", ())))


def scenario_of(case: Case) -> Scenario:
    data = copy.deepcopy(case.scenario)
    data.setdefault("id", case.stem)
    return scenario_from_dict(data, source=f"tests/golden/{case.path.name} [scenario]")


def _snapshot(game: Game) -> tuple[int, bytes, str]:
    return len(game.events), canonical(game.state.public()), game.state.checksum()


def play(case: Case, *, tolerate: bool = False) -> tuple[Game, list[str]]:
    """Play every step of ``case``; return the game and the deviations found.

    A deviation is a step the engine does not play as the case says (an illegal order accepted,
    refused under another rule, or a legal one refused; dice not all used). Strict (the default):
    the first deviation raises GoldenError. ``tolerate``: for a case marked ``known_bug``, a
    wrongly accepted illegal order is undone (the game rebuilt from the events before it), so the
    log holds what the rules say should happen, and play goes on.
    """
    game = Game(start(case.stem, scenario_of(case), dice="manual", opening_dice=case.opening_dice))
    if game.state.dice_rolled != len(case.opening_dice):
        raise GoldenError(f"{case.path.name}: the opening used {game.state.dice_rolled} of the "
                          f"opening dice {list(case.opening_dice)}")
    deviations: list[str] = []

    def deviate(text: str) -> None:
        if not tolerate:
            raise GoldenError(f"{case.path.name}: {text}")
        deviations.append(text)

    for i, step in enumerate(case.steps):
        where = f"steps[{i}] {step.order}"
        order = parse_order(step.order)
        dice = ManualDice(step.dice)
        before = _snapshot(game)
        if step.illegal:
            kept = list(game.events)
            try:
                new = game.play(order, dice=dice)
            except IllegalOrder as exc:
                if exc.rule != step.illegal:
                    deviate(f"{where}: refused citing {exc.rule}, expected {step.illegal}: {exc}")
                if _snapshot(game) != before:
                    deviate(f"{where}: the refused order changed the game")
                continue
            except DiceError:  # accepted: it went on to ask for a die the step does not give
                deviate(f"{where}: accepted (it asked for a die), expected refusal ({step.illegal})")
                continue
            deviate(f"{where}: accepted ({len(new)} events), expected refusal ({step.illegal})")
            game = Game(kept)  # undo it (tolerant mode only reaches here)
            continue
        try:
            game.play(order, dice=dice)
        except IllegalOrder as exc:
            raise GoldenError(f"{case.path.name}: {where}: refused citing {exc.rule}: {exc}") from None
        except DiceError as exc:
            raise GoldenError(f"{case.path.name}: {where}: {exc}") from None
        if dice.rolled != len(step.dice):
            deviate(f"{where}: used {dice.rolled} of the dice {list(step.dice)}")
    return game, deviations


def event_lines(events: list[dict[str, Any]]) -> list[bytes]:
    return [canonical(e) for e in events]


def read_event_lines(case: Case) -> list[bytes]:
    if not case.events_path.exists():
        raise GoldenError(f"{case.events_path.name} is missing: run tests/golden/regen.py {case.stem}")
    return case.events_path.read_bytes().splitlines()


def compare_events(actual: list[bytes], expected: list[bytes]) -> list[str]:
    """Problems (empty if none): the first differing line, or a length difference."""
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a != e:
            return [f"event {i + 1} differs:\n  expected {e.decode()}\n  actual   {a.decode()}"]
    if len(actual) != len(expected):
        return [f"{len(actual)} events, expected {len(expected)}"]
    return []


def check_expect(case: Case, game: Game) -> list[str]:
    """Problems (empty if none) between the hand-written expectations and the final state."""
    problems = []
    state = game.state
    for want in case.expect.get("units", []):
        unit = state.units.get(want["id"])
        if unit is None:
            problems.append(f"no unit {want['id']!r}")
            continue
        got = {"cell": list(unit.cell), "facing": unit.facing, "hits": unit.hits,
               "removed": unit.removed, "out_of_ammo": unit.out_of_ammo,
               "formation": unit.formation, "disordered": unit.disordered}
        for key in _UNIT_VALUES:
            if key not in want:
                continue
            value = list(want[key]) if key == "cell" else want[key]
            if got[key] != value:
                problems.append(f"{want['id']}.{key}: expected {value!r}, got {got[key]!r}")
    if "ended" in case.expect and state.ended != case.expect["ended"]:
        problems.append(f"ended: expected {case.expect['ended']}, got {state.ended}")
    if "winner" in case.expect:
        got = state.winner or ("draw" if state.ended else None)
        if got != case.expect["winner"]:
            problems.append(f"winner: expected {case.expect['winner']!r}, got {got!r}")
    for key, got in (("melees", state.melees), ("spotted", state.spotted),
                     ("trenches", state.trenches)):
        if key in case.expect:
            got = [list(m) for m in got]
            if got != [list(m) for m in case.expect[key]]:
                problems.append(f"{key}: expected {case.expect[key]}, got {got}")
    if "defender" in case.expect and state.defender != case.expect["defender"]:
        problems.append(f"defender: expected {case.expect['defender']!r}, got {state.defender!r}")
    return problems
