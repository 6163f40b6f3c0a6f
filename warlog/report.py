"""A battle as one self-contained HTML file (`warlog report`): no server, no network.

The page holds the scenario and result, the board at the end of every turn (the reader steps
through them with a slider or the arrow keys), the narration of each turn with the rules each
event cites, the attrition, exhaustion and luck charts, the players' notes, and the game's
stored review when there is one (warlog/report_review.py). plotly's
JavaScript is embedded once, so the file opens anywhere, offline.

Every string a log holds (a title, a name, a note) comes from anyone, so none reaches the page
as written if it holds a control, invisible or bidi character (U+202E would reverse what
follows it): each is shown escaped (``\u202e``), as warlog/terminal.py shows it in a terminal;
and the page as a whole, but plotly's own library, is passed through the same escape, so no
such character from a log is written anywhere in the file (a chart's labels included).

A take-back (engine/takeback.py) voids events without deleting them: the narration keeps them,
struck through and marked with the take-back that voided them; the charts read the live line
(engine/analysis.py), and the boards are drawn at the ends of the turns as the game stands.
"""

from __future__ import annotations

import html
import json
from typing import Any

import plotly.io as pio
import plotly.offline

from warlog.app.pictures import board
from warlog.app.pictures import charts
from warlog.engine import analysis, narration
from warlog.engine.fold import Timeline
from warlog.engine.rules import catalogue
from warlog.engine.takeback import voided
from warlog.report_review import review_section
from warlog.terminal import json_safe, terminal_safe

Event = dict[str, Any]

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { margin-bottom: 0.2em; } .muted { color: #666; } .result { font-weight: bold; }
.turn { border-top: 1px solid #ddd; margin-top: 1em; } .turn li { margin: 0.15em 0; }
.rules { color: #777; font-size: 0.85em; } .voided { color: #888; } .note { background: #fff8e1; padding: 0.4em 0.8em; }
#board-controls { display: flex; gap: 1em; align-items: center; margin: 0.5em 0; }
"""

BOARD_SCRIPT = """
const boards = JSON.parse(document.getElementById('boards').textContent);
const slider = document.getElementById('turn');
const label = document.getElementById('turn-label');
function show(i) {
  const fig = boards[i];
  Plotly.react('board', fig.data, fig.layout, {displayModeBar: false});
  label.textContent = fig.title;
  slider.value = i;
}
slider.addEventListener('input', e => show(Number(e.target.value)));
document.addEventListener('keydown', e => {
  if (e.target === slider) return;  // the slider steps by itself
  if (e.key === 'ArrowRight') show(Math.min(Number(slider.value) + 1, boards.length - 1));
  if (e.key === 'ArrowLeft') show(Math.max(Number(slider.value) - 1, 0));
});
show(0);
"""


def _h(value: Any) -> str:
    """``value`` as HTML text: escaped for HTML, with every control, invisible or bidi character
    shown as its escape."""
    return html.escape(terminal_safe(str(value)))


def _turn_ends(events: list[Event]) -> list[int]:
    """The index of the last event of every turn (turn 0, the set-up, included). Notes are left
    out: they carry the turn of the moment they comment on, wherever they were written, so notes
    about turns 1, 2, 1, 2 ... must not make a board each. Events a take-back voided are left
    out too: a turn's board is where it ended as the game stands."""
    gone = voided(events)
    last: dict[int, int] = {}
    for i, e in enumerate(events):
        if e["kind"] != "note" and e["seq"] not in gone:
            last[e["turn"]] = i
    return [last[turn] for turn in sorted(last)]


def _boards(events: list[Event], timeline: Timeline) -> list[dict[str, Any]]:
    out = []
    for i in _turn_ends(events):
        state = timeline.state_at(i)
        fig = json.loads(pio.to_json(board.board_figure(state), validate=False))
        title = "Set-up" if state.turn == 0 else f"End of turn {state.turn}"
        out.append({"data": fig["data"], "layout": fig["layout"], "title": title})
    return out


def _chart(fig) -> str:
    return fig.to_html(include_plotlyjs=False, full_html=False, config={"displayModeBar": False})


def _narration(events: list[Event]) -> str:
    rules = catalogue()
    lines = narration.narrate_log(events)
    parts, turn = [], None
    for e, (line, by) in zip(events, lines):
        if e["kind"] in ("state_checksum", "note"):
            continue
        if e["turn"] != turn:
            if turn is not None:
                parts.append("</ul></section>")
            turn = e["turn"]
            title = "Set-up" if turn == 0 else f"Turn {turn}"
            parts.append(f'<section class="turn"><h3>{title}</h3><ul>')
        cited = " ".join(
            f'<span title="{_h(rules[r].text)}">{_h(r)}</span>'
            for r in e.get("rules", ()) if r in rules)
        said, kind = _h(line), ""
        if by is not None:  # taken back: struck through, with the take-back that voided it
            said = (f"<del>{said}</del> <span class=\"muted\">"
                    f"{_h(narration.taken_back_mark(by))}</span>")
            kind = ' class="voided"'
        parts.append(f"<li{kind}>{said} <span class=\"rules\">{cited}</span></li>")
    if turn is not None:
        parts.append("</ul></section>")
    return "\n".join(parts)


def report_html(events: list[Event], review: dict[str, Any] | None = None) -> str:
    """The whole report page for a game's events; ``review``: its stored review
    (warlog/app/reviews.stored_review), or None for a line saying how to make one."""
    timeline = Timeline(events)
    final = timeline.final
    scenario = final.scenario
    names = scenario.side_names
    if final.ended:
        result = (f"{final.winner} ({names.get(final.winner, final.winner)}) won"
                  if final.winner else "a draw") + f" — {final.end_reason}"
    else:
        result = f"in progress: turn {final.turn}"
    options = ", ".join(f"{k} = {v}" for k, v in final.options.items())
    steps = analysis.steps(events)
    notes = [n for group in analysis.notes_by_step(events, steps).values() for n in group]
    note_html = "".join(
        f'<p class="note">📝 {_h(n["text"])}'
        + (f" — {_h(n['author'])}" if n.get("author") else "")
        + f' <span class="muted">(event {n["about"]})</span></p>' for n in notes)
    boards = json.dumps(_boards(events, timeline)).replace("</", "<\\/")
    attrition = _chart(charts.attrition_figure(analysis.attrition(events)))
    exhaustion = _chart(charts.exhaustion_figure(analysis.exhaustion(events)))
    luck = _chart(charts.luck_figure(analysis.luck_by_turn(events)))
    sides = " vs ".join(f"<b>{_h(side)}</b>: {_h(name)}"
                        for side, name in names.items())
    top = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{_h(scenario.title)} — warlog report</title>
<style>{STYLE}</style>
<script>"""
    rest = f"""</script>
</head><body>
<h1>{_h(scenario.title)}</h1>
<p class="muted">{_h(scenario.description)}</p>
<p>{sides} · {_h(analysis.system_name(final))} · {_h(scenario.grid.kind)} grid
{scenario.grid.width}×{scenario.grid.height} · game <code>{_h(final.game)}</code></p>
<p class="result">Result: {_h(result)}</p>
<p class="muted">Options: {_h(options)}</p>
<h2>The board, turn by turn</h2>
<div id="board-controls"><input type="range" id="turn" min="0" max="{len(_turn_ends(events)) - 1}"
 value="0" aria-label="turn"><span id="turn-label"></span>
 <span class="muted">(arrow keys step through the turns)</span></div>
<div id="board"></div>
<script type="application/json" id="boards">{boards}</script>
<script>{BOARD_SCRIPT}</script>
<h2>Notes</h2>{note_html or '<p class="muted">No notes.</p>'}
<h2>Attrition</h2>{attrition}
<h2>Exhaustion</h2>{exhaustion}
<h2>Luck</h2>{luck}
{review_section(review, final.game, events)}
<h2>What happened</h2>
{_narration(events)}
<p class="muted">Made by warlog from the game's event log; every line cites the rules that
produced it (hover a rule id for its text).</p>
</body></html>
"""
    # json_safe's \uXXXX reads as itself in HTML text and as the character's escape in the
    # page's JSON and scripts: valid everywhere, raw nowhere. plotly's library goes in as it is.
    return json_safe(top) + plotly.offline.get_plotlyjs() + json_safe(rest)
