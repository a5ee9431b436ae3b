"""tfplugin's NestingGroup: a single nested block that is never null. Left out of the
configuration, its value is an object whose attributes are null and whose nested blocks are empty
(terraform's ``Block.EmptyValue``); that is what the plugin is sent and the state keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from engine.config.module import load_module
from engine.config.providers import configure_providers
from engine.diagnostics import Diagnostic
from engine.plugin import msgpack_values as mv
from engine.plugin.proto import tfplugin5_pb2 as pb5
from engine.plugin.schema import convert
from engine.provider.protocol import BaseProvider, ProviderSchema, empty_value, proposed_new_state
from engine.provider.registry import Providers
from engine.values import ListVal, MapVal, SetVal

NB = pb5.Schema.NestedBlock


def _schema() -> Any:
    """A provider and a resource type, each with a group block ``timeouts`` holding an attribute,
    a list block, a set block, a map block, a single block and a group block."""
    leaf = pb5.Schema.Block(attributes=[pb5.Schema.Attribute(name="v", type=b'"string"', optional=True)])
    group = pb5.Schema.Block(
        attributes=[pb5.Schema.Attribute(name="create", type=b'"string"', optional=True)],
        block_types=[NB(type_name="l", nesting=NB.LIST, block=leaf), NB(type_name="t", nesting=NB.SET, block=leaf),
                     NB(type_name="m", nesting=NB.MAP, block=leaf), NB(type_name="s", nesting=NB.SINGLE, block=leaf),
                     NB(type_name="g", nesting=NB.GROUP, block=leaf)])
    block = pb5.Schema.Block(attributes=[pb5.Schema.Attribute(name="name", type=b'"string"', optional=True)],
                             block_types=[NB(type_name="timeouts", nesting=NB.GROUP, block=group)])
    return convert(pb5.GetProviderSchema.Response(provider=pb5.Schema(block=block),
                                                  resource_schemas={"x_thing": pb5.Schema(block=block)}))


EMPTY = {"create": None, "l": ListVal(), "t": SetVal(), "m": MapVal(), "s": None, "g": {"v": None}}


def test_group_blocks_convert_as_group_with_an_object_type() -> None:
    s = _schema()
    timeouts = s.schema.resources["x_thing"].blocks["timeouts"]
    assert timeouts.nesting == "group" and timeouts.blocks["g"].nesting == "group"
    # the wire type of a group block is its object, as a single block's is
    ty = s.resource_types["x_thing"][1]["timeouts"]
    assert ty[0] == "object" and ty[1]["g"] == ["object", {"v": "string"}]


def test_an_absent_group_block_is_an_object_of_nulls_and_empty_blocks() -> None:
    timeouts = _schema().schema.resources["x_thing"].blocks["timeouts"]
    got = empty_value(timeouts)
    assert got == EMPTY
    assert type(got["l"]) is ListVal and type(got["t"]) is SetVal and type(got["m"]) is MapVal


def test_an_absent_group_block_goes_over_the_wire_as_an_object() -> None:
    s = _schema()
    ty = s.resource_types["x_thing"]
    value = {"name": "a", "timeouts": empty_value(s.schema.resources["x_thing"].blocks["timeouts"])}
    assert mv.decode(mv.encode(value, ty), ty) == value


def test_proposed_new_state_merges_a_group_block_as_a_single_one() -> None:
    r = _schema().schema.resources["x_thing"]
    prior = {"name": "a", "timeouts": {**EMPTY, "create": "5m"}}
    config = {"name": "a", "timeouts": dict(EMPTY)}
    assert proposed_new_state(r, prior, config)["timeouts"] == dict(EMPTY)


class _Grouped(BaseProvider):
    source = "example.com/x/grouped"

    def __init__(self) -> None:
        self.configured: dict[str, Any] | None = None

    def get_schema(self) -> ProviderSchema:
        return _schema().schema

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        self.configured = config
        return ()


def _configure(tmp_path: Path, text: str) -> _Grouped:
    (tmp_path / "main.tf").write_text(text)
    provider = _Grouped()
    diags: list[Diagnostic] = []
    anyio.run(configure_providers, load_module(str(tmp_path)), Providers({"grouped": provider}), {},
              lambda n, line: None, diags)
    assert not diags, diags
    assert provider.configured is not None
    return provider


def test_configuration_without_the_group_block_decodes_to_the_empty_object(tmp_path: Path) -> None:
    p = _configure(tmp_path, 'provider "grouped" {\n  name = "a"\n}\n')
    assert p.configured == {"name": "a", "timeouts": EMPTY}


def test_configuration_with_the_group_block_decodes_to_its_values(tmp_path: Path) -> None:
    p = _configure(tmp_path, 'provider "grouped" {\n  timeouts {\n    create = "5m"\n    l {\n      v = "x"\n    }\n  }\n}\n')
    assert p.configured is not None
    t = p.configured["timeouts"]
    assert t["create"] == "5m" and t["l"] == ({"v": "x"},) and t["g"] == {"v": None} and t["s"] is None
