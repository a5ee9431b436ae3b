"""A reference to one instance by a constant key (``terraform_data.a["c"]``) where terraform's
apply graph is finer than strata's. Found by the differential harness once it generated
``replace_triggered_by`` items naming one instance (issue 20); a plain reference shows it too."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, assert_before, both_tools

ONE_INSTANCE = """
resource "terraform_data" "a" {
  for_each         = toset(["a", "c"])
  input            = "x"
  triggers_replace = "t2"
}
resource "terraform_data" "b" {
  input = terraform_data.a["c"].input
  lifecycle {
    create_before_destroy = true
  }
}
"""


def _recorded_cbd(s: Scenario, addr_key: str) -> bool | None:
    for res in s.state()["resources"]:
        if res["name"] == "a":
            for inst in res["instances"]:
                if inst.get("index_key") == addr_key:
                    return bool(inst.get("create_before_destroy"))
    raise AssertionError(f"a[{addr_key!r}] is not in the state")


@both_tools("strata forced create_before_destroy on every instance of a resource a create_before_destroy "
       "dependent names one instance of (its configuration graph is per resource); terraform's apply "
       "graph forces it on the instance named only, and records the flag so")
def test_create_before_destroy_is_recorded_only_on_the_instance_a_dependent_names(
        workdir: Workdir, tool: str) -> None:
    # both instances of a are replaced (create-then-delete in both tools' plans); the state
    # records the flag forced by b on a["c"] alone
    s = Scenario(workdir, tool)
    s.apply(ONE_INSTANCE)
    s.apply(ONE_INSTANCE.replace("t2", "t3"))
    assert (_recorded_cbd(s, "a"), _recorded_cbd(s, "c")) == (False, True)


NOT_YET_CBD = """
resource "terraform_data" "a" {
  for_each         = toset(["a", "c"])
  input            = "x"
  triggers_replace = "t1"
}
resource "terraform_data" "b" {
  input = terraform_data.a["c"].input
}
"""


@both_tools("as above")
def test_a_dependent_without_a_change_forces_the_instance_it_names_when_applied(
        workdir: Workdir, tool: str) -> None:
    # b becomes create_before_destroy with no change of its own while a is replaced: the
    # replacement of the instance b names records the flag, the other's does not
    s = Scenario(workdir, tool)
    s.apply(NOT_YET_CBD)
    assert (_recorded_cbd(s, "a"), _recorded_cbd(s, "c")) == (False, False)
    s.apply(NOT_YET_CBD.replace("t1", "t2").replace(
        'input = terraform_data.a["c"].input\n', 'input = terraform_data.a["c"].input\n'
        "  lifecycle {\n    create_before_destroy = true\n  }\n"))
    assert (_recorded_cbd(s, "a"), _recorded_cbd(s, "c")) == (False, True)


@both_tools("as above")
def test_an_object_without_a_change_records_the_flag_its_whole_resource_is_forced_to(
        workdir: Workdir, tool: str) -> None:
    # planning rewrites an unchanged object's flag from the configuration, resource by
    # resource: a["a"], never applied since, gains it when only b changes
    s = Scenario(workdir, tool)
    s.apply(ONE_INSTANCE)
    assert (_recorded_cbd(s, "a"), _recorded_cbd(s, "c")) == (False, True)
    s.apply(ONE_INSTANCE.replace('input = terraform_data.a["c"].input',
                                 'input = "${terraform_data.a["c"].input}-2"'))
    assert (_recorded_cbd(s, "a"), _recorded_cbd(s, "c")) == (True, True)


THROUGH_COUNT_INDEX = """
resource "terraform_data" "a" {
  count = 3
  input = "x"
}
resource "terraform_data" "b" {
  count = 2
  input = terraform_data.a[count.index].input
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata forced create_before_destroy per instance through a[count.index]; terraform's "
            "apply graph reads a key known only per instance as a reference to the whole resource "
            "(seed 1168)")
def test_a_reference_by_count_index_forces_create_before_destroy_on_the_whole_resource(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(THROUGH_COUNT_INDEX)
    flags = [inst.get("create_before_destroy", False) for r in s.state()["resources"] if r["name"] == "a"
             for inst in sorted(r["instances"], key=lambda i: i["index_key"])]
    assert flags == [True, True, True]


UNCHANGED_NAMED = """
resource "terraform_data" "a" {
  count            = 2
  input            = "x"
  triggers_replace = count.index == 0 ? "t1" : "t0"
  CONDITIONS
}
resource "terraform_data" "b" {
  input = "${terraform_data.a[1].input}-v1"
  lifecycle {
    create_before_destroy = true
  }
}
"""

POSTCONDITION = """lifecycle {
    postcondition {
      condition     = self.input == "x"
      error_message = "x"
    }
  }"""


def _cbd_flags(s: Scenario) -> list[bool]:
    return [bool(inst.get("create_before_destroy")) for r in s.state()["resources"] if r["name"] == "a"
            for inst in sorted(r["instances"], key=lambda i: i["index_key"])]


@both_tools("strata forced create_before_destroy on the instance a constant key names alone, even "
            "where terraform's apply graph has no node for it and refers to the whole resource "
            "instead (seed 1204)")
def test_a_constant_key_naming_an_instance_without_a_change_forces_the_whole_resource(
        workdir: Workdir, tool: str) -> None:
    # b changes and names a[1], which does not: a[0]'s replacement records the flag too
    s = Scenario(workdir, tool)
    s.apply(UNCHANGED_NAMED.replace("CONDITIONS", ""))
    s.apply(UNCHANGED_NAMED.replace("CONDITIONS", "").replace('"t1"', '"t2"').replace("-v1", "-v2"))
    assert _cbd_flags(s) == [True, True]


@both_tools("as above")
def test_an_instance_without_a_change_whose_conditions_are_checked_is_forced_alone(
        workdir: Workdir, tool: str) -> None:
    # a postcondition keeps a node for the unchanged a[1] in terraform's apply graph: b's
    # reference names it alone, and a[0]'s replacement records no flag
    s = Scenario(workdir, tool)
    s.apply(UNCHANGED_NAMED.replace("CONDITIONS", POSTCONDITION))
    s.apply(UNCHANGED_NAMED.replace("CONDITIONS", POSTCONDITION).replace('"t1"', '"t2"').replace("-v1", "-v2"))
    assert _cbd_flags(s) == [False, True]



SHRINKING_V1 = """
resource "terraform_data" "a" {
  count = 2
  input = "v0-${count.index}"
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "b" {
  input            = "x"
  triggers_replace = "t0"
}
"""
SHRINKING_V2 = """
resource "terraform_data" "a" {
  count            = 1
  input            = "v0-${count.index}"
  triggers_replace = "t3"
}
resource "terraform_data" "b" {
  input            = "x"
  triggers_replace = "t0"
  lifecycle {
    replace_triggered_by = [terraform_data.a[0]]
  }
}
"""


@both_tools("strata destroyed an instance gone from count, recorded create_before_destroy, without "
            "waiting for the create of what names another instance of its resource; terraform waits "
            "for it (seed 1079, shrunk)")
def test_a_create_before_destroy_orphan_is_destroyed_after_what_refers_to_its_resource(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(SHRINKING_V1)
    res = s.apply(SHRINKING_V2)
    assert_before(res, ("create", "terraform_data.b"), ("delete", "terraform_data.a[1]"))
