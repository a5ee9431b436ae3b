"""One hand-over for every output of a large run: the ``-json`` stream, the event logs and the NATS
targets, through one relay process (:mod:`engine.events.relay`).

Each output formats its own lines in strata's process while a run is small
(:class:`~engine.events.json_sink.JsonSink`, :class:`~engine.events.log.EventLog`). Once one of them
has seen ``writer_after`` events (``STRATA_JSON_WRITER_AFTER``), or as soon as it runs when there
is an event log or a NATS target, the :class:`Fanout` takes their place on the bus:

* it writes out what they gathered, starts the relay with their descriptors, and from then on the
  bus hands it each event once (:attr:`engine.events.stream.EventBus.relay`): one orjson call, one
  buffer, one pipe, whatever the number of outputs;
* it sends what it gathered within ``max_delay`` seconds (:class:`FlushWithin`), at once for a
  diagnostic or the summary, waiting for the relay only past a large backlog;
* at the end it hands the relay the rest, waits for it to write everything and puts the outputs
  back on the bus, each formatting its own lines again (as when the relay cannot start).

The relay formats terraform's line once and each event log's line from it; an output that fails
stops alone, the others go on (the relay says which on standard error).
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import orjson

from engine.events import jsonline
from engine.events.json_sink import _PIPE_BACKLOG, JsonSink, _writer_after
from engine.events.stream import (
    _FLUSH_NOW,
    HUMAN_ONLY,
    OPERATION_ENDED,
    OPERATION_STARTED,
    PLANNED,
    RELAY_BATCH,
    Event,
    EventBus,
    FlushWithin,
    operation_event,
    plain_planned_change,
)
from engine.events.writing import _ki_protected, process_ended, stream_failed

if TYPE_CHECKING:
    from engine.events.log import EventLog
    from engine.events.nats_sink import NatsSink

RELAY = str(Path(__file__).with_name("relay.py"))
_START_POLL = 0.005  # seconds between looks at whether the relay runs, while the loop runs
_PROBE_EVERY = 255  # events between looks while it does not (a mask: every 256th)
_dumps = orjson.dumps
_ARRAY = orjson.OPT_APPEND_NEWLINE


class Fanout:
    """The relay's end in strata for the outputs of one bus: ``json`` (the ``-json`` stream on
    strata's standard output, or None), ``logs`` and ``nats`` (opened, and batching, by their
    owner: the fan-out only takes their place while the relay runs)."""

    def __init__(self, bus: EventBus, json_sink: JsonSink | None, logs: list[EventLog] | None = None,
                 nats: list[NatsSink] | None = None, max_delay: float = 0.02) -> None:
        self.bus = bus
        self.json = json_sink
        self.logs = list(logs or ())
        self.nats = list(nats or ())
        self.max_delay = max_delay
        self.batch: list[tuple[Any, ...]] = []
        """Events not yet encoded, ``(flags, seq, t, event[:])``, and operations' parts
        (:meth:`EventBus.operation`): appended to by the bus itself (hot path), which calls
        :meth:`added` when one must be looked at."""
        self._buf = bytearray()  # encoded, not yet taken by the relay's pipe
        self._within: FlushWithin | None = None
        self._writer: jsonline.Writer | None = None
        self._wanted: anyio.Event | None = None
        self._seq_from = 0  # the bus's sequence number when the relay took over
        self._gone = False  # the relay stopped before its time (said once)
        self._outputs: tuple[JsonSink | None, list[EventLog], list[NatsSink]] = (None, [], [])
        self._starting: tuple[jsonline.Spawned, JsonSink | None, list[EventLog], list[NatsSink]] | None = None
        self._probes = 0

    def _many(self) -> None:
        """An output has seen many events: the relay should take over (from the fan-out's task, not
        from inside the bus's loop over its outputs)."""
        if self._wanted is not None:
            self._wanted.set()

    # ------------------------------------------------------------------ the bus's hot path

    def add(self, seq: int, t: float, event: Event, flags: int) -> None:
        """An event for the relay: ``flags`` 1 when the bus emitted it (it is in the ``-json``
        stream, unless only people see it), 0 when it only recorded it. Gathered, and encoded a
        batch at a time (one orjson call for :data:`RELAY_BATCH` events). The bus does the same inline
        for the events it emits (:meth:`EventBus.emit`)."""
        batch = self.batch
        # a plain tuple's copy (C, no Python call): orjson encodes it as it is, where an Event
        # would cost a call of ``default`` each
        batch.append((flags, seq, t, event[:]))
        if len(batch) == 1 or len(batch) >= RELAY_BATCH or event[0] in _FLUSH_NOW:
            self.added(event[0])

    def added(self, type_: str) -> None:
        """An event of ``type_`` was appended to the batch, its first, its last
        (:data:`RELAY_BATCH` events), or one sent at once (a diagnostic, the summary): send it
        now, or within ``max_delay``."""
        if len(self.batch) >= RELAY_BATCH or type_ in _FLUSH_NOW:
            self.flush()
        elif self._within is not None:
            self._within.mark()

    @_ki_protected  # Ctrl-C between a write and its bookkeeping would send lines twice
    def flush(self) -> None:
        """Encode what is gathered and send the relay what its pipe takes now (all of it past a
        large backlog)."""
        writer = self._writer
        if writer is None:
            return
        if self._gone:
            self.batch = []
            self._buf = bytearray()
            return
        if self.batch:
            # encoded before it is let go: should encoding fail, or a Ctrl-C come, nothing is lost
            data = _encoded(self.batch)
            self.batch = []
            if self._buf or len(data) >= _PIPE_BACKLOG:
                self._buf += data
            else:  # hot path: straight into the pipe, and into the buffer only what it did not take
                written = jsonline.write_now(writer.pipe, data)
                if written < 0:
                    self._lost()
                    return
                if written == len(data):
                    return
                self._buf = bytearray(memoryview(data)[written:])
        if not self._buf:
            return
        if not writer.send(self._buf, block=len(self._buf) >= _PIPE_BACKLOG):
            self._lost()
            return
        if self._buf and self._within is not None:
            self._within.mark()  # the pipe is full: try again within max_delay

    # ------------------------------------------------------------------ taking over, giving back

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The block runs with the fan-out ready to take over (at once with an ``-events`` target),
        and ends with every line written and the outputs back on the bus."""
        if self.json is None and not self.logs and not self.nats:
            yield
            return
        self._wanted = anyio.Event()
        for sink in [self.json, *self.logs]:
            if sink is not None:
                sink.on_many = self._many
        self._within = FlushWithin(self.flush, self.max_delay)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._when_wanted)
                try:
                    async with self._within.running():
                        yield
                finally:
                    tg.cancel_scope.cancel()
        finally:
            self._wanted = None
            self._within = None
            for sink in [self.json, *self.logs]:
                if sink is not None:
                    sink.on_many = None
            self._give_back()

    async def _when_wanted(self) -> None:
        """Start the relay when an output has seen many events, or at once with an ``-events``
        target (the relay then formats nearly every line: started once ``writer_after`` events
        have come, it took over a 100k-resource run's a few tens of thousands of events late);
        the outputs write on in the meantime. ``STRATA_JSON_WRITER_AFTER`` below 0: never."""
        assert self._wanted is not None
        if not (self.nats or self.logs) or _writer_after() < 0:
            await self._wanted.wait()
        json_sink = self.json if self.json is not None and not self.json.closed else None
        logs = [log for log in self.logs if not log.closed]
        feeds = [n for n in self.nats if n.feed >= 0]
        devnull = -1 if json_sink is not None else os.open(os.devnull, os.O_WRONLY)
        try:
            out = json_sink.stream.fileno() if json_sink is not None else devnull
            spawned = jsonline.Spawned.spawn(out, script=RELAY, pass_fds=tuple(log.stream.fileno() for log in logs)
                                             + tuple(n.feed for n in feeds))
        finally:
            if devnull >= 0:
                os.close(devnull)
        if spawned is None:  # each output goes on formatting its own lines
            return
        # it says it runs within a Python start-up: looked at every few milliseconds here, and
        # before every few hundred events while the loop does not run (a large plan)
        self._starting = (spawned, json_sink, logs, feeds)
        self._probes = 0
        self.bus.before = self._probe
        try:
            with anyio.move_on_after(jsonline.START_TIMEOUT):
                while self._starting is not None and not self._started_now():
                    await anyio.sleep(_START_POLL)
        finally:
            self._adopt(False)  # it did not say so in time, or the run ended first: gone

    def _probe(self) -> None:
        """Before an event (:attr:`EventBus.before`) while the relay starts: now and then, has it
        started? Taking over before the event, the relay is given it."""
        self._probes += 1
        if not self._probes & _PROBE_EVERY:
            self._started_now()

    def _started_now(self) -> bool:
        """Take over if the relay said it runs (or exited: then it is gone); whether it is decided."""
        if self._starting is None:
            return True
        if not jsonline.wait(self._starting[0].ready, select.POLLIN, 0):
            return False
        self._adopt(True)
        return True

    @_ki_protected
    def _adopt(self, said: bool) -> None:
        """The relay that was starting: its writer, taking the outputs' place if it runs (once)."""
        starting, self._starting = self._starting, None
        if starting is None:
            return
        if self.bus.before == self._probe:
            self.bus.before = None
        spawned, json_sink, logs, feeds = starting
        writer = spawned.writer(said)
        if writer is not None:
            self._take_over(writer, json_sink, logs, feeds)

    @_ki_protected
    def _take_over(self, writer: jsonline.Writer, json_sink: JsonSink | None, logs: list[EventLog],
                   feeds: list[NatsSink]) -> None:
        """Write out what the outputs gathered and take their place on the bus (no event can come
        in between: nothing here waits for the event loop). What stopped meanwhile is not the
        relay's (its spec, the first line it reads, names what is still open), and a NATS sink
        whose publisher has not taken all it was given keeps feeding it itself: the relay's lines
        must not follow a line cut short, and the event loop must not wait for a publisher."""
        for sink in [json_sink, *logs]:  # its lines written, and its own writer (one started before us) gone
            if sink is not None:
                sink.flush()
                sink._stop_writer()
        json_sink = json_sink if json_sink is not None and not json_sink.closed else None
        logs = [log for log in logs if not log.closed]
        feeds = [n for n in feeds if n.hand_over()]
        spec = {"json": json_sink is not None, "logs": [(log.stream.fileno(), log.path) for log in logs],
                "nats": [n.feed for n in feeds], "close_timeout": max([n.close_timeout for n in feeds], default=0)}
        self._buf = bytearray(orjson.dumps(spec, option=_ARRAY)) + self._buf
        for n in feeds:
            n.relayed()
        self._writer = writer
        self._outputs = (json_sink, logs, feeds)
        bus = self.bus
        bus.sinks = [s for s in bus.sinks if s is not json_sink]  # new lists: the bus may be looping over the old
        away = {id(x) for x in (*logs, *feeds)}
        bus.recorders = [r for r in bus.recorders if id(r) not in away]
        self._seq_from = bus.seq
        bus.relay = self
        if self._within is not None:  # the spec, and what came meanwhile, within max_delay
            self._within.mark()

    @_ki_protected  # a Ctrl-C here would leave the relay's last lines unwritten
    def _give_back(self) -> None:
        """Hand the relay the rest, end its input, wait for it, and put the outputs back on the
        bus (each writes its own lines again)."""
        writer, self._writer = self._writer, None
        if writer is None:
            return
        if self.batch and not self._gone:
            self._buf += _encoded(self.batch)
        if self._buf and not self._gone:
            writer.send(self._buf, block=True)
        self.batch = []
        self._buf = bytearray()
        status = writer.stop()
        self._restore()
        if not self._gone:  # else said already
            process_ended(status, "event stream", "relay")

    def _restore(self) -> None:
        """The outputs back on the bus, in place of the relay (once)."""
        bus = self.bus
        if bus.relay is not self:
            return
        bus.relay = None
        json_sink, logs, feeds = self._outputs
        for n in feeds:  # the publisher's time runs from the end of the relay, which fed it
            n.relay_ended(self._seq_from + 1, bus.seq - self._seq_from, time.monotonic())
        if json_sink is not None:
            bus.sinks = [json_sink, *bus.sinks]
        bus.recorders = [*logs, *feeds, *bus.recorders]

    def _lost(self) -> None:
        """The relay is gone before its time (killed: it never stops reading but at the end):
        what it had not written is lost, said once with the outputs it wrote; later events are
        written by the outputs themselves (its process is reaped at the end)."""
        self.batch = []
        self._buf = bytearray()
        if self._gone:
            return
        self._gone = True
        json_sink, logs, feeds = self._outputs
        names = ([json_sink.what] if json_sink is not None else []) + [log.what for log in logs] + [
            f"NATS {n.target.url}/{n.target.subject}" for n in feeds]
        stream_failed(RuntimeError(f"the relay process writing it stopped; events up to seq {self.bus.seq} "
                                   f"may be missing from: {', '.join(names)}"), "event stream")
        self._restore()


def _encoded(batch: list[tuple[Any, ...]]) -> bytes:
    """The relay's input for ``batch``: one line, an array of ``[flags, seq, t, event]`` (the
    event, a plain tuple or an :class:`Event`, as an array: type, message, payload, level,
    timestamp and, maybe, detail) and of operations' parts (:meth:`EventBus.operation`)."""
    try:
        return _dumps(batch, default=_event_array, option=_ARRAY)
    except TypeError:  # an integer beyond 64 bits somewhere: event by event, those formatted here
        out = bytearray()
        for entry in batch:
            try:
                out += _dumps((entry,), default=_event_array, option=_ARRAY)
            except TypeError:
                out += _formatted(entry)
        return bytes(out)


def _event_array(obj: Any) -> tuple[Any, ...]:
    """An :class:`Event` as orjson takes it (a tuple; orjson refuses a tuple's subclass). Nothing
    else: what orjson cannot encode in a payload fails here as it fails in strata's own lines."""
    if type(obj) is Event:
        return tuple(obj)
    raise TypeError(f"Type is not JSON serializable: {type(obj).__name__}")


def _formatted(entry: tuple[Any, ...]) -> bytes:
    """The relay's input for an entry of a batch orjson cannot encode: ``(flags, seq, t,
    event)`` (the event, or the plain tuple of it), an operation's parts
    (:meth:`EventBus.operation`) or a planned change's (:meth:`EventBus.planned`): both lines,
    formatted here."""
    from engine.events.json_sink import _line_here
    from engine.events.log import log_line

    flags, seq, t = entry[:3]
    if flags == OPERATION_STARTED or flags == OPERATION_ENDED:
        timestamp, _, resource, action, elapsed, id_key, id_value, deposed, detail = entry[3:]
        event = operation_event(flags == OPERATION_ENDED, resource, action, elapsed, id_key, id_value, deposed,
                                timestamp, detail)
        flags = 1
    elif flags == PLANNED:  # (flags, seq, t, timestamp, addr, resource, action)
        event = plain_planned_change(entry[5], entry[6], entry[3])
        flags = 1
    else:
        event = entry[3] if type(entry[3]) is Event else tuple.__new__(Event, entry[3])
    json_line = flags and event[0] not in HUMAN_ONLY
    doc: dict[str, Any] = {"s": seq, "j": _line_here(event).decode() if json_line else None,
                           "l": log_line(seq, t, event).decode()}
    return orjson.dumps(doc, option=_ARRAY)
