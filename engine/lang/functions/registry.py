"""Every built-in function by name, each checked for its argument count and kept to
:class:`FunctionError`: the one table the evaluator calls through.

:data:`FUNCTIONS` is collected from the families' ``SIGNATURES`` tables; :data:`PARAMS` holds
terraform's parameters of each function as its diagnostics name them, read from the same
signatures (``"join(separator, lists...)"``: ``"..."`` marks the variadic parameter).

Every function is also callable as ``core::NAME``, as in terraform. Before a function runs, a null
given for a parameter that does not take one is refused in terraform's words, naming the parameter.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionArityError, FunctionError
from engine.lang import convert as _convert
from engine.lang.functions import (
    collections,
    conversion,
    crypto,
    encoding,
    filesystem,
    formatting,
    hashing,
    lists,
    network,
    numeric,
    regex,
    sets,
    strings,
    templates,
    timestamps,
    yaml_encoding,
)
from engine.lang.functions.arguments import ArgumentError, cty_words
from engine.lang.functions.terraform_signatures import TERRAFORM_FUNCTIONS
from engine.values import UNKNOWN

_FAMILIES = (collections, conversion, crypto, encoding, filesystem, formatting, hashing, lists, network, numeric,
             regex, sets, strings, templates, timestamps, yaml_encoding)
CORE = "core::"
"""The namespace of the built-in functions: ``core::upper`` is ``upper``."""
# functions the evaluator calls itself, their arguments being expressions (engine.lang.calls)
_EXPRESSION_FUNCTIONS = ("try(expressions...)", "can(expression)")

PARAMS: dict[str, tuple[tuple[str, ...], str | None]] = {}
"""terraform's parameters of each function (``try`` and ``can`` too), and its variadic one."""
_IMPLS: dict[str, Callable[..., Any]] = {}


def _declare(sig: str) -> str:
    """Record ``name(params)``'s parameters in :data:`PARAMS`; its name."""
    m = re.fullmatch(r"(\w+)\(([^)]*)\)", sig)
    assert m is not None, f"not a signature: {sig!r}"
    names = [p.strip() for p in m[2].split(",") if p.strip()]
    variadic = names.pop()[:-3] if names and names[-1].endswith("...") else None
    assert m[1] not in PARAMS, f"function {m[1]} declared twice"
    PARAMS[m[1]] = (tuple(names), variadic)
    return m[1]


for _family in _FAMILIES:
    for _sig, _impl in _family.SIGNATURES.items():
        _IMPLS[_declare(_sig)] = _impl
for _sig in _EXPRESSION_FUNCTIONS:
    _declare(_sig)


def signature(name: str) -> str:
    """``join(separator, lists...)``: how terraform shows a function being called."""
    params, variadic = PARAMS.get(name, ((), None))
    return f"{name}({', '.join([*params, *([variadic + '...'] if variadic else [])])})"


def _arity(name: str, n: int) -> None:
    """terraform's errors for too few or too many arguments."""
    spec = PARAMS.get(name)
    if spec is None:
        return
    params, variadic = spec
    if n < len(params):
        least = " at least" if variadic else ""
        raise FunctionArityError(f'Function "{name}" expects{least} {len(params)} argument(s). Missing value '
                                 f'for "{params[n]}".', "Not enough function arguments")
    if variadic is None and n > len(params):
        raise FunctionArityError(f'Function "{name}" expects only {len(params)} argument(s).',
                                 "Too many function arguments")


_PRIMITIVE = frozenset({"string", "number", "bool"})


def _checks(name: str) -> tuple[tuple[tuple[bool, Any], ...], tuple[bool, Any]]:
    """For each of terraform's parameters of ``name``: whether it takes a null, and the primitive type
    its argument is converted to (None: none); the same for the variadic one."""
    fixed, variadic, _result = TERRAFORM_FUNCTIONS.get(name, ((), None, None))

    def check(p: Any) -> tuple[bool, Any]:
        return (True, None) if p is None else (p[2], p[1] if isinstance(p[1], str) and p[1] in _PRIMITIVE else None)

    return tuple(check(p) for p in fixed), check(variadic)


def _argument(i: int, v: Any, nullable: bool, ty: Any) -> Any:
    """Argument ``i``, as cty hands it to a function: a null refused unless the parameter takes one,
    a primitive converted to the parameter's type."""
    if v is None:
        if not nullable:
            raise ArgumentError(i, "argument must not be null.")
        return v
    if ty is None or v is UNKNOWN:
        return v
    try:
        return _convert.convert(v, ty)
    except _convert.ConversionError as exc:
        raise ArgumentError(i, cty_words(exc)) from None


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` checked for its argument count and with every failure a :class:`FunctionError`."""
    params = inspect.signature(fn).parameters.values()
    lo = sum(1 for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty)
    hi = None if any(p.kind is p.VAR_POSITIONAL for p in params) else len(params)
    fixed, rest = _checks(name)

    def call(*args: Any) -> Any:
        n = len(args)
        _arity(name, n)
        args = tuple(_argument(i, v, *(fixed[i] if i < len(fixed) else rest)) for i, v in enumerate(args))
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if hi == lo else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            raise FunctionArityError(f"Function {name!r} expects {want} argument(s), got {n}.")
        try:
            return fn(*args)
        except FunctionError:
            raise
        except RecursionError:
            raise FunctionError("the value is nested too deeply.") from None
        except Exception as exc:  # noqa: BLE001 - no Python exception may escape a function
            raise FunctionError(f"{type(exc).__name__}: {exc}") from None

    call.__name__ = name
    call.__doc__ = fn.__doc__
    return call


FUNCTIONS: dict[str, Callable[..., Any]] = {name: _guarded(name, fn) for name, fn in _IMPLS.items()}
"""Every function by name: wholly unknown arguments give an unknown result, and nothing but a
:class:`FunctionError` (or :class:`FunctionArityError`) escapes a call."""


def function_named(name: str) -> Callable[..., Any] | None:
    """The function called ``name`` or ``core::name``; None when there is none."""
    return FUNCTIONS.get(name.removeprefix(CORE))


def base_name(name: str) -> str:
    """``upper`` for ``core::upper``: the name the function is declared (and its parameters kept) by."""
    return name.removeprefix(CORE)
