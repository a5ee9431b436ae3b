"""The relay: one process that formats a large run's events for every output at once, the
``-json`` stream, the event logs and the NATS publishers' input, on the other core.

Without it, each output had a process of its own, and strata's event loop encoded and sent each
event once per output: with ``-json``, an event log and NATS together, three encodings, three
pipes, and three processes decoding the same event (the event log's line formatted twice, by its
writer and by the publisher). Through the relay, the event loop encodes each event once, as one
compact array, down one pipe (:class:`engine.events.fanout.Fanout` is strata's end); the relay
decodes it once, formats terraform's line once, and makes the event log's line from it.

Started as ``python -P relay.py READY_FD``, with the descriptors of the outputs it may write.
The first line of its input is the spec, a JSON object (sent when strata hands the outputs over,
so it names only those still open then):

* ``json``: write the ``-json`` lines to standard output (inherited from strata);
* ``logs``: ``[[FD, PATH], ...]``, event logs open in strata, written here;
* ``nats``: ``[FD, ...]``, the input pipes of NATS publishers
  (:mod:`engine.events.nats_publisher`), which take the event log's lines as they are; never
  waited for: what a publisher does not take waits here, up to ``queue`` bytes each, and beyond
  that is dropped (the publisher never confirms it, so strata counts it as dropped);
* ``close_timeout``: seconds to hand a publisher the rest once the input has ended.

Input (standard input, until it ends), after the spec: a batch of events per line, an array of
``[flags, seq, monotonic, [type, message, payload, level, timestamp, detail?]]`` (``flags`` 1: the
event is in the ``-json`` stream too, unless only people see it; 0: recorded only) and of an
operation's ``apply_start`` (2) or ``apply_complete`` (3) as its parts, ``[2 or 3, seq, monotonic,
timestamp, addr, resource, action, elapsed, id_key, id_value, deposed, detail]``
(``EventBus.operation``), or a plain ``planned_change`` (4), ``[4, seq, monotonic, timestamp,
addr, resource, action]`` (``EventBus.planned``), worded here as strata words them (:mod:`engine.events.hooks`); or, for
what orjson could not encode, ``{"s": SEQ, "j": JSON_LINE or null, "l": LOG_LINE}`` formatted by
strata.

An output that cannot be written stops, said once on standard error ("the event log PATH could not
be written"), and the others go on; the exit status is then :data:`OUTPUT_FAILED_STATUS`. A reader
of the ``-json`` stream that goes away (``| head``) is no news. This module imports only the
standard library, orjson, msgspec, :mod:`engine.events.jsonline`'s formatting and writing and
:mod:`engine.events.hooks`'s words (loaded from their files).
"""

from __future__ import annotations

import gc
import os
import select
import signal
import sys
import time
from typing import Any

try:
    import msgspec
    import orjson
except ImportError:
    if __name__ == "__main__":  # strata sees it never started and writes its lines itself
        sys.exit(2)
    raise

if __name__ == "__main__":  # run as a script: the formatter beside this file, without the engine package
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hooks
    import jsonline
else:
    from engine.events import hooks, jsonline

HUMAN_ONLY, OUTPUT_FAILED_STATUS = jsonline.HUMAN_ONLY, jsonline.OUTPUT_FAILED_STATUS
say_cannot_write, send, wait, write_fd = jsonline.say_cannot_write, jsonline.send, jsonline.wait, jsonline.write_fd
line_of, log_line_json = jsonline.line_of, jsonline.log_line_json
start_message, complete_message, hook_payload = hooks.start_message, hooks.complete_message, hooks.hook_payload
planned_message, planned_payload = hooks.planned_message, hooks.planned_payload
_dumps, _Fragment = orjson.dumps, orjson.Fragment

QUEUE_BYTES = 64 << 20


class _File:
    """An output written in full, in order (the ``-json`` stream, an event log)."""

    def __init__(self, fd: int, what: str, quiet_on_broken_pipe: bool = False) -> None:
        self.fd = fd
        self.what = what
        self.quiet = quiet_on_broken_pipe
        self.buf: list[bytes] = []
        self.alive = True
        self.failed = False

    def flush(self) -> None:
        if not self.buf:
            return
        data, self.buf = b"".join(self.buf), []
        if not self.alive:
            return
        try:
            write_fd(self.fd, data)
        except BrokenPipeError:
            self.alive = False
            if not self.quiet:
                self._say(BrokenPipeError("its reader went away"))
        except OSError as exc:
            self.alive = False
            self._say(exc)

    def _say(self, exc: BaseException) -> None:
        self.failed = True
        say_cannot_write(self.what, exc)


class _Feed:
    """A NATS publisher's input: written as far as it takes without waiting; the rest waits."""

    def __init__(self, fd: int, queue: int) -> None:
        self.fd = fd
        self.queue = queue
        os.set_blocking(fd, False)
        self.buf = bytearray()
        self.alive = True

    def add(self, lines: bytes) -> None:
        if self.alive and len(self.buf) < self.queue:
            self.buf += lines  # beyond the queue, dropped: never confirmed, so counted by strata

    def push(self) -> None:
        if self.buf and self.alive and not send(self.fd, self.buf, block=False):
            self.close()  # the publisher is gone: its report says why

    def close(self) -> None:
        self.buf = bytearray()
        if self.alive:
            self.alive = False
            try:
                os.close(self.fd)
            except OSError:
                pass


class _Event(msgspec.Struct, array_like=True, gc=False):
    """An event of the input, its JSON parts kept as the bytes strata's orjson made of them: the
    same bytes orjson would make of them again here (hot path: decoding each payload and
    encoding it again was two thirds of the relay's work)."""

    type: str
    message: msgspec.Raw
    payload: msgspec.Raw
    level: str
    timestamp: float
    detail: list[msgspec.Raw] | dict[str, msgspec.Raw] | None = None


class _Recorded(msgspec.Struct, array_like=True, gc=False, tag=0):
    """An event only the event logs have (flags 0)."""

    seq: int
    monotonic: float
    event: _Event


class _Emitted(_Recorded, tag=1):
    """An event the ``-json`` stream has too, unless only people see it (flags 1)."""


class _Parts(msgspec.Struct, array_like=True, gc=False):
    """What strata hands over of an event it did not make, for the relay to word
    (``EventBus.operation``, ``EventBus.planned``)."""

    seq: int
    monotonic: float
    timestamp: float
    addr: str
    resource: msgspec.Raw
    action: str


class _Started(_Parts, tag=2):
    """An operation's ``apply_start``, as its parts (``EventBus.operation``)."""

    elapsed: float
    id_key: str | None
    id_value: str | None
    deposed: str | None
    detail: list[msgspec.Raw] | dict[str, msgspec.Raw] | None


class _Ended(_Started, tag=3):
    """An operation's ``apply_complete``, as its parts."""


class _Planned(_Parts, tag=4):
    """A plain ``planned_change``, as its parts (``EventBus.planned``)."""


_decode_batch = msgspec.json.Decoder(list[_Recorded | _Emitted | _Started | _Ended | _Planned] | dict[str, Any]).decode
_DETAIL_KEYS = tuple(b"," * (i > 0) + orjson.dumps(k) + b":" for i, k in enumerate(jsonline.DETAIL_FIELDS))


def _detail_json(detail: list[msgspec.Raw] | dict[str, msgspec.Raw]) -> bytes:
    """The detail as an object (``jsonline.detail_dict`` of it, encoded), from its parts."""
    if type(detail) is list:
        return b"{" + b"".join([k + v for k, v in zip(_DETAIL_KEYS, detail)]) + b"}"  # noqa: B905 - as detail_dict
    assert isinstance(detail, dict)
    return b"{" + b",".join([orjson.dumps(k) + b":" + bytes(v) for k, v in detail.items()]) + b"}"


def format_batch(line: bytes, json_lines: list[bytes] | None, log_lines: list[bytes] | None) -> None:
    """One line of the input (a batch) as its ``-json`` lines (each as
    :func:`engine.events.jsonline.json_line` makes it; events in the stream only) and its event
    log lines (each as :func:`engine.events.jsonline.log_line` makes it), appended to the lists
    given (None: not wanted)."""
    batch = _decode_batch(line)
    if type(batch) is dict:  # formatted by strata
        if json_lines is not None and batch.get("j") is not None:
            json_lines.append(batch["j"].encode())
        if log_lines is not None:
            log_lines.append(batch["l"].encode())
        return
    for entry in batch:
        kind = type(entry)
        if kind is _Started or kind is _Ended:  # worded here, the resource object pasted as strata encoded it
            op: _Started = entry
            if kind is _Ended:
                out = line_of("apply_complete", _dumps(complete_message(op.addr, op.action, op.elapsed, op.id_key,
                                                                        op.id_value, op.deposed)),
                              _dumps(hook_payload(_Fragment(bytes(op.resource)), op.action, op.id_key, op.id_value,
                                                  op.elapsed)), "info", op.timestamp)
            else:
                out = line_of("apply_start", _dumps(start_message(op.addr, op.action, op.id_key, op.id_value,
                                                                  op.deposed)),
                              _dumps(hook_payload(_Fragment(bytes(op.resource)), op.action, op.id_key, op.id_value)),
                              "info", op.timestamp)
            detail, in_stream = op.detail, True
        elif kind is _Planned:
            plan: _Planned = entry
            out = line_of("planned_change", _dumps(planned_message(plan.addr, plan.action)),
                          _dumps(planned_payload(_Fragment(bytes(plan.resource)), plan.action)), "info", plan.timestamp)
            detail, in_stream = None, True
        else:
            ev = entry.event
            out = line_of(ev.type, ev.message, ev.payload, ev.level, ev.timestamp)
            detail, in_stream = ev.detail, kind is _Emitted and ev.type not in HUMAN_ONLY
        if json_lines is not None and in_stream:
            json_lines.append(out)
        if log_lines is not None:
            log_lines.append(log_line_json(entry.seq, entry.monotonic, out,
                                           None if detail is None else _detail_json(detail)))


def relay_lines(data: bytes, json_out: _File | None, logs: list[_File], feeds: list[_Feed]) -> int:
    """Format the whole lines of ``data`` (each ends with a newline) for each output; where the
    rest, a line not whole yet, begins (hot path: the lines of a 100k-resource run pass here,
    300,000 events: found with ``find``, a ``memchr``)."""
    jl: list[bytes] | None = [] if json_out is not None else None
    ll: list[bytes] | None = [] if logs or feeds else None
    start = 0
    end = data.find(b"\n")
    while end >= 0:
        format_batch(data[start:end], jl, ll)
        start = end + 1
        end = data.find(b"\n", start)
    if json_out is not None and jl:
        json_out.buf.append(b"".join(jl))
    if ll:
        lines = b"".join(ll)
        for f in logs:
            f.buf.append(lines)
        for feed in feeds:
            feed.add(lines)
    return start


def _relay_and_write(data: bytes, json_out: _File | None, logs: list[_File], feeds: list[_Feed],
                     files: list[_File]) -> bytes:
    """Relay the whole lines of ``data`` and write them out at once: a reader sees each line as
    it comes. What is left of ``data``: the start of a line."""
    end = relay_lines(data, json_out, logs, feeds)
    if end:
        for feed in feeds:
            feed.push()
        for f in files:
            f.flush()
    return data[end:]


def read_spec(inp: int = 0) -> tuple[dict[str, Any] | None, bytes]:
    """The spec (the input's first line; None if the input ends first) and what came after it."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(inp, 1 << 16)
        if not chunk:
            return None, b""
        data += chunk
    first, _, rest = data.partition(b"\n")
    spec = orjson.loads(first)
    return spec, rest


def serve(spec: dict[str, Any], inp: int = 0, pending: bytes = b"") -> int:
    """Relay the input to the outputs of ``spec`` until the input ends (``pending``: read
    already); the exit status."""
    json_out = _File(1, "-json event stream", quiet_on_broken_pipe=True) if spec.get("json") else None
    logs = [_File(int(fd), f"event log {path}") for fd, path in spec.get("logs", [])]
    queue = int(spec.get("queue", QUEUE_BYTES))
    feeds = [_Feed(int(fd), queue) for fd in spec.get("nats", [])]
    # the logs first: a -json reader that stops reading blocks the relay at its write, and the
    # logs and the publishers then hold everything up to that point
    files = [f for f in (*logs, json_out) if f is not None]
    poller = select.poll()
    poller.register(inp, select.POLLIN)
    watched: set[int] = set()
    if pending:  # whole lines read with the spec: written now, not when more input comes
        pending = _relay_and_write(pending, json_out, logs, feeds, files)
    while True:
        for feed in feeds:  # a publisher's pipe with lines waiting: wake when it takes more
            want = feed.alive and bool(feed.buf)
            if want and feed.fd not in watched:
                poller.register(feed.fd, select.POLLOUT)
                watched.add(feed.fd)
            elif not want and feed.fd in watched:
                poller.unregister(feed.fd)
                watched.discard(feed.fd)
        ready = dict(poller.poll())
        for feed in feeds:
            if feed.fd in ready:
                feed.push()
        if inp not in ready:
            continue
        chunk = os.read(inp, 1 << 20)
        if not chunk:
            break
        pending = _relay_and_write(pending + chunk, json_out, logs, feeds, files)
    for f in files:
        f.flush()
    deadline = time.monotonic() + float(spec.get("close_timeout", 3.0))
    for feed in feeds:
        while feed.alive and feed.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if wait(feed.fd, select.POLLOUT, left):
                feed.push()
        feed.close()
    return OUTPUT_FAILED_STATUS if any(f.failed for f in files) else 0


def main(argv: list[str]) -> int:
    # strata decides when the stream ends (closing the input), every line written: a Ctrl-C sent
    # to the process group must not cut it short; and writing to a terminal from a process group
    # of its own must not stop it (`stty tostop`)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    # what it makes are trees (decoded batches, lines) that reference counting frees: with the
    # default thresholds, the collector traversed the decoded batches' lists and dicts while
    # they were being formatted, a twentieth of the relay's time; cycles are still collected
    gc.set_threshold(100_000, 50, 100)
    ready = int(argv[1])
    os.write(ready, b"1")
    os.close(ready)
    spec, pending = read_spec()
    if spec is None:  # strata ended before it handed anything over
        return 0
    return serve(spec, pending=pending)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
