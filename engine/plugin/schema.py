"""A plugin's GetProviderSchema answer as the engine's :class:`~engine.provider.protocol.ProviderSchema`.

Decoded once per plugin process (the aws provider's answer is ~615 KB). What the engine's schema
has no field for is kept beside it in :class:`PluginSchema`: the server capabilities, each type's
deprecated attributes (a warning when configuration sets one, as terraform gives), and every
type's cty type (the wire encoding of its objects).

Nesting modes map one to one: ``single``, ``group`` (a single block that is never null: left
out, its value is an object of nulls, see :func:`~engine.provider.protocol.empty_value`),
``list``, ``set`` and ``map``.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

import orjson

from engine.frozen import frozen
from engine.plugin.functions import signatures
from engine.provider.protocol import (
    AttributePath,
    AttributeSchema,
    BlockSchema,
    NestedType,
    ProviderSchema,
    ResourceSchema,
)

_BLOCK_NESTING = {1: "single", 2: "list", 3: "set", 4: "map", 5: "group"}
_OBJECT_NESTING = {1: "single", 2: "list", 3: "set", 4: "map"}


@frozen
class Capabilities:
    """tfplugin's ServerCapabilities: what the plugin said about optional protocol behaviour."""

    plan_destroy: bool = False
    """The plugin expects PlanResourceChange for a destroy too."""
    get_provider_schema_optional: bool = False
    """The plugin works without GetProviderSchema being called in each process."""
    move_resource_state: bool = False
    """The plugin answers MoveResourceState (a ``moved`` block across resource types)."""


@frozen
class PluginSchema:
    """A plugin's schema: the engine's view of it plus what only the wire needs."""

    schema: ProviderSchema
    capabilities: Capabilities = Capabilities()
    resource_types: dict[str, Any] = field(default_factory=dict)
    """Each resource type's object type (cty JSON type notation), for encoding its values."""
    data_types: dict[str, Any] = field(default_factory=dict)
    provider_type: Any = ("object", {})
    deprecated: dict[tuple[str, str], tuple[AttributePath, ...]] = field(default_factory=dict)
    """``(mode, type)`` → paths of deprecated attributes (mode ``provider`` for the configuration)."""
    diagnostics: tuple[Any, ...] = ()
    functions: dict[str, Any] = field(default_factory=dict)
    """The provider's functions by name (:class:`~engine.lang.provider_functions.ProviderFunction`,
    not yet bound to a running plugin: :func:`engine.plugin.functions.bind`)."""


def object_type(s: ResourceSchema) -> Any:
    """The cty type of an object of schema ``s``."""
    return ["object", s.implied_types()]


def convert(resp: Any) -> PluginSchema:
    """A GetProviderSchema.Response (tfplugin5 or 6) converted; its diagnostics left for the caller."""
    deprecated: dict[tuple[str, str], tuple[AttributePath, ...]] = {}

    def one(mode: str, name: str, s: Any) -> ResourceSchema:
        dep: list[AttributePath] = []
        attrs, blocks = _block_body(s.block, (), dep)
        if dep:
            deprecated[(mode, name)] = tuple(dep)
        return ResourceSchema(attrs, version=int(s.version), blocks=blocks)

    resources = {n: one("managed", n, s) for n, s in resp.resource_schemas.items()}
    data = {n: one("data", n, s) for n, s in resp.data_source_schemas.items()}
    provider = one("provider", "", resp.provider) if resp.HasField("provider") else None
    caps = resp.server_capabilities if resp.HasField("server_capabilities") else None
    return PluginSchema(
        ProviderSchema(resources, data, provider),
        Capabilities(bool(caps and caps.plan_destroy), bool(caps and caps.get_provider_schema_optional),
                     bool(caps and caps.move_resource_state)),
        {n: object_type(s) for n, s in resources.items()},
        {n: object_type(s) for n, s in data.items()},
        object_type(provider) if provider is not None else ["object", {}],
        deprecated,
        tuple(resp.diagnostics),
        signatures(resp.functions),
    )


def _block_body(block: Any, at: AttributePath, dep: list[AttributePath]
                ) -> tuple[dict[str, AttributeSchema], dict[str, BlockSchema]]:
    attrs = {a.name: _attribute(a, at, dep) for a in block.attributes}
    blocks = {}
    for nb in block.block_types:
        if nb.block.deprecated:
            dep.append((*at, nb.type_name))
        a, b = _block_body(nb.block, (*at, nb.type_name), dep)
        blocks[nb.type_name] = BlockSchema(_BLOCK_NESTING.get(nb.nesting, "single"), a, b,
                                           int(nb.min_items), int(nb.max_items))
    return attrs, blocks


def _attribute(a: Any, at: AttributePath, dep: list[AttributePath]) -> AttributeSchema:
    if a.deprecated:
        dep.append((*at, a.name))
    nested = None
    ty: Any = None
    if a.type:
        ty = orjson.loads(a.type)
    elif hasattr(a, "nested_type") and a.HasField("nested_type"):
        o = a.nested_type
        nested = NestedType(_OBJECT_NESTING.get(o.nesting, "single"),
                            {x.name: _attribute(x, (*at, a.name), dep) for x in o.attributes},
                            int(o.min_items), int(o.max_items))
    else:
        ty = "dynamic"  # neither: not a valid schema, read as terraform reads an absent type
    return AttributeSchema(ty, required=a.required, optional=a.optional, computed=a.computed,
                           sensitive=a.sensitive, description=a.description, nested=nested)
