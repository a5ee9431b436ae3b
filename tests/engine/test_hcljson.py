"""engine/hcljson.py: .tf.json into the same blocks as native HCL; strings are templates and
every attribute keeps its own key's line."""

from __future__ import annotations

import pytest

from engine.config.constants import _NoResources
from engine.diagnostics import DiagnosticsError
from engine.lang import expr as E
from engine.lang.evaluate import Scope, evaluate
from engine.lang.hcl_json import parse_json

JSON_DOC = """\
{
  "//": "a comment",
  "variable": {
    "env": {"default": "dev"}
  },
  "resource": {
    "terraform_data": {
      "a": {
        "input": "net-${var.env}",
        "count": 2,
        "depends_on": ["terraform_data.b"],
        "lifecycle": {"create_before_destroy": true, "ignore_changes": ["input"]}
      },
      "b": {
        "input": {"k": "${1+1}", "n": 3, "l": [true, null]}
      }
    }
  },
  "locals": {"x": "${upper(\\"a\\")}", "y": "$${lit}", "z": "plain"},
  "output": {"o": {"value": "${local.x}"}}
}
"""


def json_blocks():
    return parse_json(JSON_DOC, "main.tf.json")


def test_parse_json_blocks_and_labels():
    assert [(b.type, b.labels) for b in json_blocks()] == [
        ("variable", ("env",)),
        ("resource", ("terraform_data", "a")),
        ("resource", ("terraform_data", "b")),
        ("locals", ()),
        ("output", ("o",)),
    ]


def test_parse_json_skips_comment_keys():
    assert all(b.type != "//" for b in json_blocks())


def test_parse_json_strings_are_templates():
    a = json_blocks()[1]
    e = a.attributes["input"].expr
    assert isinstance(e, E.Template) and e.parts[0] == "net-"


def test_parse_json_interpolation_alone_is_the_expression():
    loc = json_blocks()[3]
    assert isinstance(loc.attributes["x"].expr, E.Call)


def test_parse_json_template_escape():
    loc = json_blocks()[3]
    assert loc.attributes["y"].expr == E.Literal(loc.attributes["y"].expr.line, "${lit}")


def test_parse_json_numbers_stay_numbers():
    a = json_blocks()[1]
    assert isinstance(a.attributes["count"].expr, E.Literal) and a.attributes["count"].expr.value == 2


def test_parse_json_depends_on_strings_are_references():
    a = json_blocks()[1]
    (item,) = a.attributes["depends_on"].expr.items
    assert isinstance(item, E.GetAttr) and item.name == "b" and item.obj == E.Var(item.line, "terraform_data"), \
        f"depends_on entries are traversals, not templates: {item!r}"


def test_parse_json_lifecycle_is_a_nested_block():
    a = json_blocks()[1]
    assert "lifecycle" not in a.attributes
    (lc,) = a.blocks
    assert lc.type == "lifecycle"
    assert lc.attributes["create_before_destroy"].expr.value is True


def test_parse_json_nested_objects_are_object_expressions():
    b = json_blocks()[2]
    e = b.attributes["input"].expr
    assert isinstance(e, E.ObjectExpr)
    got = evaluate(e, Scope({}, lambda name, line: None, _NoResources()))
    assert got == {"k": 2, "n": 3, "l": (True, None)}


def test_parse_json_block_lines():
    lines = {b.labels: b.range.line for b in json_blocks()}
    assert lines[("env",)] == 4
    assert lines[("terraform_data", "a")] == 8
    assert lines[("terraform_data", "b")] == 14


def test_parse_json_attribute_line_is_its_own_line():
    a, b = json_blocks()[1], json_blocks()[2]
    assert a.attributes["input"].range.line == 9
    assert b.attributes["input"].range.line == 15, (
        "the second resource's \"input\" is on line 15; strata took the line of the first \"input\" key in "
        f"the file ({b.attributes['input'].range.line})")


def test_parse_json_syntax_error_names_line():
    with pytest.raises(DiagnosticsError) as ei:
        parse_json('{\n  "locals": {\n    "a": 1,\n  }\n}\n', "main.tf.json")
    (d,) = ei.value.diagnostics
    assert d.subject.filename == "main.tf.json" and d.subject.line == 4


def test_parse_json_root_must_be_object():
    with pytest.raises(DiagnosticsError):
        parse_json("[]", "main.tf.json")
