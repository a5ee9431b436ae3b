"""``lifecycle { ignore_changes = [...] }``: the configuration of an existing object with the
ignored parts taken from its prior state, as terraform's ``processIgnoreChanges`` does.

A path is what :func:`engine.config.decode.ignore_paths` read: attribute names and index keys
(``tags["Name"]``, ``access_config[0].nat_ip``). Where the prior and configured values at a path
differ, the prior one is kept. A path that ends in a key of a map keeps that one element as it
was: its prior value, or its absence. A path that does not lead anywhere in either value is left
alone.
"""

from __future__ import annotations

from typing import Any

from engine.config.model import IgnorePath
from engine.provider.protocol import ResourceSchema
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, equal

_MISSING: Any = object()


def apply_ignore_changes(prior: dict[str, Any], config: dict[str, Any], paths: tuple[IgnorePath, ...],
                         schema: ResourceSchema) -> dict[str, Any]:
    """``config`` with every ignored change reverted to ``prior``."""
    out: Any = config
    for path in paths:
        if len(path) == 1 and path[0][0] == "attr":
            a = schema.attributes.get(path[0][1])
            if a is not None and a.computed and not a.optional:
                continue  # not configurable: nothing in the configuration to keep
        key = _MISSING
        if len(path) > 1 and path[-1][0] == "index" and isinstance(path[-1][1], str):
            path, key = path[:-1], path[-1][1]
        p, c = _get(prior, path), _get(out, path)
        if p is _MISSING or c is _MISSING or equal(p, c):
            continue
        if key is not _MISSING and (c is None or isinstance(c, MapVal)):
            p = _keep_key(p, c, key)
        out = _put(out, path, p)
    return dict(out)


def _keep_key(prior: Any, config: Any, key: str) -> Any:
    """The configured map ``config`` with element ``key`` as it is in the ``prior`` map."""
    m = dict(config) if config is not None else {}
    if isinstance(prior, dict) and key in prior:
        m[key] = prior[key]
    else:
        m.pop(key, None)
    if not m and config is None:
        return None
    out = MapVal(m)
    if config is not None:
        out.ety = config.ety
    return out


def _get(v: Any, path: IgnorePath) -> Any:
    for kind, step in path:
        if v is None or v is UNKNOWN:
            return _MISSING
        if kind == "attr" or isinstance(v, dict):
            if not isinstance(v, dict) or not isinstance(step, str) or step not in v:
                return _MISSING
            v = v[step]
        elif isinstance(v, tuple) and not isinstance(v, SetVal) and isinstance(step, int) \
                and 0 <= step < len(v):
            v = v[step]
        else:
            return _MISSING
    return v


def _put(v: Any, path: IgnorePath, new: Any) -> Any:
    if not path:
        return new
    (_kind, step), rest = path[0], path[1:]
    if isinstance(v, dict):
        out = dict(v)
        out[step] = _put(v[step], rest, new)
        if isinstance(v, MapVal):
            m = MapVal(out)
            m.ety = v.ety
            return m
        return out
    items = list(v)
    items[step] = _put(v[step], rest, new)
    if isinstance(v, ListVal):
        lv = ListVal(items)
        lv.ety = v.ety
        return lv
    return tuple(items)
