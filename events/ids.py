"""The one rule for an id or a name a player gives: a game id, a scenario or unit id, a player.

An id is shown in tables, typed back on the command line, written on every line of a replay
file and compared byte for byte, so it must read the same everywhere: 1 to ``MAX_ID_CHARS``
printable characters, a plain space allowed only between words. Refused: control characters
(tab, newline, ESC: a terminal would act on them), format characters (zero-width spaces and
joiners, U+FEFF, bidi overrides: invisible, so two ids that look the same differ), line and
paragraph separators, other spaces (no-break, ideographic), private-use, unassigned and
surrogate code points. That is exactly what ``str.isprintable`` refuses, plus a space at either
end.

The same rule is applied where an id is made (``warlog new --game``, ``record``, ``fork
--new-id``, scenario loading) and where one is read (a replay file's header), so an id warlog
accepts once is accepted everywhere. Scenario and unit ids have stricter patterns of their own
(engine/scenario.py), inside this rule.
"""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_ID_CHARS = 200
"""Characters in an id (a game id is written on every line of its replay file)."""

_KINDS = {
    "Cc": "a control character",
    "Cf": "an invisible (format) character",
    "Cs": "a surrogate code point",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Zs": "a space other than the plain space",
}


class IdError(ValueError):
    """An id or name that breaks the rule; the message names what it is and why, in one line."""


def shown(value: Any, width: int = 60) -> str:
    """``repr(value)``, cut to ``width`` characters: repr escapes every character this rule
    refuses, so the message is one short, visible line whatever the id holds."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _refused(ch: str) -> str | None:
    """Why ``ch`` may not stand in an id, or None if it may."""
    if ch == " " or ch.isprintable():
        return None
    return _KINDS.get(unicodedata.category(ch), "an unprintable character")


def check_id(value: Any, what: str = "game id", *, max_chars: int = MAX_ID_CHARS) -> str:
    """``value`` if it is a valid id, else IdError naming ``what`` ("game id", "player name")
    and the first problem: empty, too long, a space at an end, or the first character refused
    (its code point and position)."""
    rule = f"{what}s are 1 to {max_chars} printable characters, a space only between words"
    if not isinstance(value, str):
        raise IdError(f"the {what} must be text, not {shown(value)}")
    if not value:
        raise IdError(f"the {what} is empty; {rule}")
    if len(value) > max_chars:
        raise IdError(f"the {what} is {len(value):,} characters long; {what}s have at most "
                      f"{max_chars}")
    if value.isprintable():  # the common case, at C speed
        if value[0] == " " or value[-1] == " ":
            end = "begins" if value[0] == " " else "ends"
            raise IdError(f"the {what} {shown(value)} {end} with a space; {rule}")
        return value
    for position, ch in enumerate(value, 1):
        kind = _refused(ch)
        if kind is not None:
            raise IdError(f"the {what} {shown(value)} holds {kind} (U+{ord(ch):04X} at "
                          f"character {position}); {rule}")
    raise AssertionError("not reached: isprintable refused a character _refused allows")
