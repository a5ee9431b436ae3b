"""A resource's (or a module call's) instances: ``count`` and ``for_each`` evaluated into keys,
each with the scope its instance's configuration is evaluated in; or terraform's error saying why
they cannot be. Planning expands resources and module calls; apply expands module calls again
(their keys were known when planned, so they are the same)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from engine.addrs import InstanceKey
from engine.config.model import ModuleCall, ResourceConfig
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.frozen import frozen
from engine.lang.convert import ConversionError, convert
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.memory import tick
from engine.values import UNKNOWN, SetVal, is_wholly_known, type_name

T = TypeVar("T")

ScopeOf = Callable[[int | None, tuple[Any, Any] | None], Scope]
"""``scope_of(count_index, each)``: the scope of an instance (``each``: its key and value)."""


@frozen
class Instances:
    """How a resource expands (``kind``: "single", "count" or "for_each", as its configuration
    says) and its instances in key order, each with its scope (one, keyed None, when single)."""

    kind: str
    instances: tuple[tuple[InstanceKey, Scope], ...]


def kind_of(rc: ResourceConfig | ModuleCall) -> str:
    """How ``rc`` expands, from its configuration alone."""
    return "count" if rc.count is not None else ("for_each" if rc.for_each is not None else "single")


_COUNT_NULL = 'The given "count" argument value is null. An integer is required.'
_COUNT_WHOLE = ('The given "count" argument value is unsuitable: value must be a whole number, between '
                "-9223372036854775808 and 9223372036854775807.")
_COUNT_UNKNOWN = ('The "count" value depends on resource attributes that cannot be determined until apply, '
                  "so strata cannot predict how many instances will be created. To work around this, use the "
                  "-target argument to first apply only the resources that the count depends on.")
_FOR_EACH_UNKNOWN = (
    'The "for_each" set includes values derived from resource attributes that cannot be determined until '
    "apply, and so strata cannot determine the full set of keys that will identify the instances of this "
    "resource.\n\nWhen working with unknown values in for_each, it's better to use a map value where the "
    "keys are defined statically in your configuration and where only the values contain apply-time results."
    "\n\nAlternatively, you could use the -target planning option to first apply only the resources that "
    "the for_each value depends on, and then apply a second time to fully converge.")


def expand(rc: ResourceConfig | ModuleCall, scope_of: ScopeOf) -> Instances | Diagnostic:
    """``rc``'s instances, its ``count`` or ``for_each`` evaluated in the resource's scope
    (``scope_of(None, None)``); the diagnostic of the first mistake otherwise."""
    if rc.count is not None:
        return _count(rc, rc.count.expr, rc.count.range, scope_of)
    if rc.for_each is not None:
        return _for_each(rc, rc.for_each.expr, rc.for_each.range, scope_of)
    return Instances("single", ((None, scope_of(None, None)),))


def _count(rc: ResourceConfig | ModuleCall, expr: Any, where: SourceRange, scope_of: ScopeOf) -> Instances | Diagnostic:
    try:
        n = evaluate(expr, scope_of(None, None))
    except EvalError as exc:
        return exc.error(SourceRange(rc.range.filename, exc.line))
    if n is UNKNOWN:
        return error("Invalid count argument", _COUNT_UNKNOWN, where)
    if n is not None and not isinstance(n, (int, float)) or isinstance(n, bool):
        try:
            n = convert(n, "number")
        except ConversionError as exc:  # as terraform: cty's words, a string that is no number
            return error("Incorrect value type", f"Invalid expression value: {exc.cty_text}", where)
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or not -(1 << 63) <= n < 1 << 63:  # cty's int64, as terraform's
        return error("Invalid count argument", _COUNT_NULL if n is None else _COUNT_WHOLE, where)
    if n < 0:
        return error("Invalid count argument", 'The given "count" argument value is unsuitable: must be greater '
                     "than or equal to zero.", where)
    return Instances("count", tuple(_counted((i, scope_of(i, None)) for i in range(n))))


def _for_each(rc: ResourceConfig | ModuleCall, expr: Any, where: SourceRange, scope_of: ScopeOf) -> Instances | Diagnostic:
    try:
        fe = evaluate(expr, scope_of(None, None))
    except EvalError as exc:
        return exc.error(SourceRange(rc.range.filename, exc.line))
    if fe is UNKNOWN or not is_wholly_known(fe) and not isinstance(fe, dict):
        return error("Invalid for_each argument", _FOR_EACH_UNKNOWN, where)
    if isinstance(fe, dict):
        items = sorted(fe.items())
    elif isinstance(fe, SetVal):
        if any(x is None for x in fe):
            return error("Invalid for_each set argument", 'The given "for_each" argument value is unsuitable: '
                         '"for_each" sets must not contain null values.', where)
        if not all(isinstance(x, str) for x in fe):
            return error("Invalid for_each set argument", "The given \"for_each\" argument value is unsuitable: "
                         "\"for_each\" supports sets of strings, but you have provided a set containing other "
                         "types.", where)
        items = [(x, x) for x in sorted(fe)]
    else:
        return error("Invalid for_each argument", 'The given "for_each" argument value is unsuitable: the '
                     '"for_each" argument must be a map, or set of strings, and you have provided a value of '
                     f"type {type_name(fe)}.", where)
    return Instances("for_each", tuple(_counted((k, scope_of(None, (k, v))) for k, v in items)))


def _counted(items: Iterable[T]) -> Iterator[T]:
    """``items``, each counted against the address space's headroom (a count may be far larger
    than intended)."""
    for item in items:
        tick()
        yield item
