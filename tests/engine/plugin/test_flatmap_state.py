"""A state upgraded from version 3 keeps each object of Terraform before 0.12 in its flatmap
form (``attributes_flat``): decoded as such, written back as such, and sent to the plugin's
UpgradeResourceState as ``RawState.flatmap``."""

from __future__ import annotations

import pytest

from engine.provider.protocol import FlatmapState
from engine.state.codec import InvalidField, decode_object, encode_object

FLAT = {"id": "123", "triggers.%": "1", "triggers.v": "1"}


def test_attributes_flat_decodes_as_a_flatmap_for_the_provider() -> None:
    obj = decode_object({"schema_version": 0, "attributes_flat": FLAT, "private": "eyJ4IjoxfQ=="}, {})
    assert type(obj.attributes) is FlatmapState and obj.attributes == FLAT
    assert obj.private == b'{"x":1}'


def test_a_flatmap_not_yet_upgraded_is_written_back_as_it_was() -> None:
    obj = decode_object({"schema_version": 1, "attributes_flat": FLAT}, {})
    out = encode_object(None, obj, {})
    assert out["attributes_flat"] == FLAT and "attributes" not in out and out["schema_version"] == 1


@pytest.mark.parametrize("flat", [["id"], {"count": 1}])
def test_a_malformed_flatmap_is_terraforms_invalid_field(flat: object) -> None:
    with pytest.raises(InvalidField) as e:
        decode_object({"attributes_flat": flat}, {})
    assert 'field "resources.instances.attributes_flat"' in e.value.detail


def test_the_plugin_gets_a_flatmap_as_raw_state_flatmap() -> None:
    from engine.plugin.client import PluginProvider
    from engine.plugin.proto import tfplugin5_pb2 as pb5
    from engine.plugin.schema import PluginSchema
    from engine.provider.protocol import ProviderSchema, UpgradeResourceStateRequest

    sent = []

    class _Stub(PluginProvider):
        async def _ensure_async(self) -> None:
            pass

        def plugin_schema(self) -> PluginSchema:
            return PluginSchema(ProviderSchema({}), resource_types={"null_resource": ["object", {
                "id": "string", "triggers": ["map", "string"]}]})

        async def _call(self, call: str, req: object) -> object:
            sent.append(req)
            return pb5.UpgradeResourceState.Response(upgraded_state=pb5.DynamicValue(
                json=b'{"id":"123","triggers":{"v":"1"}}'))

    p = _Stub("/nonexistent", "registry.terraform.io/hashicorp/null")
    p._pb = pb5
    p._rpcs = {"UpgradeResourceState": type("R", (), {"request": pb5.UpgradeResourceState.Request})()}
    import anyio

    got = anyio.run(p.upgrade_resource_state, UpgradeResourceStateRequest("null_resource", 0, FlatmapState(FLAT)))
    (req,) = sent
    assert dict(req.raw_state.flatmap) == FLAT and not req.raw_state.json
    assert got.upgraded_state == {"id": "123", "triggers": {"v": "1"}}
