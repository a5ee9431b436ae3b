"""``validate`` evaluates local values as terraform's validate walk does, every input variable,
resource and module output unknown: a function failing on what the configuration alone decides
fails validate with terraform's diagnostic; what depends on an unknown passes."""

from __future__ import annotations

from tests.conftest import Workdir, requires_terraform

FAILING = """
variable "v" {
  type = string
}
module "m" {
  source = "./m"
}
resource "terraform_data" "t" {}
locals {
  a = tonumber(var.v)
  b = cidrsubnet("10.0.0.0/16", var.v, 0)
  c = "${path.module}/x"
  d = terraform.workspace
  e = module.m.out
  g = terraform_data.t.output
  h = upper(local.c)
  i = tonumber(local.d)
  k = tonumber(module.m.out)
  l = "a" + 1
  m = jsondecode("{")
  n = file("nope.txt")
  o = cidrsubnet("10.0.0.0/16", 99, 0)
  p = [for s in ["a"] : tonumber(s)]
  q = local.i + 1
  s = length(terraform_data.t.output)
  t = try(tonumber("x"), 0)
  u = sensitive("abc")
  w = tonumber(local.u)
}
"""


def _setup(workdir: Workdir, config: str) -> None:
    workdir.write(config)
    (workdir.path / "m").mkdir()
    workdir.write('output "out" {\n  value = "x"\n}\n', "m/main.tf")
    workdir.strata("init", check=True)


def _errors(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("Error: ") or line.lstrip()[:3].isdigit()]


def test_a_failing_local_fails_validate(workdir: Workdir) -> None:
    _setup(workdir, 'locals {\n  x = tonumber("abc")\n}\n')
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1
    assert "Error: Invalid function argument" in res.stderr
    assert "while calling tonumber(v)" in res.stderr
    assert 'Invalid value for "v" parameter: cannot convert "abc" to number' in res.stderr


def test_a_local_of_a_variable_passes_validate(workdir: Workdir) -> None:
    _setup(workdir, 'variable "v" {\n  type = string\n}\nlocals {\n  x = tonumber(var.v)\n'
                    '  y = cidrsubnet("10.0.0.0/16", var.v, 0)\n  z = module.m.out\n}\n'
                    'module "m" {\n  source = "./m"\n}\n')
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 0, res.stderr
    assert "Success! The configuration is valid." in res.stdout


def test_each_failing_local_reported_once_in_source_order(workdir: Workdir) -> None:
    _setup(workdir, FAILING)
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1
    errors = [line for line in _errors(res.stderr) if line.startswith("Error: ")]
    assert errors == ["Error: Invalid function argument", "Error: Invalid operand", "Error: Error in function call",
                      "Error: Invalid function argument", "Error: Error in function call",
                      "Error: Invalid function argument", "Error: Invalid function argument"]
    assert "cannot convert this sensitive string to" in res.stderr and "abc" not in res.stderr


def test_a_call_in_a_for_expression_names_no_function(workdir: Workdir) -> None:
    # terraform evaluates a for expression's body in a child context, which holds no functions
    _setup(workdir, 'locals {\n  p = [for s in ["a"] : tonumber(s)]\n}\n')
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1
    assert "while calling" not in res.stderr


@requires_terraform
def test_validate_matches_terraform(workdir: Workdir) -> None:
    _setup(workdir, FAILING)
    ours = workdir.strata("validate", "-no-color")
    theirs = workdir.terraform("validate", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr.strip() == theirs.stderr.strip()


EXPANDED = """
variable "n" {
  default = 2
}
resource "terraform_data" "c" {
  count = var.n
}
resource "terraform_data" "e" {
  for_each = toset(["a"])
}
resource "terraform_data" "s" {}
locals {
  a = terraform_data.c[0].id
  b = terraform_data.e["a"].id
  c = terraform_data.c[*].id
  d = [for k, v in terraform_data.e : v.id]
  e = terraform_data.s.id
  f = length(terraform_data.c)
  g = abspath(path.module)
}
"""


def test_locals_of_expanded_resources_pass_validate(workdir: Workdir) -> None:
    _setup(workdir, EXPANDED)
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 0, res.stderr


@requires_terraform
def test_a_wrong_instance_key_in_a_local_fails_as_terraforms(workdir: Workdir) -> None:
    _setup(workdir, EXPANDED + "locals {\n  x = terraform_data.s[0].id\n  y = terraform_data.c.id\n}\n")
    ours = workdir.strata("validate", "-no-color")
    theirs = workdir.terraform("validate", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr.strip() == theirs.stderr.strip()


def test_a_failing_local_of_a_called_module_fails_validate(workdir: Workdir) -> None:
    workdir.write('module "m" {\n  source = "./m"\n  v      = "x"\n}\n')
    (workdir.path / "m").mkdir()
    workdir.write('variable "v" {}\nlocals {\n  a = tonumber("abc")\n  b = tonumber(var.v)\n}\n', "m/main.tf")
    workdir.strata("init", check=True)
    res = workdir.strata("validate", "-no-color")
    assert res.returncode == 1
    assert "on m/main.tf line 3, in locals:" in res.stderr
    assert res.stderr.count("Error: ") == 1
