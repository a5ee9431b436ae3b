"""Orderings terraform's apply graph imposes, each once a deviation of strata's walk found by the
differential harness (tests/differential), issue 20. At ``-parallelism=1`` each test
checks one edge of terraform's graph: the first operation completes before the second
starts."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, assert_before, both_tools

CBD_V1 = """
resource "terraform_data" "a" {
  triggers_replace = "1"
}
resource "terraform_data" "m" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "b" {
  input = terraform_data.m.id
}
"""
CBD_V2 = """
resource "terraform_data" "a" {
  triggers_replace = "2"
}
resource "terraform_data" "m" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata creates a create_before_destroy replacement before destroying a removed "
       "(transitive) dependent that does not use create_before_destroy")
def test_dependent_destroyed_before_create_before_destroy_replacement(workdir: Workdir, tool: str) -> None:
    # a is create_before_destroy by force (m, which uses it, is); b depends on a through m
    # and is removed: terraform destroys b before it creates a's replacement.
    s = Scenario(workdir, tool)
    s.apply(CBD_V1)
    res = s.apply(CBD_V2)
    assert_before(res, ("delete", "terraform_data.b"), ("create", "terraform_data.a"))


THROUGH_V1 = """
resource "terraform_data" "z" {
  input = "1"
}
resource "terraform_data" "m" {
  input = terraform_data.z.id
}
resource "terraform_data" "a" {
  input      = "1"
  depends_on = [terraform_data.m]
}
"""


@both_tools("strata does not order a change after its dependency's dependency when the "
       "resource in between has no change")
def test_waits_through_a_dependency_without_changes(workdir: Workdir, tool: str) -> None:
    # a depends on m, m on z. z and a are updated; m (it uses z's id, which an update keeps)
    # is not. terraform's graph still has a wait for z, through m.
    s = Scenario(workdir, tool)
    s.apply(THROUGH_V1)
    res = s.apply(THROUGH_V1.replace('"1"', '"2"'))
    assert_before(res, ("update", "terraform_data.z"), ("update", "terraform_data.a"))


DEPOSED_V1 = """
resource "terraform_data" "a" {
  triggers_replace = "1"
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "m" {
  input = terraform_data.a.id
}
resource "terraform_data" "b" {
  input = terraform_data.m.output
}
"""


@both_tools("strata destroys a create_before_destroy object's deposed original once its direct "
       "dependents are updated, without waiting for the transitive ones")
def test_deposed_object_destroyed_after_transitive_dependents_update(workdir: Workdir, tool: str) -> None:
    # a is replaced (create first); m uses a's id, b uses m's output: both are updated,
    # and terraform destroys a's deposed object only after both, b included.
    s = Scenario(workdir, tool)
    s.apply(DEPOSED_V1)
    res = s.apply(DEPOSED_V1.replace('"1"', '"2"'))
    assert_before(res, ("update", "terraform_data.b"), ("delete", "terraform_data.a"))


UPDATE_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "m" {
  input = terraform_data.a.output
}
resource "terraform_data" "b" {
  input = terraform_data.m.output
}
"""
UPDATE_V2 = """
resource "terraform_data" "a" {
  input = "2"
}
resource "terraform_data" "m" {
  input = terraform_data.a.output
}
"""


@both_tools("strata updates an object before destroying a removed object that depends on it "
       "transitively (through another)")
def test_update_waits_for_the_destroy_of_a_transitive_dependent(workdir: Workdir, tool: str) -> None:
    # b (removed) uses m, which uses a; a is updated: terraform destroys b first.
    s = Scenario(workdir, tool)
    s.apply(UPDATE_V1)
    res = s.apply(UPDATE_V2)
    assert_before(res, ("delete", "terraform_data.b"), ("update", "terraform_data.a"))


DESTROY_V1 = """
resource "terraform_data" "a" {
  triggers_replace = "1"
}
resource "terraform_data" "m" {
  input = terraform_data.a.output
}
resource "terraform_data" "b" {
  input = terraform_data.m.output
}
"""
DESTROY_V2 = """
resource "terraform_data" "a" {
  triggers_replace = "2"
}
resource "terraform_data" "m" {
  input = terraform_data.a.output
}
"""


@both_tools("strata destroys an object (for its replacement) before a removed object that "
       "depends on it transitively")
def test_destroy_waits_for_the_destroy_of_a_transitive_dependent(workdir: Workdir, tool: str) -> None:
    # a is replaced (destroy first), b (removed) uses m, which uses a: terraform destroys b
    # before a.
    s = Scenario(workdir, tool)
    s.apply(DESTROY_V1)
    res = s.apply(DESTROY_V2)
    assert_before(res, ("delete", "terraform_data.b"), ("delete", "terraform_data.a"))


NOW_CBD_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = terraform_data.a.output
}
"""
NOW_CBD_V2 = """
resource "terraform_data" "b" {
  input = "2"
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata updates a dependent that now uses create_before_destroy before destroying "
       "its removed dependency; terraform destroys first")
def test_create_before_destroy_update_waits_for_the_destroy_of_its_old_dependency(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(NOW_CBD_V1)
    res = s.apply(NOW_CBD_V2)
    assert_before(res, ("delete", "terraform_data.a"), ("update", "terraform_data.b"))


NEW_DEP_V1 = """
resource "terraform_data" "a" {
  triggers_replace = "1"
}
resource "terraform_data" "b" {
  triggers_replace = "1"
}
"""
NEW_DEP_V2 = """
resource "terraform_data" "a" {
  triggers_replace = "2"
}
resource "terraform_data" "b" {
  triggers_replace = "2"
  depends_on       = [terraform_data.a]
}
"""


@both_tools("strata orders the destroys of replaced objects by the dependencies in the state only; "
       "terraform also by those the new configuration declares")
def test_destroy_of_a_replaced_object_waits_for_a_new_dependent(workdir: Workdir, tool: str) -> None:
    # both are replaced (destroy first); b now depends on a: terraform destroys b before a
    s = Scenario(workdir, tool)
    s.apply(NEW_DEP_V1)
    res = s.apply(NEW_DEP_V2)
    assert_before(res, ("delete", "terraform_data.b"), ("delete", "terraform_data.a"))


NEW_DEPENDENCY_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = "1"
}
resource "terraform_data" "c" {
  input = "1"
}
"""
NEW_DEPENDENCY_V2 = """
resource "terraform_data" "a" {
  input = "2"
}
resource "terraform_data" "b" {
  input = "1"
  triggers_replace = "2"
  depends_on = [terraform_data.a]
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "c" {
  input = terraform_data.b.id
  triggers_replace = "2"
}
"""


@both_tools("strata updated an object before destroying, for its replacement, an object that now "
            "depends on it through a create_before_destroy replacement (seed 423): terraform orders "
            "a replaced object's destroy by its new configuration's dependencies too")
def test_update_waits_for_the_destroy_of_a_replaced_object_that_now_depends_on_it(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(NEW_DEPENDENCY_V1)
    res = s.apply(NEW_DEPENDENCY_V2)
    assert_before(res, ("delete", "terraform_data.c"), ("update", "terraform_data.a"))



TRIGGERED_V1 = """
resource "terraform_data" "r" {
  for_each = toset(["c"])
  input    = each.key
}
resource "terraform_data" "b" {
  lifecycle {
    replace_triggered_by = [terraform_data.r["c"].output]
  }
}
resource "terraform_data" "a" {
  input = "1"
}
"""
TRIGGERED_V2 = """
resource "terraform_data" "r" {
  for_each = toset(["a", "c"])
  input    = each.key
}
resource "terraform_data" "a" {
  input = "2"
  lifecycle {
    replace_triggered_by = [terraform_data.r["c"].output]
  }
}
"""


@both_tools("strata does not order a change after the whole resource an instance in its "
       "replace_triggered_by belongs to")
def test_update_waits_for_every_instance_of_a_resource_in_replace_triggered_by(
    workdir: Workdir, tool: str
) -> None:
    # a names r["c"] in replace_triggered_by (new in v2); r gains the instance "a" and a is
    # updated. terraform's graph has a depend on the whole resource r, so r["a"]'s create
    # comes first.
    s = Scenario(workdir, tool)
    s.apply(TRIGGERED_V1)
    res = s.apply(TRIGGERED_V2)
    assert_before(res, ("create", 'terraform_data.r["a"]'), ("update", "terraform_data.a"))
