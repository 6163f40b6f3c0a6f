"""Upcasting: stored events from older schema versions are raised before validation; events from
a newer warlog are refused with a message, not misread."""

from __future__ import annotations

import pytest

import warlog.events.upcast as upcast_module
from warlog.events.model import EventError, parse_event
from warlog.events.upcast import UpcastError, upcast


def test_current_events_pass_unchanged():
    event = {"kind": "phase_started", "game": "g", "seq": 2, "turn": 1, "v": 1}
    assert upcast(event) is event


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
