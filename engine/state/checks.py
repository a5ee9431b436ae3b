"""Check results: what the last plan or apply found of each ``check`` block, as terraform records
them (the state's ``check_results``, a plan's ``checks`` in ``show -json``).

A check block is one *checkable object* per instance of its module (``check.NAME``,
``module.m[0].check.NAME``); each object has the results of its checks: the scoped data source
(did it read) and each ``assert``. An object's status summarises its results, and a block's
status summarises its objects, as terraform's ``checks.summarizeCheckStatuses``: any error →
error, else any fail → fail, else any unknown → unknown, else pass (no object at all is a pass).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.frozen import frozen

PASS, FAIL, ERROR, UNKNOWN = "pass", "fail", "error", "unknown"


def summarize(statuses: Iterable[str]) -> str:
    """The status of a whole made of parts of ``statuses``."""
    seen = set(statuses)
    for s in (ERROR, FAIL, UNKNOWN):
        if s in seen:
            return s
    return PASS


@frozen
class CheckObject:
    """One instance of a check block: its address (``module.m.check.c``), its status, and the
    messages of what failed (in the order of the block's checks)."""

    addr: str
    status: str
    failure_messages: tuple[str, ...] = ()


@frozen
class CheckResult:
    """One check block of the configuration (``config_addr``: ``module.m.check.c``, without
    instance keys) and its objects; ``objects`` is None when how many there are is not known."""

    config_addr: str
    status: str
    objects: tuple[CheckObject, ...] | None
    kind: str = "check"

    @property
    def name(self) -> str:
        return self.config_addr.rsplit(".", 1)[1]

    @property
    def module(self) -> str:
        """The module part of the address ("" in the root module)."""
        head = self.config_addr.rsplit(".", 2)[0]
        return "" if head == "check" else head


def encode(results: tuple[CheckResult, ...]) -> list[dict[str, Any]] | None:
    """The state file's ``check_results`` (null when there is nothing to record, as terraform's)."""
    if not results:
        return None
    out = []
    for r in sorted(results, key=lambda r: r.config_addr):
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
    wrote them; what is not a check block's (terraform also records resources' conditions) is
    left out."""
    out = []
    for r in doc or ():
        if type(r) is not dict or r.get("object_kind") != "check" or type(r.get("config_addr")) is not str:
            continue
        objects = None
        if isinstance(r.get("objects"), list):
            objects = tuple(CheckObject(str(o.get("object_addr", "")), str(o.get("status", UNKNOWN)),
                                        tuple(str(m) for m in o.get("failure_messages") or ()))
                            for o in r["objects"] if type(o) is dict)
        out.append(CheckResult(r["config_addr"], str(r.get("status", UNKNOWN)), objects))
    return tuple(out)


def plan_json(results: tuple[CheckResult, ...]) -> list[dict[str, Any]]:
    """``show -json PLANFILE``'s ``checks``, as terraform's ``jsonchecks``: sorted by address,
    problems by message."""
    out = []
    for r in sorted(results, key=lambda r: r.config_addr):
        address: dict[str, Any] = {"kind": r.kind, "name": r.name, "to_display": r.config_addr}
        if r.module:
            address["module"] = r.module
        item: dict[str, Any] = {"address": address, "status": r.status}
        instances = []
        for o in sorted(r.objects or (), key=lambda o: o.addr):
            oaddr: dict[str, Any] = {"to_display": o.addr}
            head = o.addr.rsplit(".", 2)[0]
            if head != "check":
                oaddr["module"] = head
            inst: dict[str, Any] = {"address": oaddr, "status": o.status}
            if o.failure_messages:
                inst["problems"] = [{"message": m} for m in sorted(o.failure_messages)]
            instances.append(inst)
        if instances:
            item["instances"] = instances
        out.append(item)
    return out


__all__ = ["ERROR", "FAIL", "PASS", "UNKNOWN", "CheckObject", "CheckResult", "decode", "encode", "plan_json",
           "summarize"]
