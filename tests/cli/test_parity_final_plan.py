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
