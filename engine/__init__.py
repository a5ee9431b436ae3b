"""strata: an async plan/apply executor with Terraform core's semantics.

Layering: a package per pipeline stage. Each layer imports only itself and the layers above it;
inside a layer, modules import each other without cycles.

    frozen, values, addrs, diagnostics, log, memory
                                      plain data every stage shares: the value classes'
                                      decorator, values with unknowns, addresses, the error
                                      tree, the internal log, headroom under ulimit -v
    lang                              the Terraform language: .tf and .tf.json syntax, expressions,
                                      cty numbers, type conversion, built-in functions,
                                      evaluation, sensitive marks, strings quoted as terraform's Go
    events                            events as data (terraform's UI shapes), their sinks, and the
                                      process that writes a large run's -json lines
    graph                             a domain-free DAG, the concurrent walker, concurrency limits
    install                           provider installation as terraform's init does it: versions,
                                      mirrors, the CLI configuration, hashes, the lock file; module
                                      sources, packages and registries, .terraform/modules
    provider, plugin                  the one provider seam: the protocol's requests and responses,
                                      the promises the core checks, a framework, the registry;
                                      Terraform provider plugins driven over tfplugin5/6 (gRPC)
    config                            a module loaded from its files, input variables, conditions,
                                      an instance's configuration evaluated against its schema, the
                                      provider blocks checked and the providers configured
    state                             state in memory, the v4 format, the one writer, its lock, state edits
    plans                             the Plan: the value apply is given, and its file (plan -out)
    planning                          refresh, targeting, forced create_before_destroy, the planner
                                      in its stages (order, expansion, resources, instances, data
                                      sources, removals, outputs, drift)
    apply                             the apply graph built from a plan, and its execution
    render                            human output: plans, diagnostics, values, word wrapping
    backend                           the operations a user runs (plan, apply, ...) on a state
    report                            the report of a recorded event log: durations, critical
                                      path, parallelism, latencies; as text, PNG and HTML
    api                               strata for programs: a workspace whose runs return value
                                      objects and stream their events to subscribers; the one
                                      way the command runs an operation on a state
    cli                               the command: arguments, commands, main

Providers (``providers/``) use only the names re-exported here.
"""

from __future__ import annotations

# not `from typing import TYPE_CHECKING`: typing costs ~3 ms of every start, and mypy reads this name
# the same way
TYPE_CHECKING = False

program_owns_process = False
"""Set by the ``strata`` program, not by a caller of ``engine.cli.main.main(argv)`` in its own
process (the tests): what a run builds to keep until its end may then be frozen out of the
collector's sight (``gc.freeze``), as the process holds nothing else that needs collecting. Here,
in the package the program has imported already, so that setting it costs ``strata version``
no import."""
__version__ = "0.1.0"  # as pyproject.toml says; the -json stream's version event reports it

if TYPE_CHECKING:  # the names as type checkers and editors see them
    from typing import Any

    from engine.addrs import InstanceAddr, InstanceKey, ResourceAddr, parse_instance_addr
    from engine.diagnostics import (
        CycleError,
        Diagnostic,
        DiagnosticsError,
        ProviderError,
        StrataError,
        error,
    )
    from engine.events.stream import Event, capture_events
    from engine.provider.framework import (
        ApplyContext,
        Attr,
        DataSource,
        FrameworkProvider,
        ModifyPlanRequest,
        Resource,
        ResourceError,
        all_of,
        requires_replace_if_set,
        sequence,
    )
    from engine.provider.mock import MockProvider
    from engine.provider.protocol import (
        ApplyResourceChangeRequest,
        ApplyResourceChangeResponse,
        AttributePath,
        AttributeSchema,
        BaseProvider,
        BlockSchema,
        ImportResourceStateRequest,
        ImportResourceStateResponse,
        MoveResourceStateRequest,
        MoveResourceStateResponse,
        NestedType,
        PlanResourceChangeRequest,
        PlanResourceChangeResponse,
        Provider,
        ProviderSchema,
        ReadDataSourceRequest,
        ReadDataSourceResponse,
        ReadResourceRequest,
        ReadResourceResponse,
        ResourceSchema,
        UpgradeResourceStateRequest,
        UpgradeResourceStateResponse,
        ValidateResourceConfigRequest,
        ValidateResourceConfigResponse,
    )
    from engine.provider.seam import ProviderCallFailed
    from engine.values import (
        UNKNOWN,
        ListVal,
        MapVal,
        SetVal,
        equal,
        from_typed_json,
        is_wholly_known,
    )

# The public API, imported on first use (module __getattr__, PEP 562): `strata version` and the
# commands that need little start without importing the provider framework and the protocol.
_LAZY: dict[str, str] = {
    "InstanceAddr": "engine.addrs",
    "InstanceKey": "engine.addrs",
    "ResourceAddr": "engine.addrs",
    "parse_instance_addr": "engine.addrs",
    "CycleError": "engine.diagnostics",
    "Diagnostic": "engine.diagnostics",
    "DiagnosticsError": "engine.diagnostics",
    "ProviderError": "engine.diagnostics",
    "StrataError": "engine.diagnostics",
    "error": "engine.diagnostics",
    "Event": "engine.events.stream",
    "capture_events": "engine.events.stream",
    "ApplyContext": "engine.provider.framework",
    "Attr": "engine.provider.framework",
    "DataSource": "engine.provider.framework",
    "FrameworkProvider": "engine.provider.framework",
    "ModifyPlanRequest": "engine.provider.framework",
    "Resource": "engine.provider.framework",
    "ResourceError": "engine.provider.framework",
    "all_of": "engine.provider.framework",
    "requires_replace_if_set": "engine.provider.framework",
    "sequence": "engine.provider.framework",
    "ApplyResourceChangeRequest": "engine.provider.protocol",
    "ApplyResourceChangeResponse": "engine.provider.protocol",
    "AttributeSchema": "engine.provider.protocol",
    "BaseProvider": "engine.provider.protocol",
    "BlockSchema": "engine.provider.protocol",
    "ImportResourceStateRequest": "engine.provider.protocol",
    "ImportResourceStateResponse": "engine.provider.protocol",
    "MoveResourceStateRequest": "engine.provider.protocol",
    "MoveResourceStateResponse": "engine.provider.protocol",
    "PlanResourceChangeRequest": "engine.provider.protocol",
    "PlanResourceChangeResponse": "engine.provider.protocol",
    "Provider": "engine.provider.protocol",
    "ProviderSchema": "engine.provider.protocol",
    "ReadDataSourceRequest": "engine.provider.protocol",
    "ReadDataSourceResponse": "engine.provider.protocol",
    "ReadResourceRequest": "engine.provider.protocol",
    "ReadResourceResponse": "engine.provider.protocol",
    "ResourceSchema": "engine.provider.protocol",
    "UpgradeResourceStateRequest": "engine.provider.protocol",
    "UpgradeResourceStateResponse": "engine.provider.protocol",
    "ValidateResourceConfigRequest": "engine.provider.protocol",
    "ValidateResourceConfigResponse": "engine.provider.protocol",
    "AttributePath": "engine.provider.protocol",
    "NestedType": "engine.provider.protocol",
    "MockProvider": "engine.provider.mock",
    "ProviderCallFailed": "engine.provider.seam",
    "ListVal": "engine.values",
    "MapVal": "engine.values",
    "SetVal": "engine.values",
    "UNKNOWN": "engine.values",
    "from_typed_json": "engine.values",
    "equal": "engine.values",
    "is_wholly_known": "engine.values",
}

__all__ = [
    "ApplyContext", "Attr", "BlockSchema", "DataSource", "FrameworkProvider", "ImportResourceStateRequest",
    "ImportResourceStateResponse", "ModifyPlanRequest", "MoveResourceStateRequest", "MoveResourceStateResponse", "ReadDataSourceRequest", "ReadDataSourceResponse",
    "Resource", "ResourceError", "UpgradeResourceStateRequest", "UpgradeResourceStateResponse",
    "ValidateResourceConfigRequest", "ValidateResourceConfigResponse", "all_of", "requires_replace_if_set",
    "sequence",
    "UNKNOWN", "ApplyResourceChangeRequest", "ApplyResourceChangeResponse", "AttributeSchema",
    "BaseProvider", "CycleError", "Diagnostic", "DiagnosticsError", "Event", "InstanceAddr",
    "InstanceKey", "ListVal", "MapVal", "PlanResourceChangeRequest", "PlanResourceChangeResponse",
    "Provider", "ProviderError", "ProviderSchema", "ReadResourceRequest", "ReadResourceResponse",
    "ResourceAddr", "ResourceSchema", "SetVal", "StrataError", "capture_events", "equal", "error",
    "from_typed_json", "is_wholly_known", "parse_instance_addr",
    "AttributePath", "MockProvider", "NestedType", "ProviderCallFailed",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
