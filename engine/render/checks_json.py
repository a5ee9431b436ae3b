"""``show -json``'s ``checks``: what a plan or an apply found of each checkable object
(:mod:`engine.config.check_results`), as terraform's ``jsonchecks`` writes it."""

from __future__ import annotations

from typing import Any

from engine.addrs import parse_instance_addr, split_module_path
from engine.config.check_results import OUTPUT, RESOURCE, CheckResult

_JSON_KIND = {OUTPUT: "output_value"}
"""The kinds whose JSON name is not the state file's."""


def plan_json(results: tuple[CheckResult, ...]) -> list[dict[str, Any]]:
    """``show -json``'s ``checks``, as terraform's ``jsonchecks``: sorted by address, instances
    by address, problems by message."""
    out = []
    for r in sorted(results, key=lambda r: r.config_addr):
        item: dict[str, Any] = {"address": _config_address(r), "status": r.status}
        instances = []
        for o in sorted(r.objects or (), key=lambda o: o.addr):
            inst: dict[str, Any] = {"address": _object_address(r.kind, o.addr), "status": o.status}
            if o.failure_messages:
                inst["problems"] = [{"message": m} for m in sorted(o.failure_messages)]
            instances.append(inst)
        if instances:
            item["instances"] = instances
        out.append(item)
    return out


def _config_address(r: CheckResult) -> dict[str, Any]:
    """A configuration object's ``address``: its kind, module, name (a resource's mode and type
    too), keys sorted as Go writes a map."""
    module, rest = split_module_path(r.config_addr)
    address: dict[str, Any] = {"kind": _JSON_KIND.get(r.kind, r.kind)}
    if r.kind == RESOURCE:
        parts = rest.split(".")
        address["mode"] = "data" if parts[0] == "data" and len(parts) == 3 else "managed"
        address.update(module=str(module), name=parts[-1], type=parts[-2])
    else:
        address.update(module=str(module), name=rest.split(".", 1)[1])
    if module.is_root:
        del address["module"]
    address["to_display"] = r.config_addr
    return dict(sorted(address.items()))


def _object_address(kind: str, addr: str) -> dict[str, Any]:
    """A checkable object's ``address``: its module instance, a resource instance's key."""
    out: dict[str, Any] = {}
    if kind == RESOURCE:
        inst = parse_instance_addr(addr)
        if inst.key is not None:
            out["instance_key"] = inst.key
        module = inst.resource.module
    else:
        module, _rest = split_module_path(addr)
    if not module.is_root:
        out["module"] = str(module)
    out["to_display"] = addr
    return out


__all__ = ["plan_json"]
