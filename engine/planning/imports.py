"""``import`` blocks: existing remote objects brought under management by planning.

As terraform's plan walk does for an instance an import block targets and the state has no
object for: the provider turns the id into an import stub (ImportResourceState), reads the
object (ReadResource), and the object read is the instance's prior state from then on, planned
against its configuration as any other (no change: "will be imported"; else updated or replaced,
"(imported from ...)"). The object is put in the plan's ``refreshed`` so apply starts from it and
records it, and each change of an imported instance says so (``importing``: the id). A block
whose target the state already has does nothing, as terraform's.
"""

from __future__ import annotations

from typing import Any

from engine.addrs import InstanceAddr, InstanceKey, resource_addr
from engine.config.module import _add_block
from engine.config.refactoring import ImportBlock
from engine.diagnostics import Diagnostic, SourceRange, decl_range, error, errors_of
from engine.events import stream as ev
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import parse_hcl
from engine.lang.sensitivity import state_marks
from engine.planning.context import PlanContext
from engine.planning.genconfig import resource_block
from engine.plans.plan import Refreshed
from engine.provider.protocol import ImportResourceStateRequest, ReadResourceRequest
from engine.provider.seam import Failure
from engine.state.model import ObjectState
from engine.values import UNKNOWN, is_wholly_known

_SUGGEST_GENERATE = ("If you wish to automatically generate config for this resource, use the "
                     "-generate-config-out option within strata plan. Otherwise, make sure the target resource "
                     "exists within your configuration. For example:\n\n  strata plan -generate-config-out=generated.tf")
_IMPORT_FAILED = Failure("Provider failed to import", raises=True)
_IMPORT_READ_FAILED = Failure("Provider failed to read the imported object", raises=True)


def _targets(ctx: PlanContext, b: ImportBlock) -> list[tuple[InstanceAddr, str]]:
    """The instances ``b`` imports to and the id of each (its for_each expanded)."""
    scopes: list[Scope] = [ctx.scope()]
    if b.for_each is not None:
        coll = evaluate(b.for_each, ctx.scope())
        if coll is UNKNOWN or not isinstance(coll, (dict, tuple, list, frozenset, set)):
            raise EvalError("Invalid for_each argument", "The for_each expression of an import block must be a "
                            "known map, set or list.", b.for_each.line)
        items: list[tuple[Any, Any]] = (list(coll.items()) if isinstance(coll, dict)
                                        else list(enumerate(coll)) if isinstance(coll, (tuple, list))
                                        else [(v, v) for v in sorted(coll)])
        scopes = [ctx.scope(each=(k, v)) for k, v in items]
    assert b.to.resource is not None
    mode, type_, name = b.to.resource
    out = []
    for scope in scopes:
        key: InstanceKey = b.to.key
        if b.to_key is not None:
            k = evaluate(b.to_key, scope)
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise EvalError("Invalid import address", "The instance key of an import block's to must be a "
                                "known string or number.", b.to_key.line)
            key = k
        ident = evaluate(b.id, scope)
        if not isinstance(ident, str) or ident == "":
            raise EvalError("Invalid import id argument", "The import ID cannot be null or empty, and must be "
                            "known during planning.", b.id.line)
        out.append((resource_addr(type_, name, mode, b.to.module_in(ctx.root.path)).instance(key), ident))
    return out


async def plan_imports(ctx: PlanContext) -> tuple[dict[InstanceAddr, str], set[InstanceAddr]]:
    """Import what the root's ``import`` blocks name and the state does not have: the imported
    instances and their ids, and the instances whose import failed. A mistake in a block raises
    (terraform finds it validating the configuration); what the provider refuses is an error of
    the plan walk, which goes on (the instance is then not planned)."""
    static: list[Diagnostic] = []
    seen: dict[InstanceAddr, SourceRange] = {}
    todo: list[tuple[InstanceAddr, str, str]] = []
    generate: list[tuple[InstanceAddr, str, ImportBlock]] = []
    for b in ctx.module.imports:
        try:
            targets = _targets(ctx, b)
        except EvalError as exc:
            static.append(exc.error(SourceRange(b.range.filename, exc.line)))
            continue
        for addr, ident in targets:
            if addr in seen:
                static.append(error(f'Duplicate import configuration for "{addr}"',
                                    f'An import block for the resource "{addr}" was already declared at '
                                    f"{decl_range(seen[addr])}. A resource can have only one import block.",
                                    b.to_range or b.range))
                continue
            seen[addr] = b.range
            rc = ctx.module.resource_at(addr.resource)
            if rc is None and ctx.generate_config_out is not None:
                problem = _cannot_generate(addr, b)
                if problem is None and ctx.state.object(addr) is None:  # (one already managed: nothing to import)
                    generate.append((addr, ident, b))
                elif problem is not None:  # terraform finds these validating the configuration
                    static.append(error("Configuration for import target does not exist", problem,
                                        b.to_range or b.range))
            elif rc is None:
                ctx.walk_error(error("Configuration for import target does not exist",
                                     f"The configuration for the given import target {addr} does not exist. "
                                     + ("Make sure the target resource exists within your configuration."
                                        if ctx.generate_config_out is not None else _SUGGEST_GENERATE),
                                     b.to_range or b.range))
            elif ctx.state.object(addr) is None:  # (one already managed: nothing to import)
                todo.append((addr, ident, rc.provider_key))
    if static:  # nothing is imported from a configuration with mistakes
        ctx.diags.extend(static)
        ctx.raise_if_errors()
    found: dict[InstanceAddr, str] = {}
    failed: set[InstanceAddr] = set()
    for addr, ident, pname in todo:
        d = await _import_one(ctx, addr, ident, pname)
        for one in d:
            ctx.walk_error(one)
        if errors_of(d):
            failed.add(addr)
        else:
            found[addr] = ident
    for addr, ident, b in generate:
        if await _import_generating(ctx, addr, ident, b):
            found[addr] = ident
        else:
            failed.add(addr)
    return found, failed


def _cannot_generate(addr: InstanceAddr, b: ImportBlock) -> str | None:
    """Why no configuration can be generated for ``addr`` (terraform's words); None: it can."""
    if addr.resource.module.steps:
        return (f"Resource {addr.resource} not found. Only resources within the root module are eligible for "
                "config generation.")
    if b.for_each is not None or b.to_key is not None or b.to.key is not None:
        return ("The given import block is not compatible with config generation. The -generate-config-out "
                "option cannot be used with import blocks which use for_each, or resources which use for_each "
                "or count.")
    return None


async def _import_generating(ctx: PlanContext, addr: InstanceAddr, ident: str, b: ImportBlock) -> bool:
    """Import to ``addr``, which has no configuration, and give it the configuration generated
    from the object read (:mod:`.genconfig`), added to the root module as if written in the
    target file. False when the import failed (its errors are the walk's)."""
    pname = b.provider or addr.resource.type.split("_", 1)[0]
    d = await _import_one(ctx, addr, ident, pname)
    for one in d:
        ctx.walk_error(one)
    obj = ctx.state.object(addr)
    if errors_of(d) or obj is None:
        return False
    schema = ctx.providers.schema(pname, addr.resource.type)
    assert schema is not None and ctx.generate_config_out is not None
    text = resource_block(addr, schema, obj.attributes, b.provider)
    for block in parse_hcl(text, ctx.generate_config_out):
        for one in _add_block(ctx.module, block):
            ctx.walk_error(one)
    ctx.generated[addr] = text
    ctx.plan.generated[addr] = (ident, text)
    return True


async def _import_one(ctx: PlanContext, addr: InstanceAddr, ident: str, pname: str) -> list[Diagnostic]:
    provider = ctx.providers.seam(pname)
    schema = ctx.providers.schema(pname, addr.resource.type)
    assert schema is not None
    ctx.emit(ev.import_preparing(addr, ident))
    resp = await provider.import_resource_state(ImportResourceStateRequest(addr.resource.type, ident),
                                                address=str(addr), failure=_IMPORT_FAILED)
    errs = errors_of(resp.diagnostics)
    if errs or resp.state is None:
        return errs or [error("Import failed", f'The provider returned nothing for id "{ident}".')]
    ctx.emit(ev.refresh_start(addr, schema.id_attribute, ident))
    read = await provider.read_resource(ReadResourceRequest(addr.resource.type, resp.state, resp.private),
                                        address=str(addr), failure=_IMPORT_READ_FAILED, annotate=False)
    errs = errors_of(read.diagnostics)
    if errs:
        return errs
    if read.new_state is None:
        return [error("Cannot import non-existent remote object",
                      f'While attempting to import an existing object to "{addr}", the provider detected that '
                      f'no object exists with the given id "{ident}".')]
    if not is_wholly_known(read.new_state):
        return [error("Provider produced invalid object", f"The imported object for {addr} contains unknown values.")]
    ctx.emit(ev.refresh_complete(addr, schema.id_attribute, ident))
    obj = ObjectState(read.new_state, schema_version=schema.version,
                      sensitive_attributes=state_marks(read.new_state, frozenset(schema.sensitive_paths())),
                      private=read.private)
    prov = ctx.providers.config_address(pname)
    ctx.state.set_object(addr, prov, obj)
    ctx.plan.refreshed = (*ctx.plan.refreshed, Refreshed(addr, prov, obj))
    return []


def check_import_targets(ctx: PlanContext, imported: dict[InstanceAddr, str]) -> None:
    """After the plan walk: an instance imported that its resource's count or for_each does not
    declare is terraform's error, and nothing is planned (the object is not recorded)."""
    for addr in sorted(imported, key=lambda a: a.sort_key()):
        if addr.resource in ctx.failed or addr.key in ctx.resolver.values.get(addr.resource, {}):
            continue
        ctx.walk_error(error("Configuration for import target does not exist",
                             f"The configuration for the given import {addr} does not exist. All target "
                             "instances must have an associated configuration to be imported."))
        ctx.plan.changes = []  # as terraform's: no plan to show
