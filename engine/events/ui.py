"""terraform's machine-readable UI events as data: the :class:`Event` value, and one constructor
per kind of event (``planned_change``, ``apply_start``, ``diagnostic``, ...), each in terraform's
words and shapes. The bus that fans them out is :mod:`engine.events.stream`, which also names
everything here: callers use ``stream.apply_start`` and the like.

Hot path: one event per operation start and end; constructing one is a dict literal, and the JSON
sink (:mod:`engine.events.json_sink`) serialises it with orjson.
"""

from __future__ import annotations

import operator
import time
from typing import Any

from engine import __version__
from engine.addrs import InstanceAddr
from engine.diagnostics import Diagnostic
from engine.events import hooks, jsonline
from engine.events.jsonline import timestamp

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


PLAIN_PLANNED = {"create": "create", "update": "update", "delete": "delete", "delete-create": "replace",
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


def id_text(id_value: Any) -> str | None:
    """An object's id as the events show it (None: no id)."""
    return None if id_value is None else id_value if type(id_value) is str else str(id_value)


def apply_start(addr: InstanceAddr, action: str, id_key: str | None = None, id_value: Any = None,
                deposed: str | None = None, detail: tuple[Any, ...] | None = None) -> Event:
    """``detail``: the operation's (:attr:`Event.detail`), when a recorder reads it."""
    return operation_event(False, resource_json(addr), action, 0.0, id_key, id_text(id_value), deposed, None, detail)


def apply_complete(addr: InstanceAddr, action: str, elapsed: float, id_key: str | None = None,
                   id_value: Any = None, deposed: str | None = None, detail: tuple[Any, ...] | None = None
                   ) -> Event:
    """``detail``: the operation's (:attr:`Event.detail`), when a recorder reads it."""
    return operation_event(True, resource_json(addr), action, elapsed, id_key, id_text(id_value), deposed, None, detail)


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
