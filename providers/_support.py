"""Shared helpers for the built-in ``null``, ``random`` and ``local`` providers.

Only the public API of ``engine`` is used, as a third-party provider would.

* :func:`map_requires_replace` is terraform-provider-null/random's
  ``RequiresReplaceIfValuesNotNull`` map plan modifier.
* :class:`PriorPreservingProvider` plans a value that is the same as the
  prior state's, apart from its collection kind, as the prior value (see
  :func:`same_value`).
* :func:`whole_number_errors` checks that Int64 attributes hold whole numbers.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from engine import (
    UNKNOWN,
    Diagnostic,
    FrameworkProvider,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
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


class PriorPreservingProvider(FrameworkProvider):
    """Plans a configured value that equals the prior value as data as the prior value itself.

    strata's core converts configuration to the schema's types (a map
    attribute becomes a ``MapVal``) but decodes state without the schema
    (the same map comes back a plain ``dict``), and :func:`engine.equal`
    tells the two apart, so an unchanged map attribute would plan an update
    on every run. Keeping the prior value is the usual provider
    normalization (the core accepts a planned value equal to the prior one).
    """

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        prior, proposed = req.prior_state, req.proposed_new_state
        if prior is not None and proposed is not None:
            new_proposed = dict(proposed)
            new_config = dict(req.config) if req.config is not None else None
            for k, v in proposed.items():
                pv = prior.get(k)
                if k in prior and not equal(v, pv) and same_value(v, pv):
                    new_proposed[k] = pv
                    if new_config is not None and new_config.get(k) is not None:
                        new_config[k] = pv
            req = dataclasses.replace(req, proposed_new_state=new_proposed, config=new_config)
        return await super().plan_resource_change(req)


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
