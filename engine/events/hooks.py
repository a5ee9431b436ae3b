"""An apply operation's start and end events, as terraform's UI words them: the messages
("x: Creating...", "x: Creation complete after 0s [id=...]") and the ``hook`` object beside them;
and a plain planned change ("x: Plan to create").

strata makes these events as :class:`engine.events.ui.Event` objects; in a large run where
nothing in strata's process reads them, the relay process (:mod:`engine.events.relay`) makes their
lines from the operation's parts alone (:meth:`engine.events.stream.EventBus.operation`). Both
word them here, so that the lines are the same. This module imports only the standard library:
the relay runs it without the engine package.
"""

from __future__ import annotations

from typing import Any

# terraform's -json words; a data source's read is "Refreshing" there ("Reading" in its text)
START_VERB = {"create": "Creating...", "update": "Modifying...", "delete": "Destroying...", "read": "Refreshing..."}
DONE_VERB = {"create": "Creation complete", "update": "Modifications complete",
             "delete": "Destruction complete", "read": "Refresh complete"}
ERR_VERB = {"create": "Creation errored", "update": "Modifications errored", "delete": "Destruction errored",
            "read": "Refresh errored"}
PROGRESS_VERB = {"create": "Still creating...", "update": "Still modifying...", "delete": "Still destroying...",
                 "read": "Still refreshing..."}


def go_duration(seconds: float) -> str:
    """Whole seconds as Go's time.Duration prints them, as terraform's elapsed times are:
    ``0s``, ``59s``, ``1m0s``, ``1h2m3s``."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h}h{m}m{sec}s"
    return f"{m}m{sec}s" if m else f"{sec}s"


def start_message(addr: str, action: str, id_key: str | None, id_value: str | None, deposed: str | None) -> str:
    """``apply_start``'s message; ``id_value`` as a string already (None: no id)."""
    where = f"{addr} (deposed object {deposed})" if deposed else addr
    suffix = f" [{id_key}={id_value}]" if id_value is not None else ""
    return f"{where}: {START_VERB[action]}{suffix}"


def complete_message(addr: str, action: str, elapsed: float, id_key: str | None, id_value: str | None,
                     deposed: str | None) -> str:
    """``apply_complete``'s message (a delete's names no id)."""
    where = f"{addr} (deposed object {deposed})" if deposed else addr
    suffix = f" [{id_key}={id_value}]" if id_value is not None and action != "delete" else ""
    return f"{where}: {DONE_VERB[action]} after {go_duration(elapsed)}{suffix}"


def hook_payload(resource: Any, action: str, id_key: str | None, id_value: str | None,
                 elapsed: float | None = None) -> dict[str, Any]:
    """``{"hook": ...}``, the payload of an operation's start (``elapsed`` None) or end (a delete's
    end names no id). ``resource``: the ``resource`` object, or (the relay, which never decodes it)
    its JSON as an ``orjson.Fragment``."""
    h: dict[str, Any] = {"resource": resource, "action": action}
    if id_value is not None and not (elapsed is not None and action == "delete"):
        h["id_key"] = id_key
        h["id_value"] = id_value
    if elapsed is not None:
        h["elapsed_seconds"] = int(elapsed)
    return {"hook": h}


def planned_message(addr: str, action: str) -> str:
    """``planned_change``'s message, for an object that is not deposed (``action``: terraform's
    UI word, ``create``, ``replace``...)."""
    return f"{addr}: Plan to {action}"


def planned_payload(resource: Any, action: str) -> dict[str, Any]:
    """``{"change": ...}``, the payload of a planned change with no reason, deposed key, previous
    address, import or generated configuration (``resource`` as for :func:`hook_payload`)."""
    return {"change": {"resource": resource, "action": action}}
