"""The engine's visible surface, reduced to a sha256 per item: what issue 20's refactor (each rule
system into its own package, a slim core Unit/GameState, events and orders registered by the
rulesets) must leave byte for byte as it is.

An item is one output a player, a file or a tool sees: the event bytes of a seeded bot game, its
``public()`` and ``checksum()`` at every phase start and turn end, the narration, the analysis
rows, teaching's questions, the notation and words of every legal order at sampled positions,
the reach of every unit there, the CLI's text board, the dashboard's board figure, in-game and
hypothetical odds, what-if playouts, the JSON Schema files and the rules reference. The same
reduction runs over the golden games and the stored replay fixtures (older schemas, upcast).

Items are grouped so that pytest can spread them over workers and name what moved: one group per
bundled scenario (its bot games), then ``fixtures``, ``golden``, ``odds`` and ``docs``. Dumps keep
insertion order (no sorted keys): the order of keys is part of the output (``warlog show``'s JSON,
the dashboard's table columns). Nothing here reads a clock, a path of the machine or a global
random source; a dict or set whose iteration order could differ between processes would show as
an unstable item (regenerating twice, with different PYTHONHASHSEED, gives the same file).

Regenerate (only when an output is meant to change, and say which in the commit):
``.venv/bin/python tests/engine/surface.py``, or ``WARLOG_WRITE_SURFACE=1`` with
tests/engine/test_surface.py (see its docstring).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from warlog.engine import analysis, narration, teaching
from warlog.engine.bots import POLICIES, next_order, play_out
from warlog.engine.dice import SplitMix64
from warlog.engine.fold import Timeline, evolve
from warlog.engine.game import Game, legal_orders
from warlog.engine.reach import describe, unit_reach
from warlog.engine.scenario import Scenario, bundled_scenarios

Event = dict[str, Any]

HERE = Path(__file__).resolve().parent
DIGEST_FILE = HERE / "surface_digest.json"
GOLDEN = HERE.parent / "golden"
FIXTURES = HERE.parent / "events" / "fixtures"

# (red, blue, seed, orders): orders None plays the game out with bots.play_out; a number cuts it
# after that many orders (played one by one with bots.next_order, as play_out plays them).
GAMES: tuple[tuple[str, str, int, int | None], ...] = (
    ("aggressive", "cautious", 1, None),
    ("random", "random", 2, None),
    ("tactician", "random", 3, 90),
    ("cautious", "tactician", 4, 40),
)
# The search bots play playouts at every decision (seconds an order in most scenarios): a few
# orders where they are cheap.
SEARCH_GAMES: dict[str, tuple[str, str, int, int]] = {
    "ancients-river-crossing": ("search", "deep-search", 5, 8),
    "density-granicus": ("search", "random", 5, 3),
}
RICH = 0  # the index in GAMES of the game whose board figures and odds are recorded (and, in
# the first bundled scenario of each system, what-if playouts: half a game each)
SAMPLES = 4  # positions per game (waiting for an order) where orders, reach, boards are taken
SCRUBS = 12  # Timeline.state_at calls per game, at seeded indexes
STATIC_GROUPS = ("fixtures", "golden", "odds", "docs")
STATIC_PREFIXES = {"fixture": "fixtures", "golden": "golden", "odds": "odds", "schema": "docs",
                   "rules": "docs", "tables": "docs", "vocabulary": "docs"}


# -- reduction --------------------------------------------------------------------------------


def _default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=repr)
    return str(obj)  # a Fraction and the like: its text is what a player reads


def dump(obj: Any) -> bytes:
    """JSON bytes in insertion order (dataclasses by field order, tuples as arrays)."""
    return orjson.dumps(obj, default=_default, option=orjson.OPT_NON_STR_KEYS)


def sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def _lines(rows: Iterable[Any]) -> str:
    return sha(b"\n".join(dump(r) for r in rows))


def _try(fn: Callable[[], Any]) -> Any:
    """The result, or the one-line error a player would read (its type and message)."""
    try:
        return fn()
    except ValueError as exc:  # OddsError, IllegalOrder, WhatIfError, FoldError ...
        return [type(exc).__name__, str(exc)]


# -- the games --------------------------------------------------------------------------------


def play(scenario: Scenario, red: str, blue: str, seed: int, orders: int | None) -> list[Event]:
    gid = f"surface-{scenario.id}-s{seed}-{red}-{blue}"
    if orders is None:
        return play_out(gid, scenario, seed=seed, red=red, blue=blue).events
    game = Game.new(gid, scenario, seed=seed, players={"red": red, "blue": blue})
    for _ in range(orders):
        if game.state.ended:
            break
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    return game.events


def waiting(events: Sequence[Event]) -> list[int]:
    """Indexes i after which the game waits for an order (events[i + 1] is one)."""
    return [i for i in range(len(events) - 1) if events[i + 1]["kind"] == "order_given"]


def samples(events: Sequence[Event]) -> list[int]:
    points = waiting(events)
    if not points:
        return []
    return sorted({points[k * len(points) // SAMPLES] for k in range(SAMPLES)})


def _fold_rows(events: Sequence[Event]) -> list[Any]:
    """public() and checksum() at the opening, every phase start, every turn end (the
    state_checksum the fold checks) and the last event."""
    rows, state = [], None
    for i, e in enumerate(events):
        state = evolve(state, e, check=True)
        if i == 0 or i == len(events) - 1 or e["kind"] in ("phase_started", "state_checksum"):
            rows.append([e["seq"], e["kind"], state.public(), state.checksum()])
    return rows


def _order_rows(state) -> list[Any]:
    """Every legal order here: its notation, its words, and whether the notation reads back."""
    from warlog.app.notation import format_order, parse_order

    rows = []
    for o in legal_orders(state):
        text = format_order(o)
        back = _try(lambda: parse_order(text.split()) == o)
        rows.append([text, narration.order_text(o.model_dump(mode="json"), state.side,
                                                 state.phase), back])
    return rows


REACHED = 4  # units of the side to act whose reach is taken at a position (each asks the
# referee for its legal orders); the other side's units cost nothing and are all taken


def _reach_rows(state) -> list[Any]:
    rows, acting = [], 0
    for u in state.units.values():
        if u.side == state.to_act and not u.removed:
            acting += 1
            if acting > REACHED:
                continue
        r = unit_reach(state, u.id)
        rows.append([r, describe(state, r)])
    return rows


def _status_rows(state) -> list[Any]:
    return [analysis.system_name(state)] + [[u.id, analysis.unit_status(state, u)]
                                            for u in state.units.values()]


def _text_board(state) -> list[Any]:
    from warlog.board_text import board_lines, legend

    return [board_lines(state), legend(state)]


def figure(state, **kwargs: Any) -> bytes:
    """The dashboard's board figure as plotly JSON, without plotly's own template (which moves
    with plotly's version, not with warlog)."""
    import plotly.io as pio

    from warlog.app.pictures.board import board_figure

    fig = json.loads(pio.to_json(board_figure(state, **kwargs), validate=False))
    fig.get("layout", {}).pop("template", None)
    return dump(fig)


ODDS_TRIES = 40  # attacker-target pairs tried for each kind at a position


def _odds_rows(state) -> list[Any]:
    """For each kind of attack of the system, the odds of the first pair (a unit of the side
    to act, an enemy) it can be asked of, and the first refusal; and a Frontier battery's
    bombardment of the first cell it may fire at."""
    from warlog.engine.odds import KINDS, NO_ATTACKER, attack, bombard_cell

    rows: list[Any] = []
    mine = [u.id for u in state.alive(state.to_act)] if state.to_act else []
    theirs = [u.id for u in state.alive() if u.side != state.to_act]
    for kind in KINDS[state.rule_system]:
        pairs = [(s, t) for s in ([None] if kind in NO_ATTACKER else mine) for t in theirs]
        refused = None
        for s, t in pairs[:ODDS_TRIES]:
            result = _try(lambda: attack(state, s, t, kind).as_dict())
            if isinstance(result, dict):
                rows.append([s, t, kind, result])
                break
            refused = refused or [s, t, kind, result]
        rows.append(refused)
    for u in state.units.values():
        r = unit_reach(state, u.id)
        if r.acting and r.aimed_cells:
            rows.append([u.id, r.aimed_cells[0], "cell", _try(
                lambda: bombard_cell(state, u.id, r.aimed_cells[0]).as_dict())])
            break
    return rows


def _whatif_rows(events: Sequence[Event]) -> list[Any]:
    from warlog.engine import whatif

    points = whatif.waiting_points(events)
    seq = points[len(points) // 2]
    head, later = whatif.prefix(events, seq), whatif.recorded_orders(events, seq)
    return [seq,
            _try(lambda: whatif.playout(head, seed=9)),
            _try(lambda: whatif.playout(head, seed=9, policies={"red": "random",
                                                               "blue": "random"})),
            _try(lambda: whatif.playout(head, seed=9, mode="recorded", recorded_orders=later))]


def game_items(events: Sequence[Event], *, rich: bool = False,
               whatifs: bool = False) -> dict[str, str]:
    """Item name -> sha256 for one game's events."""
    from warlog.app.study import summarize

    events = list(events)
    tl = Timeline(events)
    final = tl.final
    steps = analysis.steps(events)
    points = samples(events)
    at = [tl.state_at(i) for i in points]
    rng = SplitMix64(len(events))
    scrubbed = [rng.below(len(events)) for _ in range(SCRUBS)]
    exhaustion = analysis.exhaustion(events)
    out = {
        "events": sha(b"\n".join(orjson.dumps(e, option=orjson.OPT_SORT_KEYS) for e in events)),
        "states": _lines(_fold_rows(events)),
        "timeline": _lines([i, s.seq, s.public(), s.checksum()]
                           for i in scrubbed for s in [tl.state_at(i)]),
        "narration": sha("\n".join(narration.narrate_all(events))),
        "steps": _lines(steps),
        "highlights": _lines(analysis.highlights(events[s.first : s.last + 1],
                                                 tl.state_at(s.last)) for s in steps),
        "luck": _lines([analysis.luck(events), analysis.luck_by_turn(events),
                        list(analysis.resolutions(events))]),
        "attrition": _lines([analysis.attrition(events), analysis.unit_timeline(events)]),
        "exhaustion": _lines([exhaustion, analysis.exhausted_turns(exhaustion)]),
        "unit_status": _lines(_status_rows(s) for s in [*at, final]),
        "teaching": _lines(teaching.question(events, s, tl.state_at) for s in steps),
        "summary": sha(dump(summarize(events))),
        "notation": _lines([i, _order_rows(s)] for i, s in zip(points, at)),
        "reach": _lines([i, _reach_rows(s)] for i, s in zip(points, at)),
        "text_board": _lines(_text_board(s) for s in [*at, final]),
    }
    if rich and points:
        mid = steps[len(steps) // 2]
        state = tl.state_at(mid.last)
        marks = analysis.highlights(events[mid.first : mid.last + 1], state)
        chosen = next((u.id for u in state.alive(state.to_act)), None) if state.to_act else None
        selected = unit_reach(state, chosen) if chosen else None
        out["board"] = sha(figure(final) + b"\n" + figure(state, highlight=marks,
                                                           selected=selected))
        out["odds"] = _lines([i, _odds_rows(s)] for i, s in zip(points, at))
    if whatifs:
        out["whatif"] = _lines(_whatif_rows(events))
    return out


def game_name(scenario: Scenario, red: str, blue: str, seed: int, orders: int | None) -> str:
    cut = "" if orders is None else f"@{orders}"
    return f"{scenario.rule_system}/{scenario.id}/s{seed}/{red}-{blue}{cut}"


def scenario_items(scenario: Scenario) -> dict[str, str]:
    games = list(GAMES) + ([SEARCH_GAMES[scenario.id]] if scenario.id in SEARCH_GAMES else [])
    first = next(sc.id for sc in bundled_scenarios() if sc.rule_system == scenario.rule_system)
    out = {}
    for n, (red, blue, seed, orders) in enumerate(games):
        name = game_name(scenario, red, blue, seed, orders)
        items = game_items(play(scenario, red, blue, seed, orders), rich=n == RICH,
                           whatifs=n == RICH and scenario.id == first)
        out.update({f"{name}/{k}": v for k, v in items.items()})
    return out


# -- stored games -----------------------------------------------------------------------------


def fixture_items() -> dict[str, str]:
    """The replay fixtures as warlog reads them (upcast to today's schema)."""
    from warlog.events.replay_file import load_replay

    out = {}
    for path in sorted(FIXTURES.glob("*.jsonl")):
        items = game_items(load_replay(path))
        out.update({f"fixture/{path.stem}/{k}": v for k, v in items.items()})
    return out


FOLD_ITEMS = ("events", "states", "timeline")


def golden_items() -> dict[str, str]:
    """Two items a golden game (fold; views), to keep the digest file small: the golden tests
    pin the events themselves, and name the case when they move."""
    out = {}
    for path in sorted(GOLDEN.glob("*.events.jsonl")):
        events = [orjson.loads(line) for line in path.read_bytes().splitlines() if line]
        items = game_items(events)
        case = path.name.removesuffix(".events.jsonl")
        out[f"golden/{case}/fold"] = sha("\n".join(items[k] for k in FOLD_ITEMS))
        out[f"golden/{case}/views"] = sha("\n".join(f"{k}={v}" for k, v in items.items()
                                                    if k not in FOLD_ITEMS))
    return out


# -- odds of two unit types -------------------------------------------------------------------

# (system, period, attacker, target, keyword arguments): docs/odds.md's examples, each kind of
# each system, and a few refusals (their one-line message is output too).
HYPOTHETICALS: tuple[tuple[str, str | None, str | None, str, dict[str, Any]], ...] = (
    ("ohw", "ancients", "Infantry", "Cavalry", {"kind": "melee", "aspect": "flank"}),
    ("ohw", "ancients", "Cavalry", "Infantry", {"kind": "melee", "terrain": "hill",
                                                "options": {"halving": "once"}}),
    ("ohw", "ancients", "Archers", "Skirmishers", {"kind": "shoot", "grid": "hex"}),
    ("ohw", "pike_and_shot", "Infantry", "Swordsmen", {"kind": "shoot"}),
    ("ohw", "horse_and_musket", "Cavalry", "Infantry", {"kind": "melee", "aspect": "rear"}),
    ("ohw", "ww2", "Tanks", "Tanks", {"kind": "shoot", "terrain": "hill", "grid": "brick"}),
    ("ohw", "machine_age", "Machine guns", "Infantry", {"kind": "shoot", "distance": 3}),
    ("ohw", "machine_age", None, "Infantry", {"kind": "barrage", "terrain": "woods"}),
    ("ohw", "ancients", "Cavalry", "Infantry", {"kind": "melee", "terrain": "woods"}),
    ("ohw", "ancients", "Elephants", "Infantry", {"kind": "melee"}),
    ("portable", None, "Cataphracts", "Hoplites", {"kind": "melee", "moved": 1,
                                                   "choice": "lose"}),
    ("portable", None, "Archers", "Heavy Infantry", {"kind": "shoot", "choice": "retreat"}),
    ("portable", None, "Heavy Infantry", "Heavy Infantry", {"kind": "melee", "aspect": "flank"}),
    ("frontier", None, "European Infantry", "Native Infantry", {"kind": "melee"}),
    ("frontier", None, "European Cavalry", "Native Infantry", {"kind": "melee",
                                                               "terrain": "woods"}),
    ("frontier", None, "European Infantry", "Native Infantry", {"kind": "melee",
                                                                "attackers": 3}),
    ("frontier", None, "Field Artillery", "Native Infantry", {"kind": "bombard"}),
    ("napoleonic", None, "Foot Artillery", "Infantry", {"kind": "bombard", "distance": 3,
                                                        "same_cell": True}),
    ("napoleonic", None, "Infantry", "Infantry", {"kind": "shoot", "choice": "lose"}),
    ("napoleonic", None, "Infantry", "Infantry", {"kind": "melee",
                                                  "target_formation": "square"}),
    ("density", None, "Archers", "Infantry", {"kind": "shoot", "disorder": 1}),
    ("density", None, "Infantry", "Cavalry", {"kind": "melee", "aspect": "flank",
                                              "target_density": 5}),
    ("density", None, "Infantry", "Cavalry", {"kind": "bombard"}),
)


def odds_items() -> dict[str, str]:
    from warlog.engine.odds import hypothetical

    out = {}
    for n, (system, period, attacker, target, kw) in enumerate(HYPOTHETICALS):
        label = f"{attacker or '-'} {kw['kind']} {target}".replace(" ", "_")
        result = _try(lambda: hypothetical(system, period, attacker, target, **kw).as_dict())
        out[f"odds/{system}/{n:02d}-{label}"] = sha(dump(result))
    return out


# -- documents --------------------------------------------------------------------------------


def doc_items() -> dict[str, str]:
    """`warlog schema`'s files, `warlog rules --markdown`, the catalogue, each system's tables as
    the CLI and dashboard read them, and the vocabularies the CLI's help prints."""
    from warlog import schema
    from warlog.app import notation
    from warlog.engine import odds, odds_cell, odds_position, rules, rules_doc
    from warlog.engine.rulesets import tables

    out = {f"schema/{rel}": sha(text.encode("utf-8")) for rel, text in schema.files().items()}
    out["rules/markdown"] = sha(rules_doc.markdown())
    out["rules/catalogue"] = _lines([list(rules.sources().values()),
                                     list(rules.catalogue().values())])
    for system in tables.systems():
        for period in tables.periods(system):
            out[f"tables/{system}/{period}"] = _lines([
                tables.rules_title(system, period), tables.unit_types(system, period),
                tables.option_specs(system, period),
                [tables.options_added(system, period, v) for v in (1, 2, 3)],
                [r.id for r in rules.rules_for(system, period)]])
    out["vocabulary/cli"] = _lines([
        notation.USAGE, notation.FORMATIONS, list(POLICIES), odds.KINDS, odds.NO_ATTACKER,
        odds.CHOICES, odds_position.ASPECTS, odds_position.EXTRAS, odds_position.COMMON_EXTRAS,
        odds_cell.SYSTEMS])
    return out


# -- the whole surface ------------------------------------------------------------------------


def groups() -> list[str]:
    return [sc.id for sc in bundled_scenarios()] + list(STATIC_GROUPS)


def group_items(group: str) -> dict[str, str]:
    static = {"fixtures": fixture_items, "golden": golden_items, "odds": odds_items,
              "docs": doc_items}
    if group in static:
        return static[group]()
    return scenario_items(next(sc for sc in bundled_scenarios() if sc.id == group))


def group_of(item: str) -> str:
    """The group an item belongs to: its prefix, or for a game the scenario id it names."""
    head, _, rest = item.partition("/")
    return STATIC_PREFIXES.get(head) or rest.partition("/")[0]


def surface() -> dict[str, str]:
    out: dict[str, str] = {}
    for g in groups():
        out.update(group_items(g))
    return out


def read_digest() -> dict[str, str]:
    return json.loads(DIGEST_FILE.read_text("utf-8")) if DIGEST_FILE.exists() else {}


def write_digest(items: dict[str, str]) -> None:
    DIGEST_FILE.write_text(json.dumps(dict(sorted(items.items())), indent=0) + "\n", "utf-8")


def differences(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """One line per item that moved, appeared or vanished."""
    out = []
    for k in sorted(expected.keys() | actual.keys()):
        if k not in actual:
            out.append(f"missing: {k}")
        elif k not in expected:
            out.append(f"new (not in the digest): {k}")
        elif expected[k] != actual[k]:
            out.append(f"changed: {k}")
    return out


if __name__ == "__main__":  # regenerate the digest (only when an output is meant to change)
    computed = surface()
    moved = differences(read_digest(), computed)
    write_digest(computed)
    shown = moved[:40] + ([f"... and {len(moved) - 40} more"] if len(moved) > 40 else [])
    print("\n".join(shown) or "no item changed", file=sys.stderr)
    print(f"{len(computed)} items written to {DIGEST_FILE.name}", file=sys.stderr)
