"""Changes terraform 1.11 refuses with a cycle in its apply graph, found by the differential
harness (tests/differential, shrunk from seed 12), issue 20. strata refuses them too, when it
plans: terraform forces create_before_destroy through the configuration's references only, so
a dependent whose object in state is create_before_destroy forces nothing once it is gone from
the configuration, and neither do the dependencies recorded in state; where the destroy order
they give then needs a create-first destroy after a delete-first replacement, the graph has a
cycle."""

from __future__ import annotations

from tests.conftest import Result, Workdir
from tests.differential.scenario import Scenario, both_tools

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


def cycle_errors(res: Result) -> list[str]:
    return [e["diagnostic"]["summary"] for e in res.of_type("diagnostic")
            if e["diagnostic"]["severity"] == "error" and e["diagnostic"]["summary"].startswith("Cycle: ")]


@both_tools("terraform reports a cycle when a create_before_destroy dependent is removed while the "
            "dependency it forced to create_before_destroy is replaced; strata applied the change")
def test_removed_create_before_destroy_dependent_and_replaced_dependency_is_a_cycle(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(V1)
    res = s.apply(V2, check=False)
    assert res.returncode == 1 and cycle_errors(res), (res.returncode, res.stdout)
    assert s.instance("terraform_data.b")  # nothing was applied
    assert not res.of_type("apply_start")


def test_the_cycle_names_the_operations_as_terraform_does(workdir: Workdir) -> None:
    s = Scenario(workdir, "strata")
    s.apply(V1)
    res = s.apply(V2, check=False)
    assert cycle_errors(res) == ["Cycle: terraform_data.a, terraform_data.a (destroy), terraform_data.b (destroy)"]


def test_plan_reports_the_cycle(workdir: Workdir) -> None:
    Scenario(workdir, "strata").apply(V1)
    workdir.write(V2)
    res = workdir.strata("plan", "-out=p")
    assert res.returncode == 1 and "Error: Cycle: " in res.stderr, res.stderr
    assert not (workdir.path / "p").exists()


STATE_V1 = """
resource "terraform_data" "c" {
  triggers_replace = "1"
}
resource "terraform_data" "b" {
  triggers_replace = "1"
  input = terraform_data.c.id
}
resource "terraform_data" "a" {
  triggers_replace = "1"
  input = terraform_data.b.id
  lifecycle {
    create_before_destroy = true
  }
}
"""
STATE_V2 = """
resource "terraform_data" "c" {
  triggers_replace = "2"
}
resource "terraform_data" "b" {
  triggers_replace = "2"
}
resource "terraform_data" "a" {
  triggers_replace = "2"
  input = terraform_data.b.id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata forced create_before_destroy through the dependencies recorded in state (b's "
            "old object on c), where terraform forces through the configuration only and finds a cycle")
def test_replaced_dependency_a_forced_replacement_no_longer_uses_is_a_cycle(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(STATE_V1)
    res = s.apply(STATE_V2, check=False)
    assert res.returncode == 1 and cycle_errors(res), (res.returncode, res.stdout)


COUNT_V1 = """
resource "terraform_data" "a" {
  count = 2
  input = "v0-${count.index}"
}
resource "terraform_data" "b" {
  triggers_replace = "1"
}
"""
COUNT_V2 = """
resource "terraform_data" "a" {
  count = 1
  input = "v0-${count.index}"
}
resource "terraform_data" "b" {
  triggers_replace = "2"
  input = terraform_data.a[*].id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata forced create_before_destroy on the destroy of an instance gone from count (seed "
            "99), where terraform's destroy keeps the flag in state and its apply graph has a cycle")
def test_instance_gone_from_count_under_a_new_create_before_destroy_dependent_is_a_cycle(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(COUNT_V1)
    res = s.apply(COUNT_V2, check=False)
    assert res.returncode == 1 and cycle_errors(res), (res.returncode, res.stdout)
