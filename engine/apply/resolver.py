"""Apply-time resource values: what expressions see while a plan is applied."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.addrs import InstanceKey, ResourceAddr
from engine.config.model import Module
from engine.plans.plan import Expansion, whole_resource_value
from engine.state.model import State
from engine.values import UNKNOWN

_SINGLE = Expansion("single", ())


class ApplyResolver:
    """Apply-time resource values: what the state holds now, over the instances the plan's
    ``expansions`` say each resource has (one not applied yet is unknown)."""

    def __init__(self, module: Module, state: State, expansions: Mapping[ResourceAddr, Expansion]) -> None:
        self.module = module
        self.state = state
        self.expansions = expansions

    def has_resource(self, addr: ResourceAddr) -> bool:
        return self.module.resource_at(addr) is not None

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return self.expansions.get(addr, _SINGLE).kind != "single"

    def expansion(self, addr: ResourceAddr) -> str:
        return self.expansions.get(addr, _SINGLE).kind

    def instance_value(self, addr: ResourceAddr, key: InstanceKey) -> Any:
        obj = self.state.object_at(addr, key)
        if obj is None:
            if key in self.expansions.get(addr, _SINGLE).keys:
                return UNKNOWN
            raise KeyError(key)
        return obj.attributes

    def resource_value(self, addr: ResourceAddr) -> Any:
        vals: dict[InstanceKey, Any] = {}
        exp = self.expansions.get(addr, _SINGLE)
        for k in exp.keys:
            obj = self.state.object_at(addr, k)
            vals[k] = obj.attributes if obj is not None else UNKNOWN
        return whole_resource_value(exp.kind, vals)
