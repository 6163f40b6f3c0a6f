"""The application's refusals: each is one line a player reads, on a page or in a terminal,
naming the rule or the field; nothing was stored when one is raised."""

from __future__ import annotations


class PlayError(ValueError):
    """A mistake in playing or recording (a bad input, nothing to undo, a finished game): one
    line for the player."""


class SeatError(PlayError):
    """A seat that cannot be taken: a person named like a bot, an unknown bot, a bot with manual
    dice, a page that does not hold the side's seat link."""


class OrderRefused(PlayError):
    """The rules refused the order (its reason, the rule's id and text); nothing was stored and
    nothing waits."""


class GameMovedOn(PlayError):
    """Another page or the command line appended to the game since this session read it, so
    this append was refused whole; the session has read the game again. Nothing was lost or
    doubled: look at the board again and give the order anew if it still stands."""

    LINE = ("The game moved on before your order arrived (another page, a bot or the command "
            "line ordered first): your order was not given. The board shows the game as it "
            "stands now; give your order again if it still makes sense.")
