"""terraform's type rules through the `strata` command: a conditional's two results unify to one
type, as cty's unsafe unification finds it; a value converted to a type constraint keeps that
whole type (an empty ``list(string)`` included), so state records it as terraform does and a
second plan finds nothing to change. Expectations recorded from terraform 1.11 (compared live
when it is on PATH)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Workdir, requires_terraform

CONDITIONALS = """
output "tuple_and_empty" { value = true ? ["x", "y"] : [] }
output "object_and_empty" { value = true ? { a = "x" } : {} }
output "set_and_empty" { value = true ? toset(["a"]) : [] }
output "number_and_string" { value = true ? 1 : "a" }
output "objects_of_other_names" { value = true ? { a = 1 } : { b = "x" } }
output "list_of_objects" { value = true ? [{ a = 1 }] : [] }
output "null_and_tuple" { value = false ? null : [1] }
output "nested" { value = true ? [[1], []] : [] }
output "same_attributes" { value = true ? { a = [1] } : { a = [] } }
output "false_branch" { value = false ? [1] : ["a"] }
"""

CONDITIONAL_TYPES = {
    "tuple_and_empty": ["list", "string"],
    "object_and_empty": ["map", "string"],
    "set_and_empty": ["set", "string"],
    "number_and_string": "string",
    "objects_of_other_names": ["map", "string"],
    "list_of_objects": ["list", ["object", {"a": "number"}]],
    "null_and_tuple": ["tuple", ["number"]],
    "nested": ["list", ["list", "number"]],
    "same_attributes": ["object", {"a": ["list", "number"]}],
    "false_branch": ["tuple", ["string"]],
}


def _outputs(workdir: Workdir, tool: str) -> dict[str, object]:
    if tool == "strata":
        workdir.strata("apply", "-auto-approve", "-no-color", check=True)
        text = workdir.strata("output", "-json", check=True).stdout
    else:
        assert workdir.terraform("apply", "-auto-approve", "-no-color").returncode == 0
        text = workdir.terraform("output", "-json").stdout
    return {k: v["type"] for k, v in json.loads(text).items()}


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_a_conditional_unifies_its_results_types(workdir: Workdir, tool: str) -> None:
    workdir.write(CONDITIONALS)
    assert _outputs(workdir, tool) == CONDITIONAL_TYPES


def test_a_converted_result_has_the_unified_value(workdir: Workdir) -> None:
    workdir.write('output "n" { value = true ? 1 : "a" }\n')
    workdir.strata("apply", "-auto-approve", check=True)
    assert json.loads(workdir.strata("output", "-json", "n", check=True).stdout) == "1"


FOR_EACH = """
variable "enabled" {
  type    = bool
  default = ENABLED
}
resource "terraform_data" "x" {
  for_each = var.enabled ? toset(["a", "b"]) : []
  input    = each.key
}
output "keys" { value = keys(terraform_data.x) }
"""


@pytest.mark.parametrize("enabled", ["true", "false"])
def test_for_each_over_a_conditional_set_or_empty_tuple(workdir: Workdir, enabled: str) -> None:
    workdir.write(FOR_EACH.replace("ENABLED", enabled))
    workdir.strata("apply", "-auto-approve", check=True)
    keys = json.loads(workdir.strata("output", "-json", check=True).stdout)["keys"]["value"]
    assert keys == (["a", "b"] if enabled == "true" else [])


MISMATCHES = [
    ("true ? 1 : true", "The 'true' value is number, but the 'false' value is bool."),
    ("true ? [1] : [true]", "Type mismatch for tuple element 0: The 'true' value is number, but the\n'false' value "
                            "is bool."),
    ("true ? [1] : { a = 1 }", "The 'true' value is tuple, but the 'false' value is object."),
    ("true ? { a = 1 } : { a = true }", 'Type mismatch for object attribute "a": The \'true\' value is number,\n'
                                        "but the 'false' value is bool."),
]


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
@pytest.mark.parametrize(("expr", "detail"), MISMATCHES)
def test_results_that_do_not_unify_are_an_error(workdir: Workdir, tool: str, expr: str, detail: str) -> None:
    workdir.write(f'output "o" {{\n  value = {expr}\n}}\n')
    res = workdir.strata("plan", "-no-color") if tool == "strata" else workdir.terraform("plan", "-no-color")
    text = res.stderr.replace("\u2502 ", "").replace("\u2502", "")
    assert res.returncode == 1
    assert "Error: Inconsistent conditional result types" in text
    assert f"on main.tf line 2, in output \"o\":\n   2:   value = {expr}" in text, text
    joined = " ".join(text.split())
    assert ("The true and false result expressions must have consistent types. " + " ".join(detail.split())) \
        in joined, text


TYPED = """
variable "m" {
  type    = map(list(string))
  default = { web = [], db = ["backup"] }
}
variable "e" {
  type    = map(list(string))
  default = { web = [] }
}
variable "objs" {
  type    = list(object({ ports = list(number) }))
  default = [{ ports = [] }, { ports = [80] }]
}
resource "terraform_data" "m" {
  input = var.m
}
resource "terraform_data" "e" {
  input = var.e
}
resource "terraform_data" "objs" {
  input = var.objs
}
output "m" { value = var.m }
output "e" { value = var.e }
output "objs" { value = var.objs }
"""

TYPED_TYPES = {
    "m": ["map", ["list", "string"]],
    "e": ["map", ["list", "string"]],
    "objs": ["list", ["object", {"ports": ["list", "number"]}]],
}


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_state_records_the_whole_type_of_typed_values(workdir: Workdir, tool: str) -> None:
    workdir.write(TYPED)
    assert _outputs(workdir, tool) == TYPED_TYPES
    state = workdir.state()
    inputs = {r["name"]: r["instances"][0]["attributes"]["input"]["type"] for r in state["resources"]}
    assert inputs == TYPED_TYPES


def test_typed_values_with_empty_lists_plan_no_changes_the_second_time(workdir: Workdir) -> None:
    workdir.write(TYPED)
    workdir.strata("apply", "-auto-approve", check=True)
    res = workdir.strata("plan", "-no-color", "-detailed-exitcode")
    assert res.returncode == 0, res.stdout
    assert "No changes." in res.stdout
    assert "['" not in res.stdout


def test_a_state_of_dynamic_types_shows_no_python_repr(workdir: Workdir) -> None:
    """A state an older strata wrote (``["map","dynamic"]``) is read as values, never Python lists."""
    workdir.write(TYPED)
    workdir.strata("apply", "-auto-approve", check=True)
    state = workdir.state()
    for r in state["resources"]:
        for attr in ("input", "output"):
            r["instances"][0]["attributes"][attr]["type"] = ["map", "dynamic"] if r["name"] != "objs" else \
                ["list", "dynamic"]
    (workdir.path / "terraform.tfstate").write_text(json.dumps(state))
    res = workdir.strata("plan", "-no-color")
    assert "['" not in res.stdout and "[80]" not in res.stdout, res.stdout


OPTIONAL = """
variable "settings" {
  type = object({
    name    = string
    enabled = optional(bool, true)
    tags    = optional(map(string), {})
    ports   = optional(list(number), [80, 443])
    nested = optional(object({
      level = optional(number, 1)
      mode  = optional(string)
      deep  = optional(object({ x = optional(string, "dx") }), {})
    }), {})
    rules = optional(list(object({
      cidr = string
      port = optional(number, 22)
    })), [])
  })
  default = {
    name  = "a"
    rules = [{ cidr = "10.0.0.0/8" }, { cidr = "0.0.0.0/0", port = 443 }]
  }
}
variable "by_key" {
  type    = map(object({ size = optional(number, 10), kind = optional(string, "k") }))
  default = { a = {}, b = { size = 3, kind = null } }
}
variable "given" {
  type = object({ a = optional(string, "x"), b = optional(list(string), ["y"]) })
}
resource "terraform_data" "s" {
  input = var.settings
}
output "settings" { value = var.settings }
output "by_key" { value = var.by_key }
output "given" { value = var.given }
"""

OPTIONAL_VALUES = {
    "settings": {"enabled": True, "name": "a", "nested": {"deep": {"x": "dx"}, "level": 1, "mode": None},
                 "ports": [80, 443], "rules": [{"cidr": "10.0.0.0/8", "port": 22}, {"cidr": "0.0.0.0/0", "port": 443}],
                 "tags": {}},
    "by_key": {"a": {"kind": "k", "size": 10}, "b": {"kind": "k", "size": 3}},
    "given": {"a": "x", "b": ["y"]},
}


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_optional_attributes_get_their_defaults_at_any_depth(workdir: Workdir, tool: str) -> None:
    workdir.write(OPTIONAL)
    workdir.write('given = { b = null }\n', "terraform.tfvars")
    if tool == "strata":
        workdir.strata("apply", "-auto-approve", check=True)
        text = workdir.strata("output", "-json", check=True).stdout
    else:
        assert workdir.terraform("apply", "-auto-approve").returncode == 0
        text = workdir.terraform("output", "-json").stdout
    got = json.loads(text)
    assert {k: v["value"] for k, v in got.items()} == OPTIONAL_VALUES
    assert got["by_key"]["type"] == ["map", ["object", {"kind": "string", "size": "number"}]]


def test_optional_defaults_plan_no_changes_the_second_time(workdir: Workdir) -> None:
    workdir.write(OPTIONAL)
    workdir.write('given = { b = null }\n', "terraform.tfvars")
    workdir.strata("apply", "-auto-approve", check=True)
    assert workdir.strata("plan", "-detailed-exitcode").returncode == 0


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_a_default_of_the_wrong_type_is_an_error(workdir: Workdir, tool: str) -> None:
    workdir.write('variable "v" {\n  type = object({\n    a = optional(number, "x")\n  })\n  default = {}\n}\n')
    if tool == "terraform":
        workdir.terraform("init", "-no-color")  # it fails the same way; validate says it as validate does
    res = workdir.strata("validate", "-no-color") if tool == "strata" else workdir.terraform("validate", "-no-color")
    text = " ".join(res.stderr.replace("\u2502", "").split())
    assert res.returncode == 1
    assert ('Error: Invalid default value for optional attribute on main.tf line 3, in variable "v": 3: '
            'a = optional(number, "x") This default value is not compatible with the attribute\'s type '
            "constraint: a number is required.") in text, text


ANY_ELEMENTS = """
variable "l" {
  type    = list(any)
  default = [1, "a"]
}
variable "m" {
  type    = map(any)
  default = { a = 1, b = "x" }
}
variable "lo" {
  type    = list(any)
  default = [{ a = 1 }, { a = "x" }]
}
variable "mo" {
  type    = map(any)
  default = { a = { x = [1] }, b = { x = [] } }
}
output "l" { value = var.l }
output "m" { value = var.m }
output "lo" { value = var.lo }
output "mo" { value = var.mo }
"""

ANY_OUTPUTS = {
    "l": {"sensitive": False, "type": ["list", "string"], "value": ["1", "a"]},
    "m": {"sensitive": False, "type": ["map", "string"], "value": {"a": "1", "b": "x"}},
    "lo": {"sensitive": False, "type": ["list", ["object", {"a": "string"}]], "value": [{"a": "1"}, {"a": "x"}]},
    "mo": {"sensitive": False, "type": ["map", ["object", {"x": ["list", "number"]}]],
           "value": {"a": {"x": [1]}, "b": {"x": []}}},
}


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_elements_of_a_collection_of_any_unify(workdir: Workdir, tool: str) -> None:
    workdir.write(ANY_ELEMENTS)
    if tool == "strata":
        workdir.strata("apply", "-auto-approve", check=True)
        text = workdir.strata("output", "-json", check=True).stdout
    else:
        assert workdir.terraform("apply", "-auto-approve").returncode == 0
        text = workdir.terraform("output", "-json").stdout
    assert json.loads(text) == ANY_OUTPUTS


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_elements_that_do_not_unify_are_an_error(workdir: Workdir, tool: str) -> None:
    workdir.write('variable "bad" {\n  type    = list(any)\n  default = [1, [2]]\n}\n')
    if tool == "terraform":
        workdir.terraform("init", "-no-color")
    res = workdir.strata("validate", "-no-color") if tool == "strata" else workdir.terraform("validate", "-no-color")
    text = " ".join(res.stderr.replace("\u2502", "").split())
    assert res.returncode == 1
    assert ("Error: Invalid default value for variable on main.tf line 3, in variable \"bad\": 3: default = [1, "
            "[2]] This default value is not compatible with the variable's type constraint: all list elements "
            "must have the same type.") in text, text
