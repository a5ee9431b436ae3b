"""What terraform records in the state that strata does not. Found by the differential
harness (tests/differential), issue 20."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, assert_before, both_tools, tools

EMPTY_BETWEEN = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "m" {
  for_each = toset([])
  input    = terraform_data.a.id
}
resource "terraform_data" "b" {
  input = { for k, v in terraform_data.m : k => v.id }
}
"""


@both_tools("strata records direct dependencies only, so a dependency through a resource "
       "without objects is lost")
def test_dependencies_through_an_empty_resource(workdir: Workdir, tool: str) -> None:
    # b depends on a through m, which has no instances: terraform records a among b's
    # dependencies (it is what orders b's destroy before a's later); strata only m.
    s = Scenario(workdir, tool)
    s.apply(EMPTY_BETWEEN)
    assert "terraform_data.a" in s.instance("terraform_data.b").get("dependencies", [])


@both_tools("strata did not wait through a resource without instances: b was created before a")
def test_create_waits_through_a_resource_without_instances(workdir: Workdir, tool: str) -> None:
    # the same cause seen in the order: b depends on a through m, which has no instances
    s = Scenario(workdir, tool)
    res = s.apply(EMPTY_BETWEEN.replace('"1"', "terraform_data.c.id") + 'resource "terraform_data" "c" {}\n')
    assert_before(res, ("create", "terraform_data.a"), ("create", "terraform_data.b"))


UNCHANGED_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = "1"
}
"""
UNCHANGED_V2 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input      = "1"
  depends_on = [terraform_data.a]
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata keeps the dependencies an object was created with when it has no change")
def test_dependencies_of_an_unchanged_object_are_rewritten(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(UNCHANGED_V1)
    s.apply(UNCHANGED_V2)
    assert s.instance("terraform_data.b").get("dependencies") == ["terraform_data.a"]


@both_tools("strata keeps the create_before_destroy flag an object was created with when it "
       "has no change")
def test_create_before_destroy_of_an_unchanged_object_is_rewritten(workdir: Workdir, tool: str) -> None:
    # b now uses create_before_destroy, and so (by force) does a, which b depends on
    s = Scenario(workdir, tool)
    s.apply(UNCHANGED_V1)
    s.apply(UNCHANGED_V2)
    flags = {r: s.instance(r).get("create_before_destroy", False)
             for r in ("terraform_data.a", "terraform_data.b")}
    assert flags == {"terraform_data.a": True, "terraform_data.b": True}, flags


FORCED_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""
FORCED_V2 = """
resource "terraform_data" "a" {
  input = "2"
}
"""


@both_tools("strata keeps create_before_destroy forced on an object by a dependent that the "
       "configuration no longer has")
def test_create_before_destroy_forced_by_a_removed_dependent_is_dropped(workdir: Workdir, tool: str) -> None:
    # b forced create_before_destroy on a; b is removed and a updated: terraform records a
    # as it is configured now, without create_before_destroy
    s = Scenario(workdir, tool)
    s.apply(FORCED_V1)
    assert s.instance("terraform_data.a").get("create_before_destroy") is True
    s.apply(FORCED_V2)
    assert not s.instance("terraform_data.a").get("create_before_destroy", False)


FORCED_BY_EMPTY = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  count = 0
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata forced create_before_destroy only from planned changes, not from a "
            "create_before_destroy resource without instances")
def test_create_before_destroy_forced_by_a_resource_without_instances(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(FORCED_BY_EMPTY)
    assert s.instance("terraform_data.a").get("create_before_destroy") is True


FINAL_NO_OP_V1 = """
resource "terraform_data" "a" {
  input            = "1"
  triggers_replace = "1"
}
resource "terraform_data" "c" {
}
resource "terraform_data" "b" {
  input      = terraform_data.a.output
  depends_on = [terraform_data.c]
}
"""


@both_tools("strata records only the dependencies the configuration gives now for an update "
       "whose final plan is a no-op")
def test_dependencies_of_a_final_plan_no_op_keep_the_prior_ones(workdir: Workdir, tool: str) -> None:
    # a is replaced, so b's update waits for a's output (unknown when planned); it turns out the
    # same, and terraform skips the update. b no longer depends on c, but terraform does not
    # rewrite the state of a skipped change: the object keeps what the plan recorded, its prior
    # dependencies merged with the configured ones.
    s = Scenario(workdir, tool)
    s.apply(FINAL_NO_OP_V1)
    s.apply(FINAL_NO_OP_V1.replace('triggers_replace = "1"', 'triggers_replace = "2"')
            .replace("  depends_on = [terraform_data.c]\n", ""))
    assert s.instance("terraform_data.b").get("dependencies") == ["terraform_data.a", "terraform_data.c"]


DEPENDENT_V1 = FINAL_NO_OP_V1 + """
resource "terraform_data" "d" {
  input = "1-${terraform_data.b.id}"
}
"""


@tools("strata records direct dependencies: the prior ones a final-plan no-op keeps reach the "
       "closure of a dependent that is applied, where terraform records the dependent's "
       "transitive list from the configuration (seed 715); only transitive lists in state would match")
def test_a_dependent_does_not_gain_the_kept_dependencies_of_a_final_plan_no_op(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(DEPENDENT_V1)
    s.apply(DEPENDENT_V1.replace('triggers_replace = "1"', 'triggers_replace = "2"')
            .replace("  depends_on = [terraform_data.c]\n", "").replace('"1-$', '"2-$'))
    deps = set(s.instance("terraform_data.d").get("dependencies", []))
    if tool == "strata":  # its direct list closed over its own state, as the harness compares them
        for r in list(deps):
            deps |= set(s.instance(r).get("dependencies", []))
    assert deps == {"terraform_data.a", "terraform_data.b"}, deps
