"""``validate`` and ``graph``: commands that read the configuration."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import orjson

from engine.backend.dependencies import require_installed
from engine.cli.args import Args, UsageError, plan_options_from, workspace_from
from engine.cli.output import Output, snippet
from engine.config.model import Module
from engine.config.module import load_module
from engine.config.providers import check_resource_types
from engine.config.references import resource_graph
from engine.config.validation import validate_module
from engine.diagnostics import Diagnostic, DiagnosticsError, errors_of
from engine.lang.ephemerality import refusals
from engine.planning.order import config_graph, config_order, resource_graph_of
from engine.provider.registry import Providers


def _findings(a: Args) -> tuple[Module, Providers, list[Diagnostic]]:
    """The configuration, its providers, and what validate finds before asking any provider."""
    path = a.flags.get("chdir", ".")  # what workspace_from(a).path is: the workspace itself is not needed
    module = load_module(path)
    providers = Providers()
    require_installed(module, path, providers)
    found = check_resource_types(module, providers)
    config_order(config_graph(module), found)
    return module, providers, module.with_context(found + validate_module(module, providers, found) + refusals(module))


async def cmd_validate(a: Args, out: Output) -> int:
    try:
        module, providers, found = _findings(a)
        if not errors_of(found):  # terraform's validate walk: each provider's verdict
            from engine.config.provider_validation import provider_verdicts

            found += errors_of(module.with_context(await provider_verdicts(module, providers)))
        diags = _checked(found)
    except DiagnosticsError as exc:
        if not out.json or out.quiet:
            raise
        diags = list(exc.diagnostics)
    return _report(out, diags)


def validate_without_loop(a: Args, out: Output, backend: str) -> int:
    """``validate`` with human output, the event loop started only for providers that have a
    verdict to give (a plugin's): validating a configuration of built-in providers starts none."""
    module, providers, found = _findings(a)
    if not errors_of(found):
        from engine.config.provider_validation import asks_providers, provider_verdicts

        if asks_providers(module, providers):
            import anyio

            found += errors_of(module.with_context(anyio.run(provider_verdicts, module, providers, backend=backend)))
    return _report(out, _checked(found))


def _checked(found: list[Diagnostic]) -> list[Diagnostic]:
    errs = errors_of(found)
    if errs:
        raise DiagnosticsError(errs)
    return []


def _report(out: Output, diags: list[Diagnostic]) -> int:
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
