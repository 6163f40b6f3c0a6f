"""Plotly's marker symbols as SVG elements, for the SVG board (warlog/app/pictures/board_svg.py).

Why: the board's badges, pointers, pips, rings and arrows are plotly markers, and the SVG board
must show the shape plotly shows (a limbered battery's hourglass, an exhausted army's hexagon),
not a circle in its place. Each shape is written here as plotly.js writes it
(src/components/drawing/symbol_defs.js): a path around the marker's point in units of its radius
(half its ``size``), x right and y down, turned clockwise by its angle. It is a table, one
entry a symbol, so a new symbol is one line, and a name plotly does not know is refused (as
plotly's own validation refuses it) instead of being drawn as something else.

Paint follows plotly's: a "-open" symbol is an outline in the marker's colour, its line width
or one pixel; the line-only symbols (x-thin, line-ew, cross-thin, ...) are lines in the edge's
colour and width; every other is filled with the marker's colour, edged with its line. "-dot"
adds plotly's dot: a diamond half a pixel across at the point, not turned.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

Cmd = tuple  # ("M", x, y) | ("L", x, y) | ("A", radius, large, sweep, x, y) | ("Z",)
Point = tuple[float, float]

S2, S3 = math.sqrt(2), math.sqrt(3)


def num(v: float) -> str:
    """A coordinate as the SVG board writes it: three decimals at most, no trailing zeros."""
    return f"{v:.3f}".rstrip("0").rstrip(".")


def _poly(*points: Point) -> list[Cmd]:
    """A closed polygon through ``points``."""
    return [("M", *points[0]), *(("L", *p) for p in points[1:]), ("Z",)]


def _walk(start: Point, *steps: Point) -> list[Point]:
    """The points of a path written as relative steps (plotly's "l" and "h")."""
    points = [start]
    for dx, dy in steps:
        points.append((points[-1][0] + dx, points[-1][1] + dy))
    return points


def _lines(*segments: tuple[Point, Point]) -> list[Cmd]:
    """Separate straight lines, each ``(from, to)``."""
    return [c for a, b in segments for c in (("M", *a), ("L", *b))]


def _arcs(radius: float, large: int, sweep: int, *points: Point) -> list[Cmd]:
    """A closed run of circular arcs of one ``radius`` through ``points``."""
    return [("M", *points[0]), *(("A", radius, large, sweep, *p) for p in points[1:]),
            ("A", radius, large, sweep, *points[0]), ("Z",)]


def _circle(r: float) -> list[Cmd]:
    return [("M", r, 0), ("A", r, 1, 1, 0, -r), ("A", r, 0, 1, r, 0), ("Z",)]


def _square(r: float) -> list[Cmd]:
    return _poly((r, r), (-r, r), (-r, -r), (r, -r))


def _diamond(r: float) -> list[Cmd]:
    d = 1.3 * r
    return _poly((d, 0), (0, d), (-d, 0), (0, -d))


def _x(r: float) -> list[Cmd]:
    a = r * 0.8 / S2
    ne, se, sw, nw = (a, a), (a, -a), (-a, -a), (-a, a)
    return _poly(*_walk((0, a), ne, se, sw, se, sw, nw, sw, nw, ne, nw, ne))


def _triangle(r: float, turn: int) -> list[Cmd]:
    """Plotly's triangles: a base 4r/sqrt(3) wide at r/2 behind the centre, the tip at r;
    ``turn``: 0 up, 1 down, 2 left, 3 right."""
    t = 2 * r / S3
    up = [(-t, r / 2), (t, r / 2), (0, -r)]
    shapes = [up, [(x, -y) for x, y in up], [(y, x) for x, y in up], [(-y, x) for x, y in up]]
    return _poly(*shapes[turn])


def _corner_triangle(r: float, turn: int) -> list[Cmd]:
    """Plotly's triangle-ne, -se, -sw, -nw: a right angle at (0.6r, -0.6r) turned by quarters."""
    a, b = 0.6 * r, 1.2 * r
    ne = [(-b, -a), (a, -a), (a, b)]
    for _ in range(turn):
        ne = [(-y, x) for x, y in ne]
    return _poly(*ne)


def _star(r: float) -> list[Cmd]:
    s = r * 1.4
    x1, x2, x3, x4 = 0.225 * s, 0.951 * s, 0.363 * s, 0.588 * s
    y0, y1, y3, y4, y5 = -s, -0.309 * s, 0.118 * s, 0.809 * s, 0.382 * s
    return _poly((x1, y1), (x2, y1), (x3, y3), (x4, y4), (0, y5), (-x4, y4), (-x3, y3),
                 (-x2, y1), (-x1, y1), (0, y0))


def _hexagram(r: float) -> list[Cmd]:
    y, x1, x2 = 0.66 * r, 0.38 * r, 0.76 * r
    return _poly(*_walk((-x2, 0), (-x1, -y), (x2, 0), (x1, -y), (x1, y), (x2, 0), (-x1, y),
                        (x1, y), (-x2, 0), (-x1, y), (-x1, -y), (-x2, 0)))


def _star_triangle(r: float, down: bool) -> list[Cmd]:
    x, y1, y2 = r * S3 * 0.8, r * 0.8, r * 1.6
    s = -1 if down else 1
    return _arcs(4 * r, 0, 1, (-s * x, s * y1), (s * x, s * y1), (0, -s * y2))


def _y(r: float, turn: int) -> list[Cmd]:
    """Plotly's y-up, -down, -left, -right: three lines meeting at the point."""
    up = [(-1.2 * r, 0.8 * r), (1.2 * r, 0.8 * r), (0, -1.6 * r)]
    for _ in range(turn):
        up = [(-y, x) for x, y in up]
    return _lines(*((p, (0, 0)) for p in up))


def _arrow(r: float, turn: int, bar: bool) -> list[Cmd]:
    """Plotly's arrow-up, -down, -left, -right (and -bar-: a line across the tip): the tip at
    the point, the body 2r long behind it."""
    shapes = {0: [(0, 0), (-r, 2 * r), (r, 2 * r)], 1: [(0, 0), (-r, -2 * r), (r, -2 * r)],
              2: [(0, 0), (2 * r, -r), (2 * r, r)], 3: [(0, 0), (-2 * r, -r), (-2 * r, r)]}
    across = ((-r, 0), (r, 0)) if turn < 2 else ((0, -r), (0, r))
    return (_lines(across) if bar else []) + _poly(*shapes[turn])


def _head(r: float, wide: bool) -> list[Cmd]:
    """Plotly's arrow (a head of 36 degrees each side) and arrow-wide (45, its back an arc)."""
    a = math.pi / 4 if wide else math.pi / 2.5
    x, y = 2 * r * math.cos(a), 2 * r * math.sin(a)
    back = ("A", 2 * r, 0, 1, x, y) if wide else ("L", x, y)
    return [("M", 0, 0), ("L", -x, y), back, ("Z",)]


def _circled(r: float, inner: list[Cmd]) -> list[Cmd]:
    return inner + _circle(r)


# name -> (path in radii r, filled (plotly's noFill: False), may take "-dot" (not noDot))
SHAPES: dict[str, tuple[Callable[[float], list[Cmd]], bool, bool]] = {
    "circle": (_circle, True, True),
    "square": (_square, True, True),
    "diamond": (_diamond, True, True),
    "cross": (lambda r: _poly((1.2 * r, 0.4 * r), (0.4 * r, 0.4 * r), (0.4 * r, 1.2 * r),
                              (-0.4 * r, 1.2 * r), (-0.4 * r, 0.4 * r), (-1.2 * r, 0.4 * r),
                              (-1.2 * r, -0.4 * r), (-0.4 * r, -0.4 * r), (-0.4 * r, -1.2 * r),
                              (0.4 * r, -1.2 * r), (0.4 * r, -0.4 * r), (1.2 * r, -0.4 * r)),
              True, True),
    "x": (_x, True, True),
    "triangle-up": (lambda r: _triangle(r, 0), True, True),
    "triangle-down": (lambda r: _triangle(r, 1), True, True),
    "triangle-left": (lambda r: _triangle(r, 2), True, True),
    "triangle-right": (lambda r: _triangle(r, 3), True, True),
    "triangle-ne": (lambda r: _corner_triangle(r, 0), True, True),
    "triangle-se": (lambda r: _corner_triangle(r, 1), True, True),
    "triangle-sw": (lambda r: _corner_triangle(r, 2), True, True),
    "triangle-nw": (lambda r: _corner_triangle(r, 3), True, True),
    "pentagon": (lambda r: _poly((0.951 * r, -0.309 * r), (0.588 * r, 0.809 * r),
                                 (-0.588 * r, 0.809 * r), (-0.951 * r, -0.309 * r), (0, -r)),
                 True, True),
    "hexagon": (lambda r: _poly((r * S3 / 2, -r / 2), (r * S3 / 2, r / 2), (0, r),
                                (-r * S3 / 2, r / 2), (-r * S3 / 2, -r / 2), (0, -r)), True, True),
    "hexagon2": (lambda r: _poly((-r / 2, r * S3 / 2), (r / 2, r * S3 / 2), (r, 0),
                                 (r / 2, -r * S3 / 2), (-r / 2, -r * S3 / 2), (-r, 0)),
                 True, True),
    "octagon": (lambda r: _poly((-0.383 * r, -0.924 * r), (0.383 * r, -0.924 * r),
                                (0.924 * r, -0.383 * r), (0.924 * r, 0.383 * r),
                                (0.383 * r, 0.924 * r), (-0.383 * r, 0.924 * r),
                                (-0.924 * r, 0.383 * r), (-0.924 * r, -0.383 * r)), True, True),
    "star": (_star, True, True),
    "hexagram": (_hexagram, True, True),
    "star-triangle-up": (lambda r: _star_triangle(r, False), True, True),
    "star-triangle-down": (lambda r: _star_triangle(r, True), True, True),
    "star-square": (lambda r: _arcs(2 * r, 0, 1, (-1.1 * r, -1.1 * r), (-1.1 * r, 1.1 * r),
                                    (1.1 * r, 1.1 * r), (1.1 * r, -1.1 * r)), True, True),
    "star-diamond": (lambda r: _arcs(1.9 * r, 0, 1, (-1.4 * r, 0), (0, 1.4 * r), (1.4 * r, 0),
                                     (0, -1.4 * r)), True, True),
    "diamond-tall": (lambda r: _poly((0, 1.4 * r), (0.7 * r, 0), (0, -1.4 * r), (-0.7 * r, 0)),
                     True, True),
    "diamond-wide": (lambda r: _poly((0, 0.7 * r), (1.4 * r, 0), (0, -0.7 * r), (-1.4 * r, 0)),
                     True, True),
    "hourglass": (lambda r: _poly((r, r), (-r, r), (r, -r), (-r, -r)), True, False),
    "bowtie": (lambda r: _poly((r, r), (r, -r), (-r, r), (-r, -r)), True, False),
    "circle-cross": (lambda r: _circled(r, _lines(((0, r), (0, -r)), ((r, 0), (-r, 0)))),
                     True, False),
    "circle-x": (lambda r: _circled(r, _lines(((r / S2, r / S2), (-r / S2, -r / S2)),
                                              ((r / S2, -r / S2), (-r / S2, r / S2)))),
                 True, False),
    "square-cross": (lambda r: _lines(((0, r), (0, -r)), ((r, 0), (-r, 0))) + _square(r),
                     True, False),
    "square-x": (lambda r: _lines(((r, r), (-r, -r)), ((r, -r), (-r, r))) + _square(r),
                 True, False),
    "diamond-cross": (lambda r: _diamond(r) + _lines(((0, -1.3 * r), (0, 1.3 * r)),
                                                     ((-1.3 * r, 0), (1.3 * r, 0))), True, False),
    "diamond-x": (lambda r: _diamond(r) + _lines(((-0.65 * r, -0.65 * r), (0.65 * r, 0.65 * r)),
                                                 ((-0.65 * r, 0.65 * r), (0.65 * r, -0.65 * r))),
                  True, False),
    "cross-thin": (lambda r: _lines(((0, 1.4 * r), (0, -1.4 * r)), ((1.4 * r, 0), (-1.4 * r, 0))),
                   False, False),
    "x-thin": (lambda r: _lines(((r, r), (-r, -r)), ((r, -r), (-r, r))), False, False),
    "asterisk": (lambda r: _lines(((0, 1.2 * r), (0, -1.2 * r)), ((1.2 * r, 0), (-1.2 * r, 0)),
                                  ((0.85 * r, 0.85 * r), (-0.85 * r, -0.85 * r)),
                                  ((0.85 * r, -0.85 * r), (-0.85 * r, 0.85 * r))), False, False),
    "hash": (lambda r: _lines(((r / 2, r), (r / 2, -r)), ((-r / 2, -r), (-r / 2, r)),
                              ((r, r / 2), (-r, r / 2)), ((-r, -r / 2), (r, -r / 2))),
             False, True),
    "y-up": (lambda r: _y(r, 0), False, False),
    "y-down": (lambda r: _y(r, 2), False, False),
    "y-left": (lambda r: _y(r, 3), False, False),
    "y-right": (lambda r: _y(r, 1), False, False),
    "line-ew": (lambda r: _lines(((1.4 * r, 0), (-1.4 * r, 0))), False, False),
    "line-ns": (lambda r: _lines(((0, 1.4 * r), (0, -1.4 * r))), False, False),
    "line-ne": (lambda r: _lines(((r, -r), (-r, r))), False, False),
    "line-nw": (lambda r: _lines(((r, r), (-r, -r))), False, False),
    "arrow-up": (lambda r: _arrow(r, 0, False), True, False),
    "arrow-down": (lambda r: _arrow(r, 1, False), True, False),
    "arrow-left": (lambda r: _arrow(r, 2, False), True, False),
    "arrow-right": (lambda r: _arrow(r, 3, False), True, False),
    "arrow-bar-up": (lambda r: _arrow(r, 0, True), True, False),
    "arrow-bar-down": (lambda r: _arrow(r, 1, True), True, False),
    "arrow-bar-left": (lambda r: _arrow(r, 2, True), True, False),
    "arrow-bar-right": (lambda r: _arrow(r, 3, True), True, False),
    "arrow": (lambda r: _head(r, False), True, False),
    "arrow-wide": (lambda r: _head(r, True), True, False),
}
DOT = _poly((0, 0.5), (0.5, 0), (0, -0.5), (-0.5, 0))  # plotly's dot, in pixels


def parse(symbol: str) -> tuple[str, bool, bool]:
    """A plotly symbol name as (shape, open, dot), the way plotly reads it ("-open", "-dot" or
    "-open-dot" after the shape's name); a name plotly would refuse is refused here."""
    shape, dot = (symbol[:-4], True) if symbol.endswith("-dot") else (symbol, False)
    shape, hollow = (shape[:-5], True) if shape.endswith("-open") else (shape, False)
    if shape not in SHAPES or (dot and not SHAPES[shape][2]):
        raise ValueError(f"no plotly marker symbol {symbol!r} to draw on the board")
    return shape, hollow, dot


def _d(cmds: list[Cmd], x: float, y: float, turn: float, scale: float = 1.0) -> str:
    """A path's ``d``: ``cmds`` scaled, turned ``turn`` degrees clockwise (y down) about the
    origin, then moved to (x, y)."""
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))

    def at(px: float, py: float) -> str:
        px, py = px * scale, py * scale
        return f"{num(x + px * c - py * s)},{num(y + px * s + py * c)}"
    out = ""
    for cmd in cmds:
        if cmd[0] == "A":
            _, radius, large, sweep, ex, ey = cmd
            out += f"A{num(radius * scale)},{num(radius * scale)} 0 {large},{sweep} {at(ex, ey)}"
        elif cmd[0] == "Z":
            out += "Z"
        else:
            out += cmd[0] + at(cmd[1], cmd[2])
    return out


def marker(symbol: str, x: float, y: float, size: float, angle: float | None, colour: str,
           edge: str, edge_width: float, pixel: float) -> str:
    """One marker as an SVG element: ``size`` across (plotly's marker size is its diameter),
    turned ``angle`` degrees clockwise from up (None: plotly draws nothing, the first point of
    an ``angleref`` "previous" trace), sizes in the picture's units, ``pixel`` one pixel in
    them. A circle stays a circle and an unturned square a rect; every other shape is a path."""
    shape, hollow, dot = parse(symbol)
    if angle is None:
        return ""
    path, filled, _ = SHAPES[shape]
    if hollow:
        fill, stroke, width = "none", colour, edge_width or pixel
    else:
        fill, stroke, width = (colour if filled else "none"), edge, edge_width
    paint = f'fill="{escape(fill)}" stroke="{escape(stroke)}" stroke-width="{num(width)}"'
    r = size / 2
    if not dot and shape == "circle":
        return f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}" {paint}/>'
    if not dot and shape == "square" and angle % 360 == 0:
        return (f'<rect x="{num(x - r)}" y="{num(y - r)}" width="{num(size)}" '
                f'height="{num(size)}" {paint}/>')
    d = _d(path(r), x, y, angle) + (_d(DOT, x, y, 0, pixel) if dot else "")
    return f'<path d="{d}" {paint}/>'
