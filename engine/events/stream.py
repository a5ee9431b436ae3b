"""Events as data: what happened during a run, in terraform's machine-readable UI shape.

An :class:`Event` carries its ``type`` (``planned_change``, ``apply_start``,
``apply_complete``, ...), a human ``message`` and the ``payload`` terraform
puts beside them (``hook``, ``change``, ``changes``, ``outputs``,
``diagnostic``). Sinks decide how to show them; :func:`capture_events`
collects them for tests.

Hot path: one event per operation start and end; constructing one is a
dict literal, and the JSON sink (:mod:`engine.events.json_sink`) serialises it with orjson. While
the relay formats every output and nothing in this process reads them, those two are not made at
all (:meth:`EventBus.operation`): the relay words them from their parts.
"""

from __future__ import annotations

import contextlib
import operator
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from engine import __version__
from engine.addrs import InstanceAddr
from engine.diagnostics import Diagnostic
from engine.events import hooks, jsonline
from engine.events.jsonline import timestamp

# the writing machinery lives in engine.events.writing; these names are still reached through here
from engine.events.writing import OUTPUT_FAILED as OUTPUT_FAILED
from engine.events.writing import FlushWithin as FlushWithin
from engine.events.writing import stream_failed as stream_failed
from engine.events.writing import write_all as write_all

UI_VERSION = "1.2"
STRATA_VERSION = __version__
TERRAFORM_COMPAT = "1.11.4"  # the terraform whose formats we write


class Event(tuple[str, str, dict[str, Any], str, float]):
    """One event: ``type``, ``message``, ``payload``, ``level`` and ``timestamp`` (seconds since
    the epoch; now, unless given), and, for apply events when something asked for it, a
    ``detail`` (see :attr:`detail`) that only the event log and subscribers see: the ``-json``
    stream stays terraform's.

    Immutable, like a frozen dataclass, but a tuple: hot path, three per resource at 100k
    resources, and a frozen dataclass's ``__init__`` (one ``object.__setattr__`` per field) cost
    three times as much as ``tuple.__new__``. Treat ``payload`` as read-only.
    """

    __slots__ = ()

    # hot path: made with positional arguments (keyword arguments to a class cost a dict per call)

    def __new__(cls, type: str, message: str, payload: dict[str, Any] | None = None, level: str = "info",
                timestamp: float | None = None, detail: dict[str, Any] | tuple[Any, ...] | None = None) -> Event:
        if detail is None:
            return tuple.__new__(cls, (type, message, {} if payload is None else payload, level,
                                       _now() if timestamp is None else timestamp))
        return tuple.__new__(cls, (type, message, {} if payload is None else payload, level,
                                   _now() if timestamp is None else timestamp, detail))

    type = property(operator.itemgetter(0), doc="terraform's event type: planned_change, apply_start, ...")
    message = property(operator.itemgetter(1), doc="the human text (``@message``)")
    payload = property(operator.itemgetter(2), doc="what terraform puts beside the common fields")
    level = property(operator.itemgetter(3), doc="info, warn or error")
    timestamp = property(operator.itemgetter(4), doc="seconds since the epoch")

    @property
    def detail(self) -> dict[str, Any] | None:
        """strata's own facts about an apply operation, beside terraform's payload: ``node`` (the
        operation, ``ADDR (create)``), ``provider``, ``deps`` (the operations it waited for),
        ``after`` (the one whose end made it ready), ``ready`` (seconds since the walk began),
        ``wait`` (seconds from ready to started: planning it again and waiting for a concurrency
        slot); at its end ``run`` (seconds from started to durable) and ``call`` (of which the
        provider's call, slot held); ``retry`` and ``error`` on a retry notice. None unless a
        recorder asked for it."""
        if len(self) > 5:
            d: dict[str, Any] = jsonline.detail_dict(self[5])
            return d
        return None

    def with_detail(self, detail: dict[str, Any] | tuple[Any, ...]) -> Event:
        """This event with its detail: a dict, or (hot path) a tuple of
        :data:`engine.events.jsonline.DETAIL_FIELDS` in order."""
        return tuple.__new__(Event, (self[0], self[1], self[2], self[3], self[4], detail))  # hot path

    def __getnewargs__(self) -> tuple[Any, ...]:  # copy and pickle rebuild it field by field
        return tuple(self)

    def __repr__(self) -> str:
        return f"Event(type={self[0]!r}, message={self[1]!r}, payload={self[2]!r}, level={self[3]!r})"

    def to_json(self) -> dict[str, Any]:
        type_, message, payload, level, timestamp = self[:5]
        return {"@level": level, "@message": message, "@module": "terraform.ui",
                "@timestamp": _timestamp(timestamp), **payload, "type": type_}


_now = time.time
_timestamp = timestamp


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
        id_value = _id(id_value)
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
        plain = _PLAIN_PLANNED.get(action)
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


# --------------------------------------------------------------------------- constructors

def resource_json(addr: InstanceAddr) -> dict[str, Any]:
    """The ``resource`` object of terraform's UI events (built once per address: hot path).
    Treat it as read-only: it is shared by every event about the address."""
    cached = addr._ui
    if cached is not None:
        return cached
    r = addr.resource
    full = str(addr)
    module = "" if r.module.is_root else str(r.module)
    ui = {
        "addr": full,
        "module": module,
        "resource": full[len(module) + 1:] if module else full,  # within its module, as terraform's
        "implied_provider": r.type.split("_", 1)[0],
        "resource_type": r.type,
        "resource_name": r.name,
        "resource_key": addr.key,
    }
    object.__setattr__(addr, "_ui", ui)
    return ui


def version() -> Event:
    # terraform's keys exactly; which program wrote the stream is in @message
    return Event("version", f"strata {STRATA_VERSION}", {"terraform": TERRAFORM_COMPAT, "ui": UI_VERSION})


_PLAN_VERB = {"create": "create", "update": "update", "delete": "delete", "replace": "replace", "noop": "no-op"}


def json_action(action: str) -> str:
    """Our internal action name to terraform's UI action name."""
    if action in ("delete-create", "create-delete"):
        return "replace"
    if action == "no-op":
        return "noop"
    if action == "forget":
        return "remove"
    return action


_UI_REASON = {"replace_by_request": "requested",  # terraform's UI spells these differently
              "replace_by_triggers": "replace_triggered_by"}


def planned_change(addr: InstanceAddr, action: str, reason: str | None = None,
                   deposed: str | None = None, previous: InstanceAddr | None = None,
                   importing: str | None = None, generated_config: str = "") -> Event:
    a = "move" if action == "no-op" and previous is not None else json_action(action)
    if action == "no-op" and importing is not None:
        a = "import"
    change: dict[str, Any] = {"resource": resource_json(addr), "action": a}
    if previous is not None:
        change = {"resource": change["resource"], "previous_resource": resource_json(previous), "action": a}
    if reason:
        change["reason"] = _UI_REASON.get(reason, reason)
    if importing is not None:
        change["importing"] = {"id": importing}
    if generated_config:
        change["generated_config"] = generated_config
    msg = hooks.planned_message(str(addr), a)
    if deposed:
        change["deposed_key"] = deposed
        msg = f"{addr} (deposed object {deposed}): Plan to {a}"
    return Event("planned_change", msg, {"change": change})


def plain_planned_change(resource: dict[str, Any], action: str, timestamp: float | None) -> Event:
    """A :func:`planned_change` with no reason, deposed key, previous address, import or generated
    configuration, from its parts (as :meth:`EventBus.planned` hands them to the relay):
    ``resource``, :func:`resource_json` of its address; ``action``, terraform's UI word."""
    return Event("planned_change", hooks.planned_message(resource["addr"], action),
                 hooks.planned_payload(resource, action), "info", timestamp)


_PLAIN_PLANNED = {"create": "create", "update": "update", "delete": "delete", "delete-create": "replace",
                  "create-delete": "replace"}


def resource_drift(addr: InstanceAddr, action: str, previous: InstanceAddr | None = None) -> Event:
    """An object changed (``update``) or deleted (``delete``) outside strata, found by refresh; or
    (``move``, a refresh-only plan) moved by a ``moved`` block from ``previous``."""
    change: dict[str, Any] = {"resource": resource_json(addr), "action": action}
    if previous is not None:
        change = {"resource": change["resource"], "previous_resource": resource_json(previous), "action": action}
    return Event("resource_drift", f"{addr}: Drift detected ({action})", {"change": change})


def change_summary(counts: dict[str, int], operation: str) -> Event:
    imported = counts.get("import", 0)
    if operation == "plan" and imported:
        msg = (f"Plan: {imported} to import, {counts['add']} to add, {counts['change']} to change, "
               f"{counts['remove']} to destroy.")
    elif operation == "apply" and imported:
        msg = (f"Apply complete! Resources: {imported} imported, {counts['add']} added, {counts['change']} "
               f"changed, {counts['remove']} destroyed.")
    elif operation == "plan":
        msg = f"Plan: {counts['add']} to add, {counts['change']} to change, {counts['remove']} to destroy."
    elif operation == "destroy":
        msg = f"Destroy complete! Resources: {counts['remove']} destroyed."
    else:
        msg = (f"Apply complete! Resources: {counts['add']} added, {counts['change']} changed, "
               f"{counts['remove']} destroyed.")
    return Event("change_summary", msg, {"changes": {**counts, "operation": operation}})


go_duration = hooks.go_duration
_ERR_VERB = hooks.ERR_VERB
_PROGRESS_VERB = hooks.PROGRESS_VERB


def _id(id_value: Any) -> str | None:
    return None if id_value is None else id_value if type(id_value) is str else str(id_value)


def apply_start(addr: InstanceAddr, action: str, id_key: str | None = None, id_value: Any = None,
                deposed: str | None = None, detail: tuple[Any, ...] | None = None) -> Event:
    """``detail``: the operation's (:attr:`Event.detail`), when a recorder reads it."""
    return operation_event(False, resource_json(addr), action, 0.0, id_key, _id(id_value), deposed, None, detail)


def apply_complete(addr: InstanceAddr, action: str, elapsed: float, id_key: str | None = None,
                   id_value: Any = None, deposed: str | None = None, detail: tuple[Any, ...] | None = None
                   ) -> Event:
    """``detail``: the operation's (:attr:`Event.detail`), when a recorder reads it."""
    return operation_event(True, resource_json(addr), action, elapsed, id_key, _id(id_value), deposed, None, detail)


def operation_event(end: bool, resource: dict[str, Any], action: str, elapsed: float, id_key: str | None,
                    id_value: str | None, deposed: str | None, timestamp: float | None,
                    detail: tuple[Any, ...] | None) -> Event:
    """An operation's ``apply_start`` (not ``end``) or ``apply_complete``, from its parts (as
    :meth:`EventBus.operation` hands them to the relay): ``resource``, :func:`resource_json` of
    its address; ``id_value`` a string already; ``timestamp`` None: now."""
    addr = resource["addr"]
    if end:
        return Event("apply_complete", hooks.complete_message(addr, action, elapsed, id_key, id_value, deposed),
                     hooks.hook_payload(resource, action, id_key, id_value, elapsed), "info", timestamp, detail)
    return Event("apply_start", hooks.start_message(addr, action, id_key, id_value, deposed),
                 hooks.hook_payload(resource, action, id_key, id_value), "info", timestamp, detail)


def apply_progress(addr: InstanceAddr, action: str, elapsed: float, message: str = "") -> Event:
    """terraform's heartbeat (no ``message``: see :mod:`engine.events.heartbeat`), or a note of
    strata's on the operation (a provider's progress message, a retry)."""
    return progress_event(resource_json(addr), action, elapsed, message)


def progress_event(resource: dict[str, Any], action: str, elapsed: float, message: str = "") -> Event:
    """:func:`apply_progress` for the ``resource`` object of the operation's other events."""
    text = f"{resource['addr']}: {_PROGRESS_VERB[action]} [{go_duration(elapsed)} elapsed]" + (
        f" {message}" if message else "")
    hook = {"resource": resource, "action": action, "elapsed_seconds": int(elapsed)}
    if message:
        hook["message"] = message
    return Event("apply_progress", text, {"hook": hook})


def apply_errored(addr: InstanceAddr, action: str, elapsed: float, detail: tuple[Any, ...] | None = None) -> Event:
    """At info level, as every hook of terraform's JSON view (the diagnostic says the error);
    ``detail``: the operation's (:attr:`Event.detail`), when a recorder reads it."""
    hook = {"resource": resource_json(addr), "action": action, "elapsed_seconds": int(elapsed)}
    return Event("apply_errored", f"{addr}: {_ERR_VERB[action]} after {go_duration(elapsed)}", {"hook": hook},
                 "info", None, detail)


def read_ended(addr: InstanceAddr, value: dict[str, Any] | None, failed: bool, elapsed: float,
               id_key: str = "id") -> Event:
    """terraform's event at the end of a data source's read: complete, with the object's id (its
    ``id_key``, or else its ``name``, when a string), or errored."""
    if failed or value is None:
        return apply_errored(addr, "read", elapsed)
    for key in (id_key, "name"):
        if isinstance(value.get(key), str):
            return apply_complete(addr, "read", elapsed, key, value[key])
    return apply_complete(addr, "read", elapsed)


def apply_skipped(addr: InstanceAddr, action: str, because: str, fail_fast: bool = False,
                  interrupted: bool = False) -> Event:
    """strata's own event: an operation not started because something it depends on failed
    (or, with ``fail_fast``, because -fail-fast stopped the apply after ``because`` failed; or,
    ``interrupted``, because an interrupt stopped the apply)."""
    if interrupted:
        hook = {"resource": resource_json(addr), "action": action, "reason": "interrupted"}
        return Event("apply_skipped", f"{addr}: Not started: the apply was interrupted", {"hook": hook},
                     level="warn")
    hook = {"resource": resource_json(addr), "action": action, "because": because,
            "reason": "fail_fast" if fail_fast else "dependency_failed"}
    msg = (f"{addr}: Not started: -fail-fast stopped the apply after {because} failed" if fail_fast
           else f"{addr}: Skipped because {because} failed")
    return Event("apply_skipped", msg, {"hook": hook}, level="warn")


def refresh_start(addr: InstanceAddr, id_key: str, id_value: Any) -> Event:
    return Event("refresh_start", f"{addr}: Refreshing state... [{id_key}={id_value}]",
                 {"hook": {"resource": resource_json(addr), "id_key": id_key, "id_value": str(id_value)}})


HUMAN_ONLY = jsonline.HUMAN_ONLY
"""Progress terraform prints as text but not in its ``-json`` stream."""


def import_preparing(addr: InstanceAddr, ident: str) -> Event:
    """An ``import`` block's object about to be imported while planning."""
    return Event("import_preparing", f"{addr}: Preparing import... [id={ident}]", {"id": ident})


def import_start(addr: InstanceAddr, ident: str) -> Event:
    return Event("import_start", f"{addr}: Importing... [id={ident}]", {"id": ident})


def import_complete(addr: InstanceAddr, ident: str) -> Event:
    return Event("import_complete", f"{addr}: Import complete [id={ident}]", {"id": ident})


def refresh_complete(addr: InstanceAddr, id_key: str, id_value: Any) -> Event:
    return Event("refresh_complete", f"{addr}: Refresh complete [{id_key}={id_value}]",
                 {"hook": {"resource": resource_json(addr), "id_key": id_key, "id_value": str(id_value)}})


def diagnostic(d: Diagnostic, code: str | None = None) -> Event:
    """``code``: the source line the diagnostic points at, for terraform's ``snippet``."""
    level = "error" if d.severity == "error" else "warn"
    msg = f"{d.severity.capitalize()}: {d.summary}"
    return Event("diagnostic", msg, {"diagnostic": d.to_json(code)}, level=level)


def outputs_event(outputs: dict[str, dict[str, Any]]) -> Event:
    return Event("outputs", f"Outputs: {len(outputs)}", {"outputs": outputs})
