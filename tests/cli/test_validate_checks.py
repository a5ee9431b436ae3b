"""``strata validate`` finds what ``terraform validate`` finds without planning: unknown
functions, a resource attribute its schema lacks (with terraform's suggestion), nested blocks and
arguments a schema does not take, and a ``for_each`` over a list. Compared with terraform 1.11
when it is on PATH."""

from __future__ import annotations

import pytest

from tests.conftest import Workdir, requires_terraform

TOOLS = ["strata", pytest.param("terraform", marks=requires_terraform)]


def _validate(workdir: Workdir, tool: str) -> tuple[int, str]:
    if tool == "terraform":
        workdir.terraform("init", "-no-color")
        res = workdir.terraform("validate", "-no-color")
    else:
        res = workdir.strata("validate", "-no-color")
    return res.returncode, " ".join(res.stderr.replace("\u2502", "").split())


CASES = [
    ('resource "terraform_data" "a" {\n  input = nosuchfn(1)\n}\n',
     'Error: Call to unknown function on main.tf line 2, in resource "terraform_data" "a": 2: input = nosuchfn(1) '
     'There is no function named "nosuchfn".'),
    ('output "y" {\n  value = upper(nosuch(1))\n}\n',
     'Error: Call to unknown function on main.tf line 2, in output "y": 2: value = upper(nosuch(1)) There is no '
     'function named "nosuch".'),
    ('resource "terraform_data" "a" {\n  input = 1\n}\nresource "terraform_data" "b" {\n'
     '  input = terraform_data.a.inptu\n}\n',
     'Error: Unsupported attribute on main.tf line 5, in resource "terraform_data" "b": 5: input = '
     'terraform_data.a.inptu This object has no argument, nested block, or exported attribute named "inptu". '
     'Did you mean "input"?'),
    ('resource "terraform_data" "a" {\n  count = 2\n}\noutput "x" {\n  value = terraform_data.a[0].nope\n}\n',
     'Error: Unsupported attribute on main.tf line 5, in output "x": 5: value = terraform_data.a[0].nope This '
     'object has no argument, nested block, or exported attribute named "nope".'),
    ('resource "terraform_data" "c" {\n  for_each = ["a", "b"]\n  input    = each.key\n}\n',
     'Error: Invalid for_each argument on main.tf line 2, in resource "terraform_data" "c": 2: for_each = ["a", '
     '"b"] The given "for_each" argument value is unsuitable: the "for_each" argument must be a map, or set of '
     'strings, and you have provided a value of type tuple.'),
    ('resource "terraform_data" "d" {\n  nested {\n    x = 1\n  }\n}\n',
     'Error: Unsupported block type on main.tf line 2, in resource "terraform_data" "d": 2: nested { Blocks of '
     'type "nested" are not expected here.'),
    ('resource "terraform_data" "d" {\n  bogus = 1\n}\n',
     'Error: Unsupported argument on main.tf line 2, in resource "terraform_data" "d": 2: bogus = 1 An argument '
     'named "bogus" is not expected here.'),
]


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(("config", "expected"), CASES)
def test_validate_finds_what_terraform_validate_finds(workdir: Workdir, tool: str, config: str,
                                                      expected: str) -> None:
    workdir.write(config)
    code, text = _validate(workdir, tool)
    assert code == 1
    assert expected in text, text


@pytest.mark.parametrize("tool", TOOLS)
def test_an_attribute_of_a_resource_with_its_own_mistake_is_not_checked(workdir: Workdir, tool: str) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = nosuchfn(1)\n}\n'
                  'output "x" {\n  value = terraform_data.a.nope\n}\n')
    code, text = _validate(workdir, tool)
    assert code == 1
    assert text.count("Error:") == 1 and "Call to unknown function" in text, text


VALID = """
variable "names" {
  type    = list(string)
  default = ["a"]
}
locals {
  tags = { Name = "x" }
}
resource "terraform_data" "a" {
  for_each = toset(var.names)
  input    = merge(local.tags, { key = each.key })
}
resource "terraform_data" "b" {
  for_each = var.names == [] ? {} : { one = 1 }
  input    = [for k, v in terraform_data.a : v.output]
}
output "ids" {
  value = { for k, v in terraform_data.a : k => v.id }
}
"""


@pytest.mark.parametrize("tool", TOOLS)
def test_a_valid_configuration_stays_valid(workdir: Workdir, tool: str) -> None:
    workdir.write(VALID)
    if tool == "terraform":
        workdir.terraform("init", "-no-color")
        res = workdir.terraform("validate", "-no-color")
    else:
        res = workdir.strata("validate", "-no-color")
    assert res.returncode == 0, res.stderr
    assert "Success! The configuration is valid." in res.stdout
