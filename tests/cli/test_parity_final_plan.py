"""terraform plans each change again at apply time, once its dependencies are applied; a
change whose final plan equals the prior state is not applied (no ``apply_start``, no
provider call). Found by the differential harness (tests/differential), issue 20."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, both_tools, steps

CHAIN = """
resource "terraform_data" "a" {
  input = "x"
}
resource "terraform_data" "b" {
  input = terraform_data.a.output
}
"""


@both_tools("final-plan no-ops are applied: strata updates b although a's replacement left its input unchanged")
def test_change_whose_final_plan_is_a_no_op_is_not_applied(workdir: Workdir, tool: str) -> None:
    # -replace plans a.output unknown, so b is planned for an update; once a is replaced its
    # output is "x" again and b's final plan is a no-op.
    s = Scenario(workdir, tool)
    s.apply(CHAIN)
    res = s.apply(CHAIN, "-replace=terraform_data.a")
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("delete", "terraform_data.a"), ("create", "terraform_data.a")], started


@both_tools("final-plan no-ops were counted as changes in the apply's summary")
def test_change_whose_final_plan_is_a_no_op_is_not_counted(workdir: Workdir, tool: str) -> None:
    # the plan said "1 to change"; the summary counts what was applied: 0 changed
    s = Scenario(workdir, tool)
    s.apply(CHAIN)
    res = s.apply(CHAIN, "-replace=terraform_data.a")
    summaries = [e["changes"] for e in res.events if e["type"] == "change_summary"]
    assert [(c["operation"], c["add"], c["change"], c["remove"]) for c in summaries] == [
        ("plan", 1, 1, 1), ("apply", 1, 0, 1)], summaries


@both_tools("final-plan no-ops kept the dependencies the object was created with")
def test_change_whose_final_plan_is_a_no_op_records_its_dependencies(workdir: Workdir, tool: str) -> None:
    # b gains a dependency on c while its update turns out a no-op: the state records it
    s = Scenario(workdir, tool)
    s.apply(CHAIN + 'resource "terraform_data" "c" {}\n')
    s.apply(CHAIN.replace("input = terraform_data.a.output",
                          "input = terraform_data.a.output\n  depends_on = [terraform_data.c]")
            + 'resource "terraform_data" "c" {}\n', "-replace=terraform_data.a")
    assert s.instance("terraform_data.b").get("dependencies") == ["terraform_data.a", "terraform_data.c"]


@both_tools("final-plan no-ops kept the create_before_destroy flag the object was created with")
def test_change_whose_final_plan_is_a_no_op_records_its_create_before_destroy(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(CHAIN)
    s.apply(CHAIN.replace("input = terraform_data.a.output",
                          "input = terraform_data.a.output\n  lifecycle {\n    create_before_destroy = true\n  }"),
            "-replace=terraform_data.a")
    assert s.instance("terraform_data.b").get("create_before_destroy") is True


WITH_C = CHAIN + 'resource "terraform_data" "c" {}\n'
B_ON_C = CHAIN.replace("input = terraform_data.a.output",
                       "input = terraform_data.a.output\n  depends_on = [terraform_data.c]") + (
    'resource "terraform_data" "c" {}\n')


@both_tools("final-plan no-ops merged the configuration's dependencies under -refresh=false")
def test_final_plan_no_op_without_refresh_keeps_the_prior_dependencies(workdir: Workdir, tool: str) -> None:
    # terraform merges the configuration's dependencies into an object's when its refresh reads
    # it while planning; without refresh an object its change leaves as it was keeps its own
    s = Scenario(workdir, tool)
    s.apply(WITH_C)
    s.apply(B_ON_C, "-replace=terraform_data.a", "-refresh=false")
    assert s.instance("terraform_data.b").get("dependencies") == ["terraform_data.a"]


@both_tools("a saved plan made with -refresh=false merged the configuration's dependencies when applied")
def test_a_saved_plan_without_refresh_keeps_the_prior_dependencies(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(WITH_C)
    workdir.write(B_ON_C)
    s.run("plan", "-input=false", "-refresh=false", "-replace=terraform_data.a", "-out=saved.tfplan")
    s.run("apply", "-input=false", "-json", "-parallelism=1", "saved.tfplan")
    assert s.instance("terraform_data.b").get("dependencies") == ["terraform_data.a"]


CBD = """
resource "terraform_data" "c" {}
resource "terraform_data" "a" {
  triggers_replace = "%s"
  %s
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
}
"""


def _deposed_dependencies(s: Scenario, resource: str) -> list[list[str]]:
    return [inst.get("dependencies", []) for res in s.state()["resources"]
            if f"{res['type']}.{res['name']}" == resource for inst in res["instances"] if inst.get("deposed")]


@both_tools("an object deposed under -refresh=false took the configuration's new dependencies")
def test_an_object_deposed_without_refresh_keeps_the_prior_dependencies(workdir: Workdir, tool: str) -> None:
    # -target=b replaces a (create_before_destroy) and leaves the old object deposed: its
    # dependencies are the prior state's without refresh, merged with the new ones with it
    s = Scenario(workdir, tool)
    s.apply(CBD % ("1", ""), "-target=terraform_data.b")
    s.apply(CBD % ("2", "depends_on = [terraform_data.c]"), "-target=terraform_data.b", "-refresh=false")
    assert _deposed_dependencies(s, "terraform_data.a") == [[]]


@both_tools("an object deposed with refresh kept only its prior dependencies")
def test_an_object_deposed_with_refresh_takes_the_new_dependencies(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(CBD % ("1", ""), "-target=terraform_data.b")
    s.apply(CBD % ("2", "depends_on = [terraform_data.c]"), "-target=terraform_data.b")
    assert _deposed_dependencies(s, "terraform_data.a") == [["terraform_data.c"]]
