"""The state model: which real objects strata tracks, in memory.

One :class:`ObjectState` per real object: the current object of an instance,
or a *deposed* object awaiting destruction after a create_before_destroy
replacement. Objects are frozen; the :class:`State` container is mutated
only by the state writer (``engine.statestore``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.addrs import InstanceAddr, InstanceKey, ProviderConfigAddr, ResourceAddr
from engine.config.check_results import CheckResult
from engine.frozen import frozen


@frozen
class ObjectState:
    attributes: dict[str, Any]
    status: str = "ready"  # "ready" | "tainted"
    schema_version: int = 0
    dependencies: tuple[ResourceAddr, ...] = ()
    """The resources the object depended on when it was applied, as configuration resources
    (:func:`engine.addrs.config_resource`: module paths without instance keys), in the state's
    order (sorted by their text)."""
    create_before_destroy: bool = False
    sensitive_attributes: tuple[Any, ...] = ()
    private: bytes = b""
    """The provider's private data about the object (opaque; ``b""``: none), handed back to it on
    every later call about the object."""
    encoded: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """Cache of the v4 ``attributes`` JSON form (set by the codec; attributes never change)."""

    @property
    def tainted(self) -> bool:
        return self.status == "tainted"


@dataclass(slots=True)
class InstanceState:
    current: ObjectState | None = None
    deposed: dict[str, ObjectState] = field(default_factory=dict)

    def empty(self) -> bool:
        return self.current is None and not self.deposed


@dataclass(slots=True)
class ResourceState:
    addr: ResourceAddr
    provider: ProviderConfigAddr
    instances: dict[InstanceKey, InstanceState] = field(default_factory=dict)


@dataclass(slots=True)
class State:
    lineage: str = field(default_factory=lambda: str(uuid.uuid4()))
    serial: int = 0
    terraform_version: str = "1.11.4"
    resources: dict[ResourceAddr, ResourceState] = field(default_factory=dict)
    outputs: dict[str, tuple[Any, bool]] = field(default_factory=dict)  # name -> (value, sensitive)
    check_results: tuple[CheckResult, ...] = ()  # of the last plan or apply (engine.state.checks)
    output_types: dict[str, Any] = field(default_factory=dict)
    """An output's cty type where recorded (typed nulls inside it): see :meth:`output_type`."""

    def output_type(self, name: str) -> Any:
        """The type of output ``name``'s value as terraform records it: the recorded one when it
        fits the value (the types of nulls inside it), else the value's own."""
        from engine.values import merge_types, value_type

        own = value_type(self.outputs[name][0])
        recorded = self.output_types.get(name)
        return recorded if recorded is not None and merge_types(own, recorded) == recorded else own

    def object(self, addr: InstanceAddr, deposed: str | None = None) -> ObjectState | None:
        return self.object_at(addr.resource, addr.key, deposed)

    def object_at(self, resource: ResourceAddr, key: InstanceKey,
                  deposed: str | None = None) -> ObjectState | None:
        """:meth:`object` without building an InstanceAddr (each reference evaluated at apply)."""
        rs = self.resources.get(resource)
        if rs is None:
            return None
        inst = rs.instances.get(key)
        if inst is None:
            return None
        if deposed is None:
            return inst.current
        return inst.deposed.get(deposed)

    def set_object(self, addr: InstanceAddr, provider: ProviderConfigAddr, obj: ObjectState | None,
                   deposed: str | None = None) -> None:
        """Record ``obj`` (or remove it, when None) at ``addr`` / deposed key."""
        rs = self.resources.get(addr.resource)
        if rs is None:
            if obj is None:
                return
            rs = self.resources[addr.resource] = ResourceState(addr.resource, provider)
        inst = rs.instances.get(addr.key)
        if inst is None:
            if obj is None:
                return
            inst = rs.instances[addr.key] = InstanceState()
        if deposed is None:
            inst.current = obj
        elif obj is None:
            inst.deposed.pop(deposed, None)
        else:
            inst.deposed[deposed] = obj
        if inst.empty():
            del rs.instances[addr.key]
            if not rs.instances:
                del self.resources[addr.resource]

    def move(self, moves: dict[InstanceAddr, InstanceAddr]) -> None:
        """Put the objects at each address of ``moves``' values at its key (new address → previous
        one), all at once: a chain or a swap moves each object once (``moved`` blocks)."""
        taken = []
        for new, prev in moves.items():
            rs = self.resources.get(prev.resource)
            inst = rs.instances.pop(prev.key, None) if rs is not None else None
            if rs is None or inst is None:
                continue
            if not rs.instances:
                del self.resources[prev.resource]
            taken.append((new, inst, rs.provider))
        for new, inst, provider in taken:
            for dk, obj in [(None, inst.current), *inst.deposed.items()]:
                if obj is not None:
                    self.set_object(new, provider, obj, dk)

    def objects(self) -> Iterator[tuple[InstanceAddr, str | None, ObjectState, ProviderConfigAddr]]:
        """Every tracked object: (instance address, deposed key or None, object, provider)."""
        for rs in self.resources.values():
            for key, inst in rs.instances.items():
                ia = rs.addr.instance(key)
                if inst.current is not None:
                    yield ia, None, inst.current, rs.provider
                for dk, obj in inst.deposed.items():
                    yield ia, dk, obj, rs.provider

    def instance_count(self) -> int:
        return sum(len(rs.instances) for rs in self.resources.values())
