"""``module`` blocks: decoded from their block, and checked against the module they call once it is
loaded (its input variables given, its providers passed or inherited), in terraform's words.

A local source (``./``, ``../``) is its caller's directory joined with the path; any other source
is loaded from where ``init`` installed it (``.terraform/modules/modules.json``), and a call that
is not installed, or not as it is now written, says so in terraform's words.
"""

from __future__ import annotations

import os

from engine.config.decode import _depends_on, depends_on_modules, depends_on_written
from engine.config.model import NO_DEFAULT, Module, ModuleCall
from engine.diagnostics import Diagnostic, error
from engine.install.module_manifest import read_manifest
from engine.install.module_source import (
    ModuleSource,
    RegistrySource,
    parse_module_source,
    parse_registry_source,
    source_error,
)
from engine.install.versions import admits, parse_constraints, parse_version
from engine.lang import expr as E
from engine.lang.hcl import Block

_CALL_META = frozenset({"source", "version", "count", "for_each", "depends_on", "providers"})
_NOT_INSTALLED = ('This module is not yet installed. Run "strata init" to install all modules required by '
                  "this configuration.")


def decode_call(module: Module, b: Block) -> list[Diagnostic]:
    """A ``module`` block into ``module.calls`` (its child not loaded yet: an empty placeholder)."""
    diags: list[Diagnostic] = []
    if len(b.labels) != 1:
        return [error("Missing name for module", "A module block needs one label: its name.", b.range)]
    name = b.labels[0]
    if name in module.calls:
        return [error("Duplicate module call",
                      f'A module call named "{name}" was already defined at {module.calls[name].range}. Module '
                      "calls must have unique names within a module.", b.range.header())]
    src = b.attributes.get("source")
    if src is None:
        return [error("Missing required argument",
                      'The argument "source" is required, but no definition was found.', b.range)]
    if not isinstance(src.expr, E.Literal) or not isinstance(src.expr.value, str):
        return [error("Invalid value for source", "The module source address must be a literal string.",
                      src.range)]
    source = src.expr.value
    ver = b.attributes.get("version")
    version: str | None = None
    if ver is not None:
        if not isinstance(ver.expr, E.Literal) or not isinstance(ver.expr.value, str):
            return [error("Invalid version constraint", "A string value is required for version.", ver.range)]
        version = ver.expr.value
        try:
            parse_constraints(version)
        except ValueError as exc:
            return [error("Invalid version constraint", str(exc), ver.range)]
    bad = source_error(source, version is not None)
    if bad is not None:
        return [error(bad[0], bad[1], src.range)]
    for nb in b.blocks:
        diags.append(error("Unsupported block type", f'Blocks of type "{nb.type}" are not expected here.',
                           nb.range))
    count, for_each = b.attributes.get("count"), b.attributes.get("for_each")
    if count is not None and for_each is not None:
        diags.append(error('Invalid combination of "count" and "for_each"',
                           'The "count" and "for_each" meta-arguments are mutually-exclusive, only one '
                           "should be used to be explicit about the number of resources to be created.",
                           for_each.range))
    dep = b.attributes.get("depends_on")
    deps = _depends_on(dep, diags) if dep is not None else []
    providers: dict[str, str] = {}
    pa = b.attributes.get("providers")
    if pa is not None:
        if not isinstance(pa.expr, E.ObjectExpr):
            diags.append(error("Invalid providers argument",
                               "The providers argument must be a map of provider references.", pa.range))
        else:
            for k, v in pa.expr.items:
                child_key, parent_key = _provider_ref(k), _provider_ref(v)
                if child_key is None or parent_key is None:
                    diags.append(error("Invalid provider reference", "Provider references must be a provider "
                                       "name, optionally with an alias, like aws.west.", pa.range))
                    continue
                providers[child_key] = parent_key
    args = {k: v for k, v in b.attributes.items() if k not in _CALL_META}
    module.calls[name] = ModuleCall(name, source, b.range, Module(""), args, count, for_each, tuple(deps),
                                    depends_on_modules(dep) if dep is not None else (), providers, version,
                                    src.range, depends_on_written(dep))
    return diags


def is_local_source(source: str) -> bool:
    return source.startswith(("./", "../", ".\\", "..\\"))


def installed_dir(root: str, path: tuple[str, ...], call: ModuleCall) -> tuple[str | None, list[Diagnostic]]:
    """Where ``init`` installed the non-local module ``call`` (made at configuration path
    ``path``): its directory (None when it cannot be used) and terraform's errors when it is not
    installed, or not as the call is now written."""
    key = ".".join((*path, call.name))
    record = read_manifest(root).get(key)
    if record is None:
        return None, [error("Module not installed", _NOT_INSTALLED, call.range.header())]
    diags: list[Diagnostic] = []
    parsed: ModuleSource = (parse_registry_source(call.source) if call.version is not None
                            else parse_module_source(call.source))
    where = call.source_range or call.range
    if str(parsed) != record.source:
        diags.append(error("Module source has changed", "The source address was changed since this module was "
                           'installed. Run "strata init" to install all modules required by this configuration.',
                           where))
    if call.version is not None and isinstance(parsed, RegistrySource):
        ok = False
        if record.version is not None:
            try:
                ok = admits(parse_constraints(call.version), parse_version(record.version))
            except ValueError:
                ok = False
        if not ok:
            installed = f" ({record.version})" if record.version is not None else ""
            diags.append(error("Module version requirements have changed",
                               "The version requirements have changed since this module was installed and the "
                               f'installed version{installed} is no longer acceptable. Run "strata init" to '
                               "install all modules required by this configuration.", where))
    d = record.dir if os.path.isabs(record.dir) else os.path.join(root, record.dir)
    if not os.path.isdir(d):
        return None, [error("Module not installed", f"This module's local cache directory {record.dir} could not be "
                            'read. Run "strata init" to install all modules required by this configuration.',
                            call.range.header())]
    return (None if diags else d), diags


def _provider_ref(e: E.Expr) -> str | None:
    if isinstance(e, E.Literal) and isinstance(e.value, str):  # a bare object key: `aws = aws.west`
        return e.value
    t = E._traversal(e)
    if t is None or len(t[1]) > 1 or any(not isinstance(s, str) for s in t[1]):
        return None
    return ".".join([t[0], *[str(s) for s in t[1]]])


def configuration_aliases(b: Block) -> set[str]:
    """``configuration_aliases = [aws.west]`` in a ``terraform { required_providers { ... } }``."""
    out: set[str] = set()
    for rp in b.blocks:
        if rp.type != "required_providers":
            continue
        for a in rp.attributes.values():
            if not isinstance(a.expr, E.ObjectExpr):
                continue
            for k, v in a.expr.items:
                if isinstance(k, (E.Var, E.Literal)) and (k.name if isinstance(k, E.Var) else k.value) \
                        == "configuration_aliases" and isinstance(v, E.TupleExpr):
                    out.update(r for r in (_provider_ref(x) for x in v.items) if r is not None)
    return out


def check_calls(module: Module) -> list[Diagnostic]:
    """Each call of ``module`` against the module it loaded: arguments that are its variables, the
    variables without a default given, the providers it is passed resolved to the root's
    configurations (recorded in the child's ``provider_map``)."""
    diags: list[Diagnostic] = []
    for call in module.calls.values():
        child = call.module
        for an, a in call.arguments.items():
            if an not in child.variables:
                diags.append(error("Unsupported argument", f'An argument named "{an}" is not expected here.',
                                   a.range))
        for vn, v in child.variables.items():
            if v.default is NO_DEFAULT and vn not in call.arguments:
                diags.append(error("Missing required argument",
                                   f'The argument "{vn}" is required, but no definition was found.',
                                   call.range.header()))
        if child.providers and (call.count is not None or call.for_each is not None):
            meta = "count" if call.count is not None else "for_each"
            diags.append(error("Module is incompatible with count, for_each, and depends_on",
                               f'The module at module.{call.name} is a legacy module which contains its own '
                               f'local provider configurations, and so calls to it may not use the {meta} '
                               "argument.", call.range.header()))
        used = {rc.provider_key for rc in child.resources.values()} | set(child.configuration_aliases)
        used |= {k for c in child.calls.values() for k in c.providers.values()}
        used |= {k for c in child.calls.values() for k in _implicit_keys(c.module)}
        for key in sorted(used):
            if key in child.providers:
                diags.append(error("Unsupported provider configuration",
                                   f'Provider configurations in modules called by another module are not '
                                   f'supported by strata yet: provider "{key}" in {child.display_path}.',
                                   child.providers[key].range))
                continue
            if key in call.providers:
                parent_key = call.providers[key]
            elif "." in key:
                diags.append(error("Missing required provider configuration",
                                   f'The child module requires an additional configuration for provider '
                                   f'"{key.split(".")[0]}", with the local name "{key}".\n\nRefer to the module\'s '
                                   "documentation to understand the intended purpose of this additional "
                                   f'provider configuration, and then add an entry for {key} in the "providers" '
                                   "meta-argument in the module block to choose which provider configuration "
                                   "the module should use for that purpose.", call.range.header()))
                continue
            else:
                parent_key = key
            child.provider_map[key] = module.root_provider_key(parent_key)
    return diags


def _implicit_keys(m: Module) -> set[str]:
    """The default (unaliased) provider keys ``m``'s resources use: inherited from its caller."""
    keys = {rc.provider_key for rc in m.resources.values() if "." not in rc.provider_key}
    for c in m.calls.values():
        keys |= {k for k in _implicit_keys(c.module) if k not in c.providers}
    return keys
