"""Shared helpers for the built-in ``null``, ``random`` and ``local`` providers.

Only the public API of ``engine`` is used, as a third-party provider would.

* :func:`map_requires_replace` is terraform-provider-null/random's
  ``RequiresReplaceIfValuesNotNull`` map plan modifier.
* :func:`same_value` compares values as data (a map and an object with the same
  elements are the same).
* :func:`whole_number_errors` checks that Int64 attributes hold whole numbers.
"""

from __future__ import annotations

import math
from typing import Any

from engine import (
    UNKNOWN,
    Diagnostic,
    equal,
    error,
)


def same_value(a: Any, b: Any) -> bool:
    """Equal as data: like :func:`engine.equal`, but a map and an object (or a list, a set and a
    tuple) with the same elements count as the same."""
    if a is UNKNOWN or b is UNKNOWN:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return equal(a, b)


def map_requires_replace(old: Any, new: Any) -> bool:
    """``RequiresReplaceIfValuesNotNull`` (``old`` the prior map, ``new`` the configured one).

    Replace when the map of strings changed, except that a new key with a null
    value, and a null map becoming a map of only null values, do not count:
    the plugin SDK stored such maps without those keys, or as null.
    """
    if same_value(old, new):
        return False
    if new is UNKNOWN:
        return bool(old)
    new_map: dict[str, Any] = dict(new or {})
    if old is None:
        return any(v is not None for v in new_map.values())
    for k, v in new_map.items():
        if k not in old and v is None:
            continue
        if k in old and same_value(v, old[k]):
            continue
        return True
    return any(k not in new_map for k in old)


def whole_number_errors(config: dict[str, Any], names: tuple[str, ...]) -> list[Diagnostic]:
    """Int64 attributes must hold whole numbers (the plugin framework's value conversion)."""
    out: list[Diagnostic] = []
    for n in names:
        v = config.get(n)
        if isinstance(v, float) and not (math.isfinite(v) and v.is_integer()):
            out.append(error("Value Conversion Error",
                             f'Attribute "{n}": a whole number is required, got {v!r}.'))
    return out
