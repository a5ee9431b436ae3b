"""Values on the wire: cty's msgpack encoding (every DynamicValue), its JSON encoding (what a
plugin may answer with, and UpgradeResourceState's raw state), and the flatmap of very old states.

cty's msgpack encoding of a value of type T (go-cty ``msgpack.Marshal``):

* null → nil, whatever T is; unknown → extension 0; an unknown with refinements (cty 1.13+) →
  extension 12, read here as plainly unknown (strata keeps no refinements);
* string, bool → themselves; number → an int when whole and within 64 bits, a float when the
  float is exact, else its decimal digits as a string (so numbers beyond 64 bits survive);
* list, set, tuple → an array; map → a map; object → a map of every attribute (nulls included);
* T = dynamic (``"dynamic"``) → a two-element array: the value's type as cty JSON type notation
  (msgpack bin) and the value encoded with that type.

Types are cty's JSON type notation as the engine writes them (``["list", "string"]``,
``["object", {...}, [optional...]]``), decoded from the schema once. Values are the engine's
(:mod:`engine.values`): ``dict`` objects, ``ListVal``/``SetVal``/``MapVal``, tuples, ``None``,
:data:`~engine.values.UNKNOWN`. Both directions are on the hot path (every plan and apply), so
they are plain recursive functions over the type, with no per-value allocation beyond the result.
"""

from __future__ import annotations

from typing import Any

import msgpack
import orjson

from engine.lang.number import parse_number
from engine.provider.protocol import FlatmapState
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, to_json, value_type

__all__ = ["FlatmapState", "decode", "decode_json", "encode", "encode_json"]

_UNKNOWN_EXT = msgpack.ExtType(0, b"\x00")  # cty writes fixext1 type 0 holding a zero byte
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _ext_hook(code: int, data: bytes) -> Any:
    # extension 0: unknown; 12: unknown with refinements (nullness, string prefix, number
    # bounds, collection length) that strata does not keep. Anything else is not cty's.
    if code in (0, 12):
        return UNKNOWN
    raise ValueError(f"unexpected msgpack extension {code} in a cty value")


def encode(value: Any, ty: Any) -> bytes:
    """``value`` of cty type ``ty`` (JSON type notation) as cty msgpack."""
    out: bytes = msgpack.packb(_to_wire(value, ty), use_bin_type=True)
    return out


def decode(data: bytes, ty: Any) -> Any:
    """cty msgpack of type ``ty`` as an engine value (``None`` for empty ``data``: no value)."""
    if not data:
        return None
    return _from_wire(msgpack.unpackb(data, raw=False, ext_hook=_ext_hook, strict_map_key=False), ty)


def decode_json(data: bytes, ty: Any) -> Any:
    """cty's JSON encoding of type ``ty`` (what a plugin may put in ``DynamicValue.json``)."""
    if not data:
        return None
    return _from_json(orjson.loads(data), ty)


def encode_json(value: Any) -> bytes:
    """A stored object's JSON, as the state keeps it (UpgradeResourceState's ``raw_state``)."""
    return orjson.dumps(to_json(value))


def _number_out(v: Any) -> Any:
    if type(v) is int:
        return v if _INT64[0] <= v <= _INT64[1] else str(v)
    if isinstance(v, float):
        return v
    if isinstance(v, int):  # bool is excluded by the schema's type; another int subclass is an int
        return int(v)
    return v  # a string of digits, passed as cty passes a big number


def _to_wire(v: Any, ty: Any) -> Any:
    if v is None:
        return None
    if v is UNKNOWN:
        return _UNKNOWN_EXT
    if type(ty) is str:
        if ty == "number":
            return _number_out(v)
        if ty == "dynamic":
            vt = value_type(v)
            return [orjson.dumps(vt), _to_wire(v, vt)]
        return v
    kind = ty[0]
    if kind == "object":
        attrs = ty[1]
        return {k: _to_wire(v.get(k), attrs[k]) for k in sorted(attrs)}
    if kind == "list" or kind == "set":
        et = ty[1]
        return [_to_wire(x, et) for x in v]
    if kind == "map":
        et = ty[1]
        return {k: _to_wire(x, et) for k, x in v.items()}
    if kind == "tuple":
        return [_to_wire(x, t) for x, t in zip(v, ty[1], strict=True)]
    raise TypeError(f"not a cty type: {ty!r}")


def _number_in(v: Any) -> Any:
    if type(v) is float:
        return int(v) if v.is_integer() and abs(v) < 1e300 else v
    if type(v) is str:
        n = parse_number(v)
        if n is None:
            raise ValueError(f"not a number: {v!r}")
        return n
    return v


def _from_wire(v: Any, ty: Any) -> Any:
    if v is None or v is UNKNOWN:
        return v
    if type(ty) is str:
        if ty == "number":
            return _number_in(v)
        if ty == "dynamic":
            vt = orjson.loads(v[0])
            return _from_wire(v[1], vt)
        return v
    kind = ty[0]
    if kind == "object":
        attrs = ty[1]
        return {k: _from_wire(v.get(k), t) for k, t in attrs.items()}
    if kind == "list":
        et = ty[1]
        return ListVal(_from_wire(x, et) for x in v)
    if kind == "set":
        et = ty[1]
        return SetVal.of(_from_wire(x, et) for x in v)
    if kind == "map":
        et = ty[1]
        return MapVal({k: _from_wire(x, et) for k, x in v.items()})
    if kind == "tuple":
        return tuple(_from_wire(x, t) for x, t in zip(v, ty[1], strict=True))
    raise TypeError(f"not a cty type: {ty!r}")


def _from_json(v: Any, ty: Any) -> Any:
    """cty JSON: as msgpack, but a dynamic value is ``{"value": ..., "type": ...}`` and numbers
    are JSON numbers; unknowns cannot appear."""
    if v is None:
        return None
    if type(ty) is str:
        if ty == "number":
            return _number_in(v)
        if ty == "dynamic":
            return _from_json(v["value"], v["type"])
        return v
    kind = ty[0]
    if kind == "object":
        return {k: _from_json(v.get(k), t) for k, t in ty[1].items()}
    if kind == "list":
        return ListVal(_from_json(x, ty[1]) for x in v)
    if kind == "set":
        return SetVal.of(_from_json(x, ty[1]) for x in v)
    if kind == "map":
        return MapVal({k: _from_json(x, ty[1]) for k, x in v.items()})
    if kind == "tuple":
        return tuple(_from_json(x, t) for x, t in zip(v, ty[1], strict=True))
    raise TypeError(f"not a cty type: {ty!r}")
