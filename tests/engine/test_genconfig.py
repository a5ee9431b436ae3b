"""The configuration generated for an import target (:mod:`engine.planning.genconfig`), as
terraform's internal/genconfig writes it from the object imported and hclwrite formats it."""

from __future__ import annotations

from engine.addrs import InstanceAddr, resource_addr
from engine.cli.generated import FILE_HEADER, file_text
from engine.planning.genconfig import resource_block, value_text
from engine.provider.protocol import AttributeSchema as A
from engine.provider.protocol import BlockSchema as B
from engine.provider.protocol import NestedType as N
from engine.provider.protocol import ResourceSchema as R
from engine.values import ListVal, SetVal


def _addr(type_: str, name: str) -> InstanceAddr:
    return resource_addr(type_, name, "managed").instance(None)


NULL_RESOURCE = R({"id": A("string", computed=True), "triggers": A(["map", "string"], optional=True)})


def test_computed_only_attributes_are_left_out_and_null_is_written() -> None:
    got = resource_block(_addr("null_resource", "a"), NULL_RESOURCE, {"id": "123", "triggers": None})
    assert got == 'resource "null_resource" "a" {\n  triggers = null\n}'


def test_a_map_is_written_one_element_a_line_aligned_with_keys_quoted_when_not_identifiers() -> None:
    got = resource_block(_addr("null_resource", "a"), NULL_RESOURCE,
                         {"id": "1", "triggers": {"long-key": "c", "a": "b", "x y": "${z}"}})
    assert got == ('resource "null_resource" "a" {\n'
                   "  triggers = {\n"
                   '    a        = "b"\n'
                   '    long-key = "c"\n'
                   '    "x y"    = "$${z}"\n'
                   "  }\n"
                   "}")


THING = R({"id": A("string", computed=True), "name": A("string", required=True),
           "password": A("string", optional=True, sensitive=True), "desc": A("string", optional=True),
           "n": A("number", optional=True), "tags": A(["set", "string"], optional=True),
           "disk": A(None, optional=True, nested=N("list", {"size": A("number", optional=True),
                                                            "kind": A("string", computed=True)}))},
          blocks={"rule": B("list", {"port": A("number", required=True), "proto": A("string", optional=True)}),
                  "cfg": B("single", {"on": A("bool", optional=True)})})


def test_sensitive_empty_string_nested_attributes_and_blocks_as_terraform_writes_them() -> None:
    got = resource_block(_addr("x_thing", "b"), THING, {
        "id": "i", "name": 'n"q\n', "password": "p", "desc": "", "n": 1.5, "tags": SetVal(("a", "b")),
        "disk": ListVal(({"size": 10, "kind": "k"},)),
        "rule": ListVal(({"port": 80, "proto": "tcp"}, {"port": 443, "proto": None})), "cfg": {"on": True}},
        provider="x.west")
    assert got == ('resource "x_thing" "b" {\n'
                   "  provider = x.west\n"
                   "  desc     = null\n"  # an optional "" is taken for null
                   "  disk = [\n"
                   "    {\n"
                   "      size = 10\n"
                   "    },\n"
                   "  ]\n"
                   "  n        = 1.5\n"
                   '  name     = "n\\"q\\n"\n'
                   "  password = null # sensitive\n"
                   '  tags     = ["a", "b"]\n'
                   "  cfg {\n"
                   "    on = true\n"
                   "  }\n"
                   "  rule {\n"
                   "    port  = 80\n"
                   '    proto = "tcp"\n'
                   "  }\n"
                   "  rule {\n"
                   "    port  = 443\n"
                   "    proto = null\n"
                   "  }\n"
                   "}")


def test_the_implied_provider_is_not_written() -> None:
    got = resource_block(_addr("null_resource", "a"), NULL_RESOURCE, {"triggers": None}, provider="null")
    assert "provider" not in got


def test_values_are_written_as_hclwrite_writes_them() -> None:
    assert value_text({}) == "{}"
    assert value_text(ListVal(())) == "[]"
    assert value_text("100%{x} $5 \t\u0007") == '"100%%{x} $5 \\t\\u0007"'
    assert value_text(True) == "true" and value_text(None) == "null" and value_text(3) == "3"


def test_the_file_has_terraforms_header_and_a_comment_per_resource() -> None:
    text = file_text([("a b", 'resource "x" "y" {\n}'), (None, 'resource "x" "z" {\n}')])
    assert text == (FILE_HEADER + '\n# __generated__ by Terraform from "a b"\nresource "x" "y" {\n}\n'
                    '\n# __generated__ by Terraform\nresource "x" "z" {\n}\n')
