"""The command server's own process (warlog/app/server.py starts it, asks it and stops it):
one select loop over the listening socket, the SIGCHLD wake-up and each running command's
client, a child forked per command that becomes the client's process (its terminal, folder,
environment and argv) and runs the command line, and the parent reaping each child (its exact
CPU) before it answers the client with the exit code.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from importlib import import_module

from warlog.app.server import (HEADER, MAX_REQUEST, PIDFILE, READ_TIMEOUT, SOCKET_NAME, Config,
                               _function)


def daemon() -> None:
    """The server process (started by ``start``): its Config is argv[1] as JSON."""
    config = Config(**json.loads(sys.argv[1]))
    sys.path[:] = [p for p in sys.path if p not in ("", ".")]  # a client's folder never shadows
    Server(config).run()


class Server:
    """One select loop over the listening socket, the SIGCHLD wake-up and each running
    command's client; single-threaded, so fork copies no other thread's held lock."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.root = config.entry.split(":")[0].split(".")[0]
        self.served, self.children_cpu = 0, 0.0
        self.children: dict[int, socket.socket] = {}
        self.clients: dict[socket.socket, int] = {}
        self.listener: socket.socket | None = None
        self.stopping = False

    def run(self) -> None:
        import fcntl

        os.chdir("/")
        lock = os.open(os.path.join(self.config.folder, PIDFILE), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            print("a command server is already running", flush=True)
            raise SystemExit(1) from None
        os.ftruncate(lock, 0)
        os.write(lock, f"{os.getpid()}\n".encode())
        self.private_fds = [lock]
        self._load()
        self.wake_r, self.wake_w = socket.socketpair()
        for end in (self.wake_r, self.wake_w):
            end.setblocking(False)
        signal.set_wakeup_fd(self.wake_w.fileno())
        signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake select
        signal.signal(signal.SIGTERM, self._on_term)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        self._listen()
        print(f"ready {os.getpid()}", flush=True)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            self._loop()
        finally:
            self._close_listener()
            os.unlink(os.path.join(self.config.folder, PIDFILE))
            os.close(lock)

    def _on_term(self, signum, frame) -> None:
        self.stopping = True

    def _load(self) -> None:
        """Import everything a command needs, build pydantic's deferred validators, and note
        the time stamp of every file that came from."""
        if self.config.prepare:
            _function(self.config.prepare)()
        for name in self.config.preload:
            import_module(name)
        _function(self.config.entry)
        self.env = _pinned(os.environ, self.config.pinned)
        _build_deferred(self._ours())
        gc.freeze()  # a child's collections would write to every object, copying every page
        files = [m.__file__ for m in self._ours() if getattr(m, "__file__", None)]
        self.stamps = {path: os.stat(path).st_mtime_ns for path in
                       sorted({*files, *self.config.watch})}

    def _ours(self) -> list:
        return [m for name, m in list(sys.modules.items())
                if name == self.root or name.startswith(self.root + ".")]

    def changed(self) -> str | None:
        """The first watched file whose time stamp differs from the one loaded (or is gone)."""
        for path, stamp in self.stamps.items():
            try:
                if os.stat(path).st_mtime_ns != stamp:
                    return path
            except OSError:
                return path
        return None

    def _listen(self) -> None:
        path = os.path.join(self.config.folder, SOCKET_NAME)
        if os.path.exists(path):  # we hold the lock: a socket left there is a dead server's
            os.unlink(path)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        os.chmod(path, 0o600)
        self.listener.listen(16)

    def _close_listener(self) -> None:
        """Stop taking commands; the ones running end and are answered."""
        if self.listener is not None:
            self.listener.close()
            self.listener = None
            try:
                os.unlink(os.path.join(self.config.folder, SOCKET_NAME))
            except FileNotFoundError:
                pass

    def _loop(self) -> None:
        self.last = time.monotonic()
        while self.listener is not None or self.children:
            if self.stopping:
                self._close_listener()
            waiting = [self.wake_r, *self.clients]
            if self.listener is not None:
                waiting.append(self.listener)
            timeout = None if self.children else max(0.0, self.last + self.config.idle -
                                                      time.monotonic())
            ready, _, _ = select.select(waiting, [], [], timeout)
            if not ready and not self.children:
                self._close_listener()  # idle for too long
            for sock in ready:
                if sock is self.wake_r:
                    while _drain(self.wake_r):
                        pass
                    self._reap()
                elif sock is self.listener:
                    self._accept()
                elif sock in self.clients:  # (not one whose child was reaped just now)
                    self._from_client(sock)
            self._reap()

    def _reap(self) -> None:
        """Collect every ended child: its CPU counted, then its exit code to its client."""
        while self.children:
            try:
                pid, wait_status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.served += 1
            self.last = time.monotonic()
            self.children_cpu += usage.ru_utime + usage.ru_stime
            conn = self.children.pop(pid)
            code = os.waitstatus_to_exitcode(wait_status)
            self.clients.pop(conn, None)
            _reply(conn, {"exit": code if code >= 0 else 128 - code})
            conn.close()

    def _from_client(self, conn: socket.socket) -> None:
        """A running command's client: Ctrl-C passed on, or gone (its child is hung up on)."""
        pid = self.clients[conn]
        try:
            data = conn.recv(64)
        except OSError:
            data = b""
        if data:
            os.kill(pid, signal.SIGINT)
        else:
            del self.clients[conn]
            os.kill(pid, signal.SIGHUP)

    def _accept(self) -> None:
        self.last = time.monotonic()
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            if struct.unpack("3i", creds)[1] != os.getuid():
                raise OSError("another user")
            conn.settimeout(READ_TIMEOUT)
            message, fds = _read_request(conn)
        except (OSError, ValueError):
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        self._answer(conn, message, fds)

    def _answer(self, conn: socket.socket, message: dict, fds: list[int]) -> None:
        op = message.get("op")
        keep = False
        if op == "status":
            _reply(conn, {"pid": os.getpid(), "served": self.served, "running":
                          len(self.children), "children_cpu": self.children_cpu})
        elif op == "stop":
            _reply(conn, {"stopping": True})
            self._close_listener()
            self.private_fds.append(conn.detach())  # closed as the server exits: stop's EOF
        elif op == "run":
            refusal = self._refusal(message, fds)
            if refusal:
                _reply(conn, {"direct": refusal})
            else:
                keep = self._fork(conn, message, fds)
        for fd in fds:
            os.close(fd)
        if not keep and op != "stop":
            conn.close()

    def _refusal(self, message: dict, fds: list[int]) -> str | None:
        """Why this client must run its command itself, or None."""
        if len(fds) != 3:
            return "the request did not carry stdin, stdout and stderr"
        if message.get("executable") != sys.executable:
            return "another interpreter"
        if _pinned(message.get("env", {}), self.config.pinned) != self.env:
            return "another environment"
        stale = self.changed()
        if stale:
            self._close_listener()
            return f"stale: {stale} changed"
        return None

    def _fork(self, conn: socket.socket, message: dict, fds: list[int]) -> bool:
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                code = self._child(conn, message, fds)
            except BaseException:  # the child's own set-up failed: said where the client sees it
                import traceback

                traceback.print_exc()
            finally:
                os._exit(code)
        conn.setblocking(True)
        self.children[pid] = conn
        self.clients[conn] = pid
        _reply(conn, {"started": pid})
        return True

    def _child(self, conn: socket.socket, message: dict, fds: list[int]) -> int:
        """In the forked child: become the client's process and run the command."""
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for sock in (conn, self.wake_r, self.wake_w, self.listener, *self.children.values()):
            if sock is not None:
                sock.close()
        for fd in self.private_fds:
            os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        _fresh_streams()
        os.environ.clear()
        os.environ.update(message["env"])
        sys.argv = list(message["argv"])
        try:
            os.chdir(message["cwd"])
            if self.config.in_child:
                _function(self.config.in_child)()
            _function(self.config.entry)()
            code = 0
        except SystemExit as exc:
            code = _exit_status(exc.code)
        except BaseException as exc:  # what the interpreter would print, then its exit code
            import traceback

            traceback.print_exc()
            code = 130 if isinstance(exc, KeyboardInterrupt) else 1
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        return code


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    """The client's request (JSON after its length) and the descriptors it carried."""
    data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
    if len(data) < HEADER.size:
        raise ValueError("short request")
    (size,) = HEADER.unpack_from(data)
    if size > MAX_REQUEST:
        raise ValueError("request too long")
    body = data[HEADER.size:]
    while len(body) < size:
        chunk = conn.recv(min(65536, size - len(body)))
        if not chunk:
            raise ValueError("cut short")
        body += chunk
    return json.loads(body), list(fds)


def _reply(conn: socket.socket, message: dict) -> None:
    try:
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass  # a client gone is no reason to stop serving


def _drain(sock: socket.socket) -> bool:
    try:
        return bool(sock.recv(4096))
    except BlockingIOError:
        return False


def _pinned(environ, names: list[str]) -> dict[str, str]:
    def pinned(key: str) -> bool:
        return any(key.startswith(n[:-1]) if n.endswith("*") else key == n for n in names)
    return {k: v for k, v in environ.items() if pinned(k)}


def _exit_status(code) -> int:
    """SystemExit's code as the interpreter turns it into an exit status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _fresh_streams() -> None:
    """sys.stdin, stdout and stderr over descriptors 0, 1 and 2 as they are now (the client's),
    buffered as the interpreter would for them (a terminal's stdout by line)."""
    def reopen(fd: int, mode: str, old, by_line: bool):
        return open(fd, mode, buffering=1 if by_line else -1, encoding=old.encoding,
                    errors=old.errors, closefd=False)

    sys.stdin = sys.__stdin__ = reopen(0, "r", sys.__stdin__, False)
    sys.stdout = sys.__stdout__ = reopen(1, "w", sys.__stdout__, os.isatty(1))
    sys.stderr = sys.__stderr__ = reopen(2, "w", sys.__stderr__, True)


def _build_deferred(modules: list) -> None:
    """Build every validator pydantic defers to first use (a TypeAdapter or a model made with
    ``defer_build``), so that no child builds it again."""
    from pydantic import BaseModel, TypeAdapter

    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, TypeAdapter):
                value.rebuild()
            elif (isinstance(value, type) and issubclass(value, BaseModel)
                  and value is not BaseModel and not value.__pydantic_complete__):
                value.model_rebuild()
