"""Balance studies, the pure part: one small row per game, groups of rows with intervals, and
which groups are lopsided.

A worker plays a game and ships back only its row (``summarize``), never the whole log, so a
study of thousands of games moves kilobytes. Rows are plain dicts (JSON lines, CSV, a
DataFrame); ``StudyRow`` is their schema, used to check rows read back from a file. Everything
here is arithmetic over rows in the order given: the same rows give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr

from warlog.engine import whatif

SIDES = ("red", "blue")
Z95 = whatif.Z95

GROUP_KEYS = {  # --by key -> what it reads from a row
    "scenario": lambda r: r["scenario"],
    "policies": lambda r: f"{r['red']} v {r['blue']}",
    "system": lambda r: r["system"],
    "first": lambda r: r["first"],
}
DEFAULT_BY = ("scenario", "policies", "system", "first")
LOPSIDED_RULE = ("lopsided when, among its decisive games (draws left out), the 95% Wilson "
                 "interval of one side's share of the wins lies wholly above 50%")


class StudyError(ValueError):
    """A study asked for something that cannot be (an unknown --by key, a malformed row)."""


class StudyRow(BaseModel):
    """One game, summarized: what ``summarize`` returns and what a study file holds per line.

    Curves are cumulative per turn, turn 0 (the set-up) to the game's last turn: units lost
    (``engine.analysis.attrition``) and strength lost in the system's own measure (hits a unit
    can take, strength points: ``engine.analysis.exhaustion``)."""

    model_config = ConfigDict(extra="forbid")

    game: StrictStr
    scenario: StrictStr
    system: StrictStr
    period: StrictStr
    red: StrictStr
    blue: StrictStr
    first: Literal["red", "blue"]
    seed: Optional[StrictInt]
    finished: StrictBool
    winner: Optional[Literal["red", "blue", "draw"]]
    end_reason: Optional[StrictStr]
    turns: StrictInt
    events: StrictInt
    start_red: StrictInt
    start_blue: StrictInt
    lost_red: StrictInt
    lost_blue: StrictInt
    exhaustion: StrictBool  # whether the rule system has an exhaustion rule
    exhausted_red: Optional[StrictInt]  # the turn that side became exhausted, if it did
    exhausted_blue: Optional[StrictInt]
    units_lost_red: list[StrictInt]
    units_lost_blue: list[StrictInt]
    strength_lost_red: list[StrictInt]
    strength_lost_blue: list[StrictInt]


ROW_FIELDS = tuple(StudyRow.model_fields)


def check_row(data: Any, where: str) -> dict[str, Any]:
    """``data`` as a study row, or StudyError naming ``where`` and the first problem."""
    from pydantic import ValidationError

    try:
        return StudyRow.model_validate(data).model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "row"
        raise StudyError(f"{where}: not a study row: {field}: {first['msg']}") from None


# -- one game ----------------------------------------------------------------------------------


def summarize(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The study row of one game (finished or not) from its events."""
    from warlog.engine import analysis

    first = events[0]
    ended = next((e for e in reversed(events) if e["kind"] == "game_ended"), None)
    players = first.get("players") or {}
    attrition = analysis.attrition(events)
    exhaustion = analysis.exhaustion(events)
    has_rule = any(r["basis"] == "rule" for r in exhaustion)
    exhausted = analysis.exhausted_turns(exhaustion) if has_rule else {}
    last = {r["side"]: r for r in exhaustion if r["turn"] == exhaustion[-1]["turn"]}
    row: dict[str, Any] = {
        "game": first["game"],
        "scenario": first["scenario"]["id"],
        "system": first["rule_system"],
        "period": first["period"],
        "red": str(players.get("red", "?")),
        "blue": str(players.get("blue", "?")),
        "first": first["scenario"]["first"],
        "seed": first.get("seed"),
        "finished": ended is not None,
        "winner": (ended.get("winner") or "draw") if ended else None,
        "end_reason": ended.get("reason") if ended else None,
        "turns": max(e["turn"] for e in events),
        "events": len(events),
        "exhaustion": has_rule,
    }
    for side in SIDES:
        row[f"start_{side}"] = last[side]["start"]
        row[f"lost_{side}"] = last[side]["lost"]
        row[f"exhausted_{side}"] = exhausted.get(side)
        row[f"units_lost_{side}"] = [r["units_lost"] for r in attrition if r["side"] == side]
        row[f"strength_lost_{side}"] = [r["lost"] for r in exhaustion if r["side"] == side]
    return row


@dataclass(frozen=True)
class GameTask:
    """One game of a study: everything a worker needs (the scenario itself travels, not its
    path, so a worker on another machine needs no files)."""

    scenario: Any  # warlog.engine.scenario.Scenario
    seed: int
    red: str
    blue: str
    first: str
    keep_events: bool = False


def game_id(scenario_id: str, red: str, blue: str, seed: int, first: str | None = None) -> str:
    """A study game's id: the single-game simulate id, plus the first mover when a study moved
    it from the scenario's own (so every game of a study has its own id)."""
    base = f"{scenario_id}-{red}-{blue}-s{seed}"
    return base if first is None else f"{base}-{first}-first"


def play_task(task: GameTask) -> dict[str, Any] | tuple[dict[str, Any], bytes]:
    """Play one study game; its row, or (row, its events as JSON) when they are to be stored
    (as JSON bytes, about 190 bytes an event against about 1,100 for the dicts, so a batch of
    games waiting to be stored stays small)."""
    import orjson

    from warlog.engine.bots import play_out

    scn = task.scenario
    moved = task.first != scn.first
    if moved:
        scn = scn.model_copy(update={"first": task.first})
    gid = game_id(scn.id, task.red, task.blue, task.seed, task.first if moved else None)
    game = play_out(gid, scn, seed=task.seed, red=task.red, blue=task.blue)
    row = summarize(game.events)
    return (row, orjson.dumps(game.events)) if task.keep_events else row


# -- groups ------------------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (95% by default): unlike the
    normal approximation it stays inside [0, 1] and is honest for small n and for 0 or n.
    No trials: (0, 1), nothing is known. The what-if's interval, as a (low, high) pair."""
    share = whatif.wilson(k, n, z)
    return share.low, share.high


def sign_test(k: int, m: int) -> float:
    """Two policies played the same seeds; ``k`` seeds only the first won, ``m`` only the second.
    The two-sided exact p-value of so lopsided a split if each such seed were a fair coin
    (McNemar's exact test): small when one policy is really better, 1.0 for an even split or
    none at all. The seeds both won or both lost say nothing about which is better."""
    n = k + m
    tail = sum(math.comb(n, i) for i in range(min(k, m) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def _rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4) if n else None,
            "low": round(low, 4), "high": round(high, 4)}


def _mean_curve(rows: Sequence[dict[str, Any]], field: str, turns: int) -> list[float]:
    """Mean of a cumulative per-turn curve over games, each carried at its last value past its
    own end (losses of a finished game stay what they were)."""
    sums = [0.0] * (turns + 1)
    for r in rows:
        curve = r[field] or [0]
        for t in range(turns + 1):
            sums[t] += curve[min(t, len(curve) - 1)]
    return [round(s / len(rows), 4) for s in sums]


def _exhausted_share(rows: Sequence[dict[str, Any]], side: str, turns: int) -> list[float] | None:
    """Share of games (of a system with an exhaustion rule) in which ``side`` was exhausted by
    the end of each turn; None if no game's system has the rule."""
    ruled = [r for r in rows if r["exhaustion"]]
    if not ruled:
        return None
    return [round(sum(r[f"exhausted_{side}"] is not None and r[f"exhausted_{side}"] <= t
                      for r in ruled) / len(ruled), 4) for t in range(turns + 1)]


def _group(key: dict[str, str], rows: list[dict[str, Any]], unfinished: int) -> dict[str, Any]:
    n = len(rows)
    wins = {w: sum(r["winner"] == w for r in rows) for w in (*SIDES, "draw")}
    decisive = wins["red"] + wins["blue"]
    lengths = [r["turns"] for r in rows]
    turns = max(lengths, default=0)
    group: dict[str, Any] = {
        "key": key, "n": n, "unfinished": unfinished,
        **{w: _rate(wins[w], n) for w in (*SIDES, "draw")},
        "red_of_decisive": _rate(wins["red"], decisive),
        "turns": ({"mean": round(sum(lengths) / n, 4), "median": median(lengths),
                   "min": min(lengths), "max": max(lengths)} if n else None),
        "lost": {s: round(sum(r[f"lost_{s}"] for r in rows) / n, 4) if n else None
                 for s in SIDES},
        "curves": None,
    }
    if n:
        group["curves"] = {
            "turn": list(range(turns + 1)),
            "units_lost": {s: _mean_curve(rows, f"units_lost_{s}", turns) for s in SIDES},
            "strength_lost": {s: _mean_curve(rows, f"strength_lost_{s}", turns) for s in SIDES},
            "exhausted": {s: _exhausted_share(rows, s, turns) for s in SIDES},
        }
    return group


def parse_by(text: str | Iterable[str]) -> tuple[str, ...]:
    """--by as given ("scenario,first" or a sequence), checked; StudyError names a bad key."""
    keys = [k.strip() for k in (text.split(",") if isinstance(text, str) else text) if k.strip()]
    for k in keys:
        if k not in GROUP_KEYS:
            raise StudyError(f"cannot group by {k!r}; choose from {', '.join(GROUP_KEYS)}")
    return tuple(dict.fromkeys(keys))


def aggregate(rows: Iterable[dict[str, Any]], by: Sequence[str] = DEFAULT_BY) -> list[dict]:
    """Groups of rows by the ``by`` keys, sorted by key: games finished (n) and not (counted
    apart, left out of every figure), win rates for red, blue and draws over finished games,
    each with a Wilson 95% interval, red's share of the decisive games, game length (mean,
    median, range, in turns), mean final strength lost per side, and mean curves per turn."""
    by = parse_by(by)
    groups: dict[tuple[str, ...], tuple[list, list]] = {}
    for r in rows:
        key = tuple(GROUP_KEYS[k](r) for k in by)
        done, open_ = groups.setdefault(key, ([], []))
        (done if r["finished"] else open_).append(r)
    return [_group(dict(zip(by, key)), done, len(open_))
            for key, (done, open_) in sorted(groups.items())]


def describe(key: dict[str, str]) -> str:
    """A group's key in words: "ancients-river-crossing, random v random, red first"."""
    parts = [f"{v} first" if k == "first" else str(v) for k, v in key.items()]
    return ", ".join(parts) or "all games"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def lopsided(groups: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups where one side wins clearly more of the decisive games.

    Rule: among the group's decisive games (draws left out), the Wilson 95% interval of red's
    share lies wholly above 50% (lopsided for red) or wholly below (for blue). Draws do not
    count either way; the why line gives them. A handful of games cannot flag a group: one side
    winning 4 of 4 decisive games (interval 51%-100%) is the fewest that can.
    """
    out = []
    for g in groups:
        share = g["red_of_decisive"]
        low, high = wilson(share["k"], share["n"])  # unrounded: the rule, not the display
        if share["n"] == 0 or low <= 0.5 <= high:
            continue
        side = "red" if low > 0.5 else "blue"
        won = share["k"] if side == "red" else share["n"] - share["k"]
        if side == "blue":
            low, high = 1 - high, 1 - low
        why = (f"{side} won {won} of {share['n']} decisive games ({_pct(won / share['n'])}, "
               f"95% interval {_pct(low)}-{_pct(high)}); {g['draw']['k']} of {g['n']} drawn")
        out.append({"key": g["key"], "favours": side, "why": why})
    return out
