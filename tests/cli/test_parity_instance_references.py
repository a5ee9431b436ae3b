"""A reference to one instance by a constant key (``terraform_data.a["c"]``) where terraform's
apply graph is finer than strata's. Found by the differential harness once it generated
``replace_triggered_by`` items naming one instance (issue 20); a plain reference shows it too."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, both_tools

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
