"""``-target``: which resources and instances a plan may touch.

As terraform's: a targeted resource (``TYPE.NAME``) is planned with every instance, a targeted
instance (``TYPE.NAME[KEY]``) alone; everything a target depends on is planned too, as whole
resources, and nothing else: other resources are neither refreshed nor changed, and outputs that
refer to them keep their values. A targeted destroy takes the targets and everything that
depends on them (by the dependencies recorded in state).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.addrs import InstanceAddr, ResourceAddr, parse_instance_addr


@dataclass(frozen=True, slots=True)
class Targets:
    resources: frozenset[ResourceAddr]  # every instance of these
    instances: frozenset[InstanceAddr] = frozenset()  # and these single instances

    def covers(self, addr: InstanceAddr) -> bool:
        return addr.resource in self.resources or addr in self.instances

    def touches(self, r: ResourceAddr) -> bool:
        return r in self.resources or any(i.resource == r for i in self.instances)

    def with_resources(self, more: set[ResourceAddr] | frozenset[ResourceAddr]) -> Targets:
        whole = self.resources | more
        return Targets(whole, frozenset(i for i in self.instances if i.resource not in whole))


def parse_targets(texts: tuple[str, ...] | list[str]) -> Targets | None:
    """The ``-target`` options; None when there are none. ValueError names a text that is not an
    address (``TYPE.NAME``, ``TYPE.NAME[KEY]``, ``data.TYPE.NAME``)."""
    if not texts:
        return None
    whole: set[ResourceAddr] = set()
    single: set[InstanceAddr] = set()
    for text in texts:
        addr = parse_instance_addr(text)
        if "[" in text:
            single.add(addr)
        else:
            whole.add(addr.resource)
    return Targets(frozenset(whole), frozenset(single)).with_resources(set())
