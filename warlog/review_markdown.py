"""A battle's review as Markdown (`warlog review --markdown OUT.md`): for a club forum or a blog.

Everything from the game (unit ids, orders in words, the game's id) is data: escaped with
warlog.markup, so a name like ``![i](http://host/x)`` is printed as written, never fetched.
The file is written whole or not at all (a temporary file renamed over it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warlog.markup import markdown_text

GRADES = ("best", "good", "inaccuracy", "mistake", "blunder")


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def _mover(value: float, side: str) -> float:
    return value if side == "red" else 1 - value


def _cell(text: str) -> str:
    """Escaped text for a table cell (a pipe is escaped by markdown_text already)."""
    return markdown_text(text)


def review_markdown(data: dict[str, Any]) -> str:
    """The review (``Review.as_dict()``) as a Markdown document."""
    orders = data["orders"]
    lines = [f"# Review of {markdown_text(data['game'])}", ""]
    if not orders:
        return "\n".join(lines + ["No decision was made in this game yet: nothing to review.",
                                  ""])
    lines += [f"- {markdown_text(data['headline'][side])}" for side in ("red", "blue")]
    lines += ["", "| side | accuracy | " + " | ".join(GRADES) + " |",
              "|---|---:|" + "---:|" * len(GRADES)]
    for side in ("red", "blue"):
        acc = data["accuracy"].get(side)
        counts = [sum(o["side"] == side and o["grade"] == g for o in orders) for g in GRADES]
        lines.append(f"| {side} | {'-' if acc is None else f'{acc:.1f}'} | "
                     + " | ".join(str(n) for n in counts) + " |")
    if data["moments"]:
        lines += ["", "## The moments that mattered", ""]
        for m in data["moments"]:
            o = orders[m["index"]]
            cause = "the dice" if abs(m["dice"]) > abs(m["decision"]) else "the order"
            lines.append(f"- Turn {o['turn']}, {o['side']}: {markdown_text(o['text'])}: red "
                         f"{_pct(m['before'])} → {_pct(m['after'])} ({cause})")
    lines += ["", "## Every decision", "",
              "| # | turn | side | order | win % (mover) | grade | better order found |",
              "|---:|---:|---|---|---|---|---|"]
    for o in orders:
        better = ""
        if o["best_text"] and o["grade"] not in ("best", "good"):
            better = f"{_cell(o['best_text'])} ({_pct(_mover(o['best'], o['side']))})"
        lines.append(f"| {o['index'] + 1} | {o['turn']} | {o['side']} | {_cell(o['text'])} | "
                     f"{_pct(_mover(o['before'], o['side']))} → "
                     f"{_pct(_mover(o['expected'], o['side']))} | {o['grade']} | {better} |")
    lines += ["", f"Evaluator {markdown_text(data['evaluator'])}. Each order is judged on the "
              "win probability it leaves with its dice averaged out (exact over every way they "
              "fall, or sampled where they are too many); the dice are judged apart, and start "
              "+ orders + dice = the result.", ""]
    return "\n".join(lines)


def write_markdown(path: Path, data: dict[str, Any]) -> None:
    """Write the review to ``path`` whole (refused if ``path`` is not a place for a file)."""
    from warlog.events.replay_file import write_bytes_atomic
    from warlog.events.safe_files import check_output

    check_output(path)
    write_bytes_atomic(path, review_markdown(data).encode("utf-8"))
