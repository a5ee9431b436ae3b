"""GetProviderSchema answers, converted to the engine's schema."""

from __future__ import annotations

from engine.plugin.proto import tfplugin5_pb2 as pb5
from engine.plugin.proto import tfplugin6_pb2 as pb6
from engine.plugin.schema import convert


def _attr(pb, name, ty=b'"string"', **kw):
    return pb.Schema.Attribute(name=name, type=ty, **kw)


def test_attributes_and_every_block_nesting_mode() -> None:
    NB = pb5.Schema.NestedBlock
    inner = pb5.Schema.Block(attributes=[_attr(pb5, "port", b'"number"', required=True)])
    block = pb5.Schema.Block(
        attributes=[_attr(pb5, "name", required=True), _attr(pb5, "id", optional=True, computed=True),
                    _attr(pb5, "secret", sensitive=True, optional=True),
                    _attr(pb5, "tags", b'["map","string"]', optional=True)],
        block_types=[NB(type_name=n, block=inner, nesting=m, min_items=1 if n == "l" else 0, max_items=2)
                     for n, m in [("s", NB.SINGLE), ("l", NB.LIST), ("t", NB.SET), ("m", NB.MAP), ("g", NB.GROUP)]])
    resp = pb5.GetProviderSchema.Response(resource_schemas={"x_thing": pb5.Schema(version=3, block=block)})
    s = convert(resp)
    r = s.schema.resources["x_thing"]
    assert r.version == 3
    assert r.attributes["name"].required and r.attributes["secret"].sensitive
    assert r.attributes["id"].optional and r.attributes["id"].computed
    assert r.attributes["tags"].type == ["map", "string"]
    assert {n: b.nesting for n, b in r.blocks.items()} == {"s": "single", "l": "list", "t": "set",
                                                           "m": "map", "g": "group"}
    assert r.blocks["l"].min_items == 1 and r.blocks["l"].max_items == 2
    assert s.resource_types["x_thing"][1]["l"] == ["list", ["object", {"port": "number"}]]
    assert s.schema.provider is None and s.provider_type == ["object", {}]


def test_protocol_6_nested_attributes() -> None:
    Obj = pb6.Schema.Object
    disk = pb6.Schema.Attribute(name="disk", optional=True, nested_type=Obj(
        nesting=Obj.LIST, attributes=[_attr(pb6, "size", b'"number"', required=True),
                                    _attr(pb6, "label", optional=True)]))
    resp = pb6.GetProviderSchema.Response(
        resource_schemas={"x": pb6.Schema(block=pb6.Schema.Block(attributes=[disk]))})
    a = convert(resp).schema.resources["x"].attributes["disk"]
    assert a.nested is not None and a.nested.nesting == "list"
    assert a.type == ["list", ["object", {"size": "number", "label": "string"}, ["label"]]]


def test_deprecated_attributes_are_recorded_by_path() -> None:
    block = pb5.Schema.Block(attributes=[_attr(pb5, "old", optional=True, deprecated=True)],
                             block_types=[pb5.Schema.NestedBlock(
                                 type_name="b", nesting=pb5.Schema.NestedBlock.LIST,
                                 block=pb5.Schema.Block(attributes=[_attr(pb5, "gone", optional=True,
                                                                          deprecated=True)]))])
    s = convert(pb5.GetProviderSchema.Response(provider=pb5.Schema(block=block)))
    assert s.deprecated[("provider", "")] == (("old",), ("b", "gone"))


def test_server_capabilities_are_read() -> None:
    resp = pb6.GetProviderSchema.Response(server_capabilities=pb6.ServerCapabilities(plan_destroy=True))
    assert convert(resp).capabilities.plan_destroy


def test_setting_a_deprecated_attribute_is_terraforms_warning() -> None:
    from engine.plugin.client import _deprecations

    block = pb5.Schema.Block(attributes=[_attr(pb5, "old", optional=True, deprecated=True),
                                         _attr(pb5, "new", optional=True)])
    s = convert(pb5.GetProviderSchema.Response(resource_schemas={"x": pb5.Schema(block=block)}))
    assert _deprecations(s, "managed", "x", {"old": None, "new": "v"}) == ()
    (w,) = _deprecations(s, "managed", "x", {"old": "v", "new": None})
    assert w.severity == "warning" and w.summary == "Deprecated attribute" and w.attribute == ("old",)
