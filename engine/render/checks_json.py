"""``show -json PLANFILE``'s ``checks``: what planning found of each ``check`` block
(:mod:`engine.config.check_results`), as terraform's ``jsonchecks`` writes it."""

from __future__ import annotations

from typing import Any

from engine.config.check_results import CheckResult


def plan_json(results: tuple[CheckResult, ...]) -> list[dict[str, Any]]:
    """``show -json PLANFILE``'s ``checks``, as terraform's ``jsonchecks``: sorted by address,
    problems by message."""
    out = []
    for r in sorted(results, key=lambda r: r.config_addr):
        address: dict[str, Any] = {"kind": r.kind}  # keys sorted, as Go writes a map
        if r.module:
            address["module"] = r.module
        address.update(name=r.name, to_display=r.config_addr)
        item: dict[str, Any] = {"address": address, "status": r.status}
        instances = []
        for o in sorted(r.objects or (), key=lambda o: o.addr):
            head = o.addr.rsplit(".", 2)[0]
            oaddr: dict[str, Any] = {"module": head} if head != "check" else {}
            oaddr["to_display"] = o.addr
            inst: dict[str, Any] = {"address": oaddr, "status": o.status}
            if o.failure_messages:
                inst["problems"] = [{"message": m} for m in sorted(o.failure_messages)]
            instances.append(inst)
        if instances:
            item["instances"] = instances
        out.append(item)
    return out


__all__ = ["plan_json"]
