"""One ``-json`` event as one line of terraform's machine-readable UI, and the process that can
write them for a large run.

:func:`json_line` is the only formatter of event lines. A run with many events hands the
formatting to a **writer process** (:func:`serve`, started by ``json_sink.JsonSink``): strata sends
it each event as a compact JSON array, ``[type, message, payload, level, timestamp]``, one per
line (an event log's arrays are ``[seq, monotonic, type, message, payload, level, timestamp,
detail]``; or, rarely, a finished line: an object, for what orjson cannot encode), and the writer
formats and writes them to the standard output it inherited, in order. Encoding the array costs
the event loop a third of formatting the line, and the formatting and the writing run on the
other core: at 100k resources that is 300,000 lines.

Both ends of that hand-over are here: :class:`Writer` is strata's (start the process, wait for
it to say it runs, feed its pipe, wait for it to finish), :func:`serve` and :func:`main` the
writer's. This module imports only the standard library and orjson: the writer process runs it
as a script (``python -P engine/jsonline.py``), without strata's other modules.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

try:
    import orjson
except ImportError:
    if __name__ == "__main__":  # the writer process, in an interpreter without orjson: strata
        sys.exit(2)             # sees it never started and writes its lines itself
    raise

_dumps = orjson.dumps
_TS_PREFIX: dict[int, str] = {}


def timestamp(t: float) -> str:
    """RFC 3339 with microseconds, as terraform writes; the per-second prefix is cached (hot path)."""
    sec, us = divmod(int(t * 1_000_000), 1_000_000)
    return f"{second_prefix(sec)}{us:06d}Z"


def second_prefix(sec: int) -> str:
    prefix = _TS_PREFIX.get(sec)
    if prefix is None:
        _TS_PREFIX.clear()
        prefix = _TS_PREFIX[sec] = datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
    return prefix


_LINE = b'{"@level":%b,"@message":%b,"@module":"terraform.ui","@timestamp":"%b%06dZ",%b,"type":%b}\n'
_LINE_BARE = b'{"@level":%b,"@message":%b,"@module":"terraform.ui","@timestamp":"%b%06dZ","type":%b}\n'
_B_PREFIX: dict[int, bytes] = {}
_B_NAMES: dict[str, bytes] = {}  # JSON of each type and level seen: a handful of strings


def json_line(event: tuple[str, str, dict[str, Any], str, float] | list[Any]) -> bytes:
    """``Event.to_json()`` as one line of JSON, byte for byte, at half the cost: the common fields
    go into a byte template around one ``orjson.dumps`` of the payload (hot path: three events per
    resource; building the merged dict and the timestamp string cost as much as the encoding).

    Raises TypeError for what orjson cannot encode (an integer beyond 64 bits)."""
    # by index: an Event may carry its detail sixth
    return line_of(event[0], _dumps(event[1]), _dumps(event[2]), event[3], event[4])


def line_of(type_: str, message: Any, payload: Any, level: str, t: float) -> bytes:
    """:func:`json_line` from the event's parts, its ``message`` and ``payload`` JSON already
    (bytes, or any buffer of them: the relay process passes the bytes strata encoded)."""
    us = int(t * 1_000_000)
    sec = us // 1_000_000
    prefix = _B_PREFIX.get(sec)
    if prefix is None:
        _B_PREFIX.clear()
        prefix = _B_PREFIX[sec] = second_prefix(sec).encode()
    names = _B_NAMES
    tb = names.get(type_)
    if tb is None:
        tb = names[type_] = _dumps(type_)
    lb = names.get(level)
    if lb is None:
        lb = names[level] = _dumps(level)
    body = memoryview(payload)
    if len(body) > 2:  # the payload's members sit between @timestamp and type
        return _LINE % (lb, message, prefix, us - sec * 1_000_000, body[1:-1], tb)
    return _LINE_BARE % (lb, message, prefix, us - sec * 1_000_000, tb)


HUMAN_ONLY = frozenset({"import_preparing", "import_start", "import_complete", "provision_blank_line"})
"""Progress terraform prints as text but not in its ``-json`` stream."""

DETAIL_FIELDS = ("node", "provider", "deps", "after", "ready", "wait", "run", "call")
"""An apply event's detail travels as a tuple of these, in this order (the start's without the
last two): the executor builds no dict, and the event loop encodes a short array; the dict is
made where the line is formatted (here, or in the writer process)."""


def detail_dict(detail: Any) -> Any:
    """An event's detail as a dict (a tuple or list of :data:`DETAIL_FIELDS`, or a dict already)."""
    if type(detail) is list or type(detail) is tuple:  # hot path: no isinstance of a union
        return dict(zip(DETAIL_FIELDS, detail, strict=False))
    return detail


def log_line(seq: int, t: float, event: tuple[Any, ...] | list[Any], detail: Any = None) -> bytes:
    """One line of the event log (``engine.events.log``): :func:`json_line` of ``event`` with
    ``seq`` and ``monotonic`` first and ``detail`` last (hot path: byte templates).

    Raises TypeError for what orjson cannot encode."""
    return log_line_from(seq, t, json_line(event), detail)


def log_line_from(seq: int, t: float, line: bytes, detail: Any = None) -> bytes:
    """:func:`log_line` from the event's :func:`json_line` ``line``, made already (the relay
    process writes both)."""
    return log_line_json(seq, t, line, None if detail is None else _dumps(detail_dict(detail)))


def log_line_json(seq: int, t: float, line: bytes, detail: Any = None) -> bytes:
    """:func:`log_line_from` with ``detail`` JSON already (bytes, or any buffer of them), or None."""
    # one formatting each (hot path: the relay makes every log line here)
    if detail is not None:
        return _LOG_LINE_DETAIL % (seq, t, memoryview(line)[1:-2], detail)
    return _LOG_LINE % (seq, t, memoryview(line)[1:])


_LOG_LINE = b'{"seq":%d,"monotonic":%.6f,%b'
_LOG_LINE_DETAIL = b'{"seq":%d,"monotonic":%.6f,%b,"detail":%b}\n'


# --------------------------------------------------------------------------- the writer process

OUTPUT_FAILED_STATUS = 3
"""The writer's exit status when its output could not be written (it said why on stderr)."""
START_TIMEOUT = 10.0  # seconds for a writer to say it runs
_F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ, named there from Python 3.10 on Linux only
HELPER_NICENESS = 10
"""How much lower than strata's the CPU priority of its output helpers is (the writer, the relay,
a NATS publisher). On a machine with as many busy processes as cores, the scheduler then lets
the apply run on and the helpers catch up, rather than take the apply's core in turns: at 100k
resources on two cores, with the relay and a publisher beside it, strata was preempted 1,200 to
4,000 times a run, 170 to 770 times with this, and waited ~0.2 s less. A helper that falls far
behind still holds strata up (past a large backlog), so nothing is lost: it only goes later."""


def yield_cpu(pid: int) -> None:
    """Lower the CPU priority of ``pid``, a helper strata just started, by :data:`HELPER_NICENESS`
    (never an error: a system that refuses leaves it as it is)."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + HELPER_NICENESS))


class Writer:
    """strata's end of a writer process: its input, a non-blocking pipe, and the process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None
        self.process = process
        self.pipe = process.stdin.fileno()
        os.set_blocking(self.pipe, False)
        with contextlib.suppress(OSError):  # a larger pipe: fewer writes, fewer waits (Linux)
            fcntl.fcntl(self.pipe, _F_SETPIPE_SZ, 1 << 20)

    @classmethod
    def start(cls, out: int, timeout: float = START_TIMEOUT, what: str = "-json event stream") -> Writer | None:
        """A writer on the descriptor ``out``, once it says it runs (its imports done: until then
        the output is not its to take); None if it cannot start, or does not say so in time.
        ``what`` it writes, named when it cannot."""
        spawned = Spawned.spawn(out, args=(what,))
        if spawned is None:
            return None
        return spawned.writer(wait(spawned.ready, select.POLLIN, timeout))

    def send(self, buf: bytearray, block: bool) -> bool:
        """Hand over the start of ``buf`` (removed from it): all of it when ``block``, else what the
        pipe takes now. False when the writer is gone (it said why, if there was a why)."""
        return send(self.pipe, buf, block)

    def stop(self) -> int:
        """End its input and wait for it to write the rest: its exit status."""
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        return self.process.wait()


class Spawned:
    """A writer process started, not yet known to run: ``ready`` becomes readable when it says so
    (or exits). ``script``: another program taking the same hand-over (``engine/events/relay.py``),
    with its ``args`` after the descriptor on which it says it runs, and ``pass_fds`` its to keep."""

    def __init__(self, process: subprocess.Popen[bytes], ready: int) -> None:
        self.process = process
        self.ready = ready

    @classmethod
    def spawn(cls, out: int, script: str = __file__, args: tuple[str, ...] = (),
              pass_fds: tuple[int, ...] = ()) -> Spawned | None:
        ready, ready_w = os.pipe()
        try:
            try:
                # -P: not engine/ first on its path (a module of ours named like one of the
                # library's); a process group of its own: a signal to strata's group (Ctrl-C, a
                # service manager's SIGTERM) is strata's to handle, and the writer ends when
                # strata closes its input, with every line written
                process = subprocess.Popen([sys.executable, "-P", script, str(ready_w), *args], stdin=subprocess.PIPE,
                                           stdout=out, pass_fds=(ready_w, *pass_fds), process_group=0)
            finally:
                os.close(ready_w)
        except OSError:
            os.close(ready)
            return None
        yield_cpu(process.pid)
        return cls(process, ready)

    def writer(self, said: bool) -> Writer | None:
        """The :class:`Writer`, if it ``said`` something on ``ready`` and that is that it runs;
        else None, the process gone. Once: a second call is None."""
        if self.ready < 0:
            return None
        try:
            started = said and os.read(self.ready, 1) == b"1"
        except OSError:
            started = False
        finally:
            os.close(self.ready)
            self.ready = -1
        if not started:
            self.process.kill()
            self.process.wait()
            assert self.process.stdin is not None
            self.process.stdin.close()
            return None
        return Writer(self.process)


def wait(fd: int, event: int, timeout: float | None = None) -> bool:
    """Wait for ``fd`` to be readable or writable. poll(), not select(): a descriptor number may
    be 1024 or more."""
    p = select.poll()
    p.register(fd, event)
    return bool(p.poll(None if timeout is None else timeout * 1000))


def format_lines(data: bytes) -> bytes:
    """The output for ``data``: whole lines of the writer's input (each ends with a newline)."""
    out = []
    for line in data.split(b"\n")[:-1]:
        if line[:1] == b"[":
            arr = orjson.loads(line)
            # [type, message, payload, level, timestamp], or an event log's
            # [seq, monotonic, type, message, payload, level, timestamp, detail]
            out.append(json_line(arr) if len(arr) == 5 else log_line(arr[0], arr[1], arr[2:7], arr[7]))
        else:
            out.append(line + b"\n")  # a line strata formatted itself
    return b"".join(out)


def whole_lines(data: bytes) -> tuple[bytes, bytes]:
    """``data`` as its whole lines (each ending with a newline) and the start of the next."""
    end = data.rfind(b"\n") + 1
    return data[:end], data[end:]


def write_now(fd: int, data: bytes | memoryview) -> int:
    """Write what the non-blocking ``fd`` takes of ``data`` now: the bytes written (0: it is
    full), or -1 when its reader is gone."""
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0
    except OSError:
        return -1


def send(fd: int, buf: bytearray, block: bool) -> bool:
    """Write the start of ``buf`` to the non-blocking ``fd`` (removed from it): all of it when
    ``block``, else what it takes now. False when its reader is gone."""
    written = 0
    gone = False
    with memoryview(buf) as view:
        while written < len(view):
            n = write_now(fd, view[written:])
            if n < 0:
                gone = True
                break
            written += n
            if n == 0:
                if not block:
                    break
                try:
                    wait(fd, select.POLLOUT)
                except OSError:
                    gone = True
                    break
    del buf[:written]
    return not gone


def say_cannot_write(what: str, exc: BaseException) -> None:
    """The one line on stderr saying an output stopped (strata's, its writer's, its relay's)."""
    try:
        sys.stderr.write(f"strata: the {what} could not be written ({exc}); it stops here, the run goes on.\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def write_fd(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``, waiting while a non-blocking one is full."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:  # a non-blocking standard output (shared with strata): wait for it
            wait(fd, select.POLLOUT)


def serve(inp: int = 0, out: int = 1, what: str = "-json event stream") -> int:
    """Read event arrays from ``inp`` until it ends, write their lines to ``out``. Returns the
    exit status: 0, or :data:`OUTPUT_FAILED_STATUS` when writing failed other than by the reader
    going away (``| head``), which is no news."""
    pending = b""
    while True:
        chunk = os.read(inp, 1 << 20)
        if not chunk:
            return 0
        lines, pending = whole_lines(pending + chunk)
        if not lines:
            continue
        try:
            write_fd(out, format_lines(lines))
        except BrokenPipeError:
            return 0
        except OSError as exc:
            say_cannot_write(what, exc)
            return OUTPUT_FAILED_STATUS


def main(argv: list[str]) -> int:
    # strata starts it in a process group of its own; a Ctrl-C sent to it all the same must not
    # cut the stream short: strata decides when it ends (closing its input), every line written
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # in a process group of its own, it writes to a terminal from the background: with
    # `stty tostop` that stops a process unless it ignores SIGTTOU
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    if len(argv) > 1:  # the descriptor on which strata waits to hear that the writer runs
        ready = int(argv[1])
        os.write(ready, b"1")
        os.close(ready)
    return serve(what=argv[2] if len(argv) > 2 else "-json event stream")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
