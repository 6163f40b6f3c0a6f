"""CPU time of the engine's hot paths: seeded bot sweeps like tests/engine/test_bots.py's.

    .venv/bin/python benchmarks/bench_engine_hotpaths.py [SWEEP ...] [--profile] [--hashes FILE]

Sweeps: a period's name (12 random-vs-random games over its bundled scenarios, seeds 0-11:
frontier, ancient_battles, napoleonic and ancients by default) or RED-BLUE (those two policies
over every bundled scenario, seed 11, as tests/engine/test_bots.py plays them; "tactician" is
tactician-cautious, the default). Prints CPU seconds (time.process_time) per sweep and a digest of every
game's events, so a speed-up can be checked to change no result (--hashes FILE writes them to
compare with a run before the change).
"""

from __future__ import annotations

import cProfile
import hashlib
import json
import pstats
import sys
import time

from warlog.engine.bots import play_out
from warlog.engine.scenario import bundled_scenarios

SCENARIOS = bundled_scenarios()
RANDOM_PERIODS = ("frontier", "ancient_battles", "napoleonic", "ancients")


def games(sweep: str):
    """(game id, scenario, seed, red, blue) for one sweep."""
    if sweep == "tactician":
        sweep = "tactician-cautious"
    if "-" in sweep:
        red, blue = sweep.split("-")
        return [("g", s, 11, red, blue) for s in SCENARIOS]
    scenarios = [s for s in SCENARIOS if s.period == sweep]
    return [(f"r{seed}", scenarios[seed % len(scenarios)], seed, "random", "random")
            for seed in range(12)]


def run(sweep: str) -> tuple[float, str]:
    digest = hashlib.sha256()
    start = time.process_time()
    for game_id, scenario, seed, red, blue in games(sweep):
        game = play_out(game_id, scenario, seed=seed, red=red, blue=blue)
        digest.update(json.dumps(game.events, sort_keys=True, default=str).encode())
    return time.process_time() - start, digest.hexdigest()[:16]


def main(argv: list[str]) -> None:
    profile = "--profile" in argv
    hashes_file = argv[argv.index("--hashes") + 1] if "--hashes" in argv else None
    sweeps = [a for a in argv if not a.startswith("--") and a != hashes_file] or [
        *RANDOM_PERIODS, "tactician"]
    found = {}
    for sweep in sweeps:
        if profile:
            prof = cProfile.Profile()
            prof.enable()
        cpu, digest = run(sweep)
        if profile:
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        found[sweep] = digest
        print(f"{sweep:20} {cpu:7.2f} s CPU  events {digest}", flush=True)
    if hashes_file:
        with open(hashes_file, "w") as f:
            json.dump(found, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
