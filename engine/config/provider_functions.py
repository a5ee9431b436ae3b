"""Which provider serves ``provider::NAME::FUNCTION(...)`` in a module: the one its
``required_providers`` declares as NAME (terraform's rule: a provider used but not declared there
offers no functions; terraform's own provider offers its functions without running). Set once per run by :func:`use_provider_functions`, for the evaluator
(:mod:`engine.lang.provider_functions`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config.model import Module
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
            got = self._by_source[required.source] = terraform_functions.functions()
        if got is None:
            provider = self.providers.for_functions(required.source)
            functions = getattr(provider, "functions", None)
            got = self._by_source[required.source] = functions() if functions is not None else {}
        return got


def use_provider_functions(root: Module, providers: Providers) -> None:
    """The provider functions of this run: those of the providers ``providers`` runs."""
    set_resolver(ModuleFunctions(root, providers))
