"""What makes two ids or names read the same while differing (issue 30), one rule per function.

events/ids.py applies these after its own rule (printable, no space at an end): a string made
only of printable characters can still hold characters a person cannot see or tell apart, so
``warlog new --game 'game-1<U+034F>'`` beside ``game-1`` gave two rows that both read
``game-1``. Each function here finds the first character that breaks one rule and says why, in a
phrase events/ids.py puts after "the game id '...'"; an all-ASCII value never reaches them (it
passes every rule here trivially, and check_id keeps it at C speed).

The Unicode data comes from two libraries, each for what only it ships: ``regex`` for the
Default_Ignorable_Code_Point property (Python's unicodedata lacks it), and
``confusable_homoglyphs`` for scripts, because it answers "which script is this character" in
one lookup (``aliases_categories``) from Unicode's Scripts.txt, where ``regex`` can only test
membership of one named script at a time (so it would need a hand-kept list of script names),
and because it also ships the confusables data ``skeleton`` (events/ids.py) is made from, so
both come from one Unicode release. Both are imported on first use, not when warlog starts.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from typing import Any

MAX_COMBINING_RUN = 3
"""Combining marks in a row after one base character. Written decomposed, Vietnamese stacks 2
on a vowel (e + circumflex + tilde for "ễ"), and Indic and Hebrew pointing 3 (a consonant's
nukta, vowel sign and nasal mark; a letter's dagesh, vowel and shin dot); more than that is
"Zalgo" text, whose marks draw over the lines above and below and hide what the id says."""

BRAILLE_PATTERN_BLANK = "\u2800"
"""U+2800 is a visible-category symbol (So, a Braille cell with no dots raised) that draws
nothing, and no Unicode property names it (it is not Default_Ignorable, not White_Space): so it
is refused by name, the one character named by hand here."""

ONE_SCRIPT_SETS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),  # Japanese
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),  # Chinese
    frozenset({"LATIN", "HAN", "HANGUL"}),  # Korean
)
"""The sets of scripts UTS #39's "Highly Restrictive" level treats as one script: the ways
Japanese, Chinese and Korean are written, each with Latin."""

_NO_SCRIPT = frozenset({"COMMON", "INHERITED"})
"""Scripts.txt's values for characters that go with any script: digits, punctuation, spaces,
symbols (Common) and combining marks (Inherited)."""

_COMBINING = frozenset({"Mn", "Mc", "Me"})


def shown(value: Any, width: int = 60) -> str:
    """``repr(value)``, cut to ``width`` characters: repr escapes every character the id rule
    refuses as unprintable, so a message is one short, visible line whatever the id holds
    (events/ids.py exports it)."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def at(ch: str, position: int) -> str:
    """``U+XXXX at character N``: how every message points at a character (1-based)."""
    return f"U+{ord(ch):04X} at character {position}"


def not_composed(value: str) -> str | None:
    """Why ``value`` is not in NFC form, or None if it is. A letter written decomposed ("e" +
    U+0301) looks like the composed one (U+00E9) but is other bytes, and ids are compared byte
    for byte and hashed: so a value read from a file is refused, never silently changed, and a
    person typing one has it composed first (ids.normalised)."""
    if unicodedata.is_normalized("NFC", value):
        return None
    composed = unicodedata.normalize("NFC", value)
    start = next((i for i, (a, b) in enumerate(zip(value, composed)) if a != b),
                 min(len(value), len(composed)))
    start = min(start, len(value) - 1)
    # The character whose arrival breaks NFC: a combining mark that should have been composed
    # with the letter before it, a mark out of order, or a character NFC replaces.
    end = start
    for end in range(start, min(len(value), start + 64)):
        if not unicodedata.is_normalized("NFC", value[start:end + 1]):
            break
    instead = f" ({at(composed[start], start + 1)})" if start < len(composed) else ""
    return (f"is written decomposed ({at(value[end], end + 1)}): its composed (NFC) form is "
            f"{shown(composed)}{instead}")


@cache
def _default_ignorable():  # -> regex.Pattern
    """The compiled ``\\p{Default_Ignorable_Code_Point}`` (imported and compiled once, on the
    first non-ASCII value)."""
    import regex

    return regex.compile(r"\p{Default_Ignorable_Code_Point}|" + BRAILLE_PATTERN_BLANK)


def invisible(value: str) -> str | None:
    """Why ``value`` holds a character that draws nothing, or None. Default_Ignorable code
    points (U+034F, variation selectors, Hangul fillers, Khmer and Mongolian inherent vowels and
    selectors, every format character) are meant to be skipped when text is drawn, so an id
    holding one reads as the id without it; U+2800 draws nothing too."""
    found = _default_ignorable().search(value)
    if found is None:
        return None
    ch = found.group()
    name = unicodedata.name(ch, "unnamed")
    return f"holds an invisible character ({at(ch, found.start() + 1)}, {name})"


@lru_cache(maxsize=4096)
def _compatibility(ch: str) -> str | None:
    """What ``ch`` stands for (its NFKC form) if it is a compatibility form, else None."""
    folded = unicodedata.normalize("NFKC", ch)
    return None if folded == ch else folded


KEPT_COMPATIBILITY = frozenset("\u0e33\u0eb3")
"""THAI and LAO CHARACTER SARA AM: compatibility characters by their decomposition, yet the way
every Thai and Lao writer types the vowel (ทองคำ); UAX #31 (Unicode Identifiers, its
modifications of NFKC) lists exactly these two as kept in identifiers."""


def compatibility_form(value: str) -> str | None:
    """Why ``value`` holds a compatibility character, or None. Fullwidth and halfwidth forms,
    ligatures, superscripts, circled and mathematical letters are another way to write a letter
    a person reads as the plain one ("ｇａｍｅ" reads "game"): NFKC says what each stands for."""
    for position, ch in enumerate(value, 1):
        if ch.isascii() or ch in KEPT_COMPATIBILITY:
            continue
        plain = _compatibility(ch)
        if plain is not None:
            return (f"holds {unicodedata.name(ch, 'a compatibility character')} "
                    f"({at(ch, position)}), a form of {shown(plain)}: write that instead")
    return None


def combining_marks(value: str, *, lines: bool = False) -> str | None:
    """Why ``value``'s combining marks are not bounded, or None: a mark with nothing before it
    (at the start, or at a line's start where ``lines``) stands on no letter, and more than
    ``MAX_COMBINING_RUN`` in a row stack into a smear that hides the line."""
    run = 0
    for position, ch in enumerate(value, 1):
        if unicodedata.category(ch) not in _COMBINING:
            run = 0
            continue
        if position == 1 or (lines and value[position - 2] == "\n"):
            where = "begins" if position == 1 else "has a line that begins"
            return f"{where} with a combining mark ({at(ch, position)}), which needs a letter"
        run += 1
        if run > MAX_COMBINING_RUN:
            return (f"stacks more than {MAX_COMBINING_RUN} combining marks on one letter "
                    f"({at(ch, position)})")
    return None


@lru_cache(maxsize=4096)
def script(ch: str) -> str | None:
    """The script ``ch`` belongs to (Scripts.txt's name: "LATIN", "CYRILLIC"), or None for a
    character that goes with any script (Common, Inherited)."""
    from confusable_homoglyphs import categories

    name, _category = categories.aliases_categories(ch)
    return None if name.upper() in _NO_SCRIPT else name.upper()


def _clash(held: list[str], new: str) -> str | None:
    """The first script in ``held`` that may not stand beside ``new``, or None if ``held`` plus
    ``new`` is one script or one of ``ONE_SCRIPT_SETS``. Checking pairs is enough: every set of
    scripts whose pairs all fit one of those sets fits it whole."""
    for other in held:
        if not any(other in allowed and new in allowed for allowed in ONE_SCRIPT_SETS):
            return other
    return None


def script_name(name: str) -> str:
    """"CANADIAN_ABORIGINAL" as a person writes it: "Canadian Aboriginal"."""
    return name.replace("_", " ").title()


def mixed_scripts(value: str) -> str | None:
    """Why ``value`` mixes scripts, or None. A Cyrillic "а" inside a Latin id reads as the Latin
    one, so the letters of an id come from one script (UTS #39 "Highly Restrictive": the
    combinations Japanese, Chinese and Korean are written in count as one)."""
    held: list[str] = []  # in order of first appearance: messages do not depend on set order
    for position, ch in enumerate(value, 1):
        if ch.isascii() and not ch.isalpha():
            continue
        name = script(ch)
        if name is None or name in held:
            continue
        other = _clash(held, name)
        if other is not None:
            kind = "letters" if unicodedata.category(ch).startswith("L") else "characters"
            return (f"mixes {script_name(other)} and {script_name(name)} {kind} "
                    f"({at(ch, position)}): an id is written in one script")
        held.append(name)
    return None


