"""The tests' ``strata`` command, forked from a warm process instead of started cold.

Most of the suite's time went into starting ``python -m engine`` over and over: the interpreter,
asyncio, anyio and strata's own modules cost ~100 ms of a ~150 ms tiny plan. A server process
(one per test worker, started at its first use) imports those once and forks a child for each
command. The child is what ``subprocess.run([python, "-m", "engine", *args])`` would have been: its
own process, with the caller's working directory, environment and standard streams (pipes, passed
over a unix socket), ``engine`` run as ``__main__``, the interpreter's own exit (``atexit``, flushed
streams, a traceback and status 1 for an uncaught exception), and its exit status or signal.

What a cold start would show and a fork cannot: how long importing takes, and which modules a
command imports. Tests of those start ``python -m engine`` themselves. Nothing that reads the
environment when it is imported is preloaded: grpc (read ``GRPC_*`` at import, and must not be
initialised before a fork), matplotlib. ``STRATA_TESTS_FORKSERVER=0`` turns the server off.

Run as ``python -m tests.forkserver SOCKET`` by :func:`run`; it ends when its parent closes its
standard input.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import importlib
import io
import os
import pkgutil
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
ENABLED = os.environ.get("STRATA_TESTS_FORKSERVER", "1") != "0"

# imported lazily by strata, never at start-up, or unsafe before a fork: not preloaded
_NOT_PRELOADED = ("engine.plugin", "engine.report", "engine.__main__")
_PRELOADED_LIBRARIES = ("asyncio", "anyio", "anyio._backends._asyncio", "trio", "anyio._backends._trio", "orjson",
                        "tree_sitter", "tree_sitter_hcl")
_NEVER = ("grpc", "matplotlib")


# ---------------------------------------------------------------------------------------- the server


def _preload() -> None:
    import engine

    for name in _PRELOADED_LIBRARIES:
        importlib.import_module(name)
    for mod in pkgutil.walk_packages(engine.__path__, "engine."):
        if not mod.name.startswith(_NOT_PRELOADED):
            importlib.import_module(mod.name)
    loaded = [name for name in _NEVER if name in sys.modules]
    assert not loaded, f"the fork server must not preload {loaded}"


def _serve(path: str) -> tuple[list[str], str]:
    """Serve until the parent goes; in a forked child, return its ``argv`` and working directory."""
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    sel.register(sys.stdin.fileno(), selectors.EVENT_READ)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in sel.select():
            if key.fileobj == sys.stdin.fileno():  # the test worker is gone
                raise SystemExit(0)
            if key.fileobj == wake_r:
                os.read(wake_r, 512)
                _reap(children)
                continue
            conn, _ = listener.accept()
            request, fds = _receive(conn)
            pid = os.fork()
            if pid == 0:  # the child: strata's process from here on
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                sel.close()
                for s in [listener, *children.values()]:
                    s.close()
                os.close(wake_r)
                os.close(wake_w)
                conn.close()
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                    os.close(fd)
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["env"])
                return request["argv"], request["cwd"]
            for fd in fds:
                os.close(fd)
            conn.sendall(orjson.dumps({"pid": pid}) + b"\n")
            children[pid] = conn
        _reap(children)


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(orjson.dumps({"returncode": code}) + b"\n")
            except OSError:
                pass
            conn.close()


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        msg, anc, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
        if not msg:
            raise SystemExit("the fork server's client went away mid-request")
        data += msg
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    return orjson.loads(data), list(fds)


def _main() -> None:
    argv, cwd = _serve(sys.argv[1])
    import runpy

    # as ``python -m engine`` started in ``cwd``: its first path entry is that directory
    sys.path[0] = cwd
    sys.argv = [str(REPO / "engine" / "__main__.py"), *argv]
    runpy.run_module("engine", run_name="__main__", alter_sys=True)


# ---------------------------------------------------------------------------------------- the client


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: str
    stderr: str


def environment(**extra: str) -> dict[str, str]:
    """The environment of the suite's ``strata`` commands: this one, strata importable from the
    repository, and ``extra``."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return env


def _startup(env: dict[str, str]) -> dict[str, str]:
    """What an interpreter reads from its environment as it starts: its path, hash seed, warnings...,
    and the locale (its standard streams' encoding)."""
    return {k: v for k, v in env.items() if k.startswith(("PYTHON", "LC_")) or k == "LANG"}


class _Server:
    def __init__(self) -> None:
        env = environment()  # the suite's, whatever the first command's
        self.dir = tempfile.mkdtemp(prefix="strata-forkserver-")
        self.path = os.path.join(self.dir, "socket")
        self.startup = _startup(env)
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.forkserver", self.path], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError(f"the tests' fork server did not start (exit status {self.proc.wait()})")
        self.owner = os.getpid()
        atexit.register(self.close)

    def close(self) -> None:
        """End the server (it ends when its input does) and remove its socket's directory."""
        if self.owner == os.getpid():
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None


_server: _Server | None = None


def _get(env: dict[str, str]) -> _Server | None:
    """The worker's server for a command with environment ``env``; None if its interpreter would not
    start as the server's did (another ``PYTHONPATH``, say): that command starts cold."""
    global _server
    if _server is None or not _server.alive():
        _server = _Server()
    return _server if _server.startup == _startup(env) else None


def run(args: list[str], cwd: Path, env: dict[str, str], input: str | None, timeout: float) -> Completed:
    """``subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, env=env, input=input,
    capture_output=True, text=True, timeout=timeout)``, forked from the warm server when it can be."""
    server = _get(env) if ENABLED else None
    if server is None:
        return cold(args, cwd, env, input, timeout)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    if input is not None:
        in_r, in_w = os.pipe()
    else:
        in_r, in_w = os.open(os.devnull, os.O_RDONLY), -1
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(server.path)
        request = orjson.dumps({"argv": args, "cwd": str(cwd), "env": env}) + b"\n"
        conn.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [in_r, out_w, err_w]))])
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    reply = conn.makefile("rb")
    pid = orjson.loads(reply.readline())["pid"]
    deadline = time.monotonic() + timeout
    got: tuple[bytes, bytes] | None = None
    try:
        got = _communicate(out_r, err_r, in_w, (input or "").encode(), deadline)
        conn.settimeout(max(deadline - time.monotonic(), 1.0))
        line = reply.readline() if got is not None else None
    except TimeoutError:
        line = None
    finally:
        conn.close()
    if got is None or line is None:
        with contextlib.suppress(ProcessLookupError):  # past its time (unless it has just ended)
            os.kill(pid, signal.SIGKILL)
        raise subprocess.TimeoutExpired([sys.executable, "-m", "engine", *args], timeout)
    out, err = got
    if not line:
        raise RuntimeError("the tests' fork server ended before the command did")
    return Completed(orjson.loads(line)["returncode"], _text(out), _text(err))


def cold(args: list[str], cwd: Path, env: dict[str, str], input: str | None, timeout: float) -> Completed:
    """The command started cold, as :func:`run` stands for."""
    stdin: dict[str, Any] = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    proc = subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, **stdin)
    return Completed(proc.returncode, proc.stdout, proc.stderr)


def _communicate(out_r: int, err_r: int, in_w: int, data: bytes,
                 deadline: float) -> tuple[bytes, bytes] | None:
    """Feed ``data`` and read both streams to their end (None past ``deadline``)."""
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    sel = selectors.DefaultSelector()
    sel.register(out_r, selectors.EVENT_READ)
    sel.register(err_r, selectors.EVENT_READ)
    view = memoryview(data)
    if in_w >= 0:
        if view:
            os.set_blocking(in_w, False)
            sel.register(in_w, selectors.EVENT_WRITE)
        else:
            os.close(in_w)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            for key, _ in sel.select(left):
                fd = key.fd
                if fd == in_w:
                    try:
                        view = view[os.write(in_w, view[:65536]):]
                    except BrokenPipeError:
                        view = view[:0]
                    if not view:
                        sel.unregister(in_w)
                        os.close(in_w)
                    continue
                chunk = os.read(fd, 65536)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    sel.unregister(fd)
                    os.close(fd)
    finally:
        for key in list(sel.get_map().values()):
            os.close(key.fd)
        sel.close()
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _text(data: bytes) -> str:
    """As ``subprocess`` decodes a text-mode stream: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data)).read()


if __name__ == "__main__":
    _main()
