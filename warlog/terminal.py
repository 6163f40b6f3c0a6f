"""Text for a terminal: nothing a log holds reaches it as a control sequence.

A note, a unit or player name, a title or a game id comes from anyone (a replay file, a
database someone else filled) and a terminal acts on what it is sent: ESC starts a sequence
that clears the screen, retitles the window or rewrites what was printed; a bidi override
reverses what follows; a zero-width character makes two names look alike; a lone surrogate (an
argument that was not UTF-8) cannot be encoded at all. So every string the CLI prints goes
through ``terminal_safe``, which shows each such character as its escape, visibly (``\\x1b``,
``\\u202e``), as Python's repr does, and keeps line breaks and tabs.

``SafeConsole`` is a rich Console that applies it to every string it renders (rich markup is
read first, so markup made by warlog keeps its styles, and text escaped with
``rich.markup.escape`` stays literal, "[bold]" and all), with emoji codes off (":skull:" stays
text) and ``print_json`` writing every such character as a JSON ``\\u`` escape.
"""

from __future__ import annotations

import json as _json
import unicodedata
from typing import Any

from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.text import Text

_UNSAFE = ("Cc", "Cf", "Cs", "Zl", "Zp")
"""Control, format (invisible, bidi), surrogate, line and paragraph separator characters."""
_KEPT = "\n\t"  # the layout's own control characters: a terminal only moves the cursor on


def _unsafe(ch: str) -> bool:
    return ch not in _KEPT and unicodedata.category(ch) in _UNSAFE


def _escaped(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else (
        f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")


def terminal_safe(text: str) -> str:
    """``text`` with every control, format, surrogate and separator character (but a line
    break or a tab) shown as its escape."""
    if text.isprintable():  # the common case, at C speed: nothing to escape
        return text
    return "".join(_escaped(ch) if _unsafe(ch) else ch for ch in text)


def _json_escaped(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a JSON string spells a code point past U+FFFF as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_safe(text: str) -> str:
    """JSON text with every character ``terminal_safe`` escapes written as a ``\\u`` escape:
    the same JSON value (json.dumps already escapes the C0 controls, but neither C1 controls
    nor format characters)."""
    if text.isprintable():
        return text
    return "".join(_json_escaped(ch) if ch not in "\n" and _unsafe(ch) else ch for ch in text)


class SafeConsole(Console):
    """A rich Console that never sends a control sequence it was not asked to style with."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(terminal_safe(text), **kwargs)

    def print_json(self, json: str | None = None, *, data: Any = None, indent: int | str = 2,
                   highlight: bool = True) -> None:
        """rich's print_json, every string made terminal-safe as JSON escapes (rich would
        write C1 controls and format characters as they are)."""
        value = _json.loads(json) if json is not None else data
        text = json_safe(_json.dumps(value, indent=indent, ensure_ascii=False))
        rendered = JSONHighlighter()(text) if highlight else Text(text)
        rendered.no_wrap, rendered.overflow = True, None
        self.print(rendered, soft_wrap=True)


# -- ids and names in a narrow table --------------------------------------------------------

ELLIPSIS = "…"
SHORTEST = 12
"""The fewest cells a shortened id or name keeps: its first and last few characters still tell
it apart ("ancien…ing-1"), where a column cut to a letter or two tells nothing."""


def shorten_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal cells, shortened in the middle when it must be:
    ``ancients-river-crossing-1`` in 24 cells is ``ancients-riv…-crossing-1``. The start and the
    end both stay, because ids made by a program differ at the end (a seed, a counter) as often
    as at the start (a scenario)."""
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1  # the ellipsis takes one cell
    head_room = room - room // 2  # the start gets the odd cell: ids are read from the left
    head, used = "", 0
    for ch in text:
        if used + cell_len(ch) > head_room:
            break
        head, used = head + ch, used + cell_len(ch)
    tail, used = "", 0
    for ch in reversed(text):
        if used + cell_len(ch) > room - cell_len(head):
            break
        tail, used = ch + tail, used + cell_len(ch)
    return head + ELLIPSIS + tail


class Middle:
    """A table cell of plain text (an id, a scenario, a player's name; one per line, each
    after its ``labels`` entry, kept whole, if given) that a narrow column shortens in the
    middle rather than cutting at the end or folding into one-letter lines. Rich asks it for
    its width (at least ``SHORTEST`` cells, at most the longest line, or ``1/share`` of the
    console's width if given) and then renders it in the width the table gave it.

    The text is data, never markup, and is made terminal-safe here: a ``Text`` does not pass
    through ``SafeConsole.render_str``."""

    def __init__(self, text: str, style: str = "", *, labels: list[str] | None = None,
                 shortest: int = SHORTEST, share: int | None = None) -> None:
        texts = str(text).split("\n")
        self.lines = [terminal_safe(line) for line in texts]
        self.labels = [terminal_safe(label) for label in (labels or [""] * len(texts))]
        if len(self.labels) != len(self.lines):
            raise ValueError("one label a line")
        self.style = style
        self.shortest = shortest
        self.share = share  # at most 1/share of the table's width, however long the text

    def __rich_measure__(self, console: Console, options: Any):
        from rich.cells import cell_len
        from rich.measure import Measurement

        widths = [(cell_len(label), cell_len(line)) for label, line in zip(self.labels,
                                                                             self.lines)]
        least = max(label + min(line, self.shortest) for label, line in widths)
        most = max(label + line for label, line in widths)
        if self.share:  # of the whole width: rich measures a cell again in its column's width
            most = max(least, min(most, console.width // self.share))
        return Measurement(least, most).clamp(max_width=options.max_width)

    def __rich_console__(self, console: Console, options: Any):
        from rich.cells import cell_len

        width = options.max_width
        shown = "\n".join(label + shorten_middle(line, width - cell_len(label))
                          for label, line in zip(self.labels, self.lines))
        yield Text(shown, style=self.style, no_wrap=True, overflow="ignore", end="")


def fitted(console: Console) -> bool:
    """Whether output is fitted to a width: a terminal's, or the one COLUMNS gives (so
    `COLUMNS=80 warlog simulate ... | less` reads as in 80 columns). Otherwise a file or a pipe
    gets every table row and sentence whole, one a line, for a script to read."""
    import os

    return console.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit()


def narrow_table(*columns: Any, **kwargs: Any):
    """A rich Table that spends its width on its cells rather than on its frame: a rule under
    the header and one blank between columns (a boxed table of six columns gives 19 of an
    80-column terminal to lines and padding, this one 5), so ids, names and numbers keep the
    room to stay readable."""
    from rich import box
    from rich.table import Table

    kwargs = {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False,
              "padding": (0, 1, 0, 0), **kwargs}
    return Table(*columns, **kwargs)
