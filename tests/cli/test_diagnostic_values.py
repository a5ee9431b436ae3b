"""What terraform says under a failed expression's source line: the values of the references in
it (``local.l is tuple with 2 elements``), never a sensitive one; and the errors of one plan in
terraform's order (by file and position). Each case is recorded from terraform 1.11 with -no-color
("Terraform" read as "strata") and, where terraform is on the machine, compared with it live."""

from __future__ import annotations

import os
import subprocess

import orjson
import pytest

from engine.lang import expr as E
from engine.lang.diagnostic_values import compact_value, friendly_name, statements, traversal_text
from engine.values import ListVal, MapVal, SetVal
from tests.conftest import Workdir, requires_terraform

# name: (main.tf, stdout, stderr)
CASES: dict[str, tuple[str, str, str]] = {
    'an index out of range': (
        'locals {\n  l = ["a", "b"]\n}\noutput "o" {\n  value = local.l[5]\n}\n',
        '',
        '\nError: Invalid index\n\n  on main.tf line 5, in output "o":\n   5:   value = local.l[5]\n    ├────────────────\n    │ local.l is tuple with 2 elements\n\nThe given key does not identify an element in this collection value.\n'),
    'an attribute of a string': (
        'resource "terraform_data" "a" {\n  input = "x"\n}\noutput "o" {\n  value = terraform_data.a.input.foo\n}\n',
        '\nstrata used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:\n  + create\n\nstrata planned the following actions, but then encountered a problem:\n\n  # terraform_data.a will be created\n  + resource "terraform_data" "a" {\n      + id     = (known after apply)\n      + input  = "x"\n      + output = (known after apply)\n    }\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n',
        '\nError: Unsupported attribute\n\n  on main.tf line 5, in output "o":\n   5:   value = terraform_data.a.input.foo\n    ├────────────────\n    │ terraform_data.a.input is "x"\n\nCan\'t access attributes on a primitive-typed value (string).\n'),
    'a list in a template': (
        'locals {\n  l = ["a"]\n}\noutput "o" {\n  value = "x ${local.l}"\n}\n',
        '',
        '\nError: Invalid template interpolation value\n\n  on main.tf line 5, in output "o":\n   5:   value = "x ${local.l}"\n    ├────────────────\n    │ local.l is tuple with 1 element\n\nCannot include the given value in a string template: string required.\n'),
    'a missing map key': (
        'locals {\n  m = { a = 1 }\n}\noutput "o" {\n  value = local.m["nope"]\n}\n',
        '',
        '\nError: Invalid index\n\n  on main.tf line 5, in output "o":\n   5:   value = local.m["nope"]\n    ├────────────────\n    │ local.m is object with 1 attribute "a"\n\nThe given key does not identify an element in this collection value.\n'),
    'an instance out of range': (
        'resource "terraform_data" "a" {\n  count = 1\n}\noutput "o" {\n  value = terraform_data.a[3].id\n}\n',
        '\nstrata used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:\n  + create\n\nstrata planned the following actions, but then encountered a problem:\n\n  # terraform_data.a[0] will be created\n  + resource "terraform_data" "a" {\n      + id = (known after apply)\n    }\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n',
        '\nError: Invalid index\n\n  on main.tf line 5, in output "o":\n   5:   value = terraform_data.a[3].id\n    ├────────────────\n    │ terraform_data.a is tuple with 1 element\n\nThe given key does not identify an element in this collection value.\n'),
    "arithmetic on a resource's tuple": (
        'resource "terraform_data" "a" {\n  input = ["a", "b"]\n}\noutput "o" {\n  value = terraform_data.a.input + 1\n}\n',
        '\nstrata used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:\n  + create\n\nstrata planned the following actions, but then encountered a problem:\n\n  # terraform_data.a will be created\n  + resource "terraform_data" "a" {\n      + id     = (known after apply)\n      + input  = [\n          + "a",\n          + "b",\n        ]\n      + output = (known after apply)\n    }\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n',
        '\nError: Invalid operand\n\n  on main.tf line 5, in output "o":\n   5:   value = terraform_data.a.input + 1\n    ├────────────────\n    │ terraform_data.a.input is tuple with 2 elements\n\nUnsuitable value for left operand: number required.\n'),
    'operands, conditions and calls, in source order': (
        'locals {\n  l = ["a"]\n  m = { a = 1 }\n  e = !local.l\n  f = local.l ? 1 : 2\n  g = upper(local.l[0], local.m)\n  a = local.l && true\n  h = [for x in local.l : x + 1]\n  n = 12345678901 + local.l\n}\noutput "o" {\n  value = [local.a, local.e, local.f, local.g, local.h, local.n]\n}\n',
        '',
        '\nError: Invalid operand\n\n  on main.tf line 4, in locals:\n   4:   e = !local.l\n    ├────────────────\n    │ local.l is tuple with 1 element\n\nUnsuitable value for unary operand: bool required.\n\nError: Incorrect condition type\n\n  on main.tf line 5, in locals:\n   5:   f = local.l ? 1 : 2\n    ├────────────────\n    │ local.l is tuple with 1 element\n\nThe condition expression must be of type bool.\n\nError: Too many function arguments\n\n  on main.tf line 6, in locals:\n   6:   g = upper(local.l[0], local.m)\n    ├────────────────\n    │ while calling upper(str)\n    │ local.l[0] is "a"\n    │ local.m is object with 1 attribute "a"\n\nFunction "upper" expects only 1 argument(s).\n\nError: Invalid operand\n\n  on main.tf line 7, in locals:\n   7:   a = local.l && true\n    ├────────────────\n    │ local.l is tuple with 1 element\n\nUnsuitable value for left operand: bool required.\n\nError: Invalid operand\n\n  on main.tf line 8, in locals:\n   8:   h = [for x in local.l : x + 1]\n\nUnsuitable value for left operand: a number is required.\n\nError: Invalid operand\n\n  on main.tf line 9, in locals:\n   9:   n = 12345678901 + local.l\n    ├────────────────\n    │ local.l is tuple with 1 element\n\nUnsuitable value for right operand: number required.\n'),
    'conversion functions': (
        'locals {\n  a = tonumber("x")\n  c = tonumber(true)\n  d = tonumber([1])\n  e = tobool("x")\n  f = tostring([1])\n  g = tolist("a")\n}\noutput "o" {\n  value = [local.a, local.c, local.d, local.e, local.f, local.g]\n}\n',
        '',
        '\nError: Invalid function argument\n\n  on main.tf line 2, in locals:\n   2:   a = tonumber("x")\n    ├────────────────\n    │ while calling tonumber(v)\n\nInvalid value for "v" parameter: cannot convert "x" to number; given string\nmust be a decimal representation of a number.\n\nError: Invalid function argument\n\n  on main.tf line 3, in locals:\n   3:   c = tonumber(true)\n    ├────────────────\n    │ while calling tonumber(v)\n\nInvalid value for "v" parameter: cannot convert bool to number.\n\nError: Invalid function argument\n\n  on main.tf line 4, in locals:\n   4:   d = tonumber([1])\n    ├────────────────\n    │ while calling tonumber(v)\n\nInvalid value for "v" parameter: cannot convert tuple to number.\n\nError: Invalid function argument\n\n  on main.tf line 5, in locals:\n   5:   e = tobool("x")\n    ├────────────────\n    │ while calling tobool(v)\n\nInvalid value for "v" parameter: cannot convert "x" to bool; only the strings\n"true" or "false" are allowed.\n\nError: Invalid function argument\n\n  on main.tf line 6, in locals:\n   6:   f = tostring([1])\n    ├────────────────\n    │ while calling tostring(v)\n\nInvalid value for "v" parameter: cannot convert tuple to string.\n\nError: Invalid function argument\n\n  on main.tf line 7, in locals:\n   7:   g = tolist("a")\n    ├────────────────\n    │ while calling tolist(v)\n\nInvalid value for "v" parameter: cannot convert string to list of any single\ntype.\n'),
    'a sensitive variable is not stated': (
        'variable "s" {\n  default   = "x"\n  sensitive = true\n}\nlocals {\n  t = var.s\n}\noutput "o" {\n  value     = var.s + 1\n  sensitive = true\n}\noutput "p" {\n  value     = local.t + 1\n  sensitive = true\n}\n',
        '\nPlanning failed. strata encountered an error while generating this plan.\n\n',
        '\nError: Invalid operand\n\n  on main.tf line 9, in output "o":\n   9:   value     = var.s + 1\n\nUnsuitable value for left operand: a number is required.\n\nError: Invalid operand\n\n  on main.tf line 13, in output "p":\n  13:   value     = local.t + 1\n\nUnsuitable value for left operand: a number is required.\n'),
    'values in a plan walk error': (
        'resource "terraform_data" "a" {\n  input = "x"\n}\nresource "terraform_data" "b" {\n  input = tonumber(terraform_data.a.input)\n}\n',
        '\nstrata used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:\n  + create\n\nstrata planned the following actions, but then encountered a problem:\n\n  # terraform_data.a will be created\n  + resource "terraform_data" "a" {\n      + id     = (known after apply)\n      + input  = "x"\n      + output = (known after apply)\n    }\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n',
        '\nError: Invalid function argument\n\n  on main.tf line 5, in resource "terraform_data" "b":\n   5:   input = tonumber(terraform_data.a.input)\n    ├────────────────\n    │ while calling tonumber(v)\n    │ terraform_data.a.input is "x"\n\nInvalid value for "v" parameter: cannot convert "x" to number; given string\nmust be a decimal representation of a number.\n'),
    'a null index key': (
        'variable "m" {\n  default = { a = 1 }\n}\nvariable "nu" {\n  default = null\n}\nvariable "l" {\n  default = [1]\n}\noutput "o" {\n  value = var.m[var.nu]\n}\noutput "p" {\n  value = var.l[var.nu]\n}\n',
        '\nPlanning failed. strata encountered an error while generating this plan.\n\n',
        '\nError: Invalid index\n\n  on main.tf line 11, in output "o":\n  11:   value = var.m[var.nu]\n    ├────────────────\n    │ var.m is object with 1 attribute "a"\n    │ var.nu is null\n\nCan\'t use a null value as an indexing key.\n\nError: Invalid index\n\n  on main.tf line 14, in output "p":\n  14:   value = var.l[var.nu]\n    ├────────────────\n    │ var.l is tuple with 1 element\n    │ var.nu is null\n\nCan\'t use a null value as an indexing key.\n'),
}


def _plan(workdir: Workdir, text: str, *args: str) -> tuple[str, str]:
    workdir.write(text)
    res = workdir.strata("plan", "-no-color", "-input=false", *args)
    assert res.returncode == 1, res
    return res.stdout, res.stderr


@pytest.mark.parametrize("name", list(CASES))
def test_terraform_s_statements(workdir: Workdir, name: str) -> None:
    text, stdout, stderr = CASES[name]
    assert _plan(workdir, text) == (stdout, stderr)


@requires_terraform
@pytest.mark.parametrize("name", list(CASES))
def test_the_same_as_terraform_here(workdir: Workdir, name: str) -> None:
    text, _, _ = CASES[name]
    ours = _plan(workdir, text)
    tf = subprocess.run(["terraform", "plan", "-no-color", "-input=false"], cwd=workdir.path,
                        env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1"),
                        capture_output=True, text=True, timeout=300)
    assert tf.returncode == 1
    assert ours == (tf.stdout.replace("Terraform", "strata"), tf.stderr)


FAILED_PLAN = ('resource "terraform_data" "a" {\n  input = "x"\n}\nresource "terraform_data" "b" {\n'
               '  input = tonumber(terraform_data.a.input)\n}\noutput "o" {\n  value = terraform_data.a.input\n}\n')


def _stream(stdout: str) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_failed_plan_streams_what_was_planned_before_its_diagnostics(workdir: Workdir) -> None:
    workdir.write(FAILED_PLAN)
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1, res
    events = _stream(res.stdout)
    assert [e["type"] for e in events] == ["version", "planned_change", "change_summary", "outputs", "diagnostic"]
    assert events[1]["change"] == {"resource": {"addr": "terraform_data.a", "module": "", "resource": "terraform_data.a",
                                                "implied_provider": "terraform", "resource_type": "terraform_data",
                                                "resource_name": "a", "resource_key": None}, "action": "create"}
    assert events[2]["changes"] == {"add": 1, "change": 0, "import": 0, "remove": 0, "operation": "plan"}
    assert events[3]["outputs"] == {"o": {"sensitive": False, "action": "create"}}
    snippet = events[4]["diagnostic"]["snippet"]  # type: ignore[index]
    assert snippet["values"] == [{"traversal": "terraform_data.a.input", "statement": "is \"x\""}]


@requires_terraform
def test_a_failed_plan_streams_what_terraform_streams(workdir: Workdir) -> None:
    workdir.write(FAILED_PLAN)
    ours = _stream(workdir.strata("plan", "-json").stdout)
    tf = subprocess.run(["terraform", "plan", "-json", "-input=false"], cwd=workdir.path,
                        env=dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1"),
                        capture_output=True, text=True, timeout=300)
    theirs = _stream(tf.stdout)
    assert [e["type"] for e in ours] == [e["type"] for e in theirs]
    for a, b in zip(ours[1:4], theirs[1:4], strict=True):
        assert {k: v for k, v in a.items() if k != "@timestamp"} == {k: v for k, v in b.items() if k != "@timestamp"}
    assert ours[4]["diagnostic"]["snippet"]["values"] == theirs[4]["diagnostic"]["snippet"]["values"]  # type: ignore[index]


@pytest.mark.parametrize(("value", "text"), [
    (None, "null"), (True, "true"), (5, "5"), (1.5, "1.5"), (12345678901, "1.23456789e+10"), ("a\"b", '"a\\"b"'),
    ((), "empty tuple"), (("a",), "tuple with 1 element"), (("a", 1), "tuple with 2 elements"),
    (ListVal(["a", "b"]), "list of string with 2 elements"), (SetVal.of([1]), "set of number with 1 element"),
    (MapVal({"a": "x"}), "map of string with 1 element"), ({}, "object with no attributes"),
    ({"a": 1}, 'object with 1 attribute "a"'), ({"a": 1, "b": 2}, "object with 2 attributes"),
])
def test_a_value_is_summed_up_as_terraform_does(value: object, text: str) -> None:
    assert compact_value(value) == text


def _ref(text: str) -> E.Expr:
    """``root.a.b`` as an expression."""
    root, *names = text.split(".")
    e: E.Expr = E.Var(1, root)
    for n in names:
        e = E.GetAttr(1, e, n)
    return e


def test_type_names_and_traversals() -> None:
    assert friendly_name(["list", ["map", "string"]]) == "list of map of string"
    assert friendly_name(["object", {"a": "string"}]) == "object"
    t = E.GetAttr(1, E.Index(1, E.Index(1, _ref("local.m"), E.Literal(1, "k")), E.Literal(1, 0)), "id")
    assert traversal_text(t) == 'local.m["k"][0].id'


def test_nothing_that_may_be_sensitive_is_stated() -> None:
    values = {"var.s": "hush", "var.p": "x"}
    both = E.Binary(1, "+", _ref("var.s"), _ref("var.p"))
    said = statements(both, lambda e: values[traversal_text(e)], lambda root, names: names == ("s",))
    assert said == (("var.p", 'is "x"'),)
