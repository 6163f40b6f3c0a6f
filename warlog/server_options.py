"""How the dashboard's Streamlit server runs: the options every launcher passes (`warlog
dashboard`, the browser tests, the benchmarks), kept in one place so they cannot drift.

Why ``runner.postScriptGC false``: Streamlit runs a full garbage collection (``gc.collect(2)``)
after every script run, fragments included, holding the one interpreter every page shares. The
dashboard keeps folded games and their timelines in memory, so each collection walks a large
heap: a sampling profile of the server beside 4 bot games (benchmarks/bench_play.py --only
shared-server, py-spy) found 66% of its samples in that one call, made after each of the
following pages' ticks, and a person's click queued behind them. Python's own generational
collector still runs as memory is allocated, as in any Python program.
"""

from __future__ import annotations

STREAMLIT_OPTIONS: tuple[str, ...] = (
    "--server.headless", "true",  # never stops to ask for an e-mail address on a fresh machine
    "--browser.gatherUsageStats", "false",
    "--runner.postScriptGC", "false",  # see the module docstring
)
