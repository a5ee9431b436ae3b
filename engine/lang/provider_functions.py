"""Provider-defined functions, ``provider::NAME::FUNCTION(...)``, as terraform calls them.

A function is offered by the provider the calling module's ``required_providers`` names ``NAME``
(no configuration of it is needed). Which provider that is, and its functions, is a concern of
the layers above: the command sets a :data:`Resolver` once per run (:func:`set_resolver`), and
this module applies cty's rules of a call around the provider's own work, as terraform's
``providers.FunctionDecl`` does:

- the number of arguments (the fixed parameters, then any number for a variadic one);
- each argument converted to its parameter's type ("Invalid function argument");
- a null argument refused unless its parameter allows null ("argument must not be null");
- an unknown argument makes the result unknown, without calling the provider, unless its
  parameter allows unknown values.

A result that differs from the one planned for the same call fails the call
(:mod:`engine.lang.function_results`). The call itself may fail with :class:`~engine.lang.functions.arguments.ArgumentError` (naming
the argument at fault) or :class:`~engine.diagnostics.FunctionError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.diagnostics import FunctionArityError
from engine.lang import convert as _convert
from engine.lang.function_results import check_result
from engine.lang.functions.arguments import ArgumentError, cty_words
from engine.values import UNKNOWN, is_wholly_known


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of a provider function; ``type`` in cty's JSON type notation."""

    name: str
    type: Any = "dynamic"
    allow_null: bool = False
    allow_unknown: bool = False


@dataclass(frozen=True, slots=True)
class ProviderFunction:
    """A function a provider offers: its signature and how to call it with converted arguments."""

    name: str
    parameters: tuple[Parameter, ...]
    variadic: Parameter | None
    return_type: Any
    call: Callable[[tuple[Any, ...]], Any]
    """The provider's work on the arguments (already checked and converted): the result."""
    provider: str = ""
    """The source address of the provider offering it, once known: its results are then checked
    from plan to apply (:mod:`engine.lang.function_results`)."""

    def signature(self, full_name: str) -> str:
        """``provider::example::label(prefix, parts...)``: how terraform shows it being called."""
        names = [p.name for p in self.parameters] + ([self.variadic.name + "..."] if self.variadic else [])
        return f"{full_name}({', '.join(names)})"

    def parameter(self, index: int) -> Parameter:
        if index < len(self.parameters) or self.variadic is None:
            return self.parameters[min(index, len(self.parameters) - 1)]
        return self.variadic


Resolver = Callable[[Any, str], "Mapping[str, ProviderFunction] | None"]
"""``(module, local provider name)`` → that provider's functions, or None when the module (None:
the root module) does not declare the name in its ``required_providers``."""

_RESOLVER: list[Resolver] = []


def set_resolver(resolver: Resolver | None) -> None:
    """The provider functions of this run (None: none, every call is an unknown function)."""
    _RESOLVER[:] = [resolver] if resolver is not None else []


def functions_of(module: Any, provider: str) -> Mapping[str, ProviderFunction] | None:
    """The functions of the provider ``module`` calls ``provider``; None when it declares none such."""
    if not _RESOLVER:
        return None
    return _RESOLVER[0](module, provider)


def split_name(name: str) -> tuple[str, str]:
    """``provider::example::label`` → ``("example", "label")``."""
    parts = name.split("::")
    return (parts[1], parts[-1]) if len(parts) >= 3 else (name, name)


def not_offered(provider: str, func: str) -> str:
    """terraform's detail for a function the declared provider does not offer, where it offers
    others (a provider with none is as if undeclared)."""
    return f'The function "{func}" is not available from the provider "{provider}".'


def call(fn: ProviderFunction, full_name: str, args: list[Any]) -> Any:
    """``fn`` called with ``args`` under cty's rules (see the module's docstring)."""
    n, fixed = len(args), len(fn.parameters)
    if n < fixed:
        least = " at least" if fn.variadic is not None else ""
        raise FunctionArityError(f'Function "{full_name}" expects{least} {fixed} argument(s). Missing value '
                                 f'for "{fn.parameters[n].name}".', "Not enough function arguments")
    if fn.variadic is None and n > fixed:
        raise FunctionArityError(f'Function "{full_name}" expects only {fixed} argument(s).',
                                 "Too many function arguments")
    converted: list[Any] = []
    for i, v in enumerate(args):
        p = fn.parameter(i)
        if v is None:
            if not p.allow_null:
                raise ArgumentError(i, "argument must not be null.")
            converted.append(None)
            continue
        try:
            converted.append(_convert.convert(v, p.type))
        except _convert.ConversionError as exc:
            raise ArgumentError(i, cty_words(exc)) from None
    if any(not fn.parameter(i).allow_unknown and not is_wholly_known(v) for i, v in enumerate(converted)):
        return UNKNOWN
    result = fn.call(tuple(converted))
    check_result(fn.provider, fn.name, converted, result)
    return result
