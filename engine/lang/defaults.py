"""Defaults of ``optional(TYPE, DEFAULT)`` attributes in a type constraint, applied to a value
before it is converted to the type, as terraform does (hcl's ``typeexpr.Defaults``).

A :class:`TypeDefaults` mirrors the type constraint it was read from, only where defaults are: an
object's ``values`` are its attributes' defaults (each already converted to the attribute's type),
its ``children`` the defaults deeper down, keyed by attribute name, by element index (a tuple) or
``""`` (every element of a list, set or map). A null or unknown value gets no defaults; a missing
or null attribute gets its default, itself given the defaults of its own type.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from engine.frozen import frozen
from engine.values import UNKNOWN, ListVal, MapVal, SetVal


@frozen
class TypeDefaults:
    """The defaults of one level of a type constraint; ``kind`` is that level's type kind
    (``"object"``, ``"tuple"``, ``"list"``, ``"set"``, ``"map"``)."""

    kind: str
    values: dict[str, Any] = field(default_factory=dict)
    children: dict[str, TypeDefaults] = field(default_factory=dict)

    def child(self, key: int | str) -> TypeDefaults | None:
        if self.kind == "tuple" and isinstance(key, int):
            return self.children.get(str(key))
        if self.kind == "object" and isinstance(key, str):
            return self.children.get(key)
        return self.children.get("")


def apply_defaults(value: Any, d: TypeDefaults | None) -> Any:
    """``value`` with the defaults ``d`` filled in where it leaves them out or sets them null."""
    if d is None or value is None or value is UNKNOWN:
        return value
    if isinstance(value, tuple):
        items = [apply_defaults(x, d.child(i)) for i, x in enumerate(value)]
        if isinstance(value, SetVal):
            return SetVal.of(items)
        return ListVal(items) if isinstance(value, ListVal) else tuple(items)
    if isinstance(value, dict):
        out = {k: apply_defaults(x, d.child(k)) for k, x in value.items()}
        for k, default in d.values.items():
            if out.get(k) is None:
                out[k] = apply_defaults(default, d.children.get(k))
        return MapVal(out) if isinstance(value, MapVal) else out
    return value
