"""The state file's ``check_results``: what the last plan or apply found of each checkable object
(:mod:`engine.config.check_results`), in terraform's v4 encoding."""

from __future__ import annotations

from typing import Any

from engine.config.check_results import (
    CHECK,
    OUTPUT,
    RESOURCE,
    UNKNOWN,
    VAR,
    CheckObject,
    CheckResult,
)

_KINDS = frozenset((CHECK, RESOURCE, OUTPUT, VAR))


def encode(results: tuple[CheckResult, ...]) -> list[dict[str, Any]] | None:
    """The state file's ``check_results`` (null when there is nothing to record, as terraform's)."""
    if not results:
        return None
    out = []
    for r in results:  # in the order given (the configuration's): a plan file reads back equal
        objects: list[dict[str, Any]] | None = None
        if r.objects:
            objects = []
            for o in r.objects:
                item: dict[str, Any] = {"object_addr": o.addr, "status": o.status}
                if o.failure_messages:
                    item["failure_messages"] = list(o.failure_messages)
                objects.append(item)
        out.append({"object_kind": r.kind, "config_addr": r.config_addr, "status": r.status, "objects": objects})
    return out


def decode(doc: Any) -> tuple[CheckResult, ...]:
    """The check results of a state file's (or plan file's) ``check_results``, as :func:`encode`
    wrote them; a kind this version does not know is left out (as terraform leaves it)."""
    out = []
    for r in doc or ():
        if type(r) is not dict or r.get("object_kind") not in _KINDS or type(r.get("config_addr")) is not str:
            continue
        objects = None
        if isinstance(r.get("objects"), list):
            objects = tuple(CheckObject(str(o.get("object_addr", "")), str(o.get("status", UNKNOWN)),
                                        tuple(str(m) for m in o.get("failure_messages") or ()))
                            for o in r["objects"] if type(o) is dict)
        out.append(CheckResult(r["config_addr"], str(r.get("status", UNKNOWN)), objects, r["object_kind"]))
    return tuple(out)


__all__ = ["decode", "encode"]
