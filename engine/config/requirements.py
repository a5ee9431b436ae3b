"""Provider requirements: a module's ``terraform { required_providers { ... } }`` entries, and every
provider the configuration needs with its source address and version constraints, as terraform
works them out (an undeclared provider's source is implied: ``hashicorp/NAME``)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.addrs import (
    ProviderSource,
    implied_provider_source,
    parse_provider_source,
)
from engine.config.model import Module, RequiredProvider
from engine.diagnostics import Diagnostic, error
from engine.frozen import frozen
from engine.install.versions import Constraints, parse_constraints
from engine.lang import expr as E
from engine.lang.hcl import Block


def read_required_providers(module: Module, b: Block) -> list[Diagnostic]:
    """Add a ``required_providers`` block's entries to ``module``: ``NAME = { source, version }``,
    or the legacy ``NAME = "VERSION"``."""
    diags: list[Diagnostic] = []
    for name, a in b.attributes.items():
        if name in module.required_providers:
            prev = module.required_providers[name].range
            diags.append(error("Duplicate required provider",
                               f"Provider {name} was required more than once. The first requirement is at "
                               f"{prev}.", a.range))
            continue
        source_text: str | None = None
        version_text: str | None = None
        if isinstance(a.expr, E.Literal) and isinstance(a.expr.value, str):
            version_text = a.expr.value
        elif isinstance(a.expr, E.ObjectExpr):
            bad = False
            for k, v in a.expr.items:
                t = None if isinstance(k, E.Literal) else E._traversal(k)
                key = k.value if isinstance(k, E.Literal) else t[0] if t else None
                if key == "source":
                    if isinstance(v, E.Literal) and isinstance(v.value, str):
                        source_text = v.value
                    else:
                        diags.append(error("Invalid source", "Source must be specified as a string.", a.range))
                        bad = True
                elif key == "version":
                    if isinstance(v, E.Literal) and isinstance(v.value, str):
                        version_text = v.value
                    else:
                        diags.append(error("Invalid version constraint",
                                           "Version must be specified as a string.", a.range))
                        bad = True
                elif key == "configuration_aliases":
                    continue
                else:
                    diags.append(error("Invalid required_providers object",
                                       'required_providers objects can only contain "version", "source" and '
                                       '"configuration_aliases" attributes. To configure a provider, use a '
                                       '"provider" block.', a.range))
                    bad = True
            if bad:
                continue
        else:
            diags.append(error("Invalid required_providers syntax",
                               "required_providers entries must be strings or objects.", a.range))
            continue
        source = implied_provider_source(name)
        if source_text is not None:
            try:
                source = parse_provider_source(source_text)
            except ValueError as exc:
                diags.append(error(str(exc.args[0]), str(exc.args[-1]), a.range))
                continue
        constraints: Constraints = ()
        if version_text is not None:
            try:
                constraints = parse_constraints(version_text)
            except ValueError as exc:
                diags.append(error("Invalid version constraint", str(exc), a.range))
                continue
            if source.is_builtin and constraints:
                diags.append(error("Invalid dependency on built-in provider",
                                   f"Cannot use {source}: built-in providers do not support explicit version "
                                   "constraints.", a.range))
                continue
        module.required_providers[name] = RequiredProvider(name, source, constraints, a.range,
                                                           explicit_source=source_text is not None)
    return diags


@frozen
class Requirement:
    """What the configuration asks of one provider: every version constraint on it (merged from all
    the places that name it) and the local names it goes by."""

    source: ProviderSource
    constraints: Constraints
    local_names: tuple[str, ...]


def local_names_used(module: Module) -> set[str]:
    """The provider local names the configuration uses: its provider blocks, its resources' and data
    sources' providers (the type's prefix, or ``provider =``), and its required_providers."""
    names = {pc.name for pc in module.providers.values()}
    names |= {rc.provider_name for rc in module.resources.values()}
    names |= set(module.required_providers)
    return names


def provider_requirements(module: Module, builtin: Mapping[str, ProviderSource] | None = None
                          ) -> dict[ProviderSource, Requirement]:
    """Every provider the configuration needs, by source address. A local name that
    ``required_providers`` does not declare has the implied source: a provider strata has built in
    under that name (``builtin``: local name to source), else ``hashicorp/NAME``."""
    builtin = builtin or {}
    constraints: dict[ProviderSource, list[Constraints]] = {}
    names: dict[ProviderSource, set[str]] = {}
    for name in sorted(local_names_used(module)):
        rp = module.required_providers.get(name)
        if rp is not None:
            source = rp.source
            if not rp.explicit_source and name in builtin:
                source = builtin[name]
            constraints.setdefault(source, []).append(rp.constraints)
        else:
            source = builtin.get(name) or implied_provider_source(name)
            constraints.setdefault(source, [])
        names.setdefault(source, set()).add(name)
    return {s: Requirement(s, tuple(c for cs in constraints[s] for c in cs), tuple(sorted(names[s])))
            for s in sorted(constraints, key=str)}


def local_sources(module: Module, builtin: Mapping[str, ProviderSource] | None = None) -> dict[str, ProviderSource]:
    """Each local name the configuration uses, and the provider source it stands for."""
    return {n: s for s, r in provider_requirements(module, builtin).items() for n in r.local_names}
