"""Converting configuration values to the types a schema declares, as cty's conversion does.

``"5"`` becomes ``5`` for a number, ``5`` becomes ``"5"`` for a string, a
tuple becomes a list or set, an object becomes a map. Unknown and null pass
through. A value that cannot be converted raises :class:`ConversionError`
naming where inside the value the problem is.
"""

from __future__ import annotations

from typing import Any

from engine.diagnostics import FunctionError, StrataError
from engine.lang.number import to_number, to_string
from engine.lang.unify import unify_unsafe
from engine.values import (
    UNKNOWN,
    ListVal,
    MapVal,
    SetVal,
    friendly_name,
    type_name,
    typed_object,
    value_type,
    with_element_type,
)

__all__ = ["ConversionError", "convert", "friendly_name", "unify"]


class ConversionError(StrataError):
    """``message`` says what was given as well (``string required, but have bool.``); ``cty_text``
    is cty's own wording, which terraform uses for variables (``string required.``)."""

    def __init__(self, path: str, message: str, short: str | None = None) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message
        self.short = short if short is not None else message.split(", but ", 1)[0].rstrip(".") + "."

    @property
    def cty_text(self) -> str:
        return f"{self.path}: {self.short}" if self.path else self.short


def convert(value: Any, ty: Any, path: str = "") -> Any:
    """``value`` converted to cty type ``ty`` (JSON type notation)."""
    if value is None or value is UNKNOWN or ty == "dynamic":
        return value
    if ty == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, (bool, int, float)):
            return to_string(value)
        raise ConversionError(path, f"string required, but have {type_name(value)}.")
    if ty == "number":
        if isinstance(value, bool):
            raise ConversionError(path, "number required, but have bool.")
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, str):
            try:
                return to_number(value)
            except FunctionError:
                raise ConversionError(path, f'a number is required, but "{value}" is not a number.',
                                      "a number is required.") from None
        raise ConversionError(path, f"number required, but have {type_name(value)}.")
    if ty == "bool":
        if isinstance(value, bool):
            return value
        if value in ("true", "false"):
            return value == "true"
        raise ConversionError(path, f"bool required, but have {type_name(value)}.",
                              "a bool is required." if isinstance(value, str) else None)
    kind = ty[0]
    if kind in ("list", "set"):
        if not isinstance(value, tuple) or isinstance(value, dict):
            raise ConversionError(path, f"{friendly_name(ty)} required, but have {type_name(value)}.")
        items = [convert(x, ty[1], f"{path}[{i}]") for i, x in enumerate(value)]
        if items and _has_dynamic(ty[1]):
            items = _unified(items, [f"{path}[{i}]" for i in range(len(items))], kind)
        return with_element_type(ListVal(items) if kind == "list" else SetVal.of(items), concrete(ty[1]))
    if kind == "map":
        if not isinstance(value, dict):
            raise ConversionError(path, f"{friendly_name(ty)} required, but have {type_name(value)}.")
        elems = {k: convert(x, ty[1], f'{path}["{k}"]') for k, x in value.items()}
        if elems and _has_dynamic(ty[1]):
            keys = sorted(elems)
            elems = dict(zip(keys, _unified([elems[k] for k in keys], [f'{path}["{k}"]' for k in keys], "map"),
                             strict=True))
        return with_element_type(MapVal(elems), concrete(ty[1]))
    if kind == "tuple":
        if not isinstance(value, tuple) or len(value) != len(ty[1]):
            raise ConversionError(path, f"tuple of {len(ty[1])} elements required.")
        return tuple(convert(x, t, f"{path}[{i}]") for i, (x, t) in enumerate(zip(value, ty[1], strict=True)))
    if kind == "object":
        if not isinstance(value, dict):
            raise ConversionError(path, f"object required, but have {type_name(value)}.")
        attrs: dict[str, Any] = ty[1]
        optional = set(ty[2]) if len(ty) > 2 else set()
        extra = set(value) - set(attrs)
        if extra:
            raise ConversionError(path, f'unsupported attribute "{sorted(extra)[0]}".')
        out = {}
        for k, t in attrs.items():
            if k not in value and k not in optional:
                raise ConversionError(path, f'attribute "{k}" is required.')
            out[k] = convert(value.get(k), t, f"{path}.{k}" if path else k)
        if None not in out.values():
            return out
        return typed_object(out, {k: concrete(t) for k, t in attrs.items() if out[k] is None})
    return value


def concrete(ty: Any) -> Any:
    """``ty`` without ``optional()``'s markers (an object type's third element): the type a
    converted value has (an empty ``list(object({p = optional(string)}))`` is a list of
    ``object({p = string})``)."""
    if not isinstance(ty, list):
        return ty
    kind = ty[0]
    if kind == "object":
        return ["object", {k: concrete(t) for k, t in ty[1].items()}]
    if kind == "tuple":
        return ["tuple", [concrete(t) for t in ty[1]]]
    return [kind, concrete(ty[1])]


def _has_dynamic(ty: Any) -> bool:
    if isinstance(ty, str):
        return ty == "dynamic"
    if ty[0] == "tuple":
        return any(_has_dynamic(t) for t in ty[1])
    if ty[0] == "object":
        return any(_has_dynamic(t) for t in ty[1].values())
    return _has_dynamic(ty[1])


def _unified(items: list[Any], paths: list[str], kind: str) -> list[Any]:
    """The elements of a collection whose element type leaves something to ``any``, converted to
    the one type they unify to, as cty makes ``list(any)`` of ``[1, "a"]`` a list of string."""
    types = [value_type(x) for x in items]
    ty = unify_unsafe(types)
    if ty is None:
        noun = "map" if kind == "map" else "list" if kind == "list" else "set"
        raise ConversionError("", f"all {noun} elements must have the same type.")
    if ty == "dynamic":
        return items
    return [x if t == ty else convert(x, ty, p) for x, t, p in zip(items, types, paths, strict=True)]


# --------------------------------------------------------------------------- unification


def _kind(ty: Any) -> str:
    if isinstance(ty, str):
        return "primitive"
    if ty[0] in ("tuple", "list"):
        return "sequence"
    if ty[0] in ("object", "map"):
        return "mapping"
    return "set"


def _elem_types(ty: Any) -> list[Any]:
    if ty[0] == "tuple":
        return list(ty[1])
    if ty[0] == "object":
        return list(ty[1].values())
    return [ty[1]]


def unify(types: list[Any]) -> Any:
    """The single type all of ``types`` convert to, as cty's unsafe unification finds it, or
    None when there is none (``number`` and ``bool`` meet only in ``string``; a structure never
    meets a primitive). ``"dynamic"`` (a null or unknown) fits any type.
    """
    concrete = [t for t in types if t != "dynamic"]
    if not concrete:
        return "dynamic"
    first = concrete[0]
    if all(t == first for t in concrete):
        return first
    kinds = {_kind(t) for t in concrete}
    if kinds == {"primitive"}:
        return "string" if "string" in concrete else None
    if kinds == {"sequence"}:
        if all(t[0] == "tuple" for t in concrete) and len({len(t[1]) for t in concrete}) == 1:
            elems = [unify([t[1][i] for t in concrete]) for i in range(len(first[1]))]
            return None if any(e is None for e in elems) else ["tuple", elems]
        ety = unify([e for t in concrete for e in _elem_types(t)])
        return None if ety is None else ["list", ety]
    if kinds == {"set"} or kinds == {"set", "sequence"}:
        ety = unify([e for t in concrete for e in _elem_types(t)])
        return None if ety is None else ["set", ety]
    if kinds == {"mapping"}:
        if all(t[0] == "object" for t in concrete) and all(t[1].keys() == first[1].keys() for t in concrete):
            attrs = {k: unify([t[1][k] for t in concrete]) for k in first[1]}
            return None if any(a is None for a in attrs.values()) else ["object", attrs]
        ety = unify([e for t in concrete for e in _elem_types(t)])
        return None if ety is None else ["map", ety]
    return None
