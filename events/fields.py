"""Every field's rule and cap, stated once: the types the event, order and scenario models are
written in.

A field of a game is an input from anyone (a replay file, a scenario file, a command's
argument) or a consequence the rules produce again. Either way it is validated by its model
wherever it enters: the engine validates every event it emits, ``parse_event`` every event
read from a file, the scenario model every scenario loaded (a file, a replay's first event).
So a rule stated here on a field's type holds at every door: what ``warlog new`` refuses,
``warlog import`` refuses too, and the other way round. A consequence (a unit id in a hit, a
die's purpose, a rule id) is also compared with what the rules make again by verify; its rule
here makes a forged megabyte fail at parse time, not at the comparison.

Each free-text type carries its rule (events/ids.py ``check_id`` for ids, names and the words
of the rule tables, ``check_text`` for prose) and each list, tuple or dict a cap, both with a
:class:`FieldRule` in its ``Annotated`` metadata saying the rule and why the cap is what it is:
tests/events/test_field_rules.py walks every field of every model and fails on one without,
and docs/replay-format.md's table of fields is generated from the same markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache, partial
from typing import Annotated, Any, Callable, Literal

from pydantic import AfterValidator, Field, ValidationError, WithJsonSchema

from warlog.events import ids

MAX_GRID_SIDE = 40
"""A board's width and height, in cells, at most (a replay header carries its scenario too):
every chart and board is drawn cell by cell."""
MAX_CELLS = MAX_GRID_SIDE * MAX_GRID_SIDE
"""Cells on the largest board (1,600): no list of distinct cells is longer."""
MAX_UNITS = 60
"""Units on the board at the start, both sides together (the largest bundled scenario has 20):
every bot weighs each of its units against each enemy every order, so a game's cost grows with
the square of its units; 60 keeps a simulated game within seconds."""
MAX_PATH_CELLS = 80
"""Cells in one path (a move or a route): twice the longest side of the largest board."""
MAX_RULES = 64
"""Rule ids one event cites, or modifiers one die lists (the most any event cites is about 10)."""
MAX_OPTIONS = 100
"""Options of a rule system (the most any has is 14)."""
MAX_TERRAIN_KINDS = 32
"""Terrain kinds one scenario places (the rule tables know about 15)."""
MAX_SIDE_KEYS = 8
"""Entries of a table keyed by side: the two sides; a few more are let through so that the
check that knows the sides (a scenario's, verify's) names the stranger (``sides.green``)."""
MAX_FACES = 100
"""Dice thrown in one roll (a roll throws one or two)."""

WORD_CHARS = 60
"""Characters in a word of the rule tables (a phase, facing, formation, unit type, terrain
kind, option): the longest is 27."""
RULE_ID_CHARS = 100
"""Characters in a rule id (the longest is 42)."""
NAME_CHARS = 100
"""Characters in a side's or unit's display name (the longest bundled one is 33)."""
TITLE_CHARS = 200
"""Characters in a scenario title: one line, shown as a heading."""
DESCRIPTION_CHARS = 4_000
"""Characters in a scenario description (the longest bundled one is 1,154)."""
SENTENCE_CHARS = 300
"""Characters in a sentence the engine writes (a die's purpose, why a game ended: at most 80)."""
NOTE_CHARS = 4_000
"""Characters in a note's text."""


def first_problem(error: ValidationError, skip: int = 0) -> str:
    """The first problem of a pydantic ``error`` as one line naming the field (its path past
    the first ``skip`` parts, e.g. an event union's kind): ``field 'players.red': the player
    name ... holds a control character ...``. A rule's own words (an IdError) stand as they
    are, never the input itself (a refused value may be a megabyte)."""
    first = error.errors()[0]
    field = ".".join(str(p) for p in first["loc"][skip:]) or "value"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "too_long":
        ctx = first.get("ctx", {})
        message = f"holds {ctx.get('actual_length', 'too many')} items; at most " \
                  f"{ctx.get('max_length')}"
    return f"field '{field}': {message}"


@dataclass(frozen=True)
class FieldRule:
    """The marker every str, list, tuple and dict field type carries: ``rule`` in words (for
    the docs table) and ``reason`` why it is what it is."""

    rule: str
    reason: str


def _name_rule(what: str, max_chars: int) -> Callable[[str], str]:
    """The id rule for one kind of name, remembering the names it accepted: the engine makes
    thousands of orders a decision (a bot weighs every legal one), each naming a unit and a
    facing, and a remembered name costs a dictionary lookup, not the rule's Python. Refusals
    are never remembered (an exception is not a result), so a refused value costs the rule
    each time and the memory holds only accepted names of at most ``max_chars``."""

    @lru_cache(maxsize=16_384)
    def check(value: str) -> str:
        return ids.check_id(value, what, max_chars=max_chars)

    return check


def _text(value: Any, what: str, max_chars: int, multiline: bool, empty: bool) -> str:
    if empty and value == "":
        return value
    return ids.check_text(value, what, max_chars=max_chars, multiline=multiline)


def _schema(max_chars: int, *, empty: bool) -> WithJsonSchema:
    """The JSON Schema of a text field: its lengths (the rest of the rule is in words, in
    docs/replay-format.md; a validator is invisible to the schema)."""
    lengths = {"maxLength": max_chars} if empty else {"minLength": 1, "maxLength": max_chars}
    return WithJsonSchema({"type": "string", **lengths})


def name(what: str, max_chars: int, reason: str, *, rule: str = "") -> Any:
    """A str type under the id rule (events/ids.py), ``what`` naming it in a refusal."""
    rule = rule or f"{what}: 1 to {max_chars:,} printable characters, a space only between words"
    return Annotated[str, FieldRule(rule, reason),
                     AfterValidator(_name_rule(what, max_chars)),
                     _schema(max_chars, empty=False)]


def text(what: str, max_chars: int, reason: str, *, multiline: bool = False,
         empty: bool = False) -> Any:
    """A str type under the free-text rule (events/ids.py ``check_text``)."""
    lines = "line breaks allowed" if multiline else "one line"
    rule = f"{what}: {'empty, or ' if empty else ''}text of at most {max_chars:,} characters " \
           f"({lines}), not blank, no control or invisible character"
    return Annotated[str, FieldRule(rule, reason),
                     AfterValidator(partial(_text, what=what, max_chars=max_chars,
                                            multiline=multiline, empty=empty)),
                     _schema(max_chars, empty=empty)]


def items(item: Any, cap: int, reason: str) -> Any:
    """A tuple type of at most ``cap`` items."""
    return Annotated[tuple[item, ...], FieldRule(f"at most {cap:,} items", reason),
                     Field(max_length=cap)]


def table(key: Any, value: Any, cap: int, reason: str) -> Any:
    """A dict type of at most ``cap`` entries."""
    return Annotated[dict[key, value], FieldRule(f"at most {cap:,} entries", reason),
                     Field(max_length=cap)]


# Ids and names (the id rule of events/ids.py).
GameId = name("game id", ids.MAX_ID_CHARS, "written on every line of a replay file")
UnitId = name("unit id", ids.MAX_ID_CHARS, "an id, typed back in orders")
RuleId = name("rule id", RULE_ID_CHARS, "ids of docs/rules.md, the longest 42 characters")
PlayerName = name("player name", ids.MAX_ID_CHARS,
                  "a name shown in tables and signed on every order (`warlog new --red`)")
AuthorName = name("author name", ids.MAX_ID_CHARS, "as `warlog note --author` takes it")
SideName = name("side name", NAME_CHARS, "shown in headings and tables")
UnitName = name("unit name", NAME_CHARS, "shown beside the unit id")


def word(what: str) -> Any:
    """A word of the rule tables (a phase, facing, unit type ...), checked against the tables
    where it matters; here only its shape and length."""
    return name(what, WORD_CHARS, "the words of engine/rulesets/, the longest 27 characters",
                rule=f"a word of the rule tables (a phase, side, facing, formation, unit type, "
                     f"terrain kind, option ...): 1 to {WORD_CHARS} printable characters, a "
                     "space only between words")


# Free text (the text rule of events/ids.py).
Title = text("title", TITLE_CHARS, "one line, shown as a heading")
Description = text("description", DESCRIPTION_CHARS, "the longest bundled one is 1,154",
                   multiline=True, empty=True)
NoteText = text("note", NOTE_CHARS, "a comment on one moment, read at that step",
                multiline=True)
Sentence = text("sentence", SENTENCE_CHARS, "written by the engine, at most about 80")
Sha256 = Annotated[str, FieldRule("64 lowercase hex digits", "a sha256 digest"),
                   Field(pattern=r"^[0-9a-f]{64}$")]


def iso_date(text: str) -> str:
    """``text`` if it is a calendar date written YYYY-MM-DD; ValueError saying so otherwise."""
    try:
        valid = date.fromisoformat(text).isoformat() == text
    except ValueError:
        valid = False
    if not valid:
        raise ValueError(f"a date is written YYYY-MM-DD, not {text!r}")
    return text


PlayedDate = Annotated[str, FieldRule("a date, YYYY-MM-DD", "a calendar date"),
                       AfterValidator(iso_date)]


def _option_values(options: dict[str, Any]) -> dict[str, Any]:
    """A text option value is a word of the rule tables (each option's values are checked
    against its table when a scenario loads); numbers and switches are checked there."""
    for key in sorted(options):
        if isinstance(options[key], str):
            ids.check_id(options[key], f"value of option {key}", max_chars=WORD_CHARS)
    return options


Options = Annotated[dict[word("option"), Any],
                    FieldRule(f"at most {MAX_OPTIONS} entries, each a word of the rule tables; "
                              "a text value a word too",
                              "every option of a rule system (the most any has is 14)"),
                    Field(max_length=MAX_OPTIONS), AfterValidator(_option_values)]

Rules = items(RuleId, MAX_RULES, "the most any event cites is about 10")

Cell = tuple[int, int]
"""A cell ``(col, row)``: a pair, so its length is its shape."""
Side = Literal["red", "blue"]

# The field types events and orders share, and those of one event each.
Facing = word("facing")
Phase = word("phase")
RuleSystem = word("rule system")
Period = word("period")
Formation = word("formation")
UnitType = word("unit type")
SideKey = word("side")
Players = table(SideKey, PlayerName, MAX_SIDE_KEYS, "a player for each of the two sides")
PerSide = table(SideKey, int, MAX_SIDE_KEYS, "a number for each of the two sides")
Faces = items(int, MAX_FACES, "a roll throws one or two dice")
MovePath = items(Cell, MAX_PATH_CELLS, "twice the longest side of the largest board")
Halvings = items(word("halving"), MAX_RULES, "every reason a score is halved (at most 3 apply)")
Pairs = items(tuple[UnitId, UnitId], MAX_UNITS * MAX_UNITS, "every pair of units on the board")
Cells = items(Cell, MAX_CELLS, "distinct cells of the largest board")
ArmyClasses = table(word("army class"), int, 26, "classes are lettered A to Z at most")
Attackers = items(UnitId, MAX_UNITS, "at most every unit on the board")
Modifiers = items(tuple[RuleId, int], MAX_RULES, "every modifier of one die, each by its rule")


ScenarioData = Annotated[dict[word("scenario field"), Any],
                         FieldRule("a scenario: loaded by the scenario model (every field under "
                                   "its rule and cap: the `scenario.` rows) and checked against "
                                   "the rule tables by verify, so by every import",
                                   "the game's input, read whole")]
