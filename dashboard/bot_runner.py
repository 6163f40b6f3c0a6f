"""Bots' turns played off the page's thread and out of the server's interpreter (issue 22: a bot
side plays as soon as it is its turn, order by order, at the pace the player sets, and the page
never freezes while it thinks, nor slows another page's clicks).

A Streamlit script that called the bot itself would hold the page for the whole decision: a
search bot thinks for seconds an order, and a turn is a dozen orders. A thread of the server
was not enough either: a decision is pure Python and holds the server's GIL, so beside eight
bot games a person's click on another game took 12 s to repaint (bot_pool.py says more). So
each order is decided and appended in a worker process (bot_pool.step: it reads the game, lets
the bot decide, and appends through the Recorder with ``expected_seq``, exactly as a person's
click does), and a run is a thread of the server that only asks for the orders one by one,
waits the pace between them and keeps the run's progress for the page. The page only reads
that progress and the store: a fragment polls (views/play.py), and the board follows what is
stored. There is at most one run per game in a server process, so two pages watching a bot
never make it move twice; and were a second writer to get there first anyway, the store
refuses the later append whole (GameMovedOn) and the run stops, saying so. A worker that dies
ends the run with its line; the next run starts a new pool.

No Streamlit here: the runs are plain threads, tested as such.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from warlog.app.background import REGISTRY
from warlog.app.errors import GameMovedOn, PlayError
from warlog.dashboard import bot_pool

# The paces a player may set: seconds to wait between two orders, or None for one order a
# click ("a step at a time").
PACES: dict[str, float | None] = {"at once": 0.0, "one a second": 1.0, "a step at a time": None}
THREAD_PREFIX = "warlog-bot"
KEEP_REASONS = 6  # the latest orders' reasons a run keeps for the page


@dataclass
class BotRun:
    """One stretch of bots' orders in one game: running until a person is to act, the game
    ends, the player stops it, or (a step at a time) after one order."""

    path: str
    game: str
    pace: str
    orders: int = 0
    reasons: list[str] = field(default_factory=list)
    error: str | None = None
    thinking_since: float | None = None  # time.monotonic() when the current decision began
    worker_pid: int | None = None  # the process that decided the latest order
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _finished: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    finished = done  # the name the background registry reads (warlog/app/background.py)

    def begin(self) -> None:
        threading.Thread(target=self._play, name=f"{THREAD_PREFIX} {self.game}",
                         daemon=True).start()

    @property
    def paused(self) -> bool:
        """The player stopped it (the page then waits for a click to let the bots play on)."""
        return self._stop.is_set()

    def thinking_for(self) -> float:
        """Seconds the bot has been on its current decision (0 between decisions)."""
        since = self.thinking_since
        return 0.0 if since is None or self.done else max(0.0, time.monotonic() - since)

    def stop(self) -> None:
        """Ask the run to stop after the order it is deciding (a decision is not cut short:
        it is either appended whole or not at all), or at once if its order still waits for a
        worker (it is withdrawn)."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run is over (tests and the command line; the page polls)."""
        return self._finished.wait(timeout)

    def _play(self) -> None:
        wait = PACES[self.pace]
        try:
            while not self._stop.is_set():
                self.thinking_since = time.monotonic()
                # decided and appended in a worker; None: paused before a worker took it
                step = bot_pool.step(self.path, self.game, self._stop)
                self.thinking_since = None
                if step is None or step.reason is None:  # paused, over, or a person to act
                    break
                self.worker_pid = step.pid
                self.orders += 1
                self.reasons = (self.reasons + [step.reason])[-KEEP_REASONS:]
                if not step.more or wait is None:
                    break
                if wait and self._stop.wait(wait):
                    break
        except GameMovedOn as exc:
            self.error = str(exc)
        except PlayError as exc:
            self.error = str(exc)
        except bot_pool.BrokenProcessPool as exc:
            self.error = ("the bot stopped: its worker process ended (killed?) before it "
                          f"answered: {exc}; let the bots play on to try again")
        except Exception as exc:  # noqa: BLE001 - a thread's failure must reach the page as a line
            self.error = f"the bot stopped: {type(exc).__name__}: {exc}"
        finally:
            self.thinking_since = None
            self._finished.set()


def current(path: str, game: str) -> BotRun | None:
    """The latest run of ``game`` in this process (under way or over), or None."""
    return REGISTRY.current(("bots", path, game))  # type: ignore[return-value]


def start(path: str, game: str, pace: str) -> BotRun:
    """Start the bots of ``game`` playing at ``pace``, or return the run already under way
    (one run per game: a second page asking joins the first). A run that is over is replaced
    by a new one, which keeps its reasons for the page."""
    if pace not in PACES:
        raise PlayError(f"the bots' pace is one of {', '.join(PACES)}, not {pace!r}")

    def new_run(previous: BotRun | None) -> BotRun:
        earlier = list(previous.reasons) if previous is not None else []
        return BotRun(path, game, pace, reasons=earlier)

    return REGISTRY.start(("bots", path, game), new_run, again_when_done=True)


def stop(path: str, game: str) -> None:
    """Stop the run of ``game``, if one is under way."""
    run = current(path, game)
    if run is not None:
        run.stop()
