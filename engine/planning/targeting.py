"""``-target``: which resources and instances a plan may touch.

As terraform's: a targeted resource (``TYPE.NAME``) is planned with every instance, a targeted
instance (``TYPE.NAME[KEY]``) alone; everything a target depends on is planned too, as whole
resources, and nothing else: other resources are neither refreshed nor changed, and outputs that
refer to them keep their values. A targeted destroy takes the targets and everything that
depends on them (by the dependencies recorded in state).
"""

from __future__ import annotations

from engine.addrs import (
    InstanceAddr,
    ModulePath,
    ResourceAddr,
    config_resource,
    module_contains,
    parse_target,
)
from engine.frozen import frozen


@frozen
class Targets:
    """What a plan may touch: every instance of ``resources``, the single ``instances``, every
    resource in the module instances ``modules`` (a step without a key: every instance of its
    call), and every instance of the resources ``configs`` names (as the state's dependencies
    do: module paths without keys; what a target depends on, found in the configuration)."""

    resources: frozenset[ResourceAddr]  # every instance of these
    instances: frozenset[InstanceAddr] = frozenset()  # and these single instances
    modules: frozenset[ModulePath] = frozenset()
    configs: frozenset[ResourceAddr] = frozenset()

    def covers(self, addr: InstanceAddr) -> bool:
        return addr.resource in self.resources or addr in self.instances or self.in_modules(addr.resource)

    def touches(self, r: ResourceAddr) -> bool:
        return r in self.resources or any(i.resource == r for i in self.instances) or self.in_modules(r)

    def in_modules(self, r: ResourceAddr) -> bool:
        """Is every instance of ``r`` targeted, by a module target or as a dependency in a module?"""
        if self.configs and config_resource(r) in self.configs:
            return True
        return any(module_contains(m, r.module) for m in self.modules)

    def with_resources(self, more: set[ResourceAddr] | frozenset[ResourceAddr],
                       configs: frozenset[ResourceAddr] = frozenset()) -> Targets:
        whole = self.resources | more
        return Targets(whole, frozenset(i for i in self.instances if i.resource not in whole), self.modules,
                       self.configs | configs)


def parse_targets(texts: tuple[str, ...] | list[str]) -> Targets | None:
    """The ``-target`` options; None when there are none. ValueError names a text that is not an
    address (``TYPE.NAME``, ``TYPE.NAME[KEY]``, ``data.TYPE.NAME``)."""
    if not texts:
        return None
    whole: set[ResourceAddr] = set()
    single: set[InstanceAddr] = set()
    modules: set[ModulePath] = set()
    for text in texts:
        addr = parse_target(text)
        if isinstance(addr, ModulePath):
            modules.add(addr)
        elif addr.key is not None or text.rstrip().endswith("]"):
            single.add(addr)
        else:
            whole.add(addr.resource)
    return Targets(frozenset(whole), frozenset(single), frozenset(modules)).with_resources(set())
