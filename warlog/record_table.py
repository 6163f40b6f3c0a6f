"""Recording at the table (`warlog record` without a script): a prompt that lists the legal
orders, reads an order (its number or its notation, tab-completed) and the faces the real dice
showed, and says what happened; and the command itself, which records from a script or here.

The Recorder (warlog/app/recorder.py) does the recording; this module is the conversation around it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warlog.engine.dice import DiceError
from warlog.engine.game import Game
from warlog.engine.flow import phase_name
from warlog.engine.rules import IllegalOrder, catalogue
from warlog.engine.scenario import Scenario
from warlog.events.store import EventStore, StoreError
from warlog.app.notation import NotationError, format_order
from warlog.app.errors import PlayError
from warlog.app.recorder import Recorder
from warlog.app.start import start_game
from warlog.app.table_dice import OpeningDiceNeeded, parse_faces
from warlog.record import Event, Setup, prepare, run_script, split_dice

# -- at the table ----------------------------------------------------------------------------


HELP = ("Type an order's number or its notation (e.g. move r-inf-1 E 2); when it rolls dice, the "
        "faces the real dice showed (e.g. 3,5). undo: take back the order waiting for its dice. "
        "note TEXT: a note on the game as it stands. end: end the phase. concede SIDE: that side "
        "gives up (a person's side; the other wins). orders [UNIT]: list the legal orders again. "
        "board: draw the board. quit: leave (resume with --game).")


LIST_AT_MOST = 120  # more legal orders than this are summed up by unit, not listed


WORDS = ("undo", "note ", "end", "quit", "orders ", "concede ")  # what the table understands besides orders


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


class Table:
    """The conversation at the table: ``ask`` reads a line (EOFError: the input ended), ``say``
    prints a line of rich markup."""

    def __init__(self, rec: Recorder, ask: Callable[[str], str], say: Callable[[Any], None],
                 resume: str) -> None:
        self.rec, self.ask, self.say, self.resume = rec, ask, say, resume
        self._listed: int | None = None

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
                self._show_orders()
            try:
                line = self.ask(self._prompt()).strip()
            except (EOFError, KeyboardInterrupt):
                line = "quit"
            if not line:
                continue
            if not self.handle(line):
                return

    def choices(self) -> list[str]:
        """What a line may be now, for completion at the prompt: the legal orders in the
        notation and the table's own words."""
        if self.rec.pending is not None:
            return ["undo"]
        from warlog.app.notation import format_order

        return sorted({format_order(o) for o in self.rec.legal()} | set(WORDS))

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

    def _header(self) -> str:
        s = self.rec.state
        return f"turn {s.turn} · {s.to_act or '-'} ({self.rec.who}) · {phase_name(s.phase)}"

    def _show_orders(self, unit: str | None = None) -> None:
        from rich.columns import Columns
        from rich.markup import escape

        self._listed = self._moment()
        legal = self.rec.legal()
        many = unit is None and len(legal) > LIST_AT_MOST
        shown = [f"{i:>3} {escape(format_order(o))}" for i, o in enumerate(legal, 1)
                 if (unit is None and not (many and getattr(o, "unit", None)))
                 or (unit is not None and getattr(o, "unit", None) == unit)]
        self.say(f"[bold]{escape(self._header())}[/bold]: {_count(len(legal), 'legal order')}"
                 + (f" ({len(shown)} for {escape(unit)})" if unit else ""))
        if many:  # too many to read: how many each unit has, and `orders UNIT` lists them
            counts: dict[str, int] = {}
            for o in legal:
                if getattr(o, "unit", None):
                    counts[o.unit] = counts.get(o.unit, 0) + 1  # type: ignore[union-attr]
            self.say("  " + escape(", ".join(f"{u} {n}" for u, n in counts.items()))
                     + " [dim](orders UNIT lists a unit's, numbered)[/dim]")
        if shown:
            self.say(Columns(shown, column_first=True, padding=(0, 3)))  # type: ignore[arg-type]
        self.say("[dim]a number or an order; end, undo, note TEXT, orders [UNIT], board, "
                 "concede SIDE, help, quit[/dim]")

    def _said(self, new: list[Event]) -> None:
        from rich.markup import escape

        from warlog.engine.narration import narrate_all

        lines = narrate_all(self.rec.events)[-len(new):]
        for event, line in zip(new, lines):
            self.say(f"  {event['seq']:>5}  {escape(line)}")

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
                self.say(escape(HELP))
            elif verb == "orders" and len(words) <= 2:
                self._show_orders(words[1] if len(words) == 2 else None)
            elif verb == "board" and len(words) == 1:
                from warlog.board_text import board_lines, legend

                for row in board_lines(rec.state):
                    self.say(row)
                self.say(f"[dim]{escape(legend(rec.state))}[/dim]")
            elif verb == "note":
                event = rec.note(line[len(words[0]):].strip())
                self._said([event])
            elif verb == "undo" and len(words) == 1:
                self._said([rec.undo()])
            elif verb == "concede" and len(words) == 2:
                self._said(rec.concede_as_player(words[1]))
            elif rec.pending is not None and verb != "dice" and not verb[0].isdigit():
                raise PlayError(f"'{rec.pending.text}' waits for its dice: enter the faces "
                                "(e.g. 4 or 3,5), or undo it")
            elif rec.pending is not None or verb == "dice":
                faces = parse_faces(" ".join(words[1:] if verb == "dice" else words))
                new = rec.dice(faces)
                if new is not None:
                    self._said(new)
            else:
                order_words, faces = split_dice(words)  # an order may bring its dice along
                order = rec.order_from(" ".join(order_words))
                new = rec.give(order, faces)
                if new is not None:
                    self._said(new)
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


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


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
                   f"{_count(result.orders, 'order')}, {result.withdrawn} withdrawn, "
                   f"{_count(result.notes, 'note')}; "
                   f"{where}"))
        return
    if not open_table(store, game_id, scenario, how, ask, say):
        return
    if scenario is None:
        say(escape(f"carrying on with {game_id}"))
    table = Table(Recorder(store, game_id), ask, say, resume)
    if sys.stdin.isatty():
        complete_with(table)
    table.run()
