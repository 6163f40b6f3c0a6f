"""Demo games: a fresh database is seeded with a few bot games so the dashboard has something
to show on first run."""

from __future__ import annotations

from warlog.engine.bots import play_out
from warlog.engine.scenario import bundled_scenarios
from warlog.events.store import EventStore

DEMO_MATCHES = (("aggressive", "cautious", 1), ("cautious", "aggressive", 2))


def ensure_demo_games(store: EventStore) -> int:
    """Add the demo games if the database holds no game at all; return how many were added:
    both matches on the Ancients scenarios, the first on every other period's."""
    if store.games():
        return 0
    added = 0
    for scenario in bundled_scenarios():
        matches = DEMO_MATCHES if scenario.period == "ancients" else DEMO_MATCHES[:1]
        for red, blue, seed in matches:
            game = play_out(f"demo-{scenario.id}-{seed}", scenario, seed=seed, red=red, blue=blue)
            store.append(game.state.game, game.events, 0)
            added += 1
    return added
