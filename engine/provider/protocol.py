"""The provider seam: schemas, and the request/response objects of each provider call.

A provider is any object with the async methods of :class:`Provider`. The
core never talks to a provider any other way, and maps everything a
provider raises to :class:`~engine.diagnostics.ProviderError` at this seam.

Invariants (from the resource instance change lifecycle):

* ``PlanResourceChangeRequest.proposed_new_state`` merges configuration with
  prior state: non-null configuration values win, computed attributes left
  null in configuration keep their prior value.
* ``planned_state`` may contain :data:`~engine.values.UNKNOWN`; ``new_state``
  returned by apply must not.
* ``requires_replace`` lists attribute paths whose change cannot be applied
  in place; a non-empty list turns an update into a replace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from engine.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class AttributeSchema:
    """``type`` is cty's JSON type notation: ``"string"``, ``"dynamic"``, ``["list", "string"]``..."""

    type: Any
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    description: str = ""


@dataclass(frozen=True, slots=True)
class BlockSchema:
    """A nested block type: ``nesting`` is "single", "list", "set" or "map" (map blocks take one label)."""

    nesting: str
    attributes: dict[str, AttributeSchema]
    blocks: dict[str, BlockSchema] = field(default_factory=dict)
    min_items: int = 0
    max_items: int = 0  # 0: no limit


@dataclass(frozen=True, slots=True)
class ResourceSchema:
    attributes: dict[str, AttributeSchema]
    version: int = 0
    id_attribute: str = "id"
    blocks: dict[str, BlockSchema] = field(default_factory=dict)

    def dynamic_attributes(self) -> frozenset[str]:
        return frozenset(n for n, a in self.attributes.items() if a.type == "dynamic")

    def implied_types(self) -> dict[str, Any]:
        """Each attribute's and nested block's cty type, as JSON type notation."""
        return {**{n: a.type for n, a in self.attributes.items()},
                **{n: _block_type(b) for n, b in self.blocks.items()}}

    def sensitive_paths(self) -> tuple[str, ...]:
        return tuple(n for n, a in self.attributes.items() if a.sensitive)


def _block_type(b: BlockSchema) -> Any:
    obj = ["object", {**{n: a.type for n, a in b.attributes.items()},
                      **{n: _block_type(x) for n, x in b.blocks.items()}}]
    if b.nesting == "single":
        return obj
    return [b.nesting, obj]


@dataclass(frozen=True, slots=True)
class ProviderSchema:
    resources: dict[str, ResourceSchema]
    data_sources: dict[str, ResourceSchema] = field(default_factory=dict)
    provider: ResourceSchema | None = None


@dataclass(frozen=True, slots=True)
class PlanResourceChangeRequest:
    type_name: str
    prior_state: dict[str, Any] | None
    proposed_new_state: dict[str, Any] | None
    config: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class PlanResourceChangeResponse:
    planned_state: dict[str, Any] | None
    requires_replace: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


def _no_progress(message: str) -> None:
    pass


@dataclass(frozen=True, slots=True)
class ApplyResourceChangeRequest:
    """``progress(message)`` reports what a long operation is doing; each call becomes an event."""

    type_name: str
    prior_state: dict[str, Any] | None
    planned_state: dict[str, Any] | None
    config: dict[str, Any] | None
    progress: Callable[[str], None] = _no_progress


@dataclass(frozen=True, slots=True)
class ApplyResourceChangeResponse:
    new_state: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class ReadResourceRequest:
    type_name: str
    current_state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ReadResourceResponse:
    new_state: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class ValidateResourceConfigRequest:
    type_name: str
    config: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ValidateResourceConfigResponse:
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class ReadDataSourceRequest:
    type_name: str
    config: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ReadDataSourceResponse:
    state: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class ImportResourceStateRequest:
    type_name: str
    id: str


@dataclass(frozen=True, slots=True)
class ImportResourceStateResponse:
    """The import stub: an object holding at least what ReadResource needs to find the real object."""

    state: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class UpgradeResourceStateRequest:
    """``raw_state`` is the stored JSON form of an object written with schema ``version``."""

    type_name: str
    version: int
    raw_state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class UpgradeResourceStateResponse:
    upgraded_state: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...] = ()


@runtime_checkable
class Provider(Protocol):
    """The one interface between the core and a provider."""

    source: str
    """The provider's source address, e.g. ``terraform.io/builtin/terraform``."""

    def get_schema(self) -> ProviderSchema: ...

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]: ...

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse: ...

    async def apply_resource_change(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse: ...

    async def read_resource(self, req: ReadResourceRequest) -> ReadResourceResponse: ...

    async def validate_resource_config(self, req: ValidateResourceConfigRequest
                                       ) -> ValidateResourceConfigResponse: ...

    async def validate_data_resource_config(self, req: ValidateResourceConfigRequest
                                            ) -> ValidateResourceConfigResponse: ...

    async def read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse: ...

    async def import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse: ...

    async def upgrade_resource_state(self, req: UpgradeResourceStateRequest
                                     ) -> UpgradeResourceStateResponse: ...


class BaseProvider:
    """Convenience base with the optional calls filled in: no configuration, read returns
    the state unchanged, no validation, no data sources, no import, no state upgrades."""

    source = ""

    def get_schema(self) -> ProviderSchema:
        raise NotImplementedError

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        return ()

    async def read_resource(self, req: ReadResourceRequest) -> ReadResourceResponse:
        return ReadResourceResponse(req.current_state)

    async def validate_resource_config(self, req: ValidateResourceConfigRequest
                                       ) -> ValidateResourceConfigResponse:
        return ValidateResourceConfigResponse()

    async def validate_data_resource_config(self, req: ValidateResourceConfigRequest
                                            ) -> ValidateResourceConfigResponse:
        return ValidateResourceConfigResponse()

    async def read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse:
        return ReadDataSourceResponse(None, (Diagnostic("error", "Data source not supported",
                                                         f"This provider has no data source {req.type_name}."),))

    async def import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse:
        return ImportResourceStateResponse(None, (Diagnostic("error", "Resource Import Not Implemented",
                                                             f"{req.type_name} does not support import."),))

    async def upgrade_resource_state(self, req: UpgradeResourceStateRequest
                                     ) -> UpgradeResourceStateResponse:
        return UpgradeResourceStateResponse(dict(req.raw_state))


def proposed_new_state(schema: ResourceSchema, prior: dict[str, Any] | None,
                       config: dict[str, Any]) -> dict[str, Any]:
    """Configuration where non-null; prior values for computed attributes left null in
    configuration, inside nested blocks too (single blocks, list blocks by index, map blocks by
    key; a set block's elements have no identity to pair them by, and stay as configured)."""
    if prior is None:
        return dict(config)
    return _proposed_object(schema.attributes, schema.blocks, prior, config)


def _proposed_object(attributes: dict[str, AttributeSchema], blocks: dict[str, BlockSchema],
                     prior: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    out = dict(config)
    for name, a in attributes.items():
        if a.computed and out.get(name) is None and name in prior:
            out[name] = prior[name]
    for name, b in blocks.items():  # hot path: most schemas have none
        cv, pv = out.get(name), prior.get(name)
        if b.nesting == "single" and isinstance(cv, dict) and isinstance(pv, dict):
            out[name] = _proposed_object(b.attributes, b.blocks, pv, cv)
        elif b.nesting == "list" and isinstance(cv, tuple) and isinstance(pv, tuple):
            out[name] = type(cv)(_proposed_object(b.attributes, b.blocks, pv[i], c)
                                 if i < len(pv) and isinstance(c, dict) and isinstance(pv[i], dict) else c
                                 for i, c in enumerate(cv))
        elif b.nesting == "map" and isinstance(cv, dict) and isinstance(pv, dict):
            out[name] = type(cv)({k: _proposed_object(b.attributes, b.blocks, pv[k], c)
                                  if isinstance(c, dict) and isinstance(pv.get(k), dict) else c
                                  for k, c in cv.items()})
    return out
