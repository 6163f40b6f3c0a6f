"""Real games of every grid kind for the figure tests."""

from __future__ import annotations

import pytest

from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.scenario import bundled_scenarios


@pytest.fixture(scope="session")
def games() -> dict[str, tuple[list[dict], Timeline]]:
    out = {}
    for sc in bundled_scenarios():  # the Ancients ones: one of each grid kind, all with melee
        if sc.period != "ancients":
            continue
        events = play_out(f"g-{sc.id}", sc, seed=7).events
        out[sc.grid.kind] = (events, Timeline(events))
    assert set(out) == {"square", "hex", "brick"}
    return out
