"""The ``check`` blocks, evaluated once everything else is planned: their results go into the
plan (``show -json``'s ``checks``), a failed assertion is a warning, and one that cannot be
decided until apply is a warning saying so (:func:`engine.config.checks.check_all`)."""

from __future__ import annotations

from typing import Any

from engine.addrs import resource_addr
from engine.config.checks import TypeOf, check_all
from engine.config.model import Module
from engine.planning.context import PlanContext


def plan_checks(ctx: PlanContext) -> None:
    """Every check block's result into the plan; its warnings (and its invalid conditions'
    errors, found in the plan walk) into the diagnostics."""
    if not any(m.checks for m in ctx.module.tree()):
        return
    results, diags = check_all(ctx.module, ctx.instances, ctx.plan.check_data, planning=True,
                               type_of=lambda m: _types_in(ctx, m))
    ctx.plan.checks = results
    for d in diags:
        if d.severity == "error":
            ctx.walk_error(d)
        else:
            ctx.diags.append(d)


def _types_in(ctx: PlanContext, module: Module) -> TypeOf:
    """What a traversal in ``module`` refers to, as its resource's schema types it."""
    def type_of(root: str, names: tuple[str, ...]) -> Any:
        if root == "data":
            if len(names) < 3:
                return None
            addr, path = resource_addr(names[0], names[1], "data"), names[2:]
        elif root in ("var", "local", "module", "path", "terraform", "count", "each", "self") or len(names) < 2:
            return None
        else:
            addr, path = resource_addr(root, names[0]), names[1:]
        rc = module.resources.get(addr)
        if rc is None:
            return None
        schema = ctx.providers.schema(module.root_provider_key(rc.provider_key), addr.type, addr.mode)
        attr = schema.attributes.get(path[0]) if schema is not None else None
        ty = attr.type if attr is not None else None
        for name in path[1:]:  # into an object's attributes
            if not (isinstance(ty, list) and ty[0] == "object" and name in ty[1]):
                return None
            ty = ty[1][name]
        return ty
    return type_of


__all__ = ["plan_checks"]
