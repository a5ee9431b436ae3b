"""The event bus: what happened during a run (:class:`Event`, made by the constructors of
:mod:`engine.events.ui`, all named here too) fanned out, in order, to its sinks (the ``-json``
stream, the human text), its recorders (the event log, subscribers: each event numbered) and,
in a large run, the relay process that formats every output (:mod:`engine.events.fanout`).
:func:`capture_events` collects them for tests.

Hot path: while the relay formats every output and nothing in this process reads them, an
operation's start and end and a plain planned change are not made at all
(:meth:`EventBus.operation`, :meth:`EventBus.planned`): the relay words them from their parts.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from engine.addrs import InstanceAddr

# the events themselves and their constructors live in engine.events.ui; they are reached through here
from engine.events.ui import HUMAN_ONLY as HUMAN_ONLY
from engine.events.ui import PLAIN_PLANNED as PLAIN_PLANNED
from engine.events.ui import STRATA_VERSION as STRATA_VERSION
from engine.events.ui import TERRAFORM_COMPAT as TERRAFORM_COMPAT
from engine.events.ui import UI_VERSION as UI_VERSION
from engine.events.ui import Event as Event
from engine.events.ui import apply_complete as apply_complete
from engine.events.ui import apply_errored as apply_errored
from engine.events.ui import apply_progress as apply_progress
from engine.events.ui import apply_skipped as apply_skipped
from engine.events.ui import apply_start as apply_start
from engine.events.ui import change_summary as change_summary
from engine.events.ui import diagnostic as diagnostic
from engine.events.ui import go_duration as go_duration
from engine.events.ui import id_text as id_text
from engine.events.ui import import_complete as import_complete
from engine.events.ui import import_preparing as import_preparing
from engine.events.ui import import_start as import_start
from engine.events.ui import json_action as json_action
from engine.events.ui import operation_event as operation_event
from engine.events.ui import outputs_event as outputs_event
from engine.events.ui import plain_planned_change as plain_planned_change
from engine.events.ui import planned_change as planned_change
from engine.events.ui import progress_event as progress_event
from engine.events.ui import read_ended as read_ended
from engine.events.ui import refresh_complete as refresh_complete
from engine.events.ui import refresh_start as refresh_start
from engine.events.ui import resource_drift as resource_drift
from engine.events.ui import resource_json as resource_json
from engine.events.ui import version as version

# the writing machinery lives in engine.events.writing; these names are still reached through here
from engine.events.writing import OUTPUT_FAILED as OUTPUT_FAILED
from engine.events.writing import FlushWithin as FlushWithin
from engine.events.writing import stream_failed as stream_failed
from engine.events.writing import write_all as write_all

Sink = Callable[[Event], None]


Recorder = Callable[[int, float, Event], None]
"""What sees every event with its sequence number and monotonic time: the event log, subscribers."""


class Relay(Protocol):
    """What takes the formatted outputs' place on a bus (:attr:`EventBus.relay`): the bus
    appends each event it emits to :attr:`batch` itself and calls :meth:`added` only for the
    first of a batch, the :data:`RELAY_BATCH`-th, and one that must go at once (hot path: a
    Python call per event was a fifth of what the fan-out cost the event loop)."""

    batch: list[tuple[Any, ...]]
    """``(flags, seq, monotonic, event[:])`` (a plain tuple: orjson takes it as it is), or an
    operation's parts (:meth:`EventBus.operation`)."""

    def add(self, seq: int, t: float, event: Event, flags: int) -> None:
        """Append an event to :attr:`batch` (and call :meth:`added` when the bus would)."""

    def added(self, type_: str) -> None:
        """An event of this type, just appended to :attr:`batch`, is its first, fills it, or must go at once."""


class Watcher(Protocol):
    """What follows the operations in flight (the heartbeat: :meth:`EventBus.add_watcher`)."""

    def __call__(self, event: Event) -> None:
        """An event of :data:`WATCHED`."""

    def started(self, resource: dict[str, Any], action: str) -> None:
        """An operation on ``resource`` (:func:`resource_json`) started."""

    def ended(self, addr: str, action: str) -> None:
        """The operation ``action`` on ``addr`` ended."""


WATCHED = ("apply_start", "apply_complete", "apply_errored")
"""The events a :class:`Watcher` is given."""
OPERATION_STARTED, OPERATION_ENDED, PLANNED = 2, 3, 4
"""The first member of an operation's parts in a relay's batch, and of a plain planned change's
(an event's is 0 or 1)."""
_OPERATION_TYPES = frozenset({"apply_start", "apply_complete"})


RELAY_BATCH = 128
"""Events gathered before they go to the relay without waiting for its ``max_delay``. Few: orjson
then encodes events just made, still in the core's cache, into a small buffer. At 100k resources,
batches of 64 to 256 events took the event loop's encoding and hand-over from about 1.35 s a run
to about 0.8 s against 4096 (py-spy's samples, two runs each; the relay reads what the pipe holds
at once, whatever the batch)."""


class EventBus:
    """Fans events out to sinks, synchronously and in order.

    Recorders (:meth:`add_recorder`: the event log, in-process subscribers) also get each event's
    sequence number, gap-free from 1 in the order of emission, and the monotonic time it was
    emitted at. With no recorder the bus neither counts nor reads the clock (hot path)."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = list(sinks)
        self.sinks_for: dict[str, tuple[Sink, ...]] = {}
        """Sinks given only some types of event, after :attr:`sinks` (:meth:`add_sink_for`)."""
        self._captures = capture_sink not in self.sinks  # every bus feeds capture_events()
        self.recorders: list[Recorder] = []
        self.seq = 0
        """The sequence number of the last event recorded (0: none yet)."""
        self.wants_detail = False
        """A recorder reads :attr:`Event.detail`: the executor then computes it."""
        self.before: Callable[[], None] | None = None
        """Called before each event while set: the fan-out, looking whether its relay runs yet
        while the event loop does not (a large plan); it may take over from there."""
        self.watchers: list[Watcher] = []
        """See the operations start and end (:meth:`add_watcher`)."""
        self._reads_operations = False  # a sink_for other than a watcher reads apply_start or apply_complete
        self.relay: Relay | None = None
        """The fan-out in place of the formatted outputs while its relay process runs
        (:class:`engine.events.fanout.Fanout`): given each event once (:meth:`Relay.add`),
        numbered, with 1 when it was emitted (0: recorded only)."""

    def add_sink_for(self, types: tuple[str, ...], sink: Sink) -> None:
        """``sink`` sees the events of these ``types`` only (hot path: a sink that wants a few
        types costs the others nothing, not a Python call each)."""
        for t in types:
            self.sinks_for = {**self.sinks_for, t: (*self.sinks_for.get(t, ()), sink)}  # new: emit may be looping
        self._reads_operations = self._reads_operations or not _OPERATION_TYPES.isdisjoint(types)

    def add_watcher(self, watcher: Watcher) -> None:
        """``watcher`` sees the operations start and end: each ``apply_start``, ``apply_complete``
        and ``apply_errored`` event, and, when :meth:`operation` makes no event, its
        :meth:`Watcher.started` and :meth:`Watcher.ended`."""
        reads = self._reads_operations
        self.add_sink_for(WATCHED, watcher.__call__)
        self._reads_operations = reads
        self.watchers = [*self.watchers, watcher]

    def add_recorder(self, recorder: Recorder, wants_detail: bool = True) -> None:
        self.recorders.append(recorder)
        self.wants_detail = self.wants_detail or wants_detail

    def emit(self, event: Event) -> None:
        if self.before is not None:
            self.before()
        for s in self.sinks:
            s(event)
        if self.sinks_for:
            for s in self.sinks_for.get(event[0], ()):
                s(event)
        if _CAPTURES and self._captures:
            capture_sink(event)
        relay = self.relay
        if self.recorders or relay is not None:
            self.seq += 1
            seq, t = self.seq, _monotonic()
            if relay is not None:  # Relay.add(seq, t, event, 1), without the call (hot path)
                batch = relay.batch
                batch.append((1, seq, t, event[:]))
                n = len(batch)
                if n == 1 or n >= RELAY_BATCH or event[0] in _FLUSH_NOW:
                    relay.added(event[0])
            for r in self.recorders:
                r(seq, t, event)

    def operation(self, end: bool, addr: InstanceAddr, action: str, elapsed: float, id_key: str | None,
                  id_value: Any, deposed: str | None, detail: tuple[Any, ...] | None) -> None:
        """An apply operation's ``apply_start`` (not ``end``) or ``apply_complete`` (the arguments
        of :func:`apply_start` and :func:`apply_complete`): emitted (:meth:`emit`); or, while the
        relay formats every output and nothing in this process reads the event (no sink, recorder,
        capture; the watchers are told without it), its parts handed to the relay, which words
        and formats it (:mod:`engine.events.hooks`) on the other core. Hot path: two per
        resource; an Event made, copied and encoded cost the event loop four times as much."""
        relay = self._relay_alone()
        if relay is None or self._reads_operations:
            if end:
                self.emit(apply_complete(addr, action, elapsed, id_key, id_value, deposed, detail))
            else:
                self.emit(apply_start(addr, action, id_key, id_value, deposed, detail))
            return
        resource = resource_json(addr)
        id_value = id_text(id_value)
        for w in self.watchers:
            if end:
                w.ended(resource["addr"], action)
            else:
                w.started(resource, action)
        self.seq += 1
        batch = relay.batch
        # as the relay's _Started and _Ended read it
        batch.append((OPERATION_ENDED if end else OPERATION_STARTED, self.seq, _monotonic(), _now(),
                      resource["addr"], resource, action, elapsed, id_key, id_value, deposed, detail))
        n = len(batch)
        if n == 1 or n >= RELAY_BATCH:
            relay.added("apply_complete" if end else "apply_start")

    def planned(self, addr: InstanceAddr, action: str, reason: str | None, deposed: str | None,
                previous: InstanceAddr | None, importing: str | None, generated_config: str) -> None:
        """A ``planned_change`` (the arguments of :func:`planned_change`): emitted; or, as for
        :meth:`operation`, while nothing in this process reads it, a plain one's parts (no
        reason, deposed key, move, import or generated configuration) handed to the relay. Hot
        path: one per resource of a plan."""
        relay = self._relay_alone()
        plain = PLAIN_PLANNED.get(action)
        if (relay is None or plain is None or reason or deposed or previous is not None or importing is not None
                or generated_config or "planned_change" in self.sinks_for):
            self.emit(planned_change(addr, action, reason, deposed, previous, importing, generated_config))
            return
        resource = resource_json(addr)
        self.seq += 1
        batch = relay.batch
        batch.append((PLANNED, self.seq, _monotonic(), _now(), resource["addr"], resource, plain))  # relay._Planned
        n = len(batch)
        if n == 1 or n >= RELAY_BATCH:
            relay.added("planned_change")

    def _relay_alone(self) -> Relay | None:
        """The relay, while it alone reads what is emitted: no sink, recorder or capture, and not
        taking over (a sink given only some types may still read some)."""
        if self.sinks or self.recorders or self.before is not None or _CAPTURES:
            return None
        return self.relay

    def record(self, event: Event) -> None:
        """Give ``event`` to the recorders only: strata's own notes (the run's parameters) that
        terraform's stream and the human output do not have."""
        if self.before is not None:
            self.before()
        relay = self.relay
        if self.recorders or relay is not None:
            self.seq += 1
            seq, t = self.seq, _monotonic()
            if relay is not None:
                relay.add(seq, t, event, 0)
            for r in self.recorders:
                r(seq, t, event)


_monotonic = time.monotonic
_now = time.time
_CAPTURES: list[list[Event]] = []


class Operations(Protocol):
    """:meth:`EventBus.operation`'s signature."""

    def __call__(self, end: bool, addr: InstanceAddr, action: str, elapsed: float, id_key: str | None,
                 id_value: Any, deposed: str | None, detail: tuple[Any, ...] | None) -> None: ...


class Planned(Protocol):
    """:meth:`EventBus.planned`'s signature."""

    def __call__(self, addr: InstanceAddr, action: str, reason: str | None, deposed: str | None,
                 previous: InstanceAddr | None, importing: str | None, generated_config: str) -> None: ...


def _bus_of(emit: Sink) -> EventBus | None:
    """The bus whose :meth:`EventBus.emit` ``emit`` is (None: another function)."""
    bus = getattr(emit, "__self__", None)
    return bus if type(bus) is EventBus and emit == bus.emit else None


def planned_of(emit: Sink) -> Planned:
    """Where the planned changes of a run whose events go to ``emit`` go: the bus's
    :meth:`EventBus.planned` when ``emit`` is a bus's :meth:`EventBus.emit`, else a function that
    makes each event and emits it."""
    bus = _bus_of(emit)
    if bus is not None:
        return bus.planned

    def planned(addr: InstanceAddr, action: str, reason: str | None, deposed: str | None,
                previous: InstanceAddr | None, importing: str | None, generated_config: str) -> None:
        emit(planned_change(addr, action, reason, deposed, previous, importing, generated_config))

    return planned


def operations_of(emit: Sink) -> Operations:
    """Where an applier whose events go to ``emit`` sends its operations' starts and ends: the
    bus's :meth:`EventBus.operation` when ``emit`` is a bus's :meth:`EventBus.emit`, else a
    function that makes each event and emits it."""
    bus = _bus_of(emit)
    if bus is not None:
        return bus.operation

    def operation(end: bool, addr: InstanceAddr, action: str, elapsed: float, id_key: str | None, id_value: Any,
                  deposed: str | None, detail: tuple[Any, ...] | None) -> None:
        if end:
            emit(apply_complete(addr, action, elapsed, id_key, id_value, deposed, detail))
        else:
            emit(apply_start(addr, action, id_key, id_value, deposed, detail))

    return operation


@contextlib.contextmanager
def capture_events() -> Iterator[list[Event]]:
    """Collect every event emitted through any bus while the block runs (a testing helper)."""
    got: list[Event] = []
    _CAPTURES.append(got)
    try:
        yield got
    finally:
        # by identity: two captures holding equal events must not be confused
        for i in range(len(_CAPTURES) - 1, -1, -1):
            if _CAPTURES[i] is got:
                del _CAPTURES[i]
                break


def capture_sink(event: Event) -> None:
    for c in _CAPTURES:
        c.append(event)


_FLUSH_NOW = frozenset({"diagnostic", "change_summary", "outputs", "version"})
