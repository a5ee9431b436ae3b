"""Local modules: a reference to an expanded module call (``module.m[*].x``, ``{ for k, v in
module.m : … }``) stands for the whole call, so terraform makes the referrer depend on every
resource in the module, not only on those behind the output it reads: it waits for all of
them and records all of them in the state. Found by the differential harness's module cases
(tests/differential/generate_modules.py), issue 20."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, assert_before, tools

MODULE = """
variable "x" {}
resource "terraform_data" "r0" {
  input = var.x
}
resource "terraform_data" "r5" {
  input = "y"
}
output "r5_id" {
  value = terraform_data.r5.id
}
"""

EXPANDED = """
resource "terraform_data" "b" {
  input = "z"
}
module "m" {
  source = "./m"
  count  = 1
  x      = terraform_data.b.id
}
resource "terraform_data" "a" {
  input = module.m[*].r5_id
}
"""


def _scenario(workdir: Workdir, tool: str) -> Scenario:
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(MODULE)
    return Scenario(workdir, tool)


@tools("a reference to an expanded module call depends only on the resources behind the output "
       "it reads; terraform's depends on every resource in the module")
def test_reference_to_an_expanded_module_depends_on_every_resource_in_it(
        workdir: Workdir, tool: str) -> None:
    s = _scenario(workdir, tool)
    s.apply(EXPANDED)
    assert s.instance("terraform_data.a").get("dependencies") == [
        "module.m.terraform_data.r0", "module.m.terraform_data.r5", "terraform_data.b"]


@tools("a reference to an expanded module call waits only for the resources behind the output "
       "it reads; terraform's waits for every resource in the module")
def test_reference_to_an_expanded_module_waits_for_every_resource_in_it(
        workdir: Workdir, tool: str) -> None:
    # r0 waits for b, r5 for nothing: a may start once r5 is created, unless it waits for r0
    res = _scenario(workdir, tool).apply(EXPANDED)
    assert_before(res, ("create", "module.m[0].terraform_data.r0"), ("create", "terraform_data.a"))
