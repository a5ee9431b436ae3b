"""The process that publishes a run's event log lines to NATS JetStream, for
:class:`engine.events.nats_sink.NatsSink`: the formatting, the client and its acknowledgements run
here, on the other core, and nothing of the broker's pace reaches strata's event loop.

Started as ``python -P -m engine.events.nats_publisher URL SUBJECT STREAM CONNECT_TIMEOUT
ACK_TIMEOUT`` (seconds: to connect; to wait for the last acknowledgements once the input ended).

* Input (standard input, until it ends): one event per line, in sequence order: its event log
  line, formatted by the run's relay (:mod:`engine.events.relay`), or, should the relay not
  start, as the event log's writer takes it (:func:`engine.events.log.wire_line`: an array, or a
  formatted line).
* What it does: formats each array as its event log line, gathers whole lines into messages of at most
  :data:`BATCH` bytes with the header ``Strata-Seq: FIRST-LAST``, and publishes them with
  JetStream's asynchronous publish: at most :data:`WINDOW` messages await their acknowledgement
  (past that it stops reading, and strata's sink holds, then drops, what it cannot hand over).
  An acknowledgement says the stream stored the message.
* Output (standard output), once, when its input has ended and every message is acknowledged, or
  the broker is gone, or strata's SIGTERM says time is up: one JSON object, ``{"confirmed":
  [[FIRST, LAST], ...], "failure": WHY or null}``, the sequence ranges the stream acknowledged
  (merged).

It never writes to standard error (strata's): what went wrong is the ``failure`` of its report.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
from typing import Any

import orjson

from engine.events.jsonline import log_line, whole_lines

BATCH = 256 << 10  # bytes per message at most (the server's default max_payload is 1 MiB)
WINDOW = 64  # messages awaiting their acknowledgement at most


class Publisher:
    """One run's publishing: what was acknowledged and why it stopped, reported once."""

    def __init__(self, url: str, subject: str, stream: str, connect_timeout: float, ack_timeout: float) -> None:
        self.url = url
        self.subject = subject
        self.stream = stream
        self.connect_timeout = connect_timeout
        self.ack_timeout = ack_timeout
        self.parent = os.getppid()
        self.confirmed: list[tuple[int, int]] = []
        self.failure: str | None = None
        self.reported = False
        self.closed = asyncio.Event()

    def fail(self, why: str) -> None:
        if self.failure is None:
            self.failure = why

    def report(self) -> None:
        """Write the report (once) to standard output."""
        if self.reported:
            return
        self.reported = True
        merged: list[list[int]] = []
        for a, b in sorted(self.confirmed):
            if merged and merged[-1][1] + 1 == a:
                merged[-1][1] = b
            else:
                merged.append([a, b])
        with contextlib.suppress(OSError):
            os.write(1, orjson.dumps({"confirmed": merged, "failure": self.failure}) + b"\n")

    async def run(self) -> None:
        import nats

        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 22)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", buffering=0))

        async def closed_cb() -> None:
            self.closed.set()

        try:
            nc = await nats.connect(self.url, connect_timeout=self.connect_timeout, allow_reconnect=True,
                                    max_reconnect_attempts=2, reconnect_time_wait=0.2,
                                    error_cb=_quiet, disconnected_cb=_quiet_cb, closed_cb=closed_cb)
        except Exception as exc:  # noqa: BLE001 - reported, never raised
            self.fail(f"no broker at {self.url} ({_reason(exc)})")
            return
        try:
            js = nc.jetstream(publish_async_max_pending=WINDOW)
            try:
                await js.find_stream_name_by_subject(self.subject)
            except Exception:  # noqa: BLE001 - no stream captures the subject yet: make one
                await js.add_stream(name=self.stream, subjects=[self.subject])
            await self._publish_input(reader, js)
            if self.failure is None and js.publish_async_pending():
                done = asyncio.ensure_future(js.publish_async_completed())
                gone = asyncio.ensure_future(self.closed.wait())
                # strata waits for this report close_timeout seconds; if strata is gone, nobody
                # does: never wait longer than that either way
                await asyncio.wait([done, gone], timeout=self.ack_timeout, return_when=asyncio.FIRST_COMPLETED)
                done.cancel()
                gone.cancel()
                if self.closed.is_set():
                    self.fail(f"the broker at {self.url} went away")
        except asyncio.CancelledError:  # strata's SIGTERM: time is up, say what was acknowledged
            self.report()
            raise
        except BaseException as exc:  # noqa: BLE001 - reported, never raised
            self.fail(f"the broker at {self.url} went away ({_reason(exc)})")
        finally:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(nc.close(), 1)

    async def _publish_input(self, reader: asyncio.StreamReader, js: Any) -> None:
        rest = b""
        while True:
            chunk = await reader.read(1 << 20)
            if not chunk:
                return
            lines, rest = whole_lines(rest + chunk)
            if not lines:
                continue
            for first, last, payload in batches(lines):
                if self.closed.is_set():
                    raise ConnectionError("its connection closed")
                fut = await self._publish(js, payload, {"Strata-Seq": f"{first}-{last}"})
                fut.add_done_callback(functools.partial(self._acked, (first, last)))

    async def _publish(self, js: Any, payload: bytes, headers: dict[str, str]) -> Any:
        """Publish, waiting while :data:`WINDOW` messages await their acknowledgement, but not for
        a strata that is gone (killed: this process is then some other process's child)."""
        from nats.js.errors import TooManyStalledMsgsError

        while True:
            try:
                return await js.publish_async(self.subject, payload, wait_stall=1.0, headers=headers)
            except TooManyStalledMsgsError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():  # nats-py turns a cancellation into this
                    raise asyncio.CancelledError from None
                if os.getppid() != self.parent:
                    raise ConnectionError("strata is gone") from None

    def _acked(self, seqs: tuple[int, int], fut: asyncio.Future[Any]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is None:
            self.confirmed.append(seqs)
        else:
            self.fail(f"the stream refused a message ({_reason(exc)})")


def batches(data: bytes) -> list[tuple[int, int, bytes]]:
    """``data``'s lines (whole, each ending with a newline) as log lines in messages of at most
    :data:`BATCH` bytes (a longer line alone): ``(first seq, last seq, lines)``."""
    if data.startswith(_SEQ) and data.count(_NEXT_SEQ) == data.count(b"\n") - 1:
        return _formatted_batches(data)
    out: list[tuple[int, int, bytes]] = []
    lines: list[bytes] = []
    size = first = last = 0
    for raw in data.split(b"\n")[:-1]:
        if raw[:1] == b"[":
            arr = orjson.loads(raw)
            seq, line = arr[0], log_line(arr[0], arr[1], arr[2:7], arr[7])
        elif raw[:7] == b'{"seq":':  # a line formatted already (by strata, or by its relay)
            seq, line = int(raw[7:raw.index(b",", 7)]), raw + b"\n"
        else:
            seq, line = orjson.loads(raw)["seq"], raw + b"\n"
        if lines and size + len(line) > BATCH:
            out.append((first, last, b"".join(lines)))
            lines, size = [], 0
        if not lines:
            first = seq
        lines.append(line)
        size += len(line)
        last = seq
    if lines:
        out.append((first, last, b"".join(lines)))
    return out


_SEQ = b'{"seq":'
_NEXT_SEQ = b'\n{"seq":'


def _formatted_batches(data: bytes) -> list[tuple[int, int, bytes]]:
    """:func:`batches` of lines that are all formatted already (the relay's), cut at newlines
    found in C: nothing done per line in Python (hot path: every event of the run passes here;
    a loop over the lines cost ten thousand instructions an event)."""
    out: list[tuple[int, int, bytes]] = []
    start, size = 0, len(data)
    while start < size:
        end = size if size - start <= BATCH else data.rfind(b"\n", start, start + BATCH) + 1
        if end <= start:  # a line longer than a message: alone
            end = data.index(b"\n", start) + 1
        last = data.rfind(b"\n", start, end - 1) + 1 or start  # where the message's last line begins
        out.append((_seq_at(data, start), _seq_at(data, last), data[start:end]))
        start = end
    return out


def _seq_at(data: bytes, i: int) -> int:
    """The sequence number of the formatted line beginning at ``i``."""
    return int(data[i + 7:data.index(b",", i + 7)])


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


async def _quiet(exc: Exception) -> None:
    """nats-py's error callback: its errors are reported once, at the end."""


async def _quiet_cb() -> None:
    pass


def main(argv: list[str]) -> int:
    url, subject, stream, connect_timeout, ack_timeout = argv[1], argv[2], argv[3], float(argv[4]), float(argv[5])
    # in a process group of its own (a Ctrl-C is strata's to handle); strata ends the input, and
    # sends SIGTERM when it will wait no longer: the report then says what was acknowledged
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    publisher = Publisher(url, subject, stream, connect_timeout, ack_timeout)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await publisher.run()

    try:
        asyncio.run(run())
    except BaseException as exc:  # noqa: BLE001 - reported, never raised
        publisher.fail(_reason(exc))
    publisher.report()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
