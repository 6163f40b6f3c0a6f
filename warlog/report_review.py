"""The review's section of the HTML report (`warlog report`): "Was it the dice or the
decisions?", from the review stored beside the game (`warlog review GAME`,
events/analysis_store.py), or one line saying how to make one.

Why read, never compute: a review searches every decision (seconds to minutes), and a report
is written in a moment; the stored one is keyed by the game's length, so it is never stale.
Every string in a review comes from the game (unit ids, orders in words, the game's id) and a
stored review from a database anyone may edit: all of it is escaped as report.py escapes
everything else (HTML, and every control, invisible or bidi character shown as its escape).
"""

from __future__ import annotations

import html
import shlex
from typing import Any

from warlog.terminal import terminal_safe

HEADING = "Was it the dice or the decisions?"
GRADES = ("best", "good", "inaccuracy", "mistake", "blunder")


def _h(value: Any) -> str:
    """``value`` as HTML text (as report.py's ``_h``: kept here, report.py imports this)."""
    return html.escape(terminal_safe(str(value)))


def _how_to(game: str) -> str:
    return (f'<p class="muted">No review is stored for this game: '
            f"<code>warlog review {_h(shlex.quote(game))}</code> makes one (a stored game's "
            "review is kept beside it), then write this report again.</p>")


def _accuracies(data: dict[str, Any]) -> str:
    rows = []
    for side in ("red", "blue"):
        acc = data["accuracy"].get(side)
        counts = "".join(f"<td>{sum(o['side'] == side and o['grade'] == g for o in data['orders'])}"
                         "</td>" for g in GRADES)
        rows.append(f"<tr><td>{side}</td><td>{'-' if acc is None else f'{acc:.1f}'}</td>"
                    f"{counts}</tr>")
    head = "".join(f"<th>{g}</th>" for g in GRADES)
    return (f'<table class="review"><tr><th>side</th><th>accuracy</th>{head}</tr>'
            + "".join(rows) + "</table>")


def _after_action(data: dict[str, Any], events: list[dict[str, Any]]) -> str:
    """The after-action report's four questions (engine/review_aar.py), each a heading, a line
    and a list (a chapter's moments nested under it)."""
    from warlog.engine.review_aar import after_action, sections

    def items(lines) -> str:
        return "".join(f"<li>{_h(i.text)}" + (f"<ul>{items(i.under)}</ul>" if i.under else "")
                       + "</li>" for i in lines)

    return "".join(f"<h3>{_h(s.heading)}</h3><p class=\"muted\">{_h(s.intro)}</p>"
                   f"<ul>{items(s.items)}</ul>"
                   for s in sections(after_action(data, events), data))


def review_section(review: dict[str, Any] | None, game: str,
                   events: list[dict[str, Any]]) -> str:
    """The section's HTML: the review's headlines and accuracies, then its after-action report
    (what was planned, what happened, why, what to keep and what to change), or how to make
    one."""
    parts = [f"<h2>{HEADING}</h2>"]
    if review is None:
        return "".join(parts + [_how_to(game)])
    if not review["orders"]:
        return "".join(parts + ['<p class="muted">No decision was made in this game yet: '
                                "nothing to review.</p>"])
    parts.append("<ul>" + "".join(f"<li>{_h(review['headline'][side])}</li>"
                                  for side in ("red", "blue")) + "</ul>")
    parts.append(_accuracies(review))
    parts.append(_after_action(review, events))
    parts.append(f'<p class="muted">{len(review["orders"])} decisions graded against the best '
                 f"order found with their dice averaged out, evaluator "
                 f"{_h(review['evaluator'])} (<code>warlog review</code> lists every one).</p>")
    return "".join(parts)
