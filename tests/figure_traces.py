"""For the figure tests: real games of every grid kind (the ``games`` fixture, imported by the
test modules), and finding a figure's traces by their ``meta`` role (never by position).

A plain module the tests import, not a conftest.py: pytest names every conftest.py
``conftest``, so a module that several folders import by name must have a name of its own."""

from __future__ import annotations

import pytest

from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.scenario import bundled_scenarios


def traces(fig, role, **match):
    return [t for t in fig.data if (t.meta or {}).get("role") == role
            and all(t.meta.get(k) == v for k, v in match.items())]


def one(fig, role, **match):
    found = traces(fig, role, **match)
    assert len(found) == 1, (role, match, [t.name for t in fig.data])
    return found[0]


def sample_states(events, tl):
    """The opening, the middle, and the end of the game (some units removed by then)."""
    steps = analysis.steps(events)
    return [tl.state_at(s.last) for s in (steps[0], steps[len(steps) // 2], steps[-1])]


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
