"""terraform's ``-json`` stream on strata's standard output: :class:`JsonSink`, one JSON object
per line, written in batches, by a writer process of its own for a large run (``engine/events/
jsonline.py``), or by the run's relay (:mod:`engine.events.fanout`). :class:`engine.events.log.
EventLog` is one too, with its own lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from typing import IO, Any

import orjson

from engine.events import jsonline
from engine.events.jsonline import HUMAN_ONLY, json_line
from engine.events.stream import _FLUSH_NOW, Event
from engine.events.writing import (
    FlushWithin,
    _ki_protected,
    process_ended,
    stream_failed,
    write_all,
)

_dumps = orjson.dumps
_ARRAY = orjson.OPT_APPEND_NEWLINE


class JsonSink:
    """One JSON object per line, like ``terraform -json``.

    Each line is written as its event is emitted, unless the sink is :meth:`batching`: then lines
    are gathered and written together once 1 MiB is waiting, at once for a diagnostic or the
    summary, and otherwise within ``max_delay`` seconds (:class:`FlushWithin`). One write per
    batch instead of one per event is much of what the stream costs at 100k resources, while a
    consumer reading the live stream still sees each event within ``max_delay``.

    A large run (``writer_after`` events while batching; ``STRATA_JSON_WRITER_AFTER``, default
    5,000) hands the formatting and the writing to a writer process (``engine/events/jsonline.py``)
    that shares its standard output: the event loop then only encodes each event as an array,
    a third of the work. The batch ends with every line written and the writer gone. The
    command's sink leaves that to the run's relay instead (:attr:`on_many`,
    :mod:`engine.events.fanout`), which writes the event logs' lines too.
    """

    def __init__(self, stream: IO[bytes] | None = None, writer_after: int | None = None) -> None:
        self.stream = stream or sys.stdout.buffer
        self.closed = False
        self._buf = bytearray()  # lines not yet written (one growing buffer: no object per line kept)
        self._within: FlushWithin | None = None
        # a writer process only for our own standard output, unless a caller asks for one
        self._writer_after = writer_after if writer_after is not None else (
            _writer_after() if stream is None else -1)
        self._count = 0
        self._writer: jsonline.Writer | None = None
        self._flush_at = _BATCH  # flush when this much is waiting (more while the writer's pipe is full)
        self.on_many: Callable[[], None] | None = None
        """Called, once, in place of starting a writer process of its own, when ``writer_after``
        events have come (:class:`engine.events.fanout.Fanout` then takes over)."""

    what = "-json event stream"  # in what it says when it cannot write

    def __call__(self, event: Event) -> None:
        if self.closed or event.type in HUMAN_ONLY:
            return
        if self._writer is None and 0 <= self._writer_after <= self._count and self._within is not None:
            self._start_writer()
        if self._writer is not None:
            try:
                line = _dumps(event[:5], option=_ARRAY)  # [type, message, payload, level, timestamp]
            except TypeError:  # formatted here (as without a writer), passed through as it is
                line = _line_here(event)
            else:
                LAST_ARRAY[0], LAST_ARRAY[1] = event, line
        else:
            self._count += 1
            line = _line_here(event)
        self._add(line, event)

    def _add(self, line: bytes, event: Event) -> None:
        buf = self._buf
        was_empty = not buf
        buf += line
        within = self._within
        if within is None or len(buf) >= self._flush_at or event[0] in _FLUSH_NOW:
            self.flush()
        elif was_empty:
            within.mark()

    @_ki_protected  # Ctrl-C between a write and its bookkeeping would send lines twice
    def flush(self) -> None:
        """Write out every line gathered so far (to the writer process: what its pipe takes now;
        the rest at the next flush)."""
        if not self._buf:
            return
        if self.closed:
            self._buf = bytearray()
            return
        if self._writer is not None:
            self._to_writer(block=len(self._buf) >= _PIPE_BACKLOG)
            # a full pipe: try again within max_delay, or once another batch is waiting
            self._flush_at = len(self._buf) + _BATCH
            return
        data, self._buf = self._buf, bytearray()
        try:
            write_all(self.stream, data)
            self.stream.flush()
        except (OSError, ValueError) as exc:
            # the reader went away (| head), or the disk is full: stop writing, never stop the apply
            self.closed = True
            stream_failed(exc, self.what)

    @contextlib.asynccontextmanager
    async def batching(self, max_delay: float = 0.02) -> AsyncIterator[None]:
        """Gather lines while the block runs; each batch is written within ``max_delay``."""
        self._within = FlushWithin(self.flush, max_delay)
        try:
            async with self._within.running():
                yield
        finally:
            self._within = None
            self._stop_writer()

    # ------------------------------------------------------------------ the writer process

    @_ki_protected
    def _start_writer(self) -> None:
        """Write what is gathered, then start the writer on our standard output; stay in this
        process if it cannot start (once, at 5,000 events: the wait of a Python start-up)."""
        self._writer_after = -1  # one attempt
        if self.on_many is not None:
            self.on_many()
            return
        self.flush()
        if self.closed:
            return
        try:
            out = self.stream.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):
            return
        self._writer = jsonline.Writer.start(out, what=self.what)

    def _to_writer(self, block: bool) -> None:
        assert self._writer is not None
        if not self._writer.send(self._buf, block):
            # gone: its reader went away (| head), or it failed, and then it said why
            self._buf = bytearray()
            self.closed = True
            self._stop_writer()
        elif self._buf and self._within is not None:
            self._within.mark()  # the pipe is full: try again within max_delay

    @_ki_protected  # and a Ctrl-C here would leave the writer's last lines unwritten
    def _stop_writer(self) -> None:
        """Hand over what is left, end the writer's input and wait for it: every line is written
        when this returns. Later events are written by this process again."""
        writer, self._writer = self._writer, None
        if writer is None:
            return
        if self._buf and not self.closed:
            writer.send(self._buf, block=True)
            self._buf = bytearray()
        if process_ended(writer.stop(), self.what, "writer"):
            self.closed = True


LAST_ARRAY: list[Any] = [None, b""]
"""The last event a sink sent its writer process as an array, and the array's bytes: the event
log's array (:func:`engine.events.log.wire_line`) is made from them without encoding the payload
again (hot path)."""

_BATCH = 1 << 20
_PIPE_BACKLOG = 64 << 20  # bytes waiting for a writer process (or the relay) beyond this: wait for it, not grow


def _line_here(event: Event) -> bytes:
    try:
        return json_line(event)
    except TypeError:  # an integer beyond 64 bits somewhere in the payload
        return json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _writer_after() -> int:
    """``STRATA_JSON_WRITER_AFTER``: events before the writer process takes over (0: at once;
    negative: never). Default 5,000: a run smaller than that is over before the writer pays off."""
    raw = os.environ.get("STRATA_JSON_WRITER_AFTER", "")
    try:
        return int(raw) if raw.strip() else 5000
    except ValueError:
        return 5000
