"""The values of resources while a plan is made: what an expression sees of a resource."""

from __future__ import annotations

from typing import Any

from engine.addrs import InstanceKey, ResourceAddr
from engine.config.model import Module
from engine.plans.plan import whole_resource_value
from engine.values import UNKNOWN


class PlanResolver:
    """Plan-time resource values: the planned new values of what was already planned; unknown for
    a resource not planned yet. ``kind`` and ``values`` are filled as each resource is planned
    (``kind``: "single", "count" or "for_each"); a resource's whole value is computed once, when
    first asked for once the resource is in ``planned`` (before, it is not kept: all of a module's
    outputs are evaluated when one is read, some over what is not planned yet, or not wholly)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.kind: dict[ResourceAddr, str] = {}  # "single" | "count" | "for_each"
        self.values: dict[ResourceAddr, dict[InstanceKey, Any]] = {}
        self._whole: dict[ResourceAddr, Any] = {}
        self.planned: set[ResourceAddr] = set()  # every instance planned: the whole value is final

    def has_resource(self, addr: ResourceAddr) -> bool:
        return addr in self.module.resources

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return self.kind.get(addr, "single") != "single"

    def expansion(self, addr: ResourceAddr) -> str:
        return self.kind.get(addr, "single")

    def instance_value(self, addr: ResourceAddr, key: InstanceKey) -> Any:
        vals = self.values.get(addr)
        if vals is None:
            return UNKNOWN
        if key not in vals and isinstance(key, float) and key.is_integer():
            key = int(key)
        return vals[key]

    def resource_value(self, addr: ResourceAddr) -> Any:
        v = self._whole.get(addr)
        if v is None:
            v = whole_resource_value(self.kind.get(addr, "single"), self.values.get(addr))
            if addr in self.planned:  # else read early (a module output over it): not final
                self._whole[addr] = v
        return v

    def record_unplanned(self, addr: ResourceAddr, kind: str) -> None:
        """``addr`` could not be planned: it expands as its configuration says, with no instances."""
        self.kind[addr] = kind
        self.values[addr] = {}
        self.planned.add(addr)
