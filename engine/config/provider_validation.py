"""What each resource's provider says of its configuration at ``strata validate``, as terraform's
validate walk asks it (ValidateResourceConfig, ValidateDataResourceConfig): the configuration
evaluated with every input variable, resource, module output and instance key (``count.index``,
``each``) unknown, local values as far as they are known.

A provider that does not validate configurations (the built-in ones that keep
:class:`~engine.provider.protocol.BaseProvider`'s) is not asked, so validating a large
configuration of them costs nothing more. A resource whose configuration cannot be evaluated here
is left to plan, which reports the mistake with the values it then has.
"""

from __future__ import annotations

from typing import Any

from engine.config.instance import evaluate_instance_config
from engine.config.model import Module
from engine.config.type_checks import module_types
from engine.config.validation import Unvalidated, validate_locals
from engine.diagnostics import Diagnostic
from engine.lang.scope import Scope
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.provider.protocol import BaseProvider, ValidateResourceConfigRequest
from engine.provider.registry import Providers
from engine.values import UNKNOWN


def _validates(provider: Any, data: bool) -> bool:
    """Does ``provider`` have a verdict of its own on a configuration (not BaseProvider's none)?"""
    name = "validate_data_resource_config" if data else "validate_resource_config"
    mine = getattr(type(provider), name, None)
    return mine is not None and mine is not getattr(BaseProvider, name)


def _asked(m: Module, providers: Providers) -> list[tuple[Any, Any, Any]]:
    """The resources of ``m`` (not of the modules it calls) whose providers have a verdict to give:
    (resource, seam, schema) of each."""
    asked: list[tuple[Any, Any, Any]] = []
    for rc in m.resources.values():
        key = m.root_provider_key(rc.provider_key)
        if not providers.known(key):
            continue  # reported as a missing provider
        seam = providers.seam(key)
        if not _validates(seam.provider, rc.addr.mode == "data"):
            continue
        schema = providers.schema(key, rc.addr.type, rc.addr.mode)
        if schema is not None:
            asked.append((rc, seam, schema))
    return asked


def asks_providers(module: Module, providers: Providers) -> bool:
    """Would :func:`provider_verdicts` ask any provider?"""
    return any(_asked(m, providers) for m in module.tree())


async def provider_verdicts(module: Module, providers: Providers) -> list[Diagnostic]:
    """The diagnostics the providers give about the resources of ``module`` and the modules it
    calls, in configuration order."""
    diags: list[Diagnostic] = []
    for m in module.tree():
        asked = _asked(m, providers)
        if not asked:
            continue
        sensitivity = sensitivity_of(m, providers, getattr(m, "root_provider_key", None))
        local_value = validate_locals(m, sensitivity, module_types(m, sensitivity.hidden), [], set())
        variables: dict[str, Any] = dict.fromkeys(m.variables, UNKNOWN)
        resources = Unvalidated(m)
        for rc, seam, schema in asked:
            scope = Scope(variables, local_value, resources,
                          count_index=UNKNOWN if rc.count is not None else None,
                          each=(UNKNOWN, UNKNOWN) if rc.for_each is not None else None, sensitivity=sensitivity)
            config, problems = evaluate_instance_config(rc, schema, scope)
            if problems:  # plan reports them, with the values it then has
                continue
            resp = await seam.validate_resource_config(
                ValidateResourceConfigRequest(rc.addr.type, config), data=rc.addr.mode == "data",
                address=str(rc.addr), subject=rc.range, body=rc)
            diags.extend(resp.diagnostics)
    return diags
