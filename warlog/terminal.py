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
