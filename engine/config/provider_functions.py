"""Which provider serves ``provider::NAME::FUNCTION(...)`` in a module: the one its
``required_providers`` declares as NAME (terraform's rule: a provider used but not declared there
offers no functions; terraform's own provider offers its functions without running). Set once per run by :func:`use_provider_functions`, for the evaluator
(:mod:`engine.lang.provider_functions`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from engine.config.dynamic import block_expressions
from engine.config.model import Module, ResourceConfig
from engine.lang import expr as E
from engine.lang import terraform_functions
from engine.lang.provider_functions import ProviderFunction, set_resolver
from engine.provider.registry import Providers


class ModuleFunctions:
    """The provider functions each module may call, by the module's local provider names."""

    def __init__(self, root: Module, providers: Providers) -> None:
        self.root = root
        self.providers = providers
        self._by_source: dict[Any, Mapping[str, ProviderFunction]] = {}

    def __call__(self, module: Any, local: str) -> Mapping[str, ProviderFunction] | None:
        m = module if isinstance(module, Module) else self.root
        required = m.required_providers.get(local)
        if required is None:
            return None
        got = self._by_source.get(required.source)
        if got is None and str(required.source) == terraform_functions.SOURCE:
            got = self._by_source[required.source] = {n: replace(f, provider=terraform_functions.SOURCE)
                                                      for n, f in terraform_functions.functions().items()}
        if got is None:
            provider = self.providers.for_functions(required.source)
            functions = getattr(provider, "functions", None)
            offered = functions() if functions is not None else {}
            got = self._by_source[required.source] = {n: replace(f, provider=str(required.source))
                                                      for n, f in offered.items()}
        return got


def use_provider_functions(root: Module, providers: Providers) -> None:
    """The provider functions of this run: those of the providers ``providers`` runs."""
    set_resolver(ModuleFunctions(root, providers))


_CALLS: dict[int, tuple[ResourceConfig, bool]] = {}


def calls_provider_functions(rc: ResourceConfig) -> bool:
    """Whether ``rc``'s arguments (nested and dynamic blocks included) call a provider function:
    apply then evaluates them again, as terraform does, so that the results are checked against
    the plan's (:mod:`engine.lang.function_results`). Remembered per configuration object: apply
    asks it of every instance."""
    got = _CALLS.get(id(rc))
    if got is not None and got[0] is rc:
        return got[1]
    exprs = [a.expr for a in rc.attributes.values()]
    for b in rc.blocks:
        block_expressions(b, exprs)
    found = any(_calls_provider(e) for e in exprs)
    _CALLS[id(rc)] = (rc, found)
    return found


def _calls_provider(e: E.Expr) -> bool:
    stack: list[Any] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
        elif isinstance(x, E.Call) and x.name.startswith("provider::"):
            return True
        elif isinstance(x, E.Expr):
            stack.extend(getattr(x, f.name) for f in fields(x))
    return False
