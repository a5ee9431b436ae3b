"""Apply-time resource values: what expressions see while a plan is applied."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.addrs import InstanceKey, ResourceAddr
from engine.config.model import Module
from engine.plans.plan import Expansion, Plan, whole_resource_value
from engine.state.model import ObjectState, State
from engine.values import UNKNOWN

_SINGLE = Expansion("single", ())


class ApplyResolver:
    """Apply-time resource values: what the state holds now, over the instances the plan's
    ``expansions`` say each resource has (one not applied yet is unknown)."""

    def __init__(self, module: Module, state: State, expansions: Mapping[ResourceAddr, Expansion],
                 left_out: Mapping[ResourceAddr, frozenset[InstanceKey]] | None = None) -> None:
        self.module = module
        self.state = state
        self.expansions = expansions
        self.left_out = left_out or {}
        """Per resource, the instances the configuration no longer has that a -target plan left
        in the state (:func:`left_out_instances`): terraform's resource value still has them."""

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
        extra = self.left_out.get(addr)
        if extra:
            _add_left_out(vals, exp.kind, extra, lambda k: self.state.object_at(addr, k))
        return whole_resource_value(exp.kind, vals)


def left_out_instances(plan: Plan, state: State) -> dict[ResourceAddr, frozenset[InstanceKey]]:
    """The instances of ``state`` that ``plan`` neither expands nor changes: under -target, those
    the configuration no longer has and no target's dependency destroys. terraform builds a
    resource's value from the state's instances, less those planned for deletion, so they count."""
    if not plan.targeted:
        return {}
    changed = {c.addr for c in plan.changes if c.deposed is None}
    out = {}
    for r, rs in state.resources.items():
        keys = plan.expansions.get(r, _SINGLE).keys
        extra = frozenset(k for k, inst in rs.instances.items()
                          if inst.current is not None and k not in keys and r.instance(k) not in changed)
        if extra:
            out[r] = extra
    return out


def _add_left_out(vals: dict[InstanceKey, Any], kind: str, extra: frozenset[InstanceKey],
                  obj_at: Callable[[InstanceKey], ObjectState | None]) -> None:
    """``vals`` with the ``extra`` instances of a resource of ``kind`` that the state holds, as
    terraform's evaluator adds them: keys of the kind's type only, a counted resource's missing
    indexes below the highest unknown."""
    want = int if kind == "count" else str if kind == "for_each" else type(None)
    for k in extra:
        obj = obj_at(k)
        if isinstance(k, want) and obj is not None:
            vals[k] = obj.attributes
    if kind == "count" and vals:
        for i in range(max(k for k in vals if isinstance(k, int)) + 1):
            vals.setdefault(i, UNKNOWN)
