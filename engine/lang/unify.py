"""cty's unsafe type unification: the one type several values convert to, as terraform finds it
for the two results of a conditional (``true ? ["x"] : []`` is a ``list(string)``) and for the
elements of a collection that gets optional-attribute defaults.

The rules (go-cty ``convert.UnifyUnsafe``):

* types all of one structural kind unify structurally: maps (with objects) to a map of the
  unified element type, lists (with tuples) to a list, sets to a set, objects with the same
  attribute names attribute by attribute (else to a map), tuples of one length element by element
  (else to a list); an object never meets a tuple;
* a ``"dynamic"`` among collections or structures makes the result ``"dynamic"``;
* otherwise the result is the most general of the given types to which every other converts:
  ``string`` before ``number`` and ``bool`` (which never meet each other), a list before a tuple,
  a map before an object, a set before a list or tuple.

Types are in cty's JSON notation. :func:`unify_unsafe` returns None when there is no such type;
:func:`mismatch` says why in hcl's words.
"""

from __future__ import annotations

from typing import Any

from engine.values import friendly_name

_PRIMITIVE = ("string", "number", "bool")


def _kind(ty: Any) -> str:
    return ty if isinstance(ty, str) else str(ty[0])


def unify_unsafe(types: list[Any]) -> Any:
    """The type every one of ``types`` converts to, or None when there is none."""
    if not types:
        return None
    first = types[0]
    if all(t == first for t in types[1:]):
        return first
    counts: dict[str, int] = {}
    for t in types:
        k = _kind(t)
        counts[k] = counts.get(k, 0) + 1
    n, dyn = len(types), counts.get("dynamic", 0)
    maps, lists, sets = counts.get("map", 0), counts.get("list", 0), counts.get("set", 0)
    objects, tuples = counts.get("object", 0), counts.get("tuple", 0)
    if maps and maps + dyn == n:
        return _collections("map", types, dyn)
    if maps and maps + objects + dyn == n:
        got = _objects_as_map([t for t in types if _kind(t) == "object"])
        if got is not None:
            merged = unify_unsafe([got if _kind(t) == "object" else t for t in types])
            if merged is not None and _kind(merged) == "map":
                return merged
    elif lists and lists + dyn == n:
        return _collections("list", types, dyn)
    elif lists and lists + tuples + dyn == n:
        got = _tuples_as_list([t for t in types if _kind(t) == "tuple"])
        if got is not None:
            merged = unify_unsafe([got if _kind(t) == "tuple" else t for t in types])
            if merged is not None and _kind(merged) == "list":
                return merged
    elif sets and sets + dyn == n:
        return _collections("set", types, dyn)
    elif objects and objects + dyn == n:
        return "dynamic" if dyn else _objects(types)
    elif tuples and tuples + dyn == n:
        return "dynamic" if dyn else _tuples(types)
    elif objects and tuples:
        return None
    for want in _preference(types):
        if all(t == want or convertible(t, want) for t in types):
            return want
    return None


def _collections(kind: str, types: list[Any], dyn: int) -> Any:
    if dyn:
        return "dynamic"
    ety = unify_unsafe([t[1] for t in types])
    return None if ety is None else [kind, ety]


def _objects(types: list[Any]) -> Any:
    names = types[0][1].keys()
    if any(t[1].keys() != names for t in types[1:]):
        return _objects_as_map(types)
    attrs = {}
    for name in sorted(names):
        aty = unify_unsafe([t[1][name] for t in types])
        if aty is None:
            return None
        attrs[name] = aty
    return ["object", attrs]


def _objects_as_map(types: list[Any]) -> Any:
    ety = unify_unsafe([a for t in types for a in t[1].values()])
    if ety is None:
        return None
    ty = ["map", ety]
    return ty if all(convertible(t, ty) for t in types) else None


def _tuples(types: list[Any]) -> Any:
    size = len(types[0][1])
    if any(len(t[1]) != size for t in types[1:]):
        return _tuples_as_list(types)
    elems = []
    for i in range(size):
        ety = unify_unsafe([t[1][i] for t in types])
        if ety is None:
            return None
        elems.append(ety)
    return ["tuple", elems]


def _tuples_as_list(types: list[Any]) -> Any:
    ety = unify_unsafe([e for t in types for e in t[1]])
    if ety is None:
        return None
    ty = ["list", ety]
    return ty if all(convertible(t, ty) for t in types) else None


def convertible(src: Any, dst: Any) -> bool:
    """Whether cty has an (unsafe) conversion from type ``src`` to type ``dst``."""
    if src == dst or dst == "dynamic" or src == "dynamic":
        return True
    ks, kd = _kind(src), _kind(dst)
    if ks in _PRIMITIVE and kd in _PRIMITIVE:
        return "string" in (ks, kd)
    if ks in _PRIMITIVE or kd in _PRIMITIVE:
        return False
    if kd == "object":
        if ks == "object":
            optional = set(dst[2]) if len(dst) > 2 else set()
            return (all(k in src[1] or k in optional for k in dst[1])
                    and all(convertible(src[1][k], dst[1][k]) for k in dst[1] if k in src[1]))
        return ks == "map" and all(convertible(src[1], a) for a in dst[1].values())
    if kd == "tuple":
        return ks == "tuple" and len(src[1]) == len(dst[1]) and all(
            convertible(a, b) for a, b in zip(src[1], dst[1], strict=True))
    if kd in ("list", "set"):
        if ks in ("list", "set"):
            return convertible(src[1], dst[1])
        return ks == "tuple" and all(convertible(e, dst[1]) for e in src[1])
    if kd == "map":
        if ks == "map":
            return convertible(src[1], dst[1])
        return ks == "object" and all(convertible(a, dst[1]) for a in src[1].values())
    return False


def _compare(a: Any, b: Any) -> int:
    """cty's ``compareTypes``: negative when ``a`` is more general than ``b``, positive when
    ``b`` is, 0 when neither."""
    if a == "dynamic" or b == "dynamic":
        return 0 if a == b else (-1 if b == "dynamic" else 1)
    ka, kb = _kind(a), _kind(b)
    if ka in _PRIMITIVE and kb in _PRIMITIVE:
        if "string" in (ka, kb):
            return 0 if ka == kb else (-1 if ka == "string" else 1)
        return 0
    if ka == kb and ka in ("list", "set", "map"):
        return _compare(a[1], b[1])
    swap = 1
    if (ka, kb) in (("tuple", "list"), ("object", "map"), ("set", "tuple"), ("set", "list")):
        a, b, ka, kb, swap = b, a, kb, ka, -1
    if kb == "set" and ka in ("tuple", "list"):
        return -swap
    if (ka, kb) in (("list", "tuple"), ("map", "object")):
        return -swap
    if ka == kb and ka in ("object", "tuple"):
        pa, pb = a[1], b[1]
        if len(pa) != len(pb):
            return 0
        keys = range(len(pa)) if ka == "tuple" else list(pa)
        if ka == "object" and any(k not in pb for k in keys):
            return 0
        cmps = [_compare(pa[k], pb[k]) for k in keys]
        a_super, b_super = any(c < 0 for c in cmps), any(c > 0 for c in cmps)
        if a_super and not b_super:
            return -swap
        if b_super and not a_super:
            return swap
    return 0


def _preference(types: list[Any]) -> list[Any]:
    """``types`` most general first (a topological order of :func:`_compare`, stable)."""
    n = len(types)
    edges: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    for i in range(n - 1):
        for j in range(i + 1, n):
            c = _compare(types[i], types[j])
            if c < 0:
                edges[i].append(j)
                indegree[j] += 1
            elif c > 0:
                edges[j].append(i)
                indegree[i] += 1
    queue = [i for i in range(n) if indegree[i] == 0]
    order: list[int] = []
    while queue:
        i = queue.pop(0)
        order.append(i)
        for j in edges[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                queue.append(j)
    return [types[i] for i in order]


def mismatch(true_ty: Any, false_ty: Any) -> str:
    """hcl's account of why a conditional's two result types differ (its
    ``describeConditionalTypeMismatch``), without the final period."""
    kt, kf = _kind(true_ty), _kind(false_ty)
    if kt == kf == "object":
        ta, fa = true_ty[1], false_ty[1]
        for name in sorted(ta):
            if name not in fa:
                return f"The 'true' value includes object attribute \"{name}\", which is absent in the 'false' value"
            if ta[name] != fa[name]:
                return f'Type mismatch for object attribute "{name}": ' + mismatch(ta[name], fa[name])
        for name in sorted(fa):
            if name not in ta:
                return f"The 'false' value includes object attribute \"{name}\", which is absent in the 'true' value"
    elif kt == kf == "tuple":
        te, fe = true_ty[1], false_ty[1]
        if len(te) != len(fe):
            return f"The 'true' tuple has length {len(te)}, but the 'false' tuple has length {len(fe)}"
        for i, (a, b) in enumerate(zip(te, fe, strict=True)):
            if a != b:
                return f"Type mismatch for tuple element {i}: " + mismatch(a, b)
    elif kt == kf and kt in ("list", "set", "map") and _kind(true_ty[1]) == _kind(false_ty[1]) in ("object", "tuple"):
        return f"Mismatched {kt} element types: " + mismatch(true_ty[1], false_ty[1])
    return f"The 'true' value is {friendly_name(true_ty)}, but the 'false' value is {friendly_name(false_ty)}"
