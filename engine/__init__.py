"""strata: an async plan/apply executor with Terraform core's semantics.

Layering (each layer imports only those above it):

    values, addrs, diagnostics,         plain data: values with unknowns, addresses, errors;
    limits, goquote, datasync, log,     concurrency limits; strings quoted as terraform's Go does;
    jsonline                            fdatasync awaited without a thread; the internal log; an
                                        event's JSON line, and the process that writes them
    events                              events as data (terraform's UI shapes) and their sinks
    number, expr, hcl, hcljson,         the Terraform language: cty numbers, expressions, .tf and
    convert, functions, exprvalues,     .tf.json, type conversion, built-in functions (with
    evaluate                            functions_text, which builds on them), what a diagnostic
                                        states about a failed expression's values, evaluation
    graph                               a domain-free DAG
    sensitivity                         which values are sensitive: terraform's marks, followed
                                        through the configuration's references
    config, variables                   the root module, loaded from .tf / .tf.json; input variables
    provider, framework, registry       the one provider seam, a framework for writing providers,
                                        and where providers come from
    instanceconfig, conditions          an instance's configuration, evaluated against its schema;
                                        precondition and postcondition blocks
    state, statecodec, statestore,      state in memory, the v4 format, the one writer; state rm / mv
    statemove
    plan, contracts, forcedcbd,         pure action selection; the provider promises the core checks;
    targeting                           forced create_before_destroy; what -target lets a plan touch
    refresh, planner                    upgrade and refresh; planning
    applygraph, walker, apply           the apply graph built from a plan; the concurrent walk;
                                        applying a plan
    render, valuetext, valuediff,       human rendering: plans, diagnostics; output values; an
    wordwrap                            in-place change of a value, as terraform's plan shows it;
                                        terraform's word wrapping of diagnostic details
    planfile                            saved plans (plan -out, apply FILE)
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
