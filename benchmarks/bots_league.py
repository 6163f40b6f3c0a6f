"""Do the bots measure the position? The league issue 10 asks for, on Dask.

1. The heuristic bots (aggressive, cautious, tactician) play each other in every seat of every
   bundled Ancients scenario; the best heuristic is the one with the highest win rate over all
   its games (ties: the first named).
2. In every seat, a search bot (``--search``: deep-search by default, or search) plays the best
   heuristic, and so does the best heuristic itself: the search bot should win more often in that
   seat than the heuristic does (100 seeded games a seat by default, the same seeds for both,
   Wilson 95% intervals). Since both play the same seeds, the table also counts the seeds
   only one of them won in the seat, and the exact sign test on those (McNemar's): how likely
   so lopsided a split is if neither bot were better. A seat both win 98% of is judged there.

    .venv/bin/python benchmarks/bots_league.py                 # 100 games a seat, local cluster
    .venv/bin/python benchmarks/bots_league.py --games 20 --scheduler inprocess
    .venv/bin/python benchmarks/bots_league.py --best tactician --search search   # the shallower one

Same seeds, same numbers, on any number of workers (warlog.app.jobs derives nothing from a worker).
"""

from __future__ import annotations

import argparse
import time
from itertools import product

from rich.console import Console
from rich.table import Table

from warlog.engine.scenario import bundled_scenarios
from warlog.app.jobs import run_tasks
from warlog.progress import progress_bar
from warlog.app.study import GameTask, play_task, sign_test, wilson

HEURISTICS = ("aggressive", "cautious", "tactician")
out = Console(width=150)  # whole scenario ids when the output is a file or a pipe


def _play(tasks: list[GameTask], label: str, args) -> list[dict]:
    with progress_bar(label, noun="games") as bar:
        return run_tasks(play_task, tasks, scheduler=args.scheduler, workers=args.workers,
                         progress=bar)


def _tasks(scenarios, red: str, blue: str, games: int, seed: int) -> list[GameTask]:
    return [GameTask(scenario=s, seed=seed + i, red=red, blue=blue, first=s.first)
            for s in scenarios for i in range(games)]


def _rate(rows: list[dict], side: str) -> tuple[int, int]:
    return sum(r["winner"] == side for r in rows), len(rows)


def _same_games(ours: list[dict], theirs: list[dict]) -> int:
    """Games (same seed) that went exactly alike: where the search never found an order better
    than the heuristic's own choice, the two games are one game, and the seat a tie by
    construction (same length, winner and strength lost each turn: equal rows)."""
    keys = ("events", "turns", "winner", "strength_lost_red", "strength_lost_blue")
    return sum(all(a[k] == b[k] for k in keys) for a, b in zip(ours, theirs))


def _only(ours: list[dict], theirs: list[dict], side: str) -> tuple[int, int]:
    """Seeds the seat was won with our bot in it and not with theirs, and the other way round."""
    won = [(a["winner"] == side, b["winner"] == side) for a, b in zip(ours, theirs)]
    return sum(a and not b for a, b in won), sum(b and not a for a, b in won)


def _fmt(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k / n:.0%} [{lo:.0%}-{hi:.0%}]"


def _scenarios(args) -> list:
    return [s for s in bundled_scenarios() if s.period == "ancients"
            and (not args.scenario or s.id in args.scenario)]


def league(args) -> str:
    scenarios = _scenarios(args)
    pairs = list(product(HEURISTICS, HEURISTICS))
    tasks = [t for red, blue in pairs for t in _tasks(scenarios, red, blue, args.heuristic_games,
                                                        args.seed)]
    rows = _play(tasks, "heuristic round robin", args)
    wins = {h: [0, 0] for h in HEURISTICS}
    for r in rows:
        for side in ("red", "blue"):
            other = "blue" if side == "red" else "red"
            if r[side] != r[other]:
                wins[r[side]][0] += r["winner"] == side
                wins[r[side]][1] += 1
    table = Table("heuristic", "wins against the others", title="Heuristic round robin "
                  f"({args.heuristic_games} games a seat a pairing, {len(scenarios)} scenarios)")
    for h in HEURISTICS:
        table.add_row(h, _fmt(*wins[h]))
    out.print(table)
    return max(HEURISTICS, key=lambda h: wins[h][0] / wins[h][1])


def seats(args, best: str) -> bool:
    scenarios = _scenarios(args)
    bot = args.search
    table = Table("scenario", "seat", f"{best} in the seat", f"{bot} in the seat", "better",
                  "same game", f"seeds only {best} : only {bot} won (p)",
                  title=f"{bot} against {best}, {args.games} games a seat (seeds {args.seed}-"
                        f"{args.seed + args.games - 1}), win rate [95% interval]")
    base = _play(_tasks(scenarios, best, best, args.games, args.seed), f"{best} v {best}", args)
    as_red = _play(_tasks(scenarios, bot, best, args.games, args.seed), f"{bot} v {best}", args)
    as_blue = _play(_tasks(scenarios, best, bot, args.games, args.seed), f"{best} v {bot}", args)
    every = True
    for i, s in enumerate(scenarios):
        cut = slice(i * args.games, (i + 1) * args.games)
        for side, rows in (("red", as_red), ("blue", as_blue)):
            k0, n = _rate(base[cut], side)
            k1, _ = _rate(rows[cut], side)
            every &= k1 > k0
            mine, theirs = _only(rows[cut], base[cut], side)
            table.add_row(s.id, side, _fmt(k0, n), _fmt(k1, n), "yes" if k1 > k0 else "NO",
                          f"{_same_games(rows[cut], base[cut])}/{n}",
                          f"{theirs} : {mine} ({sign_test(mine, theirs):.2g})")
    out.print(table)
    return every


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games a seat for the search bot")
    parser.add_argument("--heuristic-games", type=int, default=50,
                        help="games a seat a pairing in the round robin")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scheduler", default="local")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--best", default=None, help="skip the round robin: the heuristic to beat")
    parser.add_argument("--search", default="deep-search", choices=("deep-search", "search"),
                        help="the search bot to measure")
    parser.add_argument("--scenario", action="append", default=None,
                        help="only this Ancients scenario (repeatable)")
    args = parser.parse_args()
    start = time.perf_counter()
    best = args.best or league(args)
    every = seats(args, best)
    out.print(f"{args.search} better than {best} in every seat: {'yes' if every else 'NO'}; "
              f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
