"""Before any operation: the providers the configuration requires are the ones ``init`` installed,
as the lock file records them (terraform checks this on every run); and each local name is served
by the provider its source names -- an installed plugin, else a built-in."""

from __future__ import annotations

from engine.addrs import ProviderSource
from engine.config.model import Module
from engine.config.provider_functions import use_provider_functions
from engine.config.requirements import Requirement, local_sources, provider_requirements
from engine.diagnostics import DiagnosticsError
from engine.install.installed import check_installed
from engine.provider.registry import Providers, builtin_sources, factories


def builtin_served(requirements: dict[ProviderSource, Requirement],
                   providers: Providers | None = None) -> set[ProviderSource]:
    """The required sources strata serves without a plugin: its built-ins, providers a package
    registers under the local name (the ``strata.providers`` entry points), and those a caller
    gave ``providers`` as instances (an embedding program's, a test's)."""
    served = set(builtin_sources().values())
    rest = [r for s, r in requirements.items() if s not in served and not s.is_builtin]
    if rest:
        known = set(factories()) | (set(providers.instances) if providers is not None else set())
        served |= {r.source for r in rest if any(n in known for n in r.local_names)}
    return served


def require_installed(module: Module, directory: str, providers: Providers) -> None:
    """DiagnosticsError, in terraform's words and naming the provider, when the lock file or
    ``.terraform/providers`` does not agree with what the configuration requires."""
    builtin = builtin_sources()
    requirements = provider_requirements(module, builtin)
    diags = check_installed({s: r.constraints for s, r in requirements.items()},
                            builtin_served(requirements, providers), directory)
    if diags:
        raise DiagnosticsError(diags)
    providers.local_sources.update(local_sources(module, builtin))
    use_provider_functions(module, providers)
