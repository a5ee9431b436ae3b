"""The provider blocks of a module, before any plan: are the providers and resource types it uses
known, with the arguments their schemas take; and the providers configured with their evaluated
arguments (terraform's provider nodes, in the plan walk and again in the apply of a saved plan).

Planning and applying a saved plan both use this: neither needs the other to get providers ready.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.addrs import ModulePath, ResourceAddr, resource_addr
from engine.config.constants import _NoResources
from engine.config.instance import evaluate_blocks
from engine.config.locals import LocalValues
from engine.config.model import Module, ResourceConfig
from engine.config.suggestions import unsupported_argument
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.provider.registry import Providers
from engine.values import UNKNOWN

LocalValue = Callable[[str, int], Any]
"""``local_value(name, line)``: the value of ``local.NAME`` (``line``: where it is referred to, for
an error's position)."""


def check_resource_types(module: Module, providers: Providers) -> list[Diagnostic]:
    """What is wrong with the providers and resource types ``module`` uses: an unknown provider, an
    alias with no block, a type the provider does not have, an argument its schema does not take or
    computes, a required one missing. Empty when nothing is."""
    diags: list[Diagnostic] = []
    for pc in module.providers.values():
        if not providers.known(pc.name):
            diags.append(error("Unknown provider", f'There is no provider named "{pc.name}". '
                               "Built-in providers: " + ", ".join(sorted(_builtin_names())) + ".", pc.range))
    for rc in all_resources(module):
        pname = rc.provider_name
        if rc.provider_ref and "." in rc.provider_ref and rc.provider_ref not in module.providers:
            diags.append(error("Provider configuration not present",
                               f"To work with {rc.addr} its original provider configuration at "
                               f'provider["{rc.provider_ref}"] is required, but no provider block '
                               "with that alias is declared.", rc.range, str(rc.addr)))
            continue
        if not providers.known(pname):
            diags.append(error("Missing required provider",
                               f'The resource type "{rc.addr.type}" belongs to provider "{pname}", '
                               "which is not installed. Built-in providers: "
                               + ", ".join(sorted(_builtin_names())) + ".", rc.range, str(rc.addr)))
            continue
        schema = providers.schema(pname, rc.addr.type, rc.addr.mode)
        if schema is None:
            what = "resource type" if rc.addr.mode == "managed" else "data source"
            diags.append(error(f"Invalid {what}", f'The provider {pname} does not support {what} '
                               f'"{rc.addr.type}".', rc.range, str(rc.addr)))
            continue
        for name, a in rc.attributes.items():
            if name not in schema.attributes:
                diags.append(error("Unsupported argument", unsupported_argument(name, schema.attributes,
                                                                                 schema.blocks), a.range))
            elif schema.attributes[name].computed and not schema.attributes[name].optional:
                diags.append(error("Invalid or unknown key",
                                   f'The attribute "{name}" of {rc.addr.type} is computed by the '
                                   "provider and cannot be set in configuration.", a.range, str(rc.addr)))
        for name, a_s in schema.attributes.items():
            if a_s.required and name not in rc.attributes:
                diags.append(error("Missing required argument",
                                   f'The argument "{name}" is required, but no definition was found.', rc.range))
    return diags


async def configure_providers(module: Module, providers: Providers, variables: dict[str, Any],
                              local_value: LocalValue, diags: list[Diagnostic]) -> None:
    """Call configure() on every provider configuration in use, with its evaluated arguments;
    mistakes and the providers' diagnostics are added to ``diags``. Once ``diags`` holds anything,
    no further provider is configured (its arguments are still checked)."""
    keys = {rc.provider_key for rc in all_resources(module)} | set(module.providers)
    for key in sorted(keys):
        pc = module.providers.get(key)
        config: dict[str, Any] = {}
        if pc is not None:
            pschema = providers.provider_schema(pc.name)
            allowed = pschema.attributes if pschema is not None else {}
            for name, attr in pc.attributes.items():
                if name not in allowed:
                    diags.append(error("Unsupported argument",
                                       f'An argument named "{name}" is not expected in a provider '
                                       f'"{pc.name}" block'
                                       + (f" (it takes: {', '.join(sorted(allowed))})." if allowed
                                          else "; it takes no arguments."), attr.range))
                    continue
                try:
                    config[name] = evaluate(attr.expr, Scope(variables, local_value, _NoResources()))
                except EvalError as exc:
                    diags.append(exc.error(SourceRange(attr.range.filename, exc.line)))
            if pc.blocks or (pschema is not None and pschema.blocks):
                declared = pschema.blocks if pschema is not None else {}
                config.update(evaluate_blocks(pc.blocks, declared,
                                              Scope(variables, local_value, _NoResources()), pc.range, diags))
            for name, a in allowed.items():
                if a.required and name not in pc.attributes:
                    diags.append(error("Missing required argument",
                                       f'The argument "{name}" is required in provider "{pc.name}".', pc.range))
        if diags:
            continue
        diags.extend(await providers.seam(key).configure(config, subject=pc.range if pc else None))


def all_resources(module: Module) -> list[ResourceConfig]:
    """The resources of ``module`` and of every module it calls, each as the root sees it: its
    module's configuration path in its address (no instance keys), its provider the root's
    configuration that serves it."""
    out = list(module.resources.values())
    for m in module.tree()[1:]:
        path = ModulePath(tuple((n, None) for n in m.path))
        out.extend(replace(rc, addr=resource_addr(rc.addr.type, rc.addr.name, rc.addr.mode, path),
                           provider_ref=m.root_provider_key(rc.provider_key)) for rc in m.resources.values())
    return out


def unplanned_locals(module: Module, providers: Providers, variables: dict[str, Any],
                     diags: list[Diagnostic]) -> LocalValues:
    """Local values where nothing is planned (a saved plan's apply configures its providers with
    them): every resource is unknown, as to a plan that has planned none yet. Mistakes are added
    to ``diags`` and the value is then unknown."""
    sensitivity = sensitivity_of(module, providers)
    resources = _Unplanned(module)

    def scope() -> Scope:
        return Scope(variables, values, resources, sensitivity=sensitivity)

    values = LocalValues(module, scope, lambda lc, exc: diags.append(
        exc.error(SourceRange(lc.range.filename, exc.line))))
    return values


class _Unplanned:
    """Resources of the configuration, none planned: each one's value is unknown."""

    def __init__(self, module: Module) -> None:
        self.module = module

    def has_resource(self, addr: ResourceAddr) -> bool:
        return addr in self.module.resources

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return False

    def expansion(self, addr: ResourceAddr) -> str:
        return "single"

    def instance_value(self, addr: ResourceAddr, key: Any) -> Any:
        return UNKNOWN

    def resource_value(self, addr: ResourceAddr) -> Any:
        return UNKNOWN


def _builtin_names() -> list[str]:
    from engine.provider.registry import factories

    return list(factories())
