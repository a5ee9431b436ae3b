"""The provider seam: schemas, and the request/response objects of each provider call.

A provider is any object with the async methods of :class:`Provider`. The core never calls one
directly: every call goes through :class:`~engine.provider.seam.ProviderSeam`, which maps what a
provider raises and the diagnostics it returns to strata's errors once. In-process providers
(``providers/``, :class:`~engine.provider.mock.MockProvider`) and plugins over tfplugin5/6 are
implementations of the same protocol.

The request and response objects follow tfplugin6's messages (resource instance change
lifecycle, 001_34737dbf376f3bcf.txt). Each field's docstring says what the core guarantees when it
sends it ("core:") and what the provider must guarantee when it returns it ("provider:"); the core
checks the provider's promises (:mod:`engine.provider.contracts`) and reports a broken one as a
bug in the provider, naming it, the resource address and the attribute.

Values: objects are ``dict`` (attribute name → value), with :data:`~engine.values.UNKNOWN` for a
value not known yet and ``None`` for null; lists, sets and maps are ``ListVal``, ``SetVal`` and
``MapVal``. "Wholly known" means no ``UNKNOWN`` anywhere inside.

Private data (``*_private``, ``private``) is opaque bytes a provider keeps with an object: the core
never looks inside, stores it in the state (``private``, base64 in state v4), and hands it back on
the next call about the same object. ``b""`` is "none".

A provider built on the legacy SDK (tfplugin5's ``legacy_type_system``) cannot keep the planned
and applied values' promises exactly; the core then logs the broken promises as warnings instead
of failing, as terraform does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any, Protocol, runtime_checkable

from engine.diagnostics import Diagnostic
from engine.frozen import frozen
from engine.values import ListVal, MapVal, SetVal

PathStep = str | int
"""One step into a value: an attribute name or a map key (``str``), or a list index (``int``).
Objects and maps are both ``dict`` here, so a name and a key are walked the same way; a plugin
client tells them apart by the schema."""

AttributePath = tuple[PathStep, ...]
"""A path from an object's top to a value inside it: ``("tags", "env")``, ``("rule", 0, "port")``."""

NESTINGS = frozenset({"single", "group", "list", "set", "map"})


@frozen
class NestedType:
    """tfplugin6's nested attribute type (``NestedType``): an attribute whose value is an object
    (``single``) or a list, set or map of objects with ``attributes``, written in configuration
    with attribute syntax (``disk = { size = 1 }``) but planned as a nested block of the same
    nesting is (001_34737dbf376f3bcf.txt: "structural-typed attributes")."""

    nesting: str
    attributes: dict[str, AttributeSchema]
    min_items: int = 0
    max_items: int = 0  # 0: no limit

    def object_type(self) -> Any:
        """The elements' cty type: an object whose attributes that are not required may be left out."""
        optional = sorted(n for n, a in self.attributes.items() if not a.required)
        obj: list[Any] = ["object", {n: a.type for n, a in self.attributes.items()}]
        return obj + [optional] if optional else obj

    def implied_type(self) -> Any:
        obj = self.object_type()
        return obj if self.nesting == "single" else [self.nesting, obj]

    def as_block(self) -> BlockSchema:
        """The same nesting seen as a nested block, for the rules the two share."""
        return BlockSchema(self.nesting, self.attributes, {}, self.min_items, self.max_items)


@frozen
class AttributeSchema:
    """One attribute. ``type`` is cty's JSON type notation (``"string"``, ``"dynamic"``,
    ``["list", "string"]``...); with ``nested`` (a :class:`NestedType`) it may be left ``None``
    and is then the nested type's implied type.

    Invariants: at least one of ``required``, ``optional``, ``computed``; ``required`` excludes
    the other two. ``computed`` alone: only the provider sets it; ``optional`` and ``computed``:
    the provider may choose a value when the configuration leaves it null."""

    type: Any
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    description: str = ""
    nested: NestedType | None = None

    def __post_init__(self) -> None:
        if self.nested is not None and self.type is None:
            object.__setattr__(self, "type", self.nested.implied_type())


@frozen
class BlockSchema:
    """A nested block type: ``nesting`` is "single", "group", "list", "set" or "map" (map blocks
    take one label). A ``group`` block is a ``single`` one that is never null: left out, it is
    :func:`empty_value` (every attribute null, every nested block empty), as terraform's
    NestingGroup is."""

    nesting: str
    attributes: dict[str, AttributeSchema]
    blocks: dict[str, BlockSchema] = field(default_factory=dict)
    min_items: int = 0
    max_items: int = 0  # 0: no limit


@frozen
class ResourceSchema:
    """A resource type's (or data source's, or provider configuration's) schema. ``version`` is
    the schema version the provider writes objects with: an object stored with a lower one is
    upgraded (UpgradeResourceState) before anything else is asked about it."""

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
    if b.nesting == "single" or b.nesting == "group":
        return obj
    return [b.nesting, obj]


def empty_value(b: BlockSchema) -> Any:
    """The value of block type ``b`` when configuration has none of its blocks (terraform's
    ``Block.EmptyValue`` of the nested block): null for ``single``, an empty list, set or map,
    and for ``group`` an object of nulls whose nested blocks are empty in turn."""
    if b.nesting == "single":
        return None
    if b.nesting == "group":
        return {**dict.fromkeys(b.attributes), **{n: empty_value(x) for n, x in b.blocks.items()}}
    empty: Any = {"list": ListVal, "set": SetVal, "map": MapVal}[b.nesting]
    return empty()


@frozen
class ProviderSchema:
    """Every resource type and data source a provider serves, and its own configuration's schema."""

    resources: dict[str, ResourceSchema]
    data_sources: dict[str, ResourceSchema] = field(default_factory=dict)
    provider: ResourceSchema | None = None


@frozen
class PlanResourceChangeRequest:
    """Predict the effect of applying a change to one object (called twice per change: the
    initial plan, and the final plan during apply)."""

    type_name: str
    """core: a resource type in the provider's schema."""
    prior_state: dict[str, Any] | None
    """core: the object as refreshed (wholly known, conforming to the current schema), or
    ``None`` when there is none yet (create, or a replacement planned as a create)."""
    proposed_new_state: dict[str, Any] | None
    """core: :func:`proposed_new_state` of ``config`` and ``prior_state``: configuration where
    non-null, the prior value for a computed attribute left null; ``None`` for a destroy."""
    config: dict[str, Any] | None
    """core: the configuration converted to the schema's types; attributes not written are null;
    may hold ``UNKNOWN`` in the initial plan, never in the final plan; ``None`` for a destroy."""
    prior_private: bytes = b""
    """core: the private data stored with the prior object (``b""`` when none)."""


@frozen
class PlanResourceChangeResponse:
    planned_state: dict[str, Any] | None
    """provider: ``None`` exactly when ``proposed_new_state`` was (destroy). Otherwise every
    non-null configured value kept as configured, or as its prior value (normalization); only
    computed attributes null in configuration set freely; ``UNKNOWN`` for what apply will decide;
    as many nested blocks as configured. In the final plan every value known in the initial plan
    is identical."""
    requires_replace: tuple[str | AttributePath, ...] = ()
    """provider: paths (or, for a top-level attribute, its name: read as a one-step path) whose
    change cannot be applied in place. The core replaces the object when a value at one of them differs between prior and
    planned state, and says ``# forces replacement`` at that value."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """provider: errors stop this instance; warnings are shown. The core adds the address."""
    planned_private: bytes = b""
    """provider: private data to hand to ApplyResourceChange (``planned_private``)."""
    legacy_type_system: bool = False
    """provider: built on the legacy SDK; broken planned-value promises are logged as warnings."""


def _no_progress(message: str) -> None:
    pass


@frozen
class ApplyResourceChangeRequest:
    """Make the remote object match the final planned state (create, update or destroy)."""

    type_name: str
    """core: a resource type in the provider's schema."""
    prior_state: dict[str, Any] | None
    """core: the current object (wholly known), or ``None`` for a create."""
    planned_state: dict[str, Any] | None
    """core: the final planned state, as the provider planned it; ``None`` for a destroy."""
    config: dict[str, Any] | None
    """core: the configuration, wholly known; ``None`` for a destroy."""
    progress: Callable[[str], None] = _no_progress
    """core: ``progress(message)`` reports what a long operation is doing; each call becomes an
    event."""
    planned_private: bytes = b""
    """core: ``planned_private`` of the final plan's response, unchanged."""
    prior_private: bytes = b""
    """core: the private data stored with the prior object (``b""`` when none; tfplugin does not
    send it, a plugin client ignores it)."""


@frozen
class ApplyResourceChangeResponse:
    new_state: dict[str, Any] | None
    """provider: ``None`` exactly for a successful destroy. Otherwise wholly known, every value
    known in the planned state identical, as many nested blocks as planned. With errors: the
    object as far as it was made (it is kept, tainted if it was being created), or ``None`` when
    nothing was made (a failed destroy: the prior state)."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """provider: errors fail this instance (retried with backoff when all are ``retryable``)."""
    private: bytes = b""
    """provider: private data stored with the new object in the state."""
    legacy_type_system: bool = False
    """provider: built on the legacy SDK; broken new-value promises are logged as warnings."""


@frozen
class ReadResourceRequest:
    """Refresh: the object as it is now in the remote system."""

    type_name: str
    """core: a resource type in the provider's schema."""
    current_state: dict[str, Any]
    """core: the object from the state, upgraded to the current schema, wholly known (or the
    import stub, after ImportResourceState)."""
    private: bytes = b""
    """core: the private data stored with the object (or returned with the import stub)."""


@frozen
class ReadResourceResponse:
    new_state: dict[str, Any] | None
    """provider: ``None`` when the object no longer exists; otherwise wholly known, the prior
    value kept where only its form changed (normalization), the remote value where it changed
    (drift)."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """provider: errors leave the object as it was and stop the plan."""
    private: bytes = b""
    """provider: private data stored with the object from now on."""


@frozen
class ValidateResourceConfigRequest:
    """Custom validation of a resource's (or data source's) configuration."""

    type_name: str
    """core: a resource type (data source, for ValidateDataResourceConfig) of the schema."""
    config: dict[str, Any]
    """core: the configuration converted to the schema's types; may hold ``UNKNOWN``."""


@frozen
class ValidateResourceConfigResponse:
    diagnostics: tuple[Diagnostic, ...] = ()
    """provider: errors stop this instance; a provider should not report errors about unknown
    values (it is asked again once they are known)."""


@frozen
class ReadDataSourceRequest:
    type_name: str
    """core: a data source of the schema."""
    config: dict[str, Any]
    """core: the configuration converted to the schema's types, wholly known."""


@frozen
class ReadDataSourceResponse:
    state: dict[str, Any] | None
    """provider: the object read, wholly known, configured values kept."""
    diagnostics: tuple[Diagnostic, ...] = ()


@frozen
class ImportResourceStateRequest:
    type_name: str
    """core: a resource type of the schema, declared in configuration."""
    id: str
    """core: the user's import id, as given."""


@frozen
class ImportResourceStateResponse:
    """The import stub: an object holding at least what ReadResource needs to find the real object."""

    state: dict[str, Any] | None
    """provider: the import stub (passed to ReadResource at once), or ``None`` with errors."""
    diagnostics: tuple[Diagnostic, ...] = ()
    private: bytes = b""
    """provider: private data handed to that ReadResource."""


class FlatmapState(dict[str, str]):
    """A stored object in the flatmap form of Terraform before 0.12 (``"tags.%" = "1"``), as a
    state upgraded from version 3 keeps it (``attributes_flat``). Only its provider can read it:
    it is sent to UpgradeResourceState (a plugin gets it as ``RawState.flatmap``), whatever the
    schema version, before anything else is asked about the object (terraform does the same)."""


@frozen
class MoveResourceStateRequest:
    """A ``moved`` block took an object of another resource type (terraform 1.8's
    MoveResourceState): the provider of the target type makes its object of it. Only a provider
    with a ``move_resource_state`` method takes such moves (terraform's MoveResourceState
    server capability); the core says so otherwise."""

    source_provider_address: str
    """core: the source object's provider, ``registry.terraform.io/hashicorp/null``."""
    source_type_name: str
    source_schema_version: int
    source_state: dict[str, Any]
    """core: the source object's attributes, as the state has them."""
    target_type_name: str
    source_private: bytes = b""


@frozen
class MoveResourceStateResponse:
    target_state: dict[str, Any] | None
    """provider: the object of the target type, wholly known; ``None`` with errors."""
    diagnostics: tuple[Diagnostic, ...] = ()
    target_private: bytes = b""


@frozen
class UpgradeResourceStateRequest:
    """``raw_state`` is the stored JSON form of an object written with schema ``version`` (or its
    flatmap form, a :class:`FlatmapState`)."""

    type_name: str
    """core: a resource type of the schema."""
    version: int
    """core: the schema version the object was written with, lower than the current one."""
    raw_state: dict[str, Any]
    """core: the object's attributes as stored (JSON form: lists as tuples, no typed values)."""


@frozen
class UpgradeResourceStateResponse:
    upgraded_state: dict[str, Any] | None
    """provider: the same object conforming to the current schema, wholly known; its meaning
    unchanged (drift is for ReadResource to find)."""
    diagnostics: tuple[Diagnostic, ...] = ()
    private: bytes | None = None
    """provider: new private data for the object; ``None`` keeps what the state holds (tfplugin
    does not carry private data through an upgrade)."""


@runtime_checkable
class Provider(Protocol):
    """The one interface between the core and a provider.

    The core calls it only through :class:`~engine.provider.seam.ProviderSeam`. An exception
    raised by any method is a provider bug (or a crashed plugin): the seam reports it as the
    failure of that call for that object, never as strata's traceback."""

    source: str
    """The provider's source address, e.g. ``terraform.io/builtin/terraform``."""

    def get_schema(self) -> ProviderSchema:
        """provider: the same schema on every call (the core caches it per run)."""
        ...

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        """core: called once per provider configuration, before any other call but
        ``get_schema``, with the ``provider`` block's arguments (wholly known) that its schema
        declares. provider: errors stop the run."""
        ...

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
        return ReadResourceResponse(req.current_state, private=req.private)

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
    configuration, inside nested blocks and nested attribute types too (single ones, list ones by
    index, map ones by key; a set's elements have no identity to pair them by, and stay as
    configured)."""
    if prior is None:
        return dict(config)
    return _proposed_object(schema.attributes, schema.blocks, prior, config)


def _proposed_object(attributes: dict[str, AttributeSchema], blocks: dict[str, BlockSchema],
                     prior: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    out = dict(config)
    nested: list[tuple[str, BlockSchema]] = []
    for name, a in attributes.items():
        if a.computed and out.get(name) is None and name in prior:
            out[name] = prior[name]
        elif a.nested is not None:  # rare: a structural attribute is planned as a block is
            nested.append((name, a.nested.as_block()))
    for name, b in (blocks.items() if not nested else [*blocks.items(), *nested]):  # hot path: mostly none
        cv, pv = out.get(name), prior.get(name)
        if (b.nesting == "single" or b.nesting == "group") and isinstance(cv, dict) and isinstance(pv, dict):
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
