"""A plugin process: started with go-plugin's handshake, watched, and never left behind.

Start-up (go-plugin's client side): the plugin is run with the magic cookie
(``TF_PLUGIN_MAGIC_COOKIE``) and ``PLUGIN_PROTOCOL_VERSIONS=5,6`` (without it, SDK v1 plugins
such as null 2.1.2 fall back to the legacy netrpc protocol 4), and answers on its first stdout
line ``CORE-VERSION|APP-PROTOCOL|unix|SOCKET|grpc|``: the protocol version it picked and the
socket it serves gRPC on.

What protects the channel: plain gRPC on a unix socket created inside a directory only this user
can enter (a fresh 0700 directory, passed as ``TMPDIR`` and ``PLUGIN_UNIX_SOCKET_DIR``). No
other user can connect to it or see it. go-plugin's AutoMTLS is not used (terraform has the same
switch, ``TF_DISABLE_PLUGIN_TLS``): go-plugin's certificates are ECDSA P-521, TLS 1.3 binds the
curve to the signature scheme, and grpcio's TLS (BoringSSL) does not offer
``ecdsa_secp521r1_sha512``, so a plugin built with a Go that speaks TLS 1.3 (aws 3.39) aborts the
handshake; grpcio's Python API can set neither the schemes nor the highest TLS version. It works
only with TLS-1.2-only plugins (null 2.1.2, Go 1.11) and RSA certificates (``tests/plugins/
mtls_probe.py`` shows each case, against OpenSSL too).

Hygiene:

* the plugin's stderr (hclog JSON lines, and a Go panic's plain text) is read by a thread: kept
  in a bounded buffer for crash reports, and passed to strata's log (:mod:`engine.log`) only when
  ``TF_LOG`` or ``TF_LOG_PROVIDER`` is set, as terraform does; never to the user's output;
* the plugin gets its own session and process group (a terminal's Ctrl-C reaches strata only,
  which decides), and Linux's parent-death signal (``PR_SET_PDEATHSIG`` = SIGKILL): when strata
  ends in any way, SIGKILL included, the kernel kills the plugin. The death signal fires when the
  *thread* that forked the child ends, so each plugin is forked by a thread of its own that
  lives exactly as long as the plugin (it waits for it, and so notices a crash at once);
* :meth:`PluginProcess.close` asks go-plugin to shut down (``plugin.GRPCController/Shutdown``),
  waits briefly, then kills the process group; every process still open at interpreter exit is
  closed by an ``atexit`` hook.
"""

from __future__ import annotations

import atexit
import collections
import ctypes
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

import orjson

from engine.diagnostics import ProviderError
from engine.frozen import frozen
from engine.log import get_logger

MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
PROTOCOL_VERSIONS = (5, 6)
START_TIMEOUT = 60.0  # go-plugin's default StartTimeout
SHUTDOWN_GRACE = 2.0  # seconds a plugin has to exit after Shutdown before it is killed
STDERR_LINES = 200  # kept for a crash report

_PR_SET_PDEATHSIG = 1
_LIVE: weakref.WeakSet[PluginProcess] = weakref.WeakSet()

log = get_logger("strata.plugin")


class PluginStartError(ProviderError):
    """A plugin executable did not start, or did not complete go-plugin's handshake."""

    def __init__(self, executable: Path, reason: str, *, provider: str = "") -> None:
        self.executable = executable
        self.reason = reason
        super().__init__("Failed to start provider plugin", provider=provider,
                         detail=f"Could not start {executable}: {reason}")


@frozen
class Handshake:
    """The plugin's first stdout line, read."""

    core_version: int
    protocol: int
    network: str
    address: str
    transport: str


def parse_handshake(line: str) -> Handshake:
    """``1|5|unix|/tmp/plugin123|grpc|`` as a :class:`Handshake`; ValueError when it is not one
    strata can use (another core protocol, a network or transport other than unix/grpc, a
    protocol version it did not offer)."""
    parts = line.strip().split("|")
    if len(parts) < 5:
        raise ValueError(f"unrecognized handshake line {line.strip()!r}")
    core, proto, network, address, transport = parts[:5]
    h = Handshake(int(core), int(proto), network, address, transport)
    if h.core_version != 1:
        raise ValueError(f"go-plugin core protocol {h.core_version}, expected 1")
    if h.protocol not in PROTOCOL_VERSIONS:
        raise ValueError(f"plugin protocol {h.protocol}, strata speaks {PROTOCOL_VERSIONS}")
    if h.transport != "grpc":
        raise ValueError(f"transport {h.transport!r}, only grpc is supported")
    if h.network != "unix":
        raise ValueError(f"network {h.network!r}, only unix sockets are used")
    return h


def _set_parent_death_signal() -> None:  # runs in the child, between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the process group and atexit remain
        pass


def _forward_logs() -> bool:
    return bool(os.environ.get("TF_LOG") or os.environ.get("TF_LOG_PROVIDER"))


class PluginProcess:
    """One running plugin: NEW → RUNNING (after :meth:`start`) → CLOSED (after :meth:`close`,
    or once the process has exited: ``exit_code`` is then set)."""

    def __init__(self, executable: Path, name: str) -> None:
        self.executable = Path(executable)
        self.name = name  # the provider, for messages
        self.state = "NEW"
        self.handshake: Handshake | None = None
        self.exit_code: int | None = None
        self.pid: int | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._panic: list[str] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir: str | None = None
        self._exited = threading.Event()
        self._closing = False
        self.shutdown: Any = None
        """``shutdown()``: asks the plugin to exit (the client sets it once connected)."""

    # -- start ------------------------------------------------------------------------------
    def start(self) -> Handshake:
        """Run the plugin and complete the handshake (blocking; tens of milliseconds)."""
        if self.state != "NEW":
            raise RuntimeError(f"plugin process {self.name} is {self.state}, not NEW")
        self._dir = tempfile.mkdtemp(prefix="strata-plugin-")  # mkdtemp makes it 0700
        env = {**os.environ, MAGIC_COOKIE_KEY: MAGIC_COOKIE,
               "PLUGIN_PROTOCOL_VERSIONS": ",".join(map(str, PROTOCOL_VERSIONS)),
               "TMPDIR": self._dir, "PLUGIN_UNIX_SOCKET_DIR": self._dir}
        env.pop("PLUGIN_CLIENT_CERT", None)  # no AutoMTLS (see the module's docstring)
        lines: queue.Queue[str | None] = queue.Queue()
        started: queue.Queue[BaseException | None] = queue.Queue()
        t = threading.Thread(target=self._run, args=(env, lines, started), daemon=True,
                             name=f"plugin {self.name}")
        t.start()
        failure = started.get()
        if failure is not None:
            self._cleanup_dir()
            self.state = "CLOSED"
            raise PluginStartError(self.executable, str(failure), provider=self.name) from failure
        self.state = "RUNNING"
        _LIVE.add(self)
        try:
            line = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            self.close()
            raise PluginStartError(self.executable, f"no handshake within {START_TIMEOUT:.0f} s",
                                   provider=self.name) from None
        if line is None:  # stdout closed: the plugin exited
            self._exited.wait(5)
            self.close()
            raise PluginStartError(self.executable, "the plugin exited before its handshake "
                                   f"(exit status {self.exit_code}): " + self.stderr_text(10),
                                   provider=self.name)
        try:
            self.handshake = parse_handshake(line)
        except ValueError as exc:
            self.close()
            raise PluginStartError(self.executable, str(exc), provider=self.name) from exc
        return self.handshake

    def _run(self, env: dict[str, str], lines: queue.Queue[str | None],
             started: queue.Queue[BaseException | None]) -> None:
        """The plugin's own thread: forks it (so the parent-death signal is tied to a thread that
        outlives it), drains its output, and waits for it."""
        try:
            proc = subprocess.Popen([str(self.executable)], env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True, close_fds=True,
                                    preexec_fn=_set_parent_death_signal)
        except OSError as exc:
            started.put(exc)
            return
        self._proc, self.pid = proc, proc.pid
        started.put(None)
        assert proc.stdout is not None and proc.stderr is not None
        threading.Thread(target=self._read_stdout, args=(proc.stdout, lines), daemon=True,
                         name=f"plugin {self.name} stdout").start()
        err = threading.Thread(target=self._read_stderr, args=(proc.stderr,), daemon=True,
                               name=f"plugin {self.name} stderr")
        err.start()
        self.exit_code = proc.wait()
        err.join(2)
        self._exited.set()
        if not self._closing and _forward_logs():  # the failing call's diagnostic tells the user
            log.warning("plugin exited", provider=self.name, pid=proc.pid, status=self.exit_code)

    @staticmethod
    def _read_stdout(out: Any, lines: queue.Queue[str | None]) -> None:
        first = out.readline()
        lines.put(first.decode(errors="replace") if first else None)
        for _ in iter(out.readline, b""):  # go-plugin writes nothing more; drain anyway
            pass

    def _read_stderr(self, err: Any) -> None:
        forward = _forward_logs()
        for raw in iter(err.readline, b""):
            text = raw.decode(errors="replace").rstrip("\n")
            self.stderr_tail.append(text)
            if text.startswith("panic:") or (self._panic and len(self._panic) < 20):
                self._panic.append(text)
            if forward:
                _log_line(self.name, text)

    # -- state ------------------------------------------------------------------------------
    @property
    def exited(self) -> bool:
        return self._exited.is_set()

    def wait_exited(self, timeout: float) -> bool:
        return self._exited.wait(timeout)

    def panic_lines(self, n: int = 12) -> list[str]:
        """The first lines of a Go panic the plugin printed, if it printed one."""
        return self._panic[:n]

    def stderr_text(self, n: int) -> str:
        return "\n".join(list(self.stderr_tail)[-n:])

    # -- close ------------------------------------------------------------------------------
    def close(self) -> None:
        """End the plugin: :attr:`shutdown` (go-plugin's controller) if set, a grace period,
        then SIGKILL to its process group. Idempotent."""
        if self.state == "CLOSED":
            return
        shutdown = self.shutdown
        self.state = "CLOSED"
        self._closing = True
        _LIVE.discard(self)
        proc = self._proc
        if proc is not None and not self._exited.is_set():
            if shutdown is not None:
                try:
                    shutdown()
                except Exception:  # a plugin that will not shut down is killed below
                    pass
                self._exited.wait(SHUTDOWN_GRACE)
            if not self._exited.is_set():
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                self._exited.wait(5)
        elif proc is not None:
            try:  # what the plugin itself started, if anything, goes with it
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._cleanup_dir()

    def _cleanup_dir(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _log_line(name: str, text: str) -> None:
    """One stderr line of a plugin into strata's log: hclog JSON by its level, else as it is."""
    if text.startswith("{"):
        try:
            rec = orjson.loads(text)
        except orjson.JSONDecodeError:
            rec = None
        if isinstance(rec, dict):
            level = str(rec.pop("@level", "info")).lower()
            message = str(rec.pop("@message", ""))
            rec.pop("@timestamp", None)
            fn = {"trace": log.debug, "debug": log.debug, "warn": log.warning,
                  "error": log.error}.get(level, log.info)
            fn(message, provider=name, **{k.lstrip("@"): v for k, v in rec.items()})
            return
    log.info(text, provider=name)


def close_all() -> None:
    """Close every plugin process still open (at the end of a run; also at interpreter exit)."""
    for p in list(_LIVE):
        p.close()


atexit.register(close_all)
