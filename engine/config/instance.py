"""Evaluating one resource instance's configuration against its schema.

Used both while planning and at apply time (when the values an instance
refers to have become known), so the two always agree on what the
configuration means: every schema attribute present (null when unset),
values converted to the schema's types, nested blocks turned into
objects, lists, sets or maps of objects.
"""

from __future__ import annotations

from typing import Any

from engine.config.dynamic import expand_dynamic
from engine.config.model import ResourceConfig
from engine.config.suggestions import unsupported_block
from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang.convert import ConversionError, convert
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import Attribute, Block
from engine.provider.protocol import AttributeSchema, BlockSchema, ResourceSchema, empty_value
from engine.values import UNKNOWN, ListVal, MapVal, SetVal


def evaluate_instance_config(rc: ResourceConfig, schema: ResourceSchema, scope: Scope
                             ) -> tuple[dict[str, Any], list[Diagnostic]]:
    diags: list[Diagnostic] = []
    # as terraform's: a mistake in the configuration names its block, not a resource instance
    ctx = rc.context
    config = _attributes(rc.attributes, schema.attributes, scope, rc.range.filename, ctx, diags)
    if schema.blocks or rc.blocks:
        config.update(_blocks(rc.blocks, schema.blocks, scope, rc.range, ctx, diags))
    return config, diags


def _attributes(attrs: dict[str, Attribute], schema: dict[str, AttributeSchema], scope: Scope,
                filename: str, ctx: str | None, diags: list[Diagnostic]) -> dict[str, Any]:
    config: dict[str, Any] = dict.fromkeys(schema)
    for name, attr in attrs.items():
        a = schema.get(name)
        try:
            v = evaluate(attr.expr, scope)
        except EvalError as exc:
            diags.append(exc.error(SourceRange(filename, exc.line), context=ctx))
            continue
        if a is not None and a.type != "dynamic" and not (type(v) is str and a.type == "string"):
            try:
                v = convert(v, a.type)
            except ConversionError as exc:
                where = f' attribute "{name}"' + (f" at {exc.path}" if exc.path else "")
                diags.append(error("Incorrect attribute value type",
                                   f"Inappropriate value for{where}: {exc.message}", attr.range, context=ctx))
                continue
        config[name] = v
    return config


Found = list[tuple[Block, Scope, tuple[str, ...]]]
"""The blocks of one type as evaluated: each with the scope its content is evaluated in (a
``dynamic`` block's binds its iterator) and its labels."""


def _blocks(blocks: tuple[Block, ...] | list[Block], schema: dict[str, BlockSchema], scope: Scope,
            rng: SourceRange, ctx: str | None, diags: list[Diagnostic]) -> dict[str, Any]:
    by_type: dict[str, Found] = {}
    unknown: set[str] = set()  # a dynamic block's for_each is unknown: so is how many there are
    for b in blocks:
        if b.type == "dynamic":
            expand_dynamic(b, schema, scope, ctx, diags, by_type, unknown)
            continue
        if b.type not in schema:
            diags.append(error("Unsupported block type", unsupported_block(b.type, schema), b.range, context=ctx))
            continue
        by_type.setdefault(b.type, []).append((b, scope, b.labels))
    out: dict[str, Any] = {}
    for name, bs in schema.items():
        if name in unknown:
            out[name] = UNKNOWN
            continue
        found = by_type.get(name, [])
        values = []
        for b, inner, labels in found:
            v = _attributes(b.attributes, bs.attributes, inner, b.range.filename, ctx, diags)
            v.update(_blocks(b.blocks, bs.blocks, inner, b.range, ctx, diags))
            for an, a_s in bs.attributes.items():
                if a_s.required and an not in b.attributes:
                    diags.append(error("Missing required argument",
                                       f'The argument "{an}" is required in a "{name}" block.', b.range, context=ctx))
            values.append((b, labels, v))
        if bs.min_items and len(values) < bs.min_items:
            diags.append(error("Insufficient blocks", f'At least {bs.min_items} "{name}" blocks are required.',
                               rng, context=ctx))
        if bs.max_items and len(values) > bs.max_items:
            diags.append(error("Too many blocks", f'No more than {bs.max_items} "{name}" blocks are allowed.',
                               values[bs.max_items][0].range, context=ctx))
        if bs.nesting == "single":
            out[name] = values[0][2] if values else None
        elif bs.nesting == "group":  # never null: left out, every attribute null (terraform's)
            out[name] = values[0][2] if values else empty_value(bs)
        elif bs.nesting == "list":
            out[name] = ListVal(v for _b, _l, v in values)
        elif bs.nesting == "set":
            out[name] = SetVal.of(v for _b, _l, v in values)
        elif bs.nesting == "map":
            out[name] = MapVal({labels[0] if labels else "": v for _b, labels, v in values})
    return out


def evaluate_blocks(blocks: tuple[Block, ...], schema: dict[str, BlockSchema], scope: Scope,
                    rng: SourceRange, diags: list[Diagnostic]) -> dict[str, Any]:
    """Nested blocks as values of their ``schema`` (a provider block's, too): objects, or lists,
    sets or maps of them; a block type the schema does not declare is an error in ``diags``."""
    return _blocks(blocks, schema, scope, rng, None, diags)


def block_counts(value: dict[str, Any], schema: ResourceSchema) -> dict[str, int]:
    """How many nested blocks of each type an object has (checked to be unchanged by apply)."""
    counts = {}
    for name, bs in schema.blocks.items():
        v = value.get(name)
        if bs.nesting == "single" or bs.nesting == "group":
            counts[name] = 0 if v is None else 1
        elif isinstance(v, (tuple, dict)):
            counts[name] = len(v)
    return counts
