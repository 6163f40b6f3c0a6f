"""The command server: one long-lived process that has imported the command line once and forks
a child for each `warlog` command a client (warlog/launch.py) hands it, as Mercurial's `chg`.

Why: a fresh `warlog show` spends most of its CPU importing typer, rich and pydantic and
defining the models, before it reads a single event. The server pays that once (and builds
pydantic's deferred validators, which a child would otherwise build again each time); a child
is a copy of it made by fork, so it starts with all of it. The client passes its argv, folder,
environment and its stdin, stdout and stderr, which the child makes its own, so the command
reads and writes the client's terminal. The parent reaps each child (``os.wait4``: its exact
CPU) before it tells the client the exit code, so a client holding its exit code knows the
command has ended, and ``status`` adds the children's CPU up for the start-up benchmark.

This module starts, asks and stops a server; warlog/app/server_loop.py is the server itself (its
loop and what a child does). It is the application layer and imports no face: what to import,
what a child runs and what a child does first come as "module:function" names in its ``Config``
(warlog/serve_cmd.py gives them). A server never runs code older than the files: each module
file it loaded (and any file ``Config.watch`` names) is stat-ed before each fork, and a changed
one makes it answer "stale", stop listening and end (the client runs the command itself). A
client with another interpreter, or another value of an environment variable read at import
(``Config.pinned``), is told to run it itself too.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from dataclasses import asdict, dataclass, field
from importlib import import_module

from warlog.app.server_wire import (HEADER, SOCKET_NAME, available,
                                     private_folder)

IDLE = 30 * 60.0
"""Seconds without a command after which the server ends by itself."""
PIDFILE = "server.pid"
MAX_REQUEST = 4 << 20
"""The largest request read (argv and environment as JSON)."""
READ_TIMEOUT = 10.0
"""Seconds a connected client has to send its whole request (a stuck one cannot hold the
server)."""


MAX_SOCKET_PATH = 107
"""The longest path a Unix socket may have on Linux (sun_path holds 108 bytes with its NUL)."""


class ServerError(Exception):
    """A server that cannot be started or asked; the message is one line for the user."""


@dataclass
class Config:
    folder: str
    entry: str
    """ "module:function" a child runs as the command (sys.argv set)."""
    preload: list[str] = field(default_factory=list)
    prepare: str | None = None
    """ "module:function" the server runs before importing ``preload``."""
    in_child: str | None = None
    """ "module:function" each child runs first, once it holds the client's terminal and
    environment."""
    pinned: list[str] = field(default_factory=list)
    """Environment variables (a trailing * a prefix) a client must share with the server."""
    watch: list[str] = field(default_factory=list)
    idle: float = IDLE


def _function(spec: str):
    module, name = spec.split(":")
    return getattr(import_module(module), name)


# -- asking a running server ---------------------------------------------------------------

def _ask(folder: str, op: str) -> list[dict]:
    """Every reply to ``op`` until the server closes the connection ([] when none answers)."""
    if not available():
        return []
    body = json.dumps({"op": op}).encode()
    replies, buffer = [], b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        try:
            conn.connect(os.path.join(folder, SOCKET_NAME))
            conn.sendall(HEADER.pack(len(body)) + body)
            while chunk := conn.recv(4096):
                buffer += chunk
        except OSError:
            pass
    for line in buffer.splitlines():
        replies.append(json.loads(line))
    return replies


def status(folder: str) -> dict | None:
    """{pid, served, children_cpu, running} of the server in ``folder``, or None."""
    replies = _ask(folder, "status")
    return replies[0] if replies else None


def stop(folder: str) -> bool:
    """Stop the server in ``folder`` (it ends the commands it runs first); returns once it has
    ended (its connection closes only as it exits). False when none was running."""
    return bool(_ask(folder, "stop"))


def start(config: Config) -> int:
    """Start a server for ``config`` as a daemon and return its pid once it listens."""
    if not available():
        raise ServerError("the command server is not available here (it needs fork, Unix "
                          "sockets and descriptor passing)")
    if len(os.path.join(config.folder, SOCKET_NAME).encode()) > MAX_SOCKET_PATH:
        raise ServerError(f"the command server's folder {config.folder} is too deep for a "
                          f"socket (its path may be at most {MAX_SOCKET_PATH} bytes): set "
                          "WARLOG_SERVER_DIR to a shorter one")
    try:
        os.makedirs(config.folder, mode=0o700, exist_ok=True)
    except OSError as exc:  # a file there, a folder it may not make: the user's to mend
        raise ServerError(f"cannot make the command server's folder {config.folder}: "
                          f"{exc.strerror or exc}") from None
    if not private_folder(config.folder):
        raise ServerError(f"{config.folder} must be a folder of yours that only you may "
                          "enter (chmod 700)")
    running = status(config.folder)
    if running:
        raise ServerError(f"a command server is already running (pid {running['pid']})")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # detach: a new session, then a grandchild that init adopts
        try:
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(write_end, 1)
            os.dup2(write_end, 2)
            os.execv(sys.executable, [sys.executable, "-c",
                                      "from warlog.app.server_loop import daemon; daemon()",
                                      json.dumps(asdict(config))])
        finally:
            os._exit(127)
    os.close(write_end)
    os.waitpid(pid, 0)
    said = []
    with os.fdopen(read_end, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.startswith("ready "):
                return int(line.split()[1])
            said.append(line.rstrip())
    raise ServerError("the command server did not start: " + (said[-1] if said else "no word"))
