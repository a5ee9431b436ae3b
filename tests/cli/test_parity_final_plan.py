"""terraform plans each change again at apply time, once its dependencies are applied; a
change whose final plan equals the prior state is not applied (no ``apply_start``, no
provider call). Found by the differential harness (tests/differential), issue 20."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, steps, tools

CHAIN = """
resource "terraform_data" "a" {
  input = "x"
}
resource "terraform_data" "b" {
  input = terraform_data.a.output
}
"""


@tools("final-plan no-ops are applied: strata updates b although a's replacement left its input unchanged")
def test_change_whose_final_plan_is_a_no_op_is_not_applied(workdir: Workdir, tool: str) -> None:
    # -replace plans a.output unknown, so b is planned for an update; once a is replaced its
    # output is "x" again and b's final plan is a no-op.
    s = Scenario(workdir, tool)
    s.apply(CHAIN)
    res = s.apply(CHAIN, "-replace=terraform_data.a")
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("delete", "terraform_data.a"), ("create", "terraform_data.a")], started
