"""The event stream at ``-parallelism=1``: terraform runs one operation at a time, so
each ``apply_start`` is followed by its ``apply_complete`` before the next starts.
Found by the differential harness (tests/differential), issue 20."""

from __future__ import annotations

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, both_tools, steps

INDEPENDENT = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = "1"
}
"""


@both_tools("at -parallelism=1 strata starts the next operation before emitting the previous "
       "one's apply_complete (which waits for the state record to be durable)")
def test_operations_do_not_overlap_at_parallelism_1(workdir: Workdir, tool: str) -> None:
    res = Scenario(workdir, tool).apply(INDEPENDENT)
    kinds = [kind for kind, _, _ in steps(res)]
    assert kinds == ["start", "complete", "start", "complete"], steps(res)
