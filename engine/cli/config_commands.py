"""``validate`` and ``graph``: commands that read the configuration."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import orjson

from engine.backend.dependencies import require_installed
from engine.cli.args import Args, UsageError, plan_options_from, workspace_from
from engine.cli.output import Output, snippet
from engine.config.module import load_module
from engine.config.providers import check_resource_types
from engine.config.references import resource_graph
from engine.config.validation import validate_module
from engine.diagnostics import Diagnostic, DiagnosticsError, errors_of
from engine.lang.ephemerality import refusals
from engine.planning.order import config_graph, config_order, resource_graph_of
from engine.provider.registry import Providers


async def cmd_validate(a: Args, out: Output) -> int:
    ws = workspace_from(a)
    try:
        module = load_module(ws.path)
        providers = Providers()
        require_installed(module, ws.path, providers)
        found = check_resource_types(module, providers)
        config_order(config_graph(module), found)
        found = module.with_context(found + validate_module(module, providers, found) + refusals(module))
        if not errors_of(found):  # terraform's validate walk: each provider's verdict
            from engine.config.provider_validation import provider_verdicts

            found += errors_of(module.with_context(await provider_verdicts(module, providers)))
        errs = errors_of(found)
        if errs:
            raise DiagnosticsError(errs)
        diags: list[Diagnostic] = []
    except DiagnosticsError as exc:
        if not out.json or out.quiet:
            raise
        diags = list(exc.diagnostics)
    if out.json and not out.quiet:
        # terraform's validate -json: one document, not an event stream
        n_err = len(errors_of(diags))
        sys.stdout.write(orjson.dumps({"format_version": "1.0", "valid": n_err == 0, "error_count": n_err,
                                       "warning_count": len(diags) - n_err,
                                       "diagnostics": [d.to_json(snippet(d)) for d in diags]}).decode() + "\n")
        return 1 if n_err else 0
    out.text("Success! The configuration is valid.\n")
    return 0


async def cmd_graph(a: Args, out: Output) -> int:
    """Like terraform: without -type, the resources and their dependencies; with
    -type=plan / apply / plan-destroy, the apply graph of that plan (one node per action)."""
    ws = workspace_from(a)
    kind = a.flags.get("type", "")
    if kind not in ("", "plan", "apply", "plan-destroy"):
        raise UsageError(f'Invalid -type "{kind}": expected plan, apply or plan-destroy.')
    if not kind:
        module = load_module(ws.path)
        graph_of: Any = resource_graph(module) if not module.calls else resource_graph_of(config_graph(module))
        sys.stdout.write(graph_of.to_dot())
        return 0
    how = dataclasses.replace(plan_options_from(a, kind == "plan-destroy" or bool(a.flags.get("destroy"))),
                              refresh=False)
    async with ws.operation("OperationTypePlan", plan=how, writes=False) as op:
        p = await op.plan(lambda e: None)
    from engine.apply.graph import build_apply_graph  # only this command draws the apply graph

    graph, _work = build_apply_graph(p.plan)
    sys.stdout.write(graph.to_dot())
    return 0
