"""The board a player clicks: the board's SVG (warlog/app/pictures/board_svg.py) in a Streamlit custom
component that reports where it was clicked.

Why not plotly's own click events: the first plotly chart of a page makes the browser load and run
plotly.js (4.7 MB, about a second on a slow machine) before anything is drawn, and every redraw
after a click goes through plotly's layout. The SVG is the same drawing (``board.board_spec``),
translated; the browser draws it as soon as it arrives. A click anywhere on it comes back as a
point in the board's own units (the engine's cell centres), and ``cell_at`` finds the cell whose
polygon holds it: a click on a counter, on its cell's empty corner or on a mark drawn over it all
mean that cell, on square, hex and brick grids alike.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

import streamlit as st

from warlog.app.pictures.board_svg import board_legend, board_svg
from warlog.engine.geometry import Cell, Grid
from warlog.engine.state import GameState

SCRIPT = (Path(__file__).with_name("board_click.js")).read_text(encoding="utf-8")
STYLE = """
.warlog-board-view { overflow: auto; max-height: 85vh; }
.warlog-board svg[data-board] { cursor: pointer; display: block; }
.warlog-board-zoom { display: flex; justify-content: flex-end; gap: 0.2rem;
  margin-bottom: 0.15rem; }
.warlog-board-zoom button { min-width: 1.6rem; height: 1.5rem; padding: 0 0.3rem;
  font: 600 0.85rem/1 sans-serif; color: #222; background: rgba(255, 255, 255, 0.92);
  border: 1px solid #999; border-radius: 0.3rem; cursor: pointer; }
.warlog-board-zoom button:hover { background: #fff; border-color: #555; }
.warlog-board-tip { display: none; position: fixed; z-index: 1000; pointer-events: none;
  max-width: 22rem; padding: 0.35rem 0.5rem; border-radius: 0.3rem; white-space: pre-line;
  font-size: 0.8rem; line-height: 1.35; background: rgba(255, 255, 255, 0.96); color: #222;
  border: 1px solid #bbb; box-shadow: 0 2px 6px rgba(0, 0, 0, 0.15); }
"""
# In the page's own DOM, not a shadow root: the style above is the board's own class, and a
# browser test or a benchmark finds the board with document.querySelector as any other element.
_component = st.components.v2.component("warlog.board", js=SCRIPT, css=STYLE,
                                        isolate_styles=False)


def show(spec: dict, width_px: int, key: str, on_click: Callable[[], None],
         title: str = "", on_drawn: Callable[[], None] | None = None,
         seen: int | None = None) -> None:
    """Draw ``spec`` (a ``board.board_spec`` made ``width_px`` wide) as a board the player
    clicks, its legend under it; ``on_click`` runs before the page reruns, ``clicked(key)`` then
    says where. ``on_drawn``: run, and the page rerun, once the browser has first drawn the
    board (a page holds back what would delay it: dashboard/views/replay.py's charts).
    ``seen``: a mark of what this board shows (the last event drawn), sent back with each click
    on it (``clicked_seen``): a page tells a click on the board the player saw from one made on
    a board drawn before the game moved on."""
    html = board_html(spec, width_px, title)
    version = hashlib.blake2b(html.encode(), digest_size=8).hexdigest()
    told = {"on_drawn_change": on_drawn} if on_drawn is not None else {}
    _component(key=key, data={"html": html, "version": version, "tell_drawn": bool(told),
                              "seen": seen},
               on_click_change=on_click, **told)


def board_html(spec: dict, width_px: int, title: str = "") -> str:
    """What the component draws: the board's SVG, as wide as the column, in a view that
    scrolls when the player zooms in (board_click.js's +/- buttons), and its legend under it."""
    return (f'<div class="warlog-board-view">{board_svg(spec, width_px, title=title, kind="live")}'
            f"</div>{board_legend(spec)}")


def _click(key: str) -> dict:
    value: Any = (st.session_state.get(key) or {}).get("click")
    return value if isinstance(value, dict) else {}


def clicked_shift(key: str) -> bool:
    """Whether the last click on the board ``key`` was made with Shift (or Alt) held: the
    player asks which order, rather than the plain one."""
    return _click(key).get("shift") is True


def clicked_seen(key: str) -> int | None:
    """The ``seen`` mark of the board the last click was made on (None: not sent, or a value
    no browser of ours sends)."""
    seen = _click(key).get("seen")
    return seen if isinstance(seen, int) and not isinstance(seen, bool) else None


def clicked(key: str) -> tuple[float, float] | None:
    """Where the board ``key`` was last clicked, in the board's units, or None (no click, or a
    value no browser of ours sends)."""
    value = _click(key)
    if not value:
        return None
    x, y = value.get("x"), value.get("y")
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y))
    return (float(x), float(y)) if numbers else None


def _inside(point: tuple[float, float], polygon: list[tuple[float, float]]) -> bool:
    """Whether ``point`` is inside ``polygon`` (even-odd rule; a point on an edge may go to
    either cell that shares it)."""
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def cell_at(grid: Grid, point: tuple[float, float] | None) -> Cell | None:
    """The cell of ``grid`` whose polygon holds ``point``, or None (off the board)."""
    if point is None:
        return None
    return next((cell for cell in grid.cells() if _inside(point, grid.corners(cell))), None)


def clicked_cell(key: str, grid: Grid) -> Cell | None:
    """The cell the board ``key`` was last clicked in, or None."""
    return cell_at(grid, clicked(key))


def unit_in(state: GameState, cell: Cell | None) -> str | None:
    """The id of the live unit in ``cell``, or None."""
    unit = None if cell is None else state.unit_at(cell)
    return None if unit is None else unit.id


def clicked_unit(key: str, state: GameState) -> str | None:
    """The live unit in the cell the board ``key`` was last clicked in, or None."""
    return unit_in(state, clicked_cell(key, state.grid))
