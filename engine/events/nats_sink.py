"""``-events=nats://HOST:PORT/SUBJECT``: a run's event stream published to NATS JetStream, so that
consumers on other machines follow an apply, and replay it from the stream afterwards.

Each NATS message holds one or more whole lines of the event log (:mod:`engine.events.log`:
terraform's line with ``seq``, ``monotonic`` and ``detail``), in order, and the header
``Strata-Seq: FIRST-LAST`` naming the sequence numbers it carries. The subject is captured by a
JetStream stream (``STRATA_`` and the subject, letters, digits, ``_`` and ``-`` kept), created on
first use if no stream captures it yet: a consumer replays the run from there.

The broker never fails or stalls the apply:

* a publisher process (:mod:`engine.events.nats_publisher`) publishes the lines with JetStream's
  asynchronous publish and counts the acknowledgements, on the other core; the run's relay
  (:mod:`engine.events.fanout`, started at once when there is a NATS target) writes it the event
  log's lines, formatted once for every output, without ever waiting for it: what its pipe does not
  take waits in the relay, up to :data:`QUEUE_BYTES` (past it, events are dropped, and counted);
* should the relay not start, this sink is a recorder itself: it appends each event's encoded
  array (:func:`engine.events.log.wire_line`) to a buffer that goes down the publisher's pipe
  within ``max_delay`` seconds, and the publisher formats the lines;
* an acknowledgement from the stream is what makes an event *confirmed*;
* at the end the publisher gets ``close_timeout`` seconds to take the rest and have it
  acknowledged; then it is told to stop and report, and whatever was not confirmed is dropped: the
  sink says so in one line on stderr (how many events, from which sequence number, why). A broker
  that is down from the start costs one connection attempt, in the publisher.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import orjson

from engine.events.jsonline import yield_cpu
from engine.events.log import wire_line
from engine.events.stream import Event, FlushWithin
from engine.frozen import frozen

BATCH = 256 << 10  # bytes gathered before they go to the publisher without waiting for max_delay
QUEUE_BYTES = 64 << 20  # bytes waiting for the publisher before events are dropped
_F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ (Linux)


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
        self._buf = bytearray()  # whole lines for the publisher, but the first may be partly sent
        self._within: FlushWithin | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._pipe = -1  # the publisher's input (-1: none, or gone)
        self.recorded = 0
        self.first_seq = 0  # the first sequence number recorded
        self.confirmed: list[tuple[int, int]] = []  # sequence ranges the stream acknowledged
        self.failure: str | None = None
        """Why the broker took no more (None: it took everything)."""
        self._deadline: float | None = None  # when the publisher's time is up (set by a fan-out's end)

    @classmethod
    def from_url(cls, spec: str) -> NatsSink:
        return cls(NatsTarget.parse(spec))

    def __call__(self, seq: int, t: float, event: Event) -> None:
        """Hot path: one call per event of the run; never waits."""
        if self._within is None:
            return
        if not self.recorded:
            self.first_seq = seq
        self.recorded += 1
        buf = self._buf
        if self._pipe < 0 or len(buf) >= QUEUE_BYTES:
            return  # dropped: never confirmed, so counted in the report
        if not buf:
            self._within.mark()
        buf += wire_line(seq, t, event)
        if len(buf) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Hand the publisher what its pipe takes now; the rest waits for the next flush."""
        buf = self._buf
        if not buf or self._pipe < 0:
            return
        sent = 0
        try:
            with memoryview(buf) as view:
                while sent < len(view):
                    sent += os.write(self._pipe, view[sent:])
        except BlockingIOError:
            pass
        except OSError as exc:  # the publisher is gone (its report will say why)
            self._gone(f"its publisher stopped ({exc.strerror or exc})")
            return
        del buf[:sent]
        if buf and self._within is not None:
            self._within.mark()  # try again within max_delay

    def _gone(self, why: str) -> None:
        self.failure = self.failure or why
        self._buf.clear()
        if self._pipe >= 0:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
            self._pipe = -1

    @contextlib.asynccontextmanager
    async def batching(self) -> AsyncIterator[None]:
        self._start()
        self._within = FlushWithin(self.flush, self.max_delay)
        try:
            async with self._within.running():
                yield
        finally:
            self._within = None
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._finish, abandon_on_cancel=True)
            self._report()

    # ------------------------------------------------------------------ a fan-out's relay feeding the publisher

    @property
    def feed(self) -> int:
        """The publisher's input (the write end of its pipe), for a relay to write to."""
        return self._pipe

    def hand_over(self) -> bool:
        """Whether a relay (:class:`engine.events.fanout.Fanout`) may feed the publisher from now
        on: yes once the publisher has taken every line this sink gathered (the first events: a
        few lines, written here without waiting). Else this sink goes on feeding it: the relay's
        lines must not follow one cut short, nor the event loop wait for a publisher."""
        if self._pipe < 0:
            return False
        self.flush()
        return self._pipe >= 0 and not self._buf

    def relayed(self) -> None:
        """The relay has its own copy of the publisher's input: this process's is closed, so the
        publisher's input ends when the relay's does."""
        with contextlib.suppress(OSError):
            os.close(self._pipe)
        self._pipe = -1

    def relay_ended(self, first_seq: int, count: int, ended: float) -> None:
        """The relay carried ``count`` events from ``first_seq`` on and ended at ``ended``
        (monotonic): they count as recorded here, and the publisher has ``close_timeout`` seconds
        from then on."""
        if count and not self.recorded:
            self.first_seq = first_seq
        self.recorded += count
        self._deadline = ended + self.close_timeout

    # ------------------------------------------------------------------ the publisher process

    def _start(self) -> None:
        """Start the publisher (it connects while the first events wait in its pipe)."""
        t = self.target
        root = str(Path(__file__).resolve().parents[2])  # where the engine package is
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        # its input is a pipe of our own: a relay may take over the writing end
        # (:meth:`relayed`), which then ends the publisher's input when it ends its own
        r, w = os.pipe()
        try:
            # -P: neither strata's working directory nor the script's first on the path; a
            # process group of its own: a Ctrl-C is strata's to handle, and strata ends it
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", "engine.events.nats_publisher", t.url, t.subject, t.stream,
                 str(self.connect_timeout), str(self.close_timeout)], stdin=r, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env=env, process_group=0)
        except OSError as exc:
            os.close(w)
            self.failure = f"its publisher could not start ({exc.strerror or exc})"
            return
        finally:
            os.close(r)
        yield_cpu(self._process.pid)
        self._pipe = w
        os.set_blocking(self._pipe, False)
        with contextlib.suppress(OSError):  # a larger pipe: fewer writes, fewer waits (Linux)
            fcntl.fcntl(self._pipe, _F_SETPIPE_SZ, 1 << 20)

    def _finish(self) -> None:
        """Blocking (in a thread): hand over the rest, end the publisher's input, and read its
        report, within ``close_timeout`` seconds; then tell it to stop (SIGTERM) and report."""
        proc = self._process
        if proc is None:
            return
        deadline = self._deadline if self._deadline is not None else time.monotonic() + self.close_timeout
        while self._buf and self._pipe >= 0:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            p = select.poll()
            p.register(self._pipe, select.POLLOUT)
            if p.poll(left * 1000):
                self.flush()
        self._buf.clear()
        if self._pipe >= 0:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
            self._pipe = -1
        try:
            proc.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            self.failure = self.failure or f"the broker did not confirm them within {self.close_timeout:g} s"
            proc.terminate()
            try:
                proc.wait(1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        assert proc.stdout is not None
        report = proc.stdout.read()
        proc.stdout.close()
        try:
            doc = orjson.loads(report.splitlines()[0])
            self.confirmed = [(a, b) for a, b in doc["confirmed"]]
            if doc["failure"]:
                self.failure = doc["failure"]
        except (IndexError, KeyError, TypeError, ValueError, orjson.JSONDecodeError):
            self.failure = self.failure or f"its publisher exited with status {proc.returncode}"

    def _report(self) -> None:
        confirmed = sum(b - a + 1 for a, b in self.confirmed)
        dropped = self.recorded - confirmed
        if not dropped:
            return
        first = self.first_seq
        for a, b in sorted(self.confirmed):  # the first sequence number not confirmed
            if a > first:
                break
            first = max(first, b + 1)
        where = " (the event log has them)" if self.has_log else ""
        why = self.failure or "not confirmed"
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"strata: NATS {self.target.url}/{self.target.subject}: dropped {dropped} of "
                             f"{self.recorded} events, from seq {first}: {why}{where}; the run went on.\n")
