"""strata: an async plan/apply executor with Terraform core's semantics.

Layering: a package per pipeline stage. Each layer imports only itself and the layers above it;
inside a layer, modules import each other without cycles.

    values, addrs, diagnostics, log   plain data every stage shares: values with unknowns,
                                      addresses, the error tree, the internal log
    lang                              the Terraform language: .tf and .tf.json syntax, expressions,
                                      cty numbers, type conversion, built-in functions,
                                      evaluation, sensitive marks, strings quoted as terraform's Go
    events                            events as data (terraform's UI shapes), their sinks, and the
                                      process that writes a large run's -json lines
    graph                             a domain-free DAG, the concurrent walker, concurrency limits
    provider                          the one provider seam: the protocol's requests and responses,
                                      the promises the core checks, a framework, the registry
    config                            a module loaded from its files, input variables, conditions,
                                      an instance's configuration evaluated against its schema
    state                             state in memory, the v4 format, the one writer, its lock, state edits
    plans                             the Plan: the value apply is given, and its file (plan -out)
    planning                          refresh, targeting, forced create_before_destroy, the planner
    apply                             the apply graph built from a plan, and its execution
    render                            human output: plans, diagnostics, values, word wrapping
    backend                           the operations a user runs (plan, apply, ...) on a state
    cli                               the command: arguments, commands, main

Providers (``providers/``) use only the names re-exported here.
"""

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
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, equal, is_wholly_known

__all__ = [
    "ApplyContext", "Attr", "BlockSchema", "DataSource", "FrameworkProvider", "ImportResourceStateRequest",
    "ImportResourceStateResponse", "ModifyPlanRequest", "ReadDataSourceRequest", "ReadDataSourceResponse",
    "Resource", "ResourceError", "UpgradeResourceStateRequest", "UpgradeResourceStateResponse",
    "ValidateResourceConfigRequest", "ValidateResourceConfigResponse", "all_of", "requires_replace_if_set",
    "sequence",
    "UNKNOWN", "ApplyResourceChangeRequest", "ApplyResourceChangeResponse", "AttributeSchema",
    "BaseProvider", "CycleError", "Diagnostic", "DiagnosticsError", "Event", "InstanceAddr",
    "InstanceKey", "ListVal", "MapVal", "PlanResourceChangeRequest", "PlanResourceChangeResponse",
    "Provider", "ProviderError", "ProviderSchema", "ReadResourceRequest", "ReadResourceResponse",
    "ResourceAddr", "ResourceSchema", "SetVal", "StrataError", "capture_events", "equal", "error",
    "is_wholly_known", "parse_instance_addr",
    "AttributePath", "MockProvider", "NestedType", "ProviderCallFailed",
]
