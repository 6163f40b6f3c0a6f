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

Past printable, a non-ASCII id must also be one a person can tell apart from another (issue 30;
events/unicode_rules.py says why each rule): in NFC form (``normalised`` composes what a person
types; a value read from a file is refused, not changed, since ids are compared byte for byte
and hashed), with no compatibility form (fullwidth, ligature, superscript...), no invisible
character (Default_Ignorable, U+2800), combining marks only on a letter and at most
``MAX_COMBINING_RUN`` in a row, and letters of one script. ``skeleton`` maps look-alike ids to
one string, so the store can refuse a new id a person would mistake for one it holds. Free text
(``check_text``) has the first three of those rules, not the last two: it may mix scripts and use
any printable character.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

from warlog.events import unicode_rules as rules
from warlog.events.unicode_rules import MAX_COMBINING_RUN, shown

__all__ = ["MAX_COMBINING_RUN", "MAX_ID_CHARS", "IdError", "check_id", "check_text", "normalised",
           "shown", "skeleton"]

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


def _refused(ch: str) -> str | None:
    """Why ``ch`` may not stand in an id, or None if it may."""
    if ch == " " or ch.isprintable():
        return None
    return _KINDS.get(unicodedata.category(ch), "an unprintable character")


def check_id(value: Any, what: str = "game id", *, max_chars: int = MAX_ID_CHARS) -> str:
    """``value`` if it is a valid id, else IdError naming ``what`` ("game id", "player name")
    and the first problem: empty, too long, a space at an end, the first character refused
    (its code point and position), or, for a non-ASCII value, the first rule of
    events/unicode_rules.py it breaks (``_unicode_problem``). Never changes the value."""
    rule = f"{what}s are 1 to {max_chars} printable characters, a space only between words"
    if not isinstance(value, str):
        raise IdError(f"the {what} must be text, not {shown(value)}")
    if not value:
        raise IdError(f"the {what} is empty; {rule}")
    if len(value) > max_chars:
        raise IdError(f"the {what} is {len(value):,} characters long; {what}s have at most "
                      f"{max_chars}")
    if value.isprintable():
        if value[0] == " " or value[-1] == " ":
            end = "begins" if value[0] == " " else "ends"
            raise IdError(f"the {what} {shown(value)} {end} with a space; {rule}")
        if value.isascii():  # the common case, at C speed: ASCII passes every rule below
            return value
        problem = _unicode_problem(value, identifier=True)
        if problem is not None:
            raise IdError(f"the {what} {shown(value)} {problem}")
        return value
    for position, ch in enumerate(value, 1):
        kind = _refused(ch)
        if kind is not None:
            raise IdError(f"the {what} {shown(value)} holds {kind} (U+{ord(ch):04X} at "
                          f"character {position}); {rule}")
    raise AssertionError("not reached: isprintable refused a character _refused allows")


def check_text(value: Any, what: str, *, max_chars: int, multiline: bool = False) -> str:
    """``value`` if it is valid free text (a title, a description, a note's text), else IdError
    naming ``what`` and the first problem: not text, blank, longer than ``max_chars``, or a
    character a reader would not see as written (a control character, an invisible one, a
    bidi override; a line break only where ``multiline``), a value not in NFC, or combining
    marks on no letter or stacked past ``MAX_COMBINING_RUN``."""
    if not isinstance(value, str):
        raise IdError(f"the {what} must be text, not {shown(value)}")
    if not value.strip():
        raise IdError(f"the {what} is blank")
    if len(value) > max_chars:
        raise IdError(f"the {what} is {len(value):,} characters long; {what}s have at most "
                      f"{max_chars:,}")
    lines = value.split("\n") if multiline else [value]
    position = 0
    for line in lines:
        if not line.isprintable():
            for offset, ch in enumerate(line, 1):
                kind = _refused(ch)
                if kind is not None:
                    raise IdError(f"the {what} {shown(value)} holds {kind} (U+{ord(ch):04X} at "
                                  f"character {position + offset})")
        position += len(line) + 1
    if not value.isascii():
        problem = _unicode_problem(value, identifier=False, lines=multiline)
        if problem is not None:
            raise IdError(f"the {what} {shown(value)} {problem}")
    return value


def _unicode_problem(value: str, *, identifier: bool, lines: bool = False) -> str | None:
    """The first rule of events/unicode_rules.py that the printable, non-ASCII ``value`` breaks,
    as a phrase to follow "the game id '...'", or None. Free text (not ``identifier``) may mix
    scripts and use compatibility forms (a title may quote "ｇａｍｅ" or write "½"); an id may
    not."""
    problem = (rules.invisible(value) or rules.combining_marks(value, lines=lines)
               or rules.not_composed(value))
    if problem is None and identifier:
        problem = rules.compatibility_form(value) or rules.mixed_scripts(value)
    return problem


def normalised(value: Any) -> Any:
    """``value`` in NFC form, for the places a person types an id or a name (the command line,
    the dashboard), before ``check_id``: a keyboard or a paste may give "e" + U+0301 where
    "é" is meant, and the two read the same. Not for a value read from a file: that is checked
    as it is, so its bytes and hash stay the ones written. Anything but text is returned as it
    is, for ``check_id`` to refuse."""
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def skeleton(value: str) -> str:
    """A string equal for two ids a person could mistake for one another (UTS #39's skeleton):
    "game-1", "gаme-1" (Cyrillic а) and "game-l" have one skeleton, "game-1" and "game-2" do
    not. The value is decomposed (NFKD: compatibility forms and accents apart), each character
    replaced by its confusable group's representative (``_skeleton_table``), and the result put
    in NFD. Case is kept: ids are case-sensitive. Deterministic, and a dict look-up a character
    once the data is loaded (on the first call)."""
    table = _skeleton_table()
    decomposed = unicodedata.normalize("NFKD", value)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


@cache
def _skeleton_table() -> dict[str, str]:
    """Each character of Unicode's confusables data (as confusable_homoglyphs ships it) mapped
    to its group's representative. The data links each confusable character to its prototype
    in both directions, so a group is a connected set; its representative is its one sequence of
    several characters if it has one (a prototype such as "rn" for "m"), else its smallest ASCII
    member, else its smallest member NFKD leaves alone, else its smallest. Built in sorted order,
    so the table is the same on every run."""
    from confusable_homoglyphs.confusables import confusables_data

    linked: dict[str, set[str]] = {}
    for key in sorted(confusables_data):
        for entry in confusables_data[key]:
            a, b = _data_text(key), _data_text(entry["c"])
            if a and b and a != b:
                linked.setdefault(a, set()).add(b)
                linked.setdefault(b, set()).add(a)
    chosen: dict[str, str] = {}
    for start in sorted(linked):
        if start in chosen:
            continue
        group, todo = {start}, [start]
        while todo:
            for other in sorted(linked[todo.pop()] - group):
                group.add(other)
                todo.append(other)
        representative = min(group, key=_representative_order)
        for member in group:
            chosen[member] = representative
    # A representative of several characters is written in the table's own terms, so that
    # skeleton(skeleton(x)) == skeleton(x).
    table: dict[str, str] = {}
    for member in sorted(chosen):
        if len(member) == 1:
            target = unicodedata.normalize("NFKD", chosen[member])
            table[member] = "".join(chosen.get(ch, ch) if len(chosen.get(ch, ch)) == 1 else ch
                                    for ch in target)
    return table


def _data_text(text: str) -> str:
    """A confusable as the data means it: confusable_homoglyphs keeps the U+200E marks that
    Unicode's file puts around right-to-left characters for display."""
    return text.replace("\u200e", "")


def _representative_order(member: str) -> tuple[bool, bool, bool, str]:
    """Sort key choosing a group's representative (see ``_skeleton_table``)."""
    stable = unicodedata.is_normalized("NFKD", member)
    return (len(member) == 1, not member.isascii(), not stable, member)
