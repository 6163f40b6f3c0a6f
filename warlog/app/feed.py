"""What happened at the table, newest first: each resolved order of either side (and each
automatic phase that resolved something) as the Replay page words it, for the Play page's
running list beside the board.

A player who attacks wants the die and the arithmetic at once, where they clicked, not on
another page; and an opponent's order (a bot's, the other seat's) deserves the same line. The
words are the Replay page's own: the step's title (engine/analysis.py) and each event's
narrated sentence (engine/narration.py), with the rules the events cite. Nothing is re-run:
the arithmetic is in the events.

Narrating an event needs the state just before it (terrain, limits), so the feed keeps its own
fold of the game and moves it on only over events it has not read yet: a click at the table
reads a handful of new events, not the whole log. The log is append-only, so what was read
stays true; a log that is not an extension of what was read (another game) starts afresh.

A take-back (engine/takeback.py) is an entry of its own, in its narrated words; the entries of
the steps it voided leave the feed (they are no longer the game, and a unit's last entry must
not be a hit that was taken back). The fold is a LiveLine, which goes back with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from warlog.engine import analysis, narration
from warlog.engine.fold import LiveLine
from warlog.engine.rules import catalogue
from warlog.engine.takeback import voided

Event = dict[str, Any]

# Events that say nothing a player did not see (a phase beginning, the order itself: the
# entry's title says it) or nothing about the battle (a checksum, a note).
_QUIET = frozenset({"phase_started", "order_given", "state_checksum", "note"})
# Keys of an event that name the units it acted upon (what an entry is "about").
_UNIT_KEYS = ("unit", "target", "defender", "attacker", "source", "enemy")
KEEP = 40  # entries a feed keeps: the list shows the newest; the Replay page has them all


@dataclass(frozen=True)
class Entry:
    """One resolved step: its title (who did what, and its outcome in short), the narrated
    sentence of each thing that followed (dice, hits, moves, removals), and each rule cited,
    as (id, text)."""

    step: int  # the step's index in analysis.steps (0 the opening)
    first_seq: int
    last_seq: int
    turn: int
    side: str | None
    title: str
    lines: tuple[str, ...]
    rules: tuple[tuple[str, str], ...]
    units: tuple[str, ...]  # the units its events name, each once
    events: tuple[Event, ...]

    def about(self, unit: str) -> bool:
        return unit in self.units


def _rules(events: Sequence[Event]) -> tuple[tuple[str, str], ...]:
    known = catalogue()
    cited = dict.fromkeys(rid for e in events for rid in e.get("rules") or ())
    return tuple((rid, " ".join(known[rid].text.split()) if rid in known else "")
                 for rid in cited)


def _units(events: Sequence[Event]) -> tuple[str, ...]:
    named = dict.fromkeys(e[key] for e in events for key in _UNIT_KEYS
                          if isinstance(e.get(key), str))
    return tuple(named)


def _worth_an_entry(step: analysis.Step, events: Sequence[Event], lines: Sequence[str]) -> bool:
    """An order or an automatic phase that did something: an end of phase that only started
    the next one is no news."""
    if step.kind == "opening":
        return False
    head = events[0]
    ends_phase = head["kind"] == "order_given" and head["order"]["type"] == "end_phase"
    return bool(lines) or not ends_phase


class Feed:
    """The game's resolved steps in words, kept up to date one new event at a time."""

    def __init__(self) -> None:
        self._line = LiveLine(check=False)
        self._read = 0  # how many of the log's first events are folded
        self._last_seq: int | None = None  # the seq of the last of them
        self._lines: dict[int, str] = {}  # seq -> its narrated sentence
        self.entries: list[Entry] = []  # oldest first, at most KEEP

    def update(self, events: Sequence[Event]) -> list[Entry]:
        """Read ``events`` (the whole log so far); the entries, newest first."""
        if len(events) < self._read or (
                self._read and events[self._read - 1]["seq"] != self._last_seq):
            self.__init__()  # not the log read before: start afresh
        if len(events) == self._read:
            return self.newest()
        start = self._read
        for e in events[start:]:
            if e["kind"] not in _QUIET:
                self._lines[e["seq"]] = narration.narrate(e, self._line.state)
            self._line.push(e)
        self._read, self._last_seq = len(events), events[-1]["seq"]
        steps = analysis.steps(events)
        gone = voided(events)
        fresh = [s for s in steps if s.last >= start]  # the last step may have grown
        kept = [entry for entry in self.entries if entry.first_seq not in gone
                and not any(entry.step == s.index for s in fresh)]
        for step in fresh:
            group = events[step.first: step.last + 1]
            if group[0]["seq"] in gone:
                continue
            lines = tuple(self._lines[e["seq"]] for e in group if e["seq"] in self._lines)
            if _worth_an_entry(step, group, lines):
                kept.append(Entry(step.index, group[0]["seq"], group[-1]["seq"], step.turn,
                                  step.side, step.title, lines, _rules(group), _units(group),
                                  tuple(group)))
        self.entries = kept[-KEEP:]
        self._lines = {seq: line for seq, line in self._lines.items()
                       if self.entries and seq >= self.entries[0].first_seq}
        return self.newest()

    def newest(self) -> list[Entry]:
        return list(reversed(self.entries))

    def last_about(self, unit: str) -> Entry | None:
        """The newest entry that names ``unit``: why it is asked to choose now (a hit it took)."""
        return next((entry for entry in reversed(self.entries) if entry.about(unit)), None)
