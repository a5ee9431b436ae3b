"""strata: an async plan/apply executor with Terraform core's semantics.

Layering (each layer imports only those above it):

    values, addrs, diagnostics          plain data: values with unknowns, addresses, errors
    number                              cty's number semantics on ints and floats
    expr, hcl, hcljson, functions,      the Terraform language (.tf and .tf.json)
    evaluate
    config                              the root module, loaded from .tf / .tf.json
    provider, framework, registry       the one provider seam, a framework for writing providers,
                                        and where providers come from
    state, statecodec, statestore       state in memory, the v4 format, the one writer
    plan, contracts, forcedcbd,         pure action selection; the provider promises the core checks;
    refresh, planner                    forced create_before_destroy; upgrade and refresh; planning
    graph, applygraph                   a domain-free DAG; the apply graph built from a plan
    walker, apply                       the concurrent walk; applying a plan
    events, render                      events as data; human rendering
    operations, cliargs, cli            what a user runs; its arguments; the command

Providers (``providers/``) use only the names re-exported here.
"""

from .addrs import InstanceAddr, InstanceKey, ResourceAddr, parse_instance_addr
from .diagnostics import CycleError, Diagnostic, DiagnosticsError, ProviderError, StrataError, error
from .events import Event, capture_events
from .framework import (
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
from .provider import (
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    BaseProvider,
    BlockSchema,
    ImportResourceStateRequest,
    ImportResourceStateResponse,
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
from .values import UNKNOWN, ListVal, MapVal, SetVal, equal, is_wholly_known

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
]
