"""Values of the Terraform language: null, known, and unknown.

Representation (chosen so the hot path stays plain Python objects):

* null → ``None``; string → ``str``; number → ``int``/``float``; bool → ``bool``
* tuple (``[a, b]`` literal) → ``tuple``; list → :class:`ListVal`; set → :class:`SetVal`
* object (``{a = 1}`` literal) → ``dict``; map → :class:`MapVal`
* a value known only at apply time → :data:`UNKNOWN`

The distinction between tuple/list/set and object/map matters because
Terraform records dynamic-typed attributes with their type in state
(``{"value": ..., "type": ["tuple", ["string"]]}``), and a plan compares
values *with* their types.
"""

from __future__ import annotations

from typing import Any


class _Unknown:
    """The single unknown value: a value that is computed only during apply."""

    __slots__ = ()
    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "(known after apply)"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


class ListVal(tuple):  # type: ignore[type-arg]
    """A cty list: homogeneous, ordered.

    ``ety`` is the element type (JSON type notation) where the elements cannot tell it: an empty
    list, or one holding nulls, converted to ``list(string)`` records ``"string"`` (see
    :func:`with_element_type`); None otherwise. (No ``__slots__``: a tuple subclass cannot have
    any, so the rare recorded type lives in the instance ``__dict__``, made only when set.)
    """

    ety: Any = None

    def __repr__(self) -> str:
        return f"tolist({list(self)!r})"


class SetVal(tuple):  # type: ignore[type-arg]
    """A cty set: unique elements, kept in cty's canonical order; ``ety`` as :class:`ListVal`'s."""

    ety: Any = None

    @classmethod
    def of(cls, items: Any) -> SetVal:
        seen: list[Any] = []
        for item in items:
            if item not in seen:
                seen.append(item)
        try:
            seen.sort(key=_set_sort_key)
        except TypeError:
            pass
        return cls(seen)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SetVal):
            return len(self) == len(other) and all(x in other for x in self)
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("set", len(self)))

    def __repr__(self) -> str:
        return f"toset({list(self)!r})"


def _set_sort_key(v: Any) -> tuple[int, Any]:
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, (int, float)):
        return (0, v)
    if isinstance(v, str):
        return (1, v)
    return (3, repr(v))


class MapVal(dict):  # type: ignore[type-arg]
    """A cty map: homogeneous values, string keys; ``ety`` as :class:`ListVal`'s."""

    ety: Any = None


class ObjectVal(dict):  # type: ignore[type-arg]
    """A cty object that records the types of its null attributes (``atys``: name → type), which
    their values cannot tell: ``{a = "x"}`` converted to ``object({a = string, b =
    optional(list(number))})`` is ``{"a": "x", "b": None}`` with ``b`` a ``list(number)``, as
    terraform records it in state. Made only where such a null is (:func:`typed_object`); equal to
    the plain dict of the same attributes (:func:`equal`)."""

    atys: Any = None


def typed_object(attrs: dict[str, Any], types: Any) -> dict[str, Any]:
    """``attrs`` (a new object's attributes) recording the types (``types``: name → type, no
    ``optional()`` markers) of those that are null, when any such type is known."""
    nulls = {k: t for k, t in types.items() if t != "dynamic" and k in attrs and attrs[k] is None}
    if not nulls:
        return attrs
    out = ObjectVal(attrs)
    out.atys = nulls
    return out


def with_element_type(coll: Any, ety: Any) -> Any:
    """``coll`` (a new list, set or map) recording its element type ``ety`` when its elements
    cannot tell it (it is empty, or holds a null), so that its type is terraform's: an empty
    ``list(string)`` is recorded in state as ``["list","string"]``, not ``["list","dynamic"]``."""
    if ety != "dynamic" and (not coll or None in (coll.values() if isinstance(coll, dict) else coll)):
        coll.ety = ety
    return coll


def is_unknown(v: Any) -> bool:
    return v is UNKNOWN


def is_wholly_known(v: Any) -> bool:
    """True when ``v`` contains no unknown anywhere inside it. (Hot path: a loop, not all() over a
    generator, and no call for a scalar element.)"""
    if v is UNKNOWN:
        return False
    if isinstance(v, dict):
        items: Any = v.values()
    elif isinstance(v, tuple):
        items = v
    else:
        return True
    for x in items:
        if x is UNKNOWN or (isinstance(x, (dict, tuple)) and not is_wholly_known(x)):
            return False
    return True


def cty_type(v: Any) -> Any:
    """The cty JSON type notation of a known value (as terraform writes it in state): see
    :func:`value_type`, which it is (a null has dynamic pseudo-type). State never holds unknowns."""
    if v is UNKNOWN:
        raise TypeError("an unknown value has no type to record in state")
    return value_type(v)


def from_typed_json(value: Any, ty: Any) -> Any:
    """Decode a value stored with cty JSON type notation back into our representation."""
    if value is None:
        return None
    if isinstance(ty, str):
        if ty == "number" and isinstance(value, float) and value.is_integer():
            return int(value)
        if ty == "dynamic":  # a type written by an older strata: no Python list must come out
            return from_plain_json(value)
        return value
    kind = ty[0]
    if kind == "list":
        return with_element_type(ListVal(from_typed_json(x, ty[1]) for x in value), ty[1])
    if kind == "set":
        return with_element_type(SetVal.of(from_typed_json(x, ty[1]) for x in value), ty[1])
    if kind == "tuple":
        return tuple(from_typed_json(x, t) for x, t in zip(value, ty[1], strict=False))
    if kind == "map":
        return with_element_type(MapVal({k: from_typed_json(x, ty[1]) for k, x in value.items()}), ty[1])
    if kind == "object":
        attrs = {k: from_typed_json(value.get(k), t) for k, t in ty[1].items()}
        return typed_object(attrs, ty[1]) if None in attrs.values() else attrs
    return value


def from_plain_json(v: Any) -> Any:
    """Decoded JSON as a value: arrays become tuples (objects stay dicts, scalars as they are)."""
    if isinstance(v, list):
        return tuple(from_plain_json(x) for x in v)
    if isinstance(v, dict):
        return {k: from_plain_json(x) for k, x in v.items()}
    return v


def to_json(v: Any) -> Any:
    """Plain JSON form of a known value (collections become lists/objects, keys sorted as cty does)."""
    if isinstance(v, dict):
        return {k: to_json(v[k]) for k in sorted(v)}
    if isinstance(v, tuple):
        return [to_json(x) for x in v]
    if v is UNKNOWN:
        return None
    return v


def unknown_mask(v: Any) -> Any:
    """Terraform's ``after_unknown`` shape: ``True`` where unknown, nested otherwise."""
    if v is UNKNOWN:
        return True
    if isinstance(v, dict):
        return {k: m for k, x in v.items() if (m := unknown_mask(x)) is not False}
    if isinstance(v, tuple):
        return [unknown_mask(x) for x in v]
    return False


def type_name(v: Any) -> str:
    """A human name for a value's type, used in diagnostics."""
    if v is None:
        return "null"
    if v is UNKNOWN:
        return "unknown"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, ListVal):
        return "list"
    if isinstance(v, SetVal):
        return "set"
    if isinstance(v, tuple):
        return "tuple"
    if isinstance(v, MapVal):
        return "map"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def equal(a: Any, b: Any) -> bool:
    """Strict equality with types: ``[1]`` (tuple) is not ``tolist([1])``, ``1`` is not ``true``.

    Unknown equals only unknown (used to compare planned values, where an
    unknown in both places means "no more known than before").
    """
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is not tb:
        if ta in (int, float) and tb in (int, float):
            return bool(a == b)
        if (ta is ObjectVal or ta is dict) and (tb is ObjectVal or tb is dict):  # both objects
            return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
        return False
    if ta is dict or ta is MapVal:
        if a.keys() != b.keys():
            return False
        return all(equal(a[k], b[k]) for k in a)
    if ta is SetVal:
        return len(a) == len(b) and all(any(equal(x, y) for y in b) for x in a)
    if ta is tuple or ta is ListVal:
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def value_type(v: Any) -> Any:
    """The cty type (JSON type notation) of ``v``, with ``"dynamic"`` for null and unknown
    (our unknowns and untyped nulls carry no type, like cty's ``DynamicVal`` and ``null``).

    The element type of a list, set or map is that of its non-null known elements (or
    ``"dynamic"`` when there are none, or when they disagree).
    """
    if v is None or v is UNKNOWN:
        return "dynamic"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, ListVal):
        return ["list", _collection_elem_type(v, v.ety)]
    if isinstance(v, SetVal):
        return ["set", _collection_elem_type(v, v.ety)]
    if isinstance(v, tuple):
        return ["tuple", [value_type(x) for x in v]]
    if isinstance(v, MapVal):
        return ["map", _collection_elem_type(v.values(), v.ety)]
    if type(v) is ObjectVal and v.atys:
        atys = v.atys
        return ["object", {k: atys.get(k, "dynamic") if v[k] is None else value_type(v[k]) for k in sorted(v)}]
    if isinstance(v, dict):
        return ["object", {k: value_type(v[k]) for k in sorted(v)}]
    return "dynamic"


def _collection_elem_type(items: Any, recorded: Any) -> Any:
    """The one type of a collection's elements: theirs, with a null's or an empty collection's
    unknown parts filled in from its siblings (``[[], ["a"]]`` is a list of list of string), and
    what the collection recorded (:func:`with_element_type`) where no element tells."""
    found: Any = "dynamic" if recorded is None else recorded
    for x in items:
        if x is None:
            continue
        found = merge_types(found, value_type(x))
        if found is None:
            return "dynamic"  # a collection built outside cty's rules; don't guess
    return found


def merge_types(a: Any, b: Any) -> Any:
    """The type both ``a`` and ``b`` are once their ``"dynamic"`` parts are known, or None when
    they differ elsewhere (``list(dynamic)`` and ``list(string)`` merge to ``list(string)``)."""
    if a == b:
        return a
    if a == "dynamic":
        return b
    if b == "dynamic":
        return a
    if isinstance(a, str) or isinstance(b, str) or a[0] != b[0]:
        return None
    if a[0] == "tuple":
        if len(a[1]) != len(b[1]):
            return None
        elems = [merge_types(x, y) for x, y in zip(a[1], b[1], strict=True)]
        return None if None in elems else ["tuple", elems]
    if a[0] == "object":
        if a[1].keys() != b[1].keys():
            return None
        attrs = {k: merge_types(a[1][k], b[1][k]) for k in a[1]}
        return None if None in attrs.values() else ["object", attrs]
    ety = merge_types(a[1], b[1])
    return None if ety is None else [a[0], ety]


def friendly_name(ty: Any) -> str:
    """cty's ``FriendlyName`` of a type in its JSON notation: ``list of string``, ``tuple``, ``object``."""
    if isinstance(ty, str):
        return ty
    kind = ty[0]
    if kind in ("list", "set", "map"):
        return f"{kind} of {friendly_name(ty[1])}"
    return str(kind)


def types_conform(a: Any, b: Any) -> bool:
    """Whether two types (JSON notation) can be the same once every ``"dynamic"`` is known."""
    if a == "dynamic" or b == "dynamic":
        return True
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    if a[0] != b[0]:
        return False
    if a[0] == "tuple":
        return len(a[1]) == len(b[1]) and all(types_conform(x, y) for x, y in zip(a[1], b[1], strict=True))
    if a[0] == "object":
        return a[1].keys() == b[1].keys() and all(types_conform(a[1][k], b[1][k]) for k in a[1])
    return types_conform(a[1], b[1])


def cty_equals(a: Any, b: Any) -> Any:
    """The language's ``==``: ``True``/``False``, or :data:`UNKNOWN` when unknowns decide it.

    Like cty, values whose types can never match are unequal even when parts are unknown;
    otherwise any unknown inside either value makes the comparison unknown.
    """
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if is_wholly_known(a) and is_wholly_known(b):
        return equal(a, b)
    if (a is None) != (b is None) or not types_conform(value_type(a), value_type(b)):
        return False
    return UNKNOWN
