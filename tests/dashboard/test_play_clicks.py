"""What a click on the Play board means (dashboard/play_clicks.py), on the golden games' positions
of every rule system: a plain click on a cell or an enemy gives one order at once (the only one
there, or the plain one), a Shift-click offers them all plainest first, and a click that gives
nothing says why, naming the rule the referee refused it by. Also the running "what happened"
list (warlog/app/feed.py): read a few events at a time, it says what a fresh read says.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from warlog.dashboard import play_clicks
from warlog.app.feed import Feed
from warlog.app.session import Session
from warlog.engine import vocabulary
from warlog.engine.rules import catalogue
from warlog.events.sqlite_store import SQLiteEventStore

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
POSITIONS_PER_GAME = 3


def _golden() -> list[tuple[str, list[dict]]]:
    return [(path.name.removesuffix(".events.jsonl"),
             [orjson.loads(line) for line in path.read_bytes().splitlines()])
            for path in sorted(GOLDEN.glob("*.events.jsonl"))]


GAMES = _golden()
SAMPLED = GAMES[::3]  # a third of the golden games: every system, many positions, a few seconds


def test_the_sample_holds_every_rule_system():
    assert {events[0]["rule_system"] for _, events in SAMPLED} == \
        {events[0]["rule_system"] for _, events in GAMES}


def _positions(events: list[dict]) -> list[int]:
    """Up to POSITIONS_PER_GAME indexes where the game waits for an order (before an
    order_given), spread over the game."""
    at = [i for i, e in enumerate(events) if e["kind"] == "order_given"]
    step = max(1, len(at) // POSITIONS_PER_GAME)
    return at[::step][:POSITIONS_PER_GAME]


def _table(tmp_path: Path, events: list[dict], upto: int, n: int) -> Session:
    store = SQLiteEventStore(tmp_path / f"p{n}.db")
    store.append(events[0]["game"], events[:upto], 0)
    return Session(store, events[0]["game"])


def _rule_named(line: str) -> None:
    """A line that names a rule names one the catalogue holds, with its text."""
    for rid in re.findall(r"rule ([\w.]+):", line):
        assert rid in catalogue(), line


@pytest.mark.parametrize("name, events", SAMPLED, ids=[name for name, _ in SAMPLED])
def test_every_click_gives_an_order_offers_some_or_says_why(tmp_path, name, events):
    for n, upto in enumerate(_positions(events)):
        table = _table(tmp_path, events, upto, n)
        state = table.state
        if state.ended or table.seat_to_act is None or table.seat_to_act.bot:
            continue
        legal = table.legal()
        acting = table.units_to_act()
        for unit in state.alive(state.to_act):
            if state.unit_at(unit.cell).id != unit.id:
                continue  # a cell of two units (a commander with his unit) means its first
            outcome = play_clicks.resolve(table, unit.cell, None)
            if unit.id in acting:
                assert outcome.select == unit.id
            else:  # a unit that may not act: one line, never silence
                assert outcome.say and unit.id in outcome.say and "\n" not in outcome.say
                _rule_named(outcome.say)
        for unit in acting[:3]:
            choices = table.choices(unit)
            pointed = [*choices.cells.items(), *choices.aims.items()]
            pointed += [(state.units[e].cell, o) for e, o in choices.enemies.items()]
            for cell, orders in pointed:
                plain = play_clicks.resolve(table, cell, unit)
                asked = play_clicks.resolve(table, cell, unit, ask=True)
                friend = state.unit_at(cell)
                if friend is not None and friend.side == state.to_act and friend.id in acting:
                    assert plain.select == friend.id  # a click on a friend selects it ...
                    assert set(asked.offer) == set(orders) or asked.give in orders  # ... Shift aims
                    continue
                if plain.give is not None:
                    assert plain.give in legal and plain.give in orders
                    assert len(orders) == 1 or vocabulary.kind_of(
                        state, plain.give).rank(state, plain.give) == 0
                else:
                    assert len(plain.offer) > 1  # a real choice: several plain orders
                if len(orders) > 1:  # Shift offers every order there, the plainest first
                    assert set(asked.offer) == set(orders)
                    ranks = [vocabulary.kind_of(state, o).rank(state, o) for o in asked.offer]
                    assert ranks == sorted(ranks)
                    assert asked.offer[0] == (plain.give or plain.offer[0])
            for enemy in state.alive():
                if enemy.side == state.to_act or enemy.id in choices.enemies or \
                        enemy.cell in choices.aims or enemy.cell in choices.cells:
                    continue
                said = play_clicks.resolve(table, enemy.cell, unit).say
                assert said and enemy.id in said or unit in said, said
                _rule_named(said)
        table.recorder.store.close()


def test_a_click_names_the_rule_that_refuses_it(tmp_path):
    """At least some refusals across the golden games name their rule (they are the referee's
    own: a unit that has moved, one in melee, a target out of range)."""
    named = 0
    for name, events in GAMES[::4]:
        for n, upto in enumerate(_positions(events)):
            table = _table(tmp_path, events, upto, hash((name, n)) % 10**8)
            state = table.state
            if state.ended or table.seat_to_act is None:
                continue
            acting = table.units_to_act()
            for unit in state.alive(state.to_act):
                if unit.id not in acting:
                    named += " — rule " in play_clicks.resolve(table, unit.cell, None).say
            table.recorder.store.close()
    assert named >= 3


def test_a_click_off_the_board_or_from_a_watcher_says_so(tmp_path):
    _, events = GAMES[0]
    table = _table(tmp_path, events, _positions(events)[0], 0)
    assert "outside" in play_clicks.resolve(table, None, None).say
    table.linked, table.holds = True, None  # as a page with no seat link of a linked game
    unit = table.state.alive(table.state.to_act)[0]
    said = play_clicks.resolve(table, unit.cell, None).say
    assert said.startswith("This page watches")
    table.holds = "blue" if table.state.to_act == "red" else "red"
    said = play_clicks.resolve(table, unit.cell, None).say
    assert said.startswith(f"This page holds {table.holds}'s seat")


@pytest.mark.parametrize("name, events", GAMES[::7], ids=[name for name, _ in GAMES[::7]])
def test_the_feed_read_a_little_at_a_time_says_what_a_fresh_read_says(name, events):
    bit_by_bit = Feed()
    for end in range(1, len(events) + 1, 3):
        bit_by_bit.update(events[:end])
    got = bit_by_bit.update(events)
    fresh = Feed().update(events)
    assert [(e.title, e.lines, e.rules) for e in got] == \
        [(e.title, e.lines, e.rules) for e in fresh]
    orders = [e for e in events if e["kind"] == "order_given"
              and e["order"]["type"] != "end_phase"]
    if orders:  # the newest order is in the list, with what it caused
        newest = next(e for e in fresh if e.first_seq <= orders[-1]["seq"] <= e.last_seq)
        assert newest.units or newest.lines
