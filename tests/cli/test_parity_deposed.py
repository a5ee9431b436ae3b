"""What terraform records on an object deposed by a create_before_destroy replacement whose
destroy ``-target`` leaves out. Found by the differential harness once it generated
``replace_triggered_by`` (issue 20); a plain reference shows it too."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, both_tools

V1 = """
resource "terraform_data" "a" {
  input = "v1"
}
resource "terraform_data" "b" {
  triggers_replace = "t0"
}
resource "terraform_data" "c" {
}
"""
V2 = """
resource "terraform_data" "a" {
  input            = "v1"
  triggers_replace = "t4"
}
resource "terraform_data" "b" {
  triggers_replace = terraform_data.a.id
}
resource "terraform_data" "c" {
  depends_on = [terraform_data.b]
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("strata kept the dependencies the deposed object was created with; terraform records the "
       "ones its plan merged into the refreshed object before it was deposed")
def test_deposed_object_records_the_dependencies_of_its_last_plan(workdir: Workdir, tool: str) -> None:
    # b is replaced create-before-destroy (forced by c) and now depends on a; -target=c leaves
    # b's old object deposed in the state
    s = Scenario(workdir, tool)
    s.apply(V1)
    s.apply(V2, "-target=terraform_data.c")
    deposed = [i for r in s.state()["resources"] if r["name"] == "b" for i in r["instances"] if i.get("deposed")]
    assert [i.get("dependencies") for i in deposed] == [["terraform_data.a"]]


@both_tools("as above")
def test_deposed_object_keeps_its_former_dependencies_beside_the_new(workdir: Workdir, tool: str) -> None:
    # terraform merges the prior object's dependencies with the plan's before deposing it
    s = Scenario(workdir, tool)
    s.apply(V1.replace('triggers_replace = "t0"', "triggers_replace = terraform_data.c.id"))
    s.apply(V2, "-target=terraform_data.c")
    deposed = [i for r in s.state()["resources"] if r["name"] == "b" for i in r["instances"] if i.get("deposed")]
    assert [i.get("dependencies") for i in deposed] == [["terraform_data.a", "terraform_data.c"]]
