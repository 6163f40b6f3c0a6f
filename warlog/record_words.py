"""The words of `warlog record`'s prompt that hold no conversation (warlog/record_table.py holds
that): the order numbers that stay put for a phase, tab completion, a unit's summary, and the
one-line text of a game that moved on (a take-back is said in the replay's words:
engine/narration.takeback_text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from warlog.app.errors import PlayError
from warlog.app.notation import format_order
from warlog.engine import vocabulary
from warlog.engine.state import GameState
from warlog.events.orders import Order

if TYPE_CHECKING:
    from warlog.record_table import Table


class PhaseNumbers:
    """Order numbers that hold for a whole phase, so a number read a moment ago still names
    the same order after another order: the phase's legal orders are numbered once, as it
    starts; an order that stops being legal keeps its number, one that becomes legal takes
    the next. An order is known by its notation (format_order and parse_order invert)."""

    def __init__(self) -> None:
        self.phase: object = None
        self.orders: list[Order] = []
        self._number: dict[str, int] = {}

    def update(self, phase: object, legal: list[Order]) -> None:
        if phase != self.phase:
            self.phase, self.orders, self._number = phase, [], {}
        for order in legal:
            text = format_order(order)
            if text not in self._number:
                self.orders.append(order)
                self._number[text] = len(self.orders)

    def number(self, order: Order) -> int:
        return self._number[format_order(order)]

    def order(self, number: int) -> Order:
        if not 1 <= number <= len(self.orders):
            raise PlayError(f"there is no order number {number} in this phase "
                            f"(1 to {len(self.orders)})")
        return self.orders[number - 1]


def complete_with(table: Table) -> None:
    """Tab completion of the legal orders at an interactive prompt (the standard library's
    readline, where the terminal has it): a typed start completes to a whole order."""
    try:
        import readline
    except ImportError:  # no readline on this platform: the numbered list still works
        return
    found: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            typed = readline.get_line_buffer()
            found[:] = [c for c in table.choices() if c.startswith(typed)]
        return found[state] if state < len(found) else None

    readline.set_completer_delims("")  # complete the whole line, not the last word
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")


MOVED_ON = ("the game moved on: someone else recorded in it first, so nothing of this was "
            "stored; the table has read it again (the summary shows it as it stands)")


def unit_summary(state: GameState, unit: str, legal: list[Order]) -> str:
    """What ``unit`` may do, in a few words: each kind of order with how many there are
    ("move (12)"), the enemies it may strike by name ("shoot b-skm-1"), and the side's orders
    it joins ("joins fight b-inf-2")."""
    groups: dict[str, int] = {}
    for order in legal:
        kind = vocabulary.kind_of(state, order)
        owner = kind.unit(order)
        verb = format_order(order).split()[0]
        if owner is None:
            if kind.takes_part is None or not kind.takes_part(state, unit, order):
                continue
            word = f"joins {format_order(order)}"
        elif owner != unit:
            continue
        else:
            where = kind.gesture(state, order)
            word = verb if where.how != "enemy" else (
                f"{'attack' if verb == 'move' else verb} {where.at}")
        groups[word] = groups.get(word, 0) + 1
    return ", ".join(word if n == 1 else f"{word} ({n})" for word, n in groups.items())


def count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")
