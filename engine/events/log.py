"""The event log (``-events=FILE``): every event of a run as one JSON line, numbered.

A line is the event as terraform's ``-json`` stream writes it, with three more members:

* ``seq``: the event's sequence number, from 1, without gaps, in the order of emission;
* ``monotonic``: the monotonic clock (seconds) when it was emitted, for durations that a change
  of the wall clock cannot bend;
* ``detail`` (apply events only): the operation (``node``), its ``provider``, the operations it
  waited for (``deps``) and the one whose end made it ready (``after``), when it became ready
  (``ready``, seconds since the walk began), its ``wait``, ``run`` and ``call`` times (see
  :attr:`engine.events.stream.Event.detail`).

Invariants, which a crash at any moment keeps:

* ``apply_complete`` is emitted only once its object is durable in the state (the executor's
  rule), and this log writes an event only after it was emitted: every ``apply_complete`` in the
  file is in the state;
* lines are written whole, in order, by one writer: after a SIGKILL every line but possibly the
  last is valid JSON (:func:`read_log` skips a torn last line).

Lines are gathered and written within ``max_delay`` seconds (:class:`~engine.events.writing.FlushWithin`),
at once for a diagnostic or the summary; a failed write (a full disk) stops the log, never the run.
In a large run of the command, the relay (:mod:`engine.events.fanout`) writes the log's lines,
with the ``-json`` stream's and the other targets', formatted once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson

from engine.events import jsonline
from engine.events.json_sink import _ARRAY, LAST_ARRAY, JsonSink, _writer_after
from engine.events.stream import Event
from engine.frozen import frozen

_dumps = orjson.dumps
_Fragment = orjson.Fragment


class EventLog(JsonSink):
    """A recorder (:meth:`engine.events.stream.EventBus.add_recorder`) writing the event log to
    ``path`` (created or truncated): a :class:`~engine.events.json_sink.JsonSink` of log lines, which
    hands their formatting to a writer process in a large run as the ``-json`` stream does (the
    event loop then encodes one array per event). Open from construction until :meth:`close`."""

    what = "event log"

    def __init__(self, path: str, writer_after: int | None = None) -> None:
        # unbuffered: each flush is one write of whole lines
        super().__init__(open(path, "wb", buffering=0),  # noqa: SIM115 (closed by close())
                         writer_after=_writer_after() if writer_after is None else writer_after)
        self.path = path
        self.what = f"event log {path}"

    def __call__(self, seq: int, t: float, event: Event) -> None:  # type: ignore[override]
        """Hot path: one call per event of the run."""
        if self.closed:
            return
        if self._writer is None and 0 <= self._writer_after <= self._count and self._within is not None:
            self._start_writer()
        if self._writer is not None:
            line = wire_line(seq, t, event)
        else:
            self._count += 1
            line = log_line(seq, t, event)
        self._add(line, event)

    def close(self) -> None:
        """Write what is left and close the file (after :meth:`batching` ended)."""
        self.flush()
        self.closed = True
        self.stream.close()


_wire_key: tuple[int, float, Event | None] = (0, 0.0, None)
_wire = b""


def wire_line(seq: int, t: float, event: Event) -> bytes:
    """The log line of ``event`` as the processes that format them take it
    (:func:`engine.events.jsonline.format_lines`): the compact array ``[seq, monotonic, type,
    message, payload, level, timestamp, detail]``, or the formatted line for what orjson cannot
    encode. Encoded once per event: the event log's writer and the NATS sink's publisher share the
    bytes (hot path: the one orjson call the event loop makes per event and recorder)."""
    global _wire_key, _wire
    key = _wire_key
    if key[2] is event and key[0] == seq and key[1] == t:
        return _wire
    detail = event[5] if len(event) > 5 else None
    try:
        if LAST_ARRAY[0] is event:  # the -json stream's array, [type, ..., timestamp]\n, inside ours
            line = _dumps((seq, t, _Fragment(LAST_ARRAY[1][1:-2]), detail), option=_ARRAY)
        else:
            line = _dumps((seq, t, event[0], event[1], event[2], event[3], event[4], detail), option=_ARRAY)
    except TypeError:
        line = log_line(seq, t, event)
    _wire_key, _wire = (seq, t, event), line
    return line


def log_line(seq: int, t: float, event: Event) -> bytes:
    """One line of the event log for ``event``, formatted here."""
    detail = event[5] if len(event) > 5 else None
    try:
        return jsonline.log_line(seq, t, event, detail)
    except TypeError:  # an integer beyond 64 bits: the slow way, to the same line
        doc = event.to_json()
        if detail is not None:
            doc["detail"] = jsonline.detail_dict(detail)
        body = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
        return b'{"seq":%d,"monotonic":%.6f,' % (seq, t) + body[1:] + b"\n"


@frozen
class LoggedEvent:
    """One line of an event log, decoded: ``seq``, ``monotonic``, ``type``, the ``line`` as a dict
    (terraform's members and ``detail``)."""

    seq: int
    monotonic: float
    type: str
    line: dict[str, Any]

    @property
    def detail(self) -> dict[str, Any] | None:
        d = self.line.get("detail")
        return d if isinstance(d, dict) else None

    @property
    def address(self) -> str | None:
        """The resource instance the event is about (from its hook or change), if any."""
        for key in ("hook", "change"):
            part = self.line.get(key)
            if isinstance(part, dict) and isinstance(part.get("resource"), dict):
                addr = part["resource"].get("addr")
                return addr if isinstance(addr, str) else None
        return None


def read_log(path: str, after: int = 0) -> Iterator[LoggedEvent]:
    """The events of the log at ``path`` with a sequence number above ``after`` (what a lagging
    subscriber missed), in order. A torn last line (the writer was killed mid-write) is skipped;
    a torn line elsewhere raises ValueError: the file is not an event log as strata writes it."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    last = len(lines) - 1
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError:
            if i == last:  # no newline after it: the last line, cut short
                return
            raise ValueError(f"{path}: line {i + 1} is not JSON") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("seq"), int):
            raise ValueError(f"{path}: line {i + 1} is not an event log line (no seq)")
        if doc["seq"] > after:
            yield LoggedEvent(doc["seq"], float(doc.get("monotonic", 0.0)), str(doc.get("type", "")), doc)
