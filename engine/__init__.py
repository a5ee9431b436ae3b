"""strata: an async plan/apply executor with Terraform core's semantics.

Layering (each layer imports only those above it):

    values, addrs, diagnostics          plain data: values with unknowns, addresses, errors
    expr, hcl, functions, evaluate      the Terraform language
    config                              the root module, loaded from .tf / .tf.json
    provider, registry                  the one provider seam, and where providers come from
    state, statecodec, statestore       state in memory, the v4 format, the one writer
    plan, planner                       pure action selection; planning
    graph, applygraph                   a domain-free DAG; the apply graph built from a plan
    walker, apply                       the concurrent walk; applying a plan
    events, render                      events as data; human rendering
    operations, cli                     what a user runs

Providers (``providers/``) use only the names re-exported here.
"""

from .addrs import InstanceAddr, InstanceKey, ResourceAddr, parse_instance_addr
from .diagnostics import CycleError, Diagnostic, DiagnosticsError, ProviderError, StrataError, error
from .events import Event, capture_events
from .provider import (
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    BaseProvider,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    Provider,
    ProviderSchema,
    ReadResourceRequest,
    ReadResourceResponse,
    ResourceSchema,
)
from .values import UNKNOWN, ListVal, MapVal, SetVal, equal, is_wholly_known

__all__ = [
    "UNKNOWN", "ApplyResourceChangeRequest", "ApplyResourceChangeResponse", "AttributeSchema",
    "BaseProvider", "CycleError", "Diagnostic", "DiagnosticsError", "Event", "InstanceAddr",
    "InstanceKey", "ListVal", "MapVal", "PlanResourceChangeRequest", "PlanResourceChangeResponse",
    "Provider", "ProviderError", "ProviderSchema", "ReadResourceRequest", "ReadResourceResponse",
    "ResourceAddr", "ResourceSchema", "SetVal", "StrataError", "capture_events", "equal", "error",
    "is_wholly_known", "parse_instance_addr",
]
