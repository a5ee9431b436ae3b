"""A configuration change terraform 1.11 refuses with a cycle and strata applies. Found by
the differential harness (tests/differential, shrunk from seed 12), issue 20.

Whether strata should refuse it too is a decision to take: terraform's error is arguably its
own limitation. Until then this records the difference; if strata keeps applying, replace
this test by a note in the README."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, tools

V1 = """
resource "terraform_data" "a" {
  triggers_replace = "1"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""
V2 = """
resource "terraform_data" "a" {
  triggers_replace = "2"
}
"""


@tools("terraform reports a cycle when a create_before_destroy dependent is removed while the "
       "dependency it forced to create_before_destroy is replaced; strata applies the change")
def test_removed_create_before_destroy_dependent_and_replaced_dependency_is_a_cycle(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(V1)
    res = s.apply(V2, check=False)
    errors = [e["diagnostic"]["summary"] for e in res.of_type("diagnostic")
              if e["diagnostic"]["severity"] == "error"]
    assert res.returncode == 1 and any(e.startswith("Cycle: ") for e in errors), (res.returncode, errors)
