"""What the command server (warlog/app/server.py) and its client (warlog/launch.py) must agree
on, in one place: where the socket lives, its name, how a request is framed, which folders are
safe to use, and whether this platform can serve at all. Standard library only: the client
imports this before anything else, on every command.
"""

from __future__ import annotations

import os
import socket
import struct

SOCKET_NAME = "warlog.sock"
HEADER = struct.Struct("!I")
"""A request's length, before its JSON."""


def server_folder(environ=os.environ) -> str:
    """Where the command server keeps its socket and pidfile: $WARLOG_SERVER_DIR, else
    $XDG_RUNTIME_DIR/warlog (a per-user folder the system clears at log-out), else
    ~/.cache/warlog/server."""
    if environ.get("WARLOG_SERVER_DIR"):
        return environ["WARLOG_SERVER_DIR"]
    if environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(environ["XDG_RUNTIME_DIR"], "warlog")
    return os.path.join(os.path.expanduser("~"), ".cache", "warlog", "server")


def private_folder(folder: str) -> bool:
    """Whether ``folder`` is a folder of ours that nobody else may enter: a socket in anyone
    else's folder could be a stranger's server, which would run our commands."""
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


def available() -> bool:
    """Whether this platform can serve and hand a command over: fork, Unix sockets, descriptor
    passing, peer credentials."""
    return (hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")
            and hasattr(socket, "SO_PEERCRED"))
