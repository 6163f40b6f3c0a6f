"""Upcasting: stored events from older schema versions are raised before validation; events from
a newer warlog are refused with a message, not misread."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import warlog.events.upcast as upcast_module
from warlog.events.model import EventError, parse_event
from warlog.engine.fold import replay
from warlog.engine.verify import verify
from warlog.events.model import SCHEMA_VERSION
from warlog.events.replay_file import export_game, import_replay, read_replay, validate_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.upcast import UpcastError, upcast


FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_current_events_pass_unchanged():
    event = {"kind": "phase_started", "game": "g", "seq": 2, "turn": 1, "v": SCHEMA_VERSION}
    assert upcast(event) is event


def test_a_version_1_move_gains_stopped_by_and_a_game_its_newer_options():
    move = {"kind": "unit_moved", "game": "g", "seq": 5, "turn": 1, "v": 1, "unit": "u",
            "path": [[1, 1]], "from_cell": [0, 1], "to_cell": [1, 1]}
    assert upcast(move) == {**move, "v": SCHEMA_VERSION, "stopped_by": None}
    first = {"kind": "game_started", "v": 1, "rule_system": "ohw", "options": {"halving": "once"}}
    options = upcast(first)["options"]
    assert options["halving"] == "once"  # what the game said stays
    assert options["terrain_feature"] == "cell"  # how version 1 read a terrain feature
    assert list(options) == sorted(options)


def test_a_version_1_replay_file_written_by_an_older_warlog_still_loads_folds_and_verifies():
    """tests/events/fixtures/v1-ancients-melee.jsonl was written before schema 2 (seven periods)
    and is kept as it is forever: it must keep loading, folding (with its own state checksums)
    and re-deriving under the current rules."""
    path = FIXTURES / "v1-ancients-melee.jsonl"
    raw = [orjson.loads(line) for line in path.read_bytes().splitlines()[1:-1]]
    assert {e["v"] for e in raw} == {1}
    events = validate_replay(read_replay(path), path)
    assert {e["v"] for e in events} == {SCHEMA_VERSION}
    state = replay(events)  # checksums checked
    assert sum(u.hits for u in state.units.values()) > 0
    report = verify(events)
    assert report.ok, report.mismatch


# The stored chain of the fixture's last event once imported (the store keeps it raised to the
# current version, schema 3: before, at version 2, it was bb84cc...a107). Computed before the
# first event could record the date a game was played: an optional field must not move a hash.
V1_LAST_CHAIN = "47b7b3204ec6c207aef31e0e7d000426437cc301f58710f022ce8ff72f5e416a"


def test_the_version_1_file_imports_exports_and_re_imports_with_the_same_hashes(tmp_path):
    path = FIXTURES / "v1-ancients-melee.jsonl"
    out = tmp_path / "out.jsonl"
    with SQLiteEventStore(tmp_path / "one.db") as store:
        game = import_replay(store, path)
        assert "played" not in store.read(game)[0]  # unknown stays absent, not null
        assert store.chains(game)[-1] == V1_LAST_CHAIN
        assert store.verify(game) == 27
        assert [g.played for g in store.games()] == [None]
        export_game(store, game, out)
        events = store.read(game)
    with SQLiteEventStore(tmp_path / "two.db") as again:
        import_replay(again, out)
        assert again.read(game) == events
        assert again.chains(game)[-1] == V1_LAST_CHAIN
    assert verify(validate_replay(read_replay(out), out)).ok


def test_a_newer_schema_is_refused_with_advice():
    with pytest.raises(UpcastError, match="newer than this warlog understands"):
        upcast({"kind": "phase_started", "seq": 4, "v": 7})
    with pytest.raises(EventError, match="event seq 4: schema version 7"):
        parse_event({"kind": "phase_started", "game": "g", "seq": 4, "turn": 1, "v": 7})


def test_an_older_event_is_raised_step_by_step(monkeypatch):
    """As if schema 2 had renamed dice_rolled's 'why' to 'purpose'."""
    monkeypatch.setattr(upcast_module, "SCHEMA_VERSION", 2)

    def rename(data):
        data = dict(data)
        data["purpose"] = data.pop("why")
        return data

    monkeypatch.setitem(upcast_module.UPCASTERS, ("dice_rolled", 1), rename)
    old = {"kind": "dice_rolled", "game": "g", "seq": 3, "turn": 1, "v": 1, "why": "shooting",
           "faces": [4]}
    assert upcast(old) == {"kind": "dice_rolled", "game": "g", "seq": 3, "turn": 1, "v": 2,
                           "purpose": "shooting", "faces": [4]}
    assert old["why"] == "shooting"  # the stored dict is not modified


@pytest.mark.parametrize("version", [0, -5, -(10**8), -(2**63), True, "3", None])
def test_a_version_warlog_never_wrote_is_refused_at_once(version):
    """Before: ``v: -2**63`` (chain recomputed) made every reader spin forever, raising the
    event one version at a time; ``v: -10**8`` ran past 40 s; ``v: -5`` was accepted."""
    event = {"kind": "phase_started", "game": "g", "seq": 2, "turn": 1, "v": version}
    with pytest.raises(UpcastError, match="1 to"):
        upcast(event)
    with pytest.raises(EventError, match="1 to"):
        parse_event(event)
