"""The committed protobuf modules are what protoc makes of strata's .proto definitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.plugin.proto import generate

pytest.importorskip("grpc_tools")


@pytest.mark.parametrize("name", ["tfplugin5", "tfplugin6"])
def test_generated_module_is_in_sync_with_its_proto(tmp_path: Path, name: str) -> None:
    generate.generate(tmp_path)
    fresh = (tmp_path / f"{name}_pb2.py").read_text()
    committed = (generate.HERE / f"{name}_pb2.py").read_text()
    assert fresh == committed, f"{name}_pb2.py is stale: run python -m engine.plugin.proto.generate"


def test_protocol_6_names_its_calls_as_the_protocol_does() -> None:
    from engine.plugin.proto import tfplugin6_pb2 as pb6

    service = pb6.DESCRIPTOR.services_by_name["Provider"]
    assert {m.name for m in service.methods} >= {
        "GetProviderSchema", "ValidateProviderConfig", "ValidateResourceConfig",
        "ValidateDataResourceConfig", "UpgradeResourceState", "ConfigureProvider", "ReadResource",
        "PlanResourceChange", "ApplyResourceChange", "ImportResourceState", "ReadDataSource", "StopProvider"}
    assert pb6.Schema.Attribute.DESCRIPTOR.fields_by_name["nested_type"].number == 10
