"""Configuration generated for an ``import`` block whose target has none (``plan
-generate-config-out=FILE``), written as terraform's ``internal/genconfig`` writes it.

The object is imported first; its configuration is then generated from the object read: every
required or optional attribute with the value read (computed-only ones left out, a sensitive
one ``null # sensitive``, an optional empty string null), nested blocks as blocks and nested
attributes as object expressions, the whole laid out by the formatter (``terraform fmt``'s
layout, as hclwrite.Format). The text is the resource block the import is planned against and,
under terraform's header comments, what FILE gets (:mod:`engine.cli.generated` writes it).
Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from engine.addrs import InstanceAddr
from engine.lang.fmt import format_source
from engine.lang.number import to_string
from engine.lang.quote import go_quote, hcl_escape
from engine.provider.protocol import AttributeSchema, BlockSchema, ResourceSchema

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def resource_block(addr: InstanceAddr, schema: ResourceSchema, value: dict[str, Any],
                   provider: str | None = None) -> str:
    """The ``resource "T" "N" { ... }`` block for the object ``value`` read on import, formatted,
    without a final newline (terraform's WrapResourceContents of GenerateResourceContents).
    ``provider``: the import block's ``provider`` (written when it is not the implied one)."""
    buf: list[str] = []
    implied = addr.resource.type.split("_", 1)[0]
    if provider is not None and provider != implied:
        buf.append(f"  provider = {provider}\n")
    # as terraform's: not the legacy SDK's optional+computed "id", which the provider's own
    # validation may refuse in configuration
    attrs = {n: a for n, a in schema.attributes.items() if not (n == "id" and a.optional and a.computed)}
    _attributes(buf, attrs, value, 2)
    _blocks(buf, schema.blocks, value, 2)
    contents = format_source("".join(buf))
    text = f'resource "{addr.resource.type}" "{addr.resource.name}" {{\n{contents}}}'
    return format_source(text)


def _attributes(buf: list[str], attrs: dict[str, AttributeSchema], value: dict[str, Any] | None, indent: int) -> None:
    pad = " " * indent
    for name in sorted(attrs):
        a = attrs[name]
        if a.nested is not None:
            _nested_attribute(buf, name, a, value, indent)
            continue
        if not (a.required or a.optional):  # computed only: the provider's to set
            continue
        val = value.get(name) if value else None
        if isinstance(val, str) and val == "" and a.optional:
            val = None  # as terraform's: an optional "" is taken for null (the legacy SDK's)
        buf.append(f"{pad}{name} = " + ("null # sensitive" if a.sensitive else value_text(val)) + "\n")


def _nested_attribute(buf: list[str], name: str, a: AttributeSchema, value: dict[str, Any] | None,
                      indent: int) -> None:
    assert a.nested is not None
    pad = " " * indent
    nesting = a.nested.nesting
    if a.sensitive:
        buf.append(f"{pad}{name} = {'[]' if nesting in ('list', 'set') else '{}'} # sensitive\n")
        return
    if value is None or name not in value:
        return
    got = value[name]
    if got is None:
        buf.append(f"{pad}{name} = null\n")
        return
    if nesting == "single":
        buf.append(f"{pad}{name} = {{\n")
        _attributes(buf, a.nested.attributes, got, indent + 2)
        buf.append("}\n")
    elif nesting in ("list", "set"):
        buf.append(f"{pad}{name} = [\n")
        for elem in got:
            buf.append(f"{pad}  {{\n")
            _attributes(buf, a.nested.attributes, elem, indent + 4)
            buf.append(f"{pad}  }},\n")
        buf.append(f"{pad}]\n")
    else:
        buf.append(f"{pad}{name} = {{\n")
        for key in sorted(got):
            buf.append(f"{pad}  {key} = {{\n")
            _attributes(buf, a.nested.attributes, got[key], indent + 4)
            buf.append(f"{pad}  }}\n")
        buf.append(f"{pad}}}\n")


def _blocks(buf: list[str], blocks: dict[str, BlockSchema], value: dict[str, Any] | None, indent: int) -> None:
    pad = " " * indent
    for name in sorted(blocks):
        b = blocks[name]
        if value is None or name not in value:
            continue
        got = value[name]
        if b.nesting in ("single", "group"):
            buf.append(f"{pad}{name} {{\n")
            _attributes(buf, b.attributes, got, indent + 2)
            _blocks(buf, b.blocks, got, indent + 2)
            buf.append("}\n")
        elif b.nesting in ("list", "set"):
            for elem in got or ():
                buf.append(f"{pad}{name} {{\n")
                _attributes(buf, b.attributes, elem, indent + 2)
                _blocks(buf, b.blocks, elem, indent + 2)
                buf.append("}\n")
        else:
            for key in sorted(got or {}):
                buf.append(f"{pad}{name} {go_quote(key)} {{\n")
                _attributes(buf, b.attributes, got[key], indent + 2)
                _blocks(buf, b.blocks, got[key], indent + 2)
                buf.append(f"{pad}}}\n")


def value_text(v: Any) -> str:
    """``v`` as an HCL expression, as hclwrite.TokensForValue writes it (before formatting):
    lists, sets and tuples ``[a, b]``, maps and objects one element a line in key order, a
    key that is not an identifier quoted."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + hcl_escape(v) + '"'
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = [(k if _IDENT.match(k) else '"' + hcl_escape(k) + '"') + " = " + value_text(v[k]) for k in sorted(v)]
        return "{\n" + "\n".join(items) + "\n}"
    if isinstance(v, (list, tuple, frozenset, set)):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    return to_string(v)


