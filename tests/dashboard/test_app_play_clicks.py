"""Every order kind of every rule system given on the Play page by clicks alone (AppTest): the
board clicked as a browser clicks it (tests/app_pages.click_board), then a button where a click
offers several orders or the order is a button, then the dice faces; and the game then holds
exactly what the golden game holds there.

The positions are the golden games' (tests/golden: hand-worked from the sources, manual dice,
every order kind of every system among them): a game is stored up to the first order of each
kind, opened in Play, and that order given again through the page. How to give it comes from
the rule system's order vocabulary, so this test names no system's orders either.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from app_pages import click_board, open_page

from warlog.dashboard.data import markdown_text
from markup_probe import shown

from warlog.engine import analysis, narration, vocabulary
from warlog.engine.fold import evolve
from warlog.engine.fold import replay
from warlog.engine.game import Game
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.tables import systems
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.orders import parse_order

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
INPUTS = ("order_given", "note", "order_retracted")


def _first_of_each_kind() -> dict[tuple[str, str], tuple[str, int]]:
    """(system, order type) -> (golden log, index of its first order of that type that the
    rules list among the legal orders there). A golden game may give an order the referee
    accepts but does not list, one that says more than what happens (a move ordered four cells
    that a ford stops after three): the board offers the listed one, so such an order is no
    position for this test."""
    found: dict[tuple[str, str], tuple[str, int]] = {}
    for path in sorted(GOLDEN.glob("*.events.jsonl")):
        events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        system = events[0]["rule_system"]
        for i, event in enumerate(events):
            key = (system, event["order"]["type"]) if event["kind"] == "order_given" else None
            if key is None or key in found:
                continue
            if parse_order(event["order"]) in Game(events[:i]).legal_orders():
                found[key] = (path.name, i)
    return found


FIRST = _first_of_each_kind()
KINDS = [(system, kind.type) for system in systems() for kind in get_ruleset(system).orders]


def test_the_golden_games_hold_every_order_kind_of_every_system():
    assert set(KINDS) - set(FIRST) == set()


def _click(at, state, cell, towards=(0.0, 0.0), shift=False) -> None:
    """Click the board in ``cell``: at its centre, or ``towards`` a fraction of the way from
    its centre to its first corner (a click need not land on the counter to mean the cell);
    with Shift held to be offered every order there, not given the plain one."""
    (x, y), (cx, cy) = state.grid.centre(tuple(cell)), state.grid.corners(tuple(cell))[0]
    click_board(at, "play_board", x + towards[0] * (cx - x), y + towards[1] * (cy - y),
                shift=shift)


def _button(at, prefix: str, label: str):
    label = markdown_text(label)  # a label is data (unit ids): the page escapes it
    found = [b for b in at.button if (b.key or "").startswith(prefix) and b.label == label]
    assert found, f"no {prefix} button {label!r}: {[(b.key, b.label) for b in at.button]}"
    return found[0]


def _clean(event: dict) -> dict:
    return {k: v for k, v in event.items() if k not in ("game", "by")}


def _opened_at(key: tuple[str, str], tmp_path, monkeypatch):
    """The golden game of ``key``'s first order stored up to that order and opened in Play:
    (the page, the database, the golden events, the order's index, the state, the order)."""
    name, at_index = FIRST[key]
    events = [orjson.loads(line) for line in (GOLDEN / name).read_bytes().splitlines()]
    db = tmp_path / "clicks.db"
    with SQLiteEventStore(db) as store:
        store.append(events[0]["game"], events[:at_index], 0)
    at = open_page(monkeypatch, db, "views/play.py")
    at.session_state["play_game"] = events[0]["game"]
    at.run()
    assert not at.exception
    order = parse_order(events[at_index]["order"])
    return at, db, events, at_index, replay(events[:at_index]), order


def _give_by_clicks(at, state, order, events_before) -> None:
    """Give ``order`` as a player does: click its unit on the board, then the cell or the enemy
    it points at (or its button), then its label where the click offered several orders."""
    unit = vocabulary.unit_of(state, order)
    where = vocabulary.gesture(state, order)
    label = vocabulary.label(state, order)
    if unit is not None:  # select the unit by clicking it on the board
        _click(at, state, state.units[unit].cell, towards=(0.8, 0.8))
        assert not at.exception
        assert at.session_state["play_unit"] == unit
    # a plain click gives the plain order there at once; any other is chosen after Shift-click
    offered = vocabulary.choices(state, unit, Game(events_before).legal_orders())
    there = {"cell": offered.cells, "aim": offered.aims, "enemy": offered.enemies}.get(where.how)
    shift = there is not None and vocabulary.plain_order(state, there[where.at]) != order
    if where.how in ("cell", "aim"):
        _click(at, state, where.at, towards=(0.5, 0.2), shift=shift)
    elif where.how == "enemy":
        enemy = state.units[where.at]
        _click(at, state, enemy.cell, shift=shift)
    elif where.how == "unit":
        _button(at, "play_unit_order_", label).click().run()
    else:
        _button(at, "play_side_", label).click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    if at.session_state["play_offer"] if "play_offer" in at.session_state else None:
        _button(at, "play_offer_", label).click().run()  # the click offered several orders


@pytest.mark.parametrize("system, kind", KINDS, ids=[f"{s}-{k}" for s, k in KINDS])
def test_every_order_kind_is_given_by_clicks(system, kind, tmp_path, monkeypatch):
    at, db, events, at_index, state, order = _opened_at((system, kind), tmp_path, monkeypatch)
    _give_by_clicks(at, state, order, events[:at_index])

    end = next((j for j in range(at_index + 1, len(events)) if events[j]["kind"] in INPUTS),
               len(events))
    faces = [f for e in events[at_index:end] if e["kind"] == "dice_rolled" for f in e["faces"]]
    for face in faces:  # the golden game's dice, one click each
        assert at.session_state["play_dice"] is not None, "the page wants no more dice"
        _button(at, "play_face_", str(face)).click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    with SQLiteEventStore(db) as store:
        stored = store.read(events[0]["game"])
    assert [_clean(e) for e in stored[at_index:]] == [_clean(e) for e in events[at_index:end]]
    _told_what_happened(at, stored, at_index, end)


def _told_what_happened(at, stored, at_index: int, end: int) -> None:
    """The page's "what happened" list leads with the order just given (unless it was an end
    of phase that did nothing), with the narrated line of each thing it caused: a die, a hit,
    a move, in the Replay page's words."""
    feed = [shown(m.value) for m in at.get("markdown") if m.value]
    captions = [shown(c.value) for c in at.caption]
    steps = analysis.steps(stored[: end])
    step = next(s for s in steps if s.first == at_index)
    caused = [e for e in stored[at_index:end]
              if e["kind"] not in ("phase_started", "order_given", "state_checksum")]
    if stored[at_index]["order"]["type"] == "end_phase" and not caused:
        return
    assert any(line.strip("*") == step.title for line in feed), (step.title, feed)
    state = replay(stored[:at_index + 1])
    for e in caused[:3]:
        said = narration.narrate(e, state)
        assert any(said in c for c in captions), (said, captions)
        state = evolve(state, e, check=False)


def test_an_order_waiting_for_its_dice_is_taken_back_by_a_click(tmp_path, monkeypatch):
    """The dice dialog's undo: the order is withdrawn (an order_retracted event, which changes
    nothing), the dialog closes, and the same order may be given again."""
    at, db, events, at_index, state, order = _opened_at(("portable", "shoot"), tmp_path,
                                                        monkeypatch)
    game = events[0]["game"]
    _give_by_clicks(at, state, order, events[:at_index])
    assert at.session_state["play_dice"] is not None, "the shot wants no dice"
    with SQLiteEventStore(db) as store:
        assert len(store.read(game)) == at_index  # nothing is stored before its dice
    at.button(key="play_undo").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["play_dice"] is None
    with SQLiteEventStore(db) as store:
        stored = store.read(game)
    assert [e["kind"] for e in stored[at_index:]] == ["order_retracted"]
    assert parse_order(stored[-1]["order"]) == order
    assert verify(stored).ok
