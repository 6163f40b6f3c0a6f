"""Finding a figure's traces by their ``meta`` role (never by position), for the figure tests."""

from __future__ import annotations

from warlog.engine import analysis


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
