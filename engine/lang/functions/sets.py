"""Set functions: ``setunion``, ``setintersection``, ``setsubtract`` (sets of one unified element
type) and ``setproduct`` (every combination of the elements of sets or lists)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang import convert as _convert
from engine.lang.functions.arguments import ArgumentError
from engine.values import UNKNOWN, ListVal, SetVal, equal, is_wholly_known, value_type


def _sets(args: tuple[Any, ...], partial: bool = False) -> list[SetVal] | None:
    """The arguments as sets of one element type; None when one is unknown (or has an unknown
    element, unless ``partial``)."""
    for i, a in enumerate(args):
        if a is None:
            raise ArgumentError(i, "argument must not be null")
        if a is not UNKNOWN and (not isinstance(a, tuple)):
            raise ArgumentError(i, "set of any single type required")
    known = [a for a in args if a is not UNKNOWN]
    ety = _convert.unify([e for a in known for e in [_elem_type(a)]])
    if ety is None:
        raise FunctionError("given sets must all have compatible element types.")
    if len(known) < len(args) or not (partial or all(is_wholly_known(a) for a in known)):
        return None
    return [SetVal.of(_convert.convert(tuple(a), ["list", ety])) for a in args]


def _elem_type(a: tuple[Any, ...]) -> Any:
    ety = _convert.unify([value_type(x) for x in a])
    if ety is None:
        raise FunctionError("given sets must all have compatible element types.")
    return ety


def _has(s: Sequence[Any], v: Any) -> bool:
    return any(equal(v, x) for x in s)


def setunion(first_set: Any, *other_sets: Any) -> Any:
    sets = _sets((first_set, *other_sets), partial=True)  # an unknown element is one more element
    if sets is None:
        return UNKNOWN
    out: list[Any] = []
    for s in sets:
        out.extend(x for x in s if x is UNKNOWN or not _has(out, x))
    return SetVal.of(out)


def setintersection(first_set: Any, *other_sets: Any) -> Any:
    sets = _sets((first_set, *other_sets))
    if sets is None:
        return UNKNOWN
    return SetVal.of([x for x in sets[0] if all(_has(s, x) for s in sets[1:])])


def setsubtract(a: Any, b: Any) -> Any:
    sets = _sets((a, b))
    if sets is None:
        return UNKNOWN
    return SetVal.of([x for x in sets[0] if not _has(sets[1], x)])


def setproduct(*sets: Any) -> Any:
    if len(sets) < 2:
        raise FunctionError("at least two arguments are required.")
    lists = False
    for i, s in enumerate(sets):
        if s is None:
            raise ArgumentError(i, "argument must not be null")
        if s is UNKNOWN:
            continue
        if not isinstance(s, tuple):
            raise ArgumentError(i, "a set or a list is required")
        lists = lists or not isinstance(s, SetVal)
    if any(s is UNKNOWN for s in sets):
        return UNKNOWN
    parts = []
    for s in sets:
        ety = _elem_type(s)
        parts.append(_convert.convert(tuple(s), ["list", ety]))
    combos = [tuple(c) for c in itertools.product(*parts)]
    return ListVal(combos) if lists else SetVal.of(combos)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "setintersection(first_set, other_sets...)": setintersection,
    "setproduct(sets...)": setproduct,
    "setsubtract(a, b)": setsubtract,
    "setunion(first_set, other_sets...)": setunion,
}
