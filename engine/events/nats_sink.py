"""``-events=nats://HOST:PORT/SUBJECT``: a run's event stream published to NATS JetStream, so that
consumers on other machines follow an apply, and replay it from the stream afterwards.

Each NATS message holds one or more whole lines of the event log (:mod:`engine.events.log`:
terraform's line with ``seq``, ``monotonic`` and ``detail``), in order, and the header
``Strata-Seq: FIRST-LAST`` naming the sequence numbers it carries. The subject is captured by a
JetStream stream (``STRATA_`` and the subject, letters, digits, ``_`` and ``-`` kept), created on
first use if no stream captures it yet: a consumer replays the run from there.

The broker never fails or stalls the apply:

* the recorder only appends the line to a buffer; every ``max_delay`` seconds the buffer goes to
  a thread of its own running the NATS client (nats-py is asyncio's: strata's loop may be trio),
  through a queue bounded in bytes (past it, batches are dropped, and counted);
* the thread publishes and confirms each batch with a round trip to the server (a flush): what
  is confirmed is in the server;
* at the end the thread gets ``close_timeout`` seconds to finish; whatever was not confirmed by
  then is dropped, and the sink says so in one line on stderr (how many events, which sequence
  numbers, why). A broker that is down from the start costs one connection attempt.
"""

from __future__ import annotations

import contextlib
import queue
import re
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import anyio

from engine.events.log import log_line
from engine.events.stream import Event, FlushWithin
from engine.frozen import frozen

_BATCH = 256 << 10  # bytes per message at most (the server's default max_payload is 1 MiB)
_QUEUE_BYTES = 64 << 20  # bytes waiting for the thread before batches are dropped


@frozen
class NatsTarget:
    """Where to publish: the server's ``url`` (``nats://HOST:PORT``) and the ``subject``."""

    url: str
    subject: str

    @property
    def stream(self) -> str:
        return "STRATA_" + re.sub(r"[^A-Za-z0-9_-]", "_", self.subject)

    @classmethod
    def parse(cls, spec: str) -> NatsTarget:
        """ValueError, saying what is expected, for what is not ``nats://HOST:PORT/SUBJECT``."""
        parts = urlsplit(spec)
        subject = parts.path.lstrip("/")
        if parts.scheme != "nats" or not parts.hostname or not subject or not re.fullmatch(r"[\w.\-]+", subject):
            raise ValueError(f"Invalid -events target {spec!r}: expected nats://HOST:PORT/SUBJECT "
                               "(a subject of letters, digits, '.', '_' and '-').")
        return cls(f"nats://{parts.netloc}", subject)


class NatsSink:
    """A recorder publishing the run's events to NATS JetStream (see the module's docstring).
    Records only while :meth:`batching` runs."""

    def __init__(self, target: NatsTarget, max_delay: float = 0.02, close_timeout: float = 3.0,
                 connect_timeout: float = 2.0) -> None:
        self.target = target
        self.max_delay = max_delay
        self.close_timeout = close_timeout
        self.connect_timeout = connect_timeout
        self.has_log = False
        """An event log is written too (the one line then says where the dropped events are)."""
        self._buf = bytearray()
        self._first = 0  # the first sequence number in _buf
        self._last = 0
        self._within: FlushWithin | None = None
        self._queue: queue.Queue[tuple[int, int, bytes] | None] = queue.Queue()
        self._queued_bytes = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.recorded = 0
        self.confirmed: list[tuple[int, int]] = []  # sequence ranges the server confirmed
        self.failure: str | None = None
        """Why the broker took no more (None: it took everything)."""

    @classmethod
    def from_url(cls, spec: str) -> NatsSink:
        return cls(NatsTarget.parse(spec))

    def __call__(self, seq: int, t: float, event: Event) -> None:
        """Hot path: one call per event of the run; never waits."""
        if self._within is None:
            return
        self.recorded += 1
        if not self._buf:
            self._first = seq
            self._within.mark()
        self._last = seq
        self._buf += log_line(seq, t, event)
        if len(self._buf) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Hand what is gathered to the publishing thread (or drop it: the queue is full)."""
        if not self._buf:
            return
        data, self._buf = bytes(self._buf), bytearray()
        with self._lock:
            if self._queued_bytes + len(data) > _QUEUE_BYTES:
                return  # dropped: counted as not confirmed
            self._queued_bytes += len(data)
        self._queue.put((self._first, self._last, data))

    @contextlib.asynccontextmanager
    async def batching(self) -> AsyncIterator[None]:
        self._thread = threading.Thread(target=self._run_thread, name="strata-nats", daemon=True)
        self._thread.start()
        self._within = FlushWithin(self.flush, self.max_delay)
        try:
            async with self._within.running():
                yield
        finally:
            self._within = None
            self._queue.put(None)
            thread = self._thread
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(thread.join, self.close_timeout, abandon_on_cancel=True)
            if thread.is_alive() and self.failure is None:
                self.failure = f"the broker did not confirm them within {self.close_timeout:g} s"
            self._report()

    # ------------------------------------------------------------------ the publishing thread

    def _run_thread(self) -> None:
        import asyncio

        try:
            asyncio.run(self._publish())
        except BaseException as exc:  # noqa: BLE001 - the broker's failure is the sink's, never the run's
            self._fail(_reason(exc))

    def _fail(self, why: str) -> None:
        if self.failure is None:
            self.failure = why

    async def _publish(self) -> None:
        import asyncio

        import nats

        loop = asyncio.get_running_loop()
        take = lambda: self._queue.get()  # noqa: E731 - blocking: run in the loop's executor
        try:
            nc = await nats.connect(self.target.url, connect_timeout=self.connect_timeout, allow_reconnect=True,
                                    max_reconnect_attempts=2, reconnect_time_wait=0.2,
                                    error_cb=_quiet, disconnected_cb=_quiet_cb, closed_cb=_quiet_cb)
        except BaseException as exc:
            self._fail(f"no broker at {self.target.url} ({_reason(exc)})")
            await self._discard(loop)
            return
        try:
            js = nc.jetstream()
            try:
                await js.find_stream_name_by_subject(self.target.subject)
            except Exception:  # noqa: BLE001 - no stream captures the subject yet: make one
                await js.add_stream(name=self.target.stream, subjects=[self.target.subject])
            while True:
                item = await loop.run_in_executor(None, take)
                if item is None:
                    break
                first, last, data = item
                with self._lock:
                    self._queued_bytes -= len(data)
                if self.failure is not None:
                    continue
                await nc.publish(self.target.subject, data, headers={"Strata-Seq": f"{first}-{last}"})
                await nc.flush(timeout=2)  # a round trip: the server has the batch
                self.confirmed.append((first, last))
        except BaseException as exc:
            self._fail(f"the broker at {self.target.url} went away ({_reason(exc)})")
            await self._discard(loop)
        finally:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(nc.close(), 1)

    async def _discard(self, loop: Any) -> None:
        """Take what is queued until the end, publishing nothing: the run goes on regardless."""
        while await loop.run_in_executor(None, self._queue.get) is not None:
            pass

    def _report(self) -> None:
        confirmed = sum(b - a + 1 for a, b in self.confirmed)
        dropped = self.recorded - confirmed
        if not dropped:
            return
        done = {s for a, b in self.confirmed for s in range(a, b + 1)} if len(self.confirmed) < 10_000 else set()
        first = next((s for s in range(1, self.recorded + 1) if s not in done), 0)
        where = " (the event log has them)" if self.has_log else ""
        why = self.failure or "not confirmed"
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"strata: NATS {self.target.url}/{self.target.subject}: dropped {dropped} of "
                             f"{self.recorded} events, from seq {first}: {why}{where}; the run went on.\n")


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


async def _quiet(exc: Exception) -> None:
    """nats-py's error callback: its errors are the sink's to report, once, at the end."""


async def _quiet_cb() -> None:
    pass
