"""`warlog serve start|stop|status`: the command server (warlog/app/server.py) that runs short
commands without a fresh interpreter's start-up, and what the command line tells it.

The server is the application layer and names no command-line module; this face gives it the
command line to run (`warlog.cli:main`), every command's module to import first (COMMANDS), and
the two things the command line needs that a forked copy of a process would get wrong:
rich's consoles, made when `warlog.cli_common` is imported, read the terminal, COLUMNS and
NO_COLOR once, as they are made (``record_consoles`` notes how each was made, in the server;
``fresh_consoles`` makes each again in the child, which holds the client's terminal and
environment); and the environment variables typer and the interpreter read only at import
(``PINNED``): a client whose values differ runs the command itself.
"""

from __future__ import annotations

import weakref
from enum import Enum
from importlib import import_module
from typing import Annotated

import typer

PINNED = [
    "PYTHON*", "LANG", "LC_*",  # the interpreter's flags, paths, hash seed, stream encodings
    "TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TYPER_USE_RICH",
    "_TYPER_*",  # read by typer as it is imported
]
"""Environment variables read once, at import: a client must have the server's values."""

_made: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Each rich Console made in the server, and the arguments it was made with."""


class Action(str, Enum):
    start = "start"
    stop = "stop"
    status = "status"


def record_consoles() -> None:
    """In the server, before the command modules are imported: note each Console's arguments."""
    from rich.console import Console

    made = Console.__init__

    def noting(self, *args, **kwargs) -> None:
        _made[self] = (made, args, kwargs)
        made(self, *args, **kwargs)

    Console.__init__ = noting


def prepare() -> None:
    """In the server, before the command modules are imported: note how each rich Console is
    made (``record_consoles``), and build the log's event union (every kind's validator), which
    is made on first use, so that no child builds it again."""
    from warlog.events.model import event_adapter

    record_consoles()
    event_adapter()


def fresh_consoles() -> None:
    """In a child: every Console made at import made again, now that the terminal, COLUMNS and
    NO_COLOR are the client's (as the same line does in a fresh process)."""
    for console, (made, args, kwargs) in list(_made.items()):
        made(console, *args, **kwargs)


def config(folder: str | None = None):
    """The server's Config for this command line."""
    from warlog.app.server import Config
    from warlog.app.server_wire import server_folder

    return Config(folder=folder or server_folder(), entry="warlog.cli:main", preload=preload(),
                  prepare="warlog.serve_cmd:prepare",
                  in_child="warlog.serve_cmd:fresh_consoles", pinned=PINNED)


def preload() -> list[str]:
    """Every module a command may import: each command's module (COMMANDS), and what they import
    only when they run: the command line's other modules and every module of the application,
    the engine and the events (about 0.5 s and 60 MB once, in the server). Not the dashboard,
    which no command but `dashboard` (never served) reaches."""
    import pkgutil

    import warlog
    from warlog.cli import COMMANDS

    names = [spec.split(":")[0] for _, _, spec in COMMANDS]
    names += [m.name for m in pkgutil.iter_modules(warlog.__path__, "warlog.") if not m.ispkg]
    for package in ("warlog.app", "warlog.engine", "warlog.events"):
        path = import_module(package).__path__
        names += [m.name for m in pkgutil.walk_packages(path, package + ".")]
    return list(dict.fromkeys(names))


def serve(action: Annotated[Action, typer.Argument(help="start, stop or status.")]) -> None:
    """Start, stop or ask the server that starts short commands at once."""
    from warlog.app import server
    from warlog.cli_common import fail, out

    from warlog.app.server_wire import server_folder

    folder = server_folder()
    if action is Action.start:
        try:
            pid = server.start(config(folder))
        except server.ServerError as exc:
            fail(str(exc))
            raise typer.Exit(1) from None
        out.print(f"the command server runs (pid {pid}); `warlog serve stop` stops it")
    elif action is Action.stop:
        stopped = server.stop(folder)
        out.print("the command server stopped" if stopped else "no command server was running")
    else:
        now = server.status(folder)
        if now is None:
            out.print("no command server runs")
            return
        out.print(f"the command server runs (pid {now['pid']}): {now['served']} commands "
                  f"served, {now['children_cpu']:.2f} s of CPU in its children")
