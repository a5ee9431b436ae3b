"""Addresses of resources and resource instances (``terraform_data.a``, ``terraform_data.a["k"]``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson

InstanceKey = int | str | None
"""``None`` for a resource without count/for_each, ``int`` for count, ``str`` for for_each."""


@dataclass(frozen=True, slots=True, order=True)
class ResourceAddr:
    """A resource in the root module: ``TYPE.NAME`` (``data.TYPE.NAME`` for data resources)."""

    type: str
    name: str
    mode: str = "managed"
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _instances: dict[InstanceKey, InstanceAddr] = field(default_factory=dict, init=False, repr=False,
                                                        compare=False)

    def __post_init__(self) -> None:
        # addresses are dict keys on every hot path: hash once
        object.__setattr__(self, "_hash", hash((self.type, self.name, self.mode)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # the generated __eq__ builds and compares two tuples; this one is on every dict lookup
        # with an equal but distinct address (graph building: 3% of a 10k apply)
        if self is other:
            return True
        if type(other) is not ResourceAddr:
            return NotImplemented
        return (self._hash == other._hash and self.name == other.name and self.type == other.type
                and self.mode == other.mode)

    def __str__(self) -> str:
        prefix = "data." if self.mode == "data" else ""
        return f"{prefix}{self.type}.{self.name}"

    def instance(self, key: InstanceKey = None) -> InstanceAddr:
        """The instance's address, one object per key of this ResourceAddr: the state, the
        refresh, the plan and the apply share it, and with it its string and its UI JSON, each
        built once (a fresh address per use was a tenth of a no-change plan at 100k)."""
        got = self._instances.get(key)
        if got is None:
            got = self._instances[key] = InstanceAddr(self, key)
        return got


_INTERNED: dict[tuple[str, str, str], ResourceAddr] = {}


def resource_addr(type_: str, name: str, mode: str = "managed") -> ResourceAddr:
    """The one ResourceAddr of a resource: the configuration, references, the state and the plan
    all get the same object, so a dict lookup by it hits on identity (no Python-level __eq__).
    Hot path; the table grows with the number of distinct resources (a CLI run's lifetime)."""
    k = (type_, name, mode)
    a = _INTERNED.get(k)
    if a is None:
        a = _INTERNED[k] = ResourceAddr(type_, name, mode)
    return a


def format_key(key: InstanceKey) -> str:
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}]"
    return "[" + orjson.dumps(key).decode() + "]"


@dataclass(frozen=True, slots=True)
class InstanceAddr:
    """One instance of a resource: ``TYPE.NAME``, ``TYPE.NAME[0]`` or ``TYPE.NAME["k"]``."""

    resource: ResourceAddr
    key: InstanceKey = None
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _str: str = field(default="", init=False, repr=False, compare=False)
    _ui: dict[str, object] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.resource._hash, self.key)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not InstanceAddr:
            return NotImplemented
        return self._hash == other._hash and self.key == other.key and self.resource == other.resource

    def __str__(self) -> str:
        s = self._str
        if not s:
            s = str(self.resource) + format_key(self.key)
            object.__setattr__(self, "_str", s)
        return s

    def sort_key(self) -> tuple[str, str, int, int | str]:
        k = self.key
        if k is None:
            return (self.resource.type, self.resource.name, 0, 0)
        if isinstance(k, int):
            return (self.resource.type, self.resource.name, 1, k)
        return (self.resource.type, self.resource.name, 2, k)


_ADDR_RE = re.compile(
    r'^(?:(data)\.)?([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_-]*)'
    r'(?:\[(?:(\d+)|"((?:[^"\\]|\\.)*)")\])?$'
)


def parse_instance_addr(text: str) -> InstanceAddr:
    """Parse an instance address as a user types it on the command line.

    Raises ``ValueError`` with a message naming the text when it is not an address.
    """
    m = _ADDR_RE.match(text.strip())
    if not m:
        raise ValueError(f'invalid resource instance address "{text}"')
    mode = "data" if m.group(1) else "managed"
    if mode == "managed" and m.group(2) == "data":
        raise ValueError(f'invalid resource instance address "{text}": a data resource is data.TYPE.NAME')
    res = resource_addr(m.group(2), m.group(3), mode)
    if m.group(4) is not None:
        return InstanceAddr(res, int(m.group(4)))
    if m.group(5) is not None:
        return InstanceAddr(res, orjson.loads('"' + m.group(5) + '"'))
    return InstanceAddr(res, None)


def parse_resource_addr(s: str) -> ResourceAddr | None:
    """``TYPE.NAME`` or ``data.TYPE.NAME`` as recorded in state ``dependencies``; None otherwise."""
    parts = s.split(".")
    if len(parts) == 2:
        return resource_addr(parts[0], parts[1])
    if len(parts) == 3 and parts[0] == "data":
        return resource_addr(parts[1], parts[2], "data")
    return None


def provider_key_from_state(prov: str) -> str:
    """``provider["registry.terraform.io/hashicorp/aws"].west`` → ``aws.west``."""
    inner, _, alias = prov.rpartition("]")
    name = inner.rstrip('"').rsplit("/", 1)[-1]
    alias = alias.lstrip(".")
    return f"{name}.{alias}" if alias else name
