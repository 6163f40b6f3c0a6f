"""The `warlog` console script: a command handed to the command server when one runs, else run
here exactly as before.

Why: a fresh interpreter pays about 0.2 s of CPU importing typer, rich and pydantic and defining
the event and scenario models before `warlog show` or `warlog order` does any work, 12 times a
bare interpreter's start. `warlog serve start` (warlog/app/server.py) starts a long-lived
process that has imported all of it once and forks a child per command, as Mercurial's `chg`
does. This client passes its argv, folder, environment and its own stdin, stdout and stderr
(file descriptors, SCM_RIGHTS), so the command writes to this terminal as if it ran here, and
exits with the command's exit code. So that this costs little more than a bare interpreter,
it imports only the standard library (and warlog/app/server_wire.py, what it shares with the
server, standard library only too); and a command the server cannot run (none started, a
stale one, another interpreter or environment) runs here, as `warlog.cli.main`.
"""

from __future__ import annotations

import json
import os
import socket
import sys

from warlog.app.server_wire import (HEADER, SOCKET_NAME, available, private_folder,
                                     server_folder)

LOCAL_ONLY = frozenset({"serve", "dashboard"})
"""Commands never handed over: the server's own control, and the dashboard (a long-running
Streamlit child of its own, stopped with its own signals)."""


def request(argv: list[str]) -> bytes:
    """The run request: what a child needs to be this process."""
    body = json.dumps({"op": "run", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
                       "executable": sys.executable}).encode()
    return HEADER.pack(len(body)) + body


def _lines(conn: socket.socket):
    """The server's replies, one JSON object a line, until it closes the connection."""
    buffer = b""
    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)


def served(argv: list[str], folder: str | None = None) -> int | None:
    """The exit code of ``warlog ARGV`` run by the server, or None when no server took it (the
    caller runs it itself). Once the server has started it, it is never run a second time: a
    server that goes away midway is exit code 1 with one line."""
    folder = server_folder() if folder is None else folder
    path = os.path.join(folder, SOCKET_NAME)
    if not available() or not private_folder(folder):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        socket.send_fds(conn, [request(argv)], [0, 1, 2])
        replies = _lines(conn)
        first = next(replies, None)
    except (OSError, ValueError):
        first = None
    if first is None or "started" not in first:
        conn.close()
        return None  # none there, refused, stale, another environment: run it here
    return _exit_code(conn, replies)


def _exit_code(conn: socket.socket, replies) -> int:
    """The started command's exit code, Ctrl-C passed on to it meanwhile (the server signals
    the child: only it knows whether that pid is still its running child)."""
    import signal

    def forward(signum, frame) -> None:
        try:
            conn.sendall(b"I")
        except OSError:
            pass

    previous = signal.signal(signal.SIGINT, forward)
    try:
        for reply in replies:
            if "exit" in reply:
                return int(reply["exit"])
    except (OSError, ValueError):
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
        conn.close()
    print("warlog: the command server stopped before the command ended", file=sys.stderr)
    return 1


def main() -> None:
    """The console script: the server runs the command if it can, else it runs here."""
    word = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    if word not in LOCAL_ONLY:
        code = served(sys.argv)
        if code is not None:
            sys.exit(code)
    from warlog.cli import main as run_here

    run_here()


if __name__ == "__main__":
    main()
