"""Recording at the table (`warlog record` without a script): a prompt that lists the legal
orders, reads an order (its number or its notation, tab-completed) and the faces the real dice
showed, and says what happened; and the command itself, which records from a script or here.

The table holds the same application session as the Play page (warlog/app/session.py, over the
one order writer, warlog/app/recorder.py): this module is only the conversation around it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warlog.engine.dice import DiceError
from warlog.engine.game import Game
from warlog.engine.flow import phase_name
from warlog.engine.fold import evolve
from warlog.engine.narration import takeback_text
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.engine import vocabulary
from warlog.engine.scenario import Scenario
from warlog.engine.state import GameState
from warlog.engine.takeback import live_backwards
from warlog.events.orders import Order
from warlog.events.store import EventStore, StoreError
from warlog.app.notation import NotationError, format_order, parse_order
from warlog.app.errors import GameMovedOn, OrderRefused, PlayError
from warlog.app.recorder import Recorder
from warlog.app.session import Session
from warlog.app.start import start_game
from warlog.app.table_dice import OpeningDiceNeeded, parse_faces
from warlog.record import Event, Setup, prepare, run_script, split_dice, take_back_count
from warlog.record_words import (MOVED_ON, PhaseNumbers, complete_with, count,
                                 unit_summary)

# -- at the table ----------------------------------------------------------------------------


WORDS = ("undo", "note ", "end", "quit", "orders ", "concede ")  # what the table understands besides orders

# Events after which the board has changed in a way worth seeing at once: dice decided
# something, or a unit left the board or was pushed out of (or into) contact.
RESOLUTIONS = frozenset({"dice_rolled", "unit_removed", "unit_retreated", "melee_joined",
                         "melee_ended"})

SHORT_LIST = 8  # a phase with this many legal orders or fewer lists them all, numbered


class Table:
    """The conversation at the table: ``ask`` reads a line (EOFError: the input ended), ``say``
    prints a line of rich markup. After each order it says a short summary (each unit that may
    act, and what), not the whole list: ``orders`` and ``orders UNIT`` list them, numbered with
    numbers that hold for the phase. Every input goes through ``session`` (a Recorder given
    instead is opened as a session of its game)."""

    def __init__(self, session: Session | Recorder, ask: Callable[[str], str],
                 say: Callable[[Any], None], resume: str) -> None:
        if isinstance(session, Recorder):
            session = Session(session.store, session.game_id, every_seat=True)
        self.session, self.ask, self.say, self.resume = session, ask, say, resume
        self._listed: int | None = None
        self._legal: tuple[tuple[int, int], list[Order]] | None = None
        self.numbers = PhaseNumbers()

    @property
    def rec(self) -> Recorder:
        """The one order writer under the session: the game's log and state as last read."""
        return self.session.recorder

    def run(self) -> None:
        from rich.markup import escape

        while True:
            state = self.rec.state
            if state.ended:
                result = f"{state.winner} wins" if state.winner else "a draw"
                self.say(f"[bold]game over[/bold]: {result} ({escape(state.end_reason or '')}); "
                         f"{escape(self.rec.game_id)} is stored")
                return
            if self.rec.pending is None and self._listed != self._moment():
                self._show_summary()
            try:
                line = self.ask(self._prompt()).strip()
            except (EOFError, KeyboardInterrupt):
                line = "quit"
            if not line:
                continue
            if not self.handle(line):
                return

    def legal(self) -> list[Order]:
        """The legal orders now, worked out once per state; each is numbered for the phase."""
        key = (id(self.rec.game), len(self.rec.events))
        if self._legal is None or self._legal[0] != key:
            legal = self.session.legal()
            self._legal = (key, legal)
            self.numbers.update(self._phase(), legal)
        return self._legal[1]

    def choices(self) -> list[str]:
        """What a line may be now, for completion at the prompt: the legal orders in the
        notation and the table's own words."""
        if self.rec.pending is not None:
            return ["undo"]
        return sorted({format_order(o) for o in self.legal()} | set(WORDS))

    def _prompt(self) -> str:
        from rich.markup import escape

        if self.rec.pending is not None:
            got = (f" (so far {','.join(map(str, self.rec.pending.faces))})"
                   if self.rec.pending.faces else "")
            return (f"dice for {escape(self.rec.pending.text)}, die number "
                    f"{self.rec.pending.wanted}{got} (or undo) > ")
        return f"{escape(self._header())} > "

    def _moment(self) -> int:
        """The last event of the battle (notes and withdrawn orders change no orders)."""
        return next(e["seq"] for e in reversed(self.rec.events)
                    if e["kind"] not in ("note", "order_retracted"))

    def _phase(self) -> tuple[int, str | None]:
        """Which phase the numbers belong to: its phase_started event, and the side to act. The
        live line's (engine/takeback.py): after a take-back to an earlier phase, a voided
        phase_started is not the phase the game is in, and the numbers start afresh."""
        started = next((e["seq"] for e in live_backwards(self.rec.events)
                        if e["kind"] == "phase_started"), 0)
        return started, self.rec.state.to_act

    def _header(self) -> str:
        s = self.rec.state
        return f"turn {s.turn} · {s.to_act or '-'} ({self.rec.who}) · {phase_name(s.phase)}"

    def _numbered(self, orders: list[Order]) -> list[str]:
        from rich.markup import escape

        return [f"{self.numbers.number(o):>3} {escape(format_order(o))}" for o in orders]

    def _show_summary(self) -> None:
        """After each order: whose turn and phase, then one line per unit that may act and
        what it may do, and the side's own orders with their numbers."""
        from rich.markup import escape

        self._listed = self._moment()
        legal = self.legal()
        self.say(f"[bold]{escape(self._header())}[/bold]: {count(len(legal), 'legal order')}")
        if len(legal) <= SHORT_LIST:
            for line in self._numbered(legal):
                self.say(line)
        else:
            state = self.rec.state
            for unit in vocabulary.units_to_act(state, legal):
                self.say("  " + escape(f"{unit}: {unit_summary(state, unit, legal)}"))
            side = [o for o in legal if vocabulary.unit_of(state, o) is None]
            if side:
                self.say("  for the side: " + " · ".join(s.strip() for s in self._numbered(side)))
        self.say("[dim]a number or an order; UNIT or orders [UNIT] lists orders, numbered "
                 "(numbers hold for the phase); undo, takeback [N], note TEXT, board, concede "
                 "SIDE, help, quit[/dim]")

    def _show_orders(self, unit: str | None = None) -> None:
        from rich.columns import Columns
        from rich.markup import escape

        state, legal = self.rec.state, self.legal()
        shown = legal if unit is None else [
            o for o in legal if vocabulary.unit_of(state, o) == unit]
        if unit is not None and not shown:
            known = unit in state.units
            raise PlayError(f"{unit} has no legal order now" if known else
                            f"no unit {unit!r} in this game (its units: "
                            f"{', '.join(sorted(state.units))})")
        self.say(f"[bold]{escape(self._header())}[/bold]: {count(len(legal), 'legal order')}"
                 + (f" ({len(shown)} for {escape(unit)})" if unit else ""))
        shown = sorted(shown, key=self.numbers.number)
        self.say(Columns(self._numbered(shown), column_first=True,  # type: ignore[arg-type]
                         padding=(0, 3)))

    def _show_board(self, legend: bool) -> None:
        from rich.markup import escape

        from warlog.board_text import board_lines
        from warlog.board_text import legend as board_legend

        for row in board_lines(self.rec.state):
            self.say(row)
        if legend:
            self.say(f"[dim]{escape(board_legend(self.rec.state))}[/dim]")

    def _said(self, new: list[Event], before: GameState | None = None) -> None:
        """Each new event in words, folded from ``before`` (the state before them; None: the
        state now, for an input that changes nothing, a note or a withdrawal). Never the whole
        log again: an order costs its own events, and a log holding take-backs is not folded
        raw (engine/fold.py)."""
        from rich.markup import escape

        from warlog.engine.narration import narrate

        state = self.rec.state if before is None else before
        for event in new:
            self.say(f"  {event['seq']:>5}  {escape(narrate(event, state))}")
            if before is not None:
                state = evolve(state, event, check=False)
        if any(e["kind"] in RESOLUTIONS for e in new):  # what the dice did, on the board
            self._show_board(legend=False)

    def help_lines(self) -> list[str]:
        """Every word the prompt understands, one line each, then where to read more."""
        numbered = self.numbers.orders or self.legal()
        examples: dict[str, str] = {}  # the first order of each kind, in number order
        for order in numbered:
            examples.setdefault(format_order(order).split()[0], format_order(order))
        kinds = "; ".join(k.words for k in vocabulary.kinds(self.rec.state.rule_system).values())
        return [
            "numbers   type an order's number (as orders lists it): a number holds for the "
            "whole phase; an order no longer legal keeps its number and is refused",
            f"notation  type an order as listed, e.g. {', '.join(list(examples.values())[:5])} (this game's "
            f"orders: {kinds}); an order may bring its dice: ... dice 3,5",
            "UNIT      a unit's id: its legal orders, numbered (as orders UNIT)",
            "orders [UNIT]  every legal order now, numbered, or one unit's",
            "end       end the phase",
            "dice FACES  the faces the real dice showed (or just 3,5) for the order waiting",
            "undo      take back the order waiting for its dice (one already recorded: "
            "takeback)",
            "takeback [N]  take back the last N orders (default 1) of the side that ordered "
            "last, while nothing else decided the game since, e.g. takeback 2",
            "note TEXT  a note on the game as it stands",
            "board     draw the board, with its legend",
            "concede SIDE  that side gives up (a person's side; the other wins)",
            "help, ?   this list",
            f"quit      leave; carry on later with: {self.resume}",
            "more: README.md (warlog record; warlog order gives the whole notation), "
            "docs/rules.md (the rules, with their ids)",
        ]

    def handle(self, line: str) -> bool:
        """Act on one line; False to leave."""
        from rich.markup import escape

        words = line.split()
        verb = words[0].lower()
        rec = self.rec
        try:
            if verb in ("quit", "exit") and len(words) == 1:
                waiting = (f" ('{escape(rec.pending.text)}' was not recorded: it waited for "
                           "its dice)" if rec.pending else "")
                self.say(f"left {escape(rec.game_id)}: it stays in the database{waiting}; carry on "
                         f"with: {escape(self.resume)}")
                return False
            if verb in ("help", "?"):
                for text in self.help_lines():
                    self.say(escape(text))
            elif verb == "orders" and len(words) <= 2:
                self._show_orders(words[1] if len(words) == 2 else None)
            elif len(words) == 1 and words[0] in rec.state.units and rec.pending is None:
                self._show_orders(words[0])
            elif verb == "board" and len(words) == 1:
                self._show_board(legend=True)
            elif verb == "note":
                event = self.session.note(line[len(words[0]):].strip())
                self._said([event])
            elif verb == "undo" and len(words) == 1:
                self._said([self.session.undo()])
            elif verb == "takeback" and len(words) <= 2:
                self._take_back(take_back_count(words[1:]))
            elif verb == "concede" and len(words) == 2:
                before = rec.state.copy()
                # the Recorder's concession: signed by the side's player, its refusal naming
                # the field (the session's says only that this page may not concede)
                self._said(rec.concede_as_player(words[1]), before)
            elif rec.pending is not None and verb != "dice" and not verb[0].isdigit():
                raise PlayError(f"'{rec.pending.text}' waits for its dice: enter the faces "
                                "(e.g. 4 or 3,5), or undo it")
            elif rec.pending is not None or verb == "dice":
                faces = parse_faces(" ".join(words[1:] if verb == "dice" else words))
                before = rec.state.copy()
                new = self.session.dice(faces)
                if isinstance(new, list):
                    self._said(new, before)
            else:
                order_words, faces = split_dice(words)  # an order may bring its dice along
                before = rec.state.copy()
                if len(order_words) == 1 and order_words[0].isdigit():
                    new = self._give_number(int(order_words[0]), faces)
                else:
                    new = self.session.give(parse_order(order_words), faces)
                if isinstance(new, list):
                    self._said(new, before)
        except OrderRefused as exc:  # the reason, the rule's id and its text, on one line
            self.say(f"[red]refused:[/red] {escape(str(exc))}")
        except GameMovedOn:  # another writer first: the session has read the game again
            self.say(f"[red]error:[/red] {escape(MOVED_ON)}")
            self._listed = None
        except IllegalOrder as exc:
            rule = catalogue().get(exc.rule)
            self.say(f"[red]refused:[/red] {escape(exc.message)}")
            self.say(f"  [bold]{escape(exc.rule)}[/bold]: "
                     + escape(" ".join(rule.text.split()) if rule else "(not in the catalogue)"))
        except StoreError as exc:  # another writer: reloaded, say so and carry on
            self.say(f"[red]error:[/red] {escape(str(exc))}")
            self._listed = None
        except (PlayError, NotationError, DiceError) as exc:
            self.say(f"[red]error:[/red] {escape(str(exc))}")
        return True

    def _give_number(self, number: int, faces: list[int] | None) -> Any:
        """The order numbered ``number`` in this phase. One no longer legal is still put to the
        rules (they have the last word), and their refusal is one line naming the order."""
        from rich.markup import escape

        order = self.numbers.order(number)
        try:
            return self.session.give(order, faces)
        except OrderRefused as exc:
            if order in self.legal():  # refused past its dice: said as any refusal
                raise
            self.say(f"[red]refused:[/red] {number} ({escape(format_order(order))}) is no "
                     f"longer legal: {escape(str(exc))}")
            return None

    def _take_back(self, orders: int) -> None:
        """``takeback [N]``: the last N orders of the side that ordered last are taken back
        (the session's, by engine/takeback.py's rule); one line says what and where the game
        now stands, and the summary follows, numbered afresh if the phase went back."""
        from rich.markup import escape

        event = self.session.take_back(None, orders)
        self.say(escape(takeback_text(event)))
        self._listed = None


def open_table(store: EventStore, game_id: str, scenario: Scenario | None,
               how: dict[str, Any], ask: Callable[[str], str],
               say: Callable[[str], None]) -> bool:
    """Start a new game at the table, asking for the opening's dice if it rolls any; False if
    the players left before it could start (nothing stored)."""
    from rich.markup import escape

    if scenario is None:
        return True
    faces: list[int] = []
    while True:
        try:
            start_game(store, scenario, game_id=game_id, opening_dice=faces, **how)
            break
        except OpeningDiceNeeded as needed:
            wanted = needed.die
        try:
            line = ask(f"the opening rolls dice (army tables or a roll-off): die number "
                       f"{wanted.number} > ").strip()
        except (EOFError, KeyboardInterrupt):
            line = "quit"
        if line.lower() == "quit":
            say("left before the game started: nothing was stored")
            return False
        try:
            faces += parse_faces(line[4:] if line.lower().startswith("dice") else line)
        except DiceError as exc:
            say(f"[red]error:[/red] {escape(str(exc))}")
    recorded = store.read(game_id, 1)[0].get("seed")  # the seed start_game drew, if it drew one
    seed = f", seed {recorded}" if how["dice"] == "seeded" and recorded is not None else ""
    say(escape(f"started {game_id} ({scenario.title}; {how['dice']} dice{seed})"))
    return True


# -- the command -----------------------------------------------------------------------------


def record_game(store: EventStore, setup: Setup, *, script: Path | None,
                ask: Callable[[str], str], say: Callable[[Any], None], db_flag: str = "") -> None:
    """`warlog record`: start (or resume) a game, then record it from ``script`` or at the table
    (``ask`` reads a line, ``say`` prints rich markup). ``db_flag``: the ``--db`` to repeat in
    the hint for resuming."""
    from rich.markup import escape

    game_id, scenario, how = prepare(store, setup)
    resume = f"warlog record --game {game_id}{db_flag}"
    if script is not None:
        result = run_script(store, script, game_id, scenario, how)
        state = Game(store.read(game_id)).state
        where = (f"game over: {state.winner or 'a draw'} ({state.end_reason})" if state.ended
                 else f"now turn {state.turn}, {state.to_act} "
                      f"({state.players.get(state.to_act or '', '-')}) {phase_name(state.phase)}")
        say(escape(f"{'started' if result.started else 'continued'} {game_id} from {script}: "
                   f"{count(result.orders, 'order')}, {result.withdrawn} withdrawn, "
                   + (f"{result.taken_back} taken back, " if result.taken_back else "") +
                   f"{count(result.notes, 'note')}; "
                   f"{where}"))
        return
    if not open_table(store, game_id, scenario, how, ask, say):
        return
    if scenario is None:
        say(escape(f"carrying on with {game_id}"))
    table = Table(Session(store, game_id, every_seat=True), ask, say, resume)
    if sys.stdin.isatty():
        complete_with(table)
    table.run()
