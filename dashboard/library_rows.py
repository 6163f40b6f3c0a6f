"""The library's table as plain rows, and its search: one row per stored game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from warlog.engine.narration import players_text
from warlog.engine.rulesets.tables import rules_title


def rows(games: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A row per game: id, title, date played, scenario, rule system and period, players,
    events, result. The date is YYYY-MM-DD text ("" if unknown): it sorts by time as text and a
    search for "2026-11" finds that month."""
    out = []
    for g in games:
        if g["ended"]:
            result = f"{g['winner']} won" if g["winner"] else "draw"
        else:
            result = "in progress"
        out.append({"game": g["id"], "title": g["title"] or "", "date": g.get("played") or "",
                    "scenario": g["scenario_id"] or "",
                    "rules": rules_title(g["rule_system"] or "", g["period"] or ""),
                    "players": players_text(g["players"]),
                    "events": g["events"], "result": result, "how": g["reason"] or ""})
    return out


def matching(table: Sequence[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """The rows every word of ``query`` appears in (any column, case-insensitive)."""
    words = query.lower().split()
    return [r for r in table
            if all(w in " ".join(str(v) for v in r.values()).lower() for w in words)]
