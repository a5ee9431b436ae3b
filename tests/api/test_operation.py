"""One operation step by step through the API (:meth:`engine.api.Workspace.operation`), as the
``strata`` command drives it: the plan options it takes (``-target``, ``-replace``,
``-refresh-only``), variables from files and the command line in order, and the state's lock held
from the plan to the end of the apply."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.api import PlanOptions, Workspace
from engine.diagnostics import DiagnosticsError

CONFIG = """
variable "x" {
  default = "default"
}
resource "terraform_data" "a" { input = var.x }
resource "terraform_data" "b" { input = terraform_data.a.output }
output "b" { value = terraform_data.b.output }
"""


def _workspace(tmp_path: Path, **settings: object) -> Workspace:
    (tmp_path / "main.tf").write_text(CONFIG)
    return Workspace(str(tmp_path), state="terraform.tfstate", fsync=False, **settings)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_a_targeted_plan_plans_only_the_target(tmp_path: Path, backend: str) -> None:
    ws = _workspace(tmp_path)
    plan = anyio.run(ws.plan, PlanOptions(targets=("terraform_data.a",)), backend=backend)
    assert [c.address for c in plan.changes] == ["terraform_data.a"]


def test_later_variable_arguments_win_and_the_variables_mapping_wins_over_them(tmp_path: Path) -> None:
    (tmp_path / "x.tfvars").write_text('x = "from the file"\n')
    ws = _workspace(tmp_path, variable_args=[("var", "x=first"), ("var-file", str(tmp_path / "x.tfvars"))])

    async def applied() -> str:
        outcome = await ws.apply().result()
        assert outcome.ok, outcome.diagnostics
        return str(outcome.outputs["b"].value)

    assert anyio.run(applied) == "from the file"
    ws.variables["x"] = "from the mapping"
    assert anyio.run(applied) == "from the mapping"


def test_an_operation_holds_the_lock_from_its_plan_to_the_end_of_its_apply(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)

    async def main() -> None:
        async with ws.operation("OperationTypeApply") as op:
            planned = await op.plan(lambda e: None)
            with pytest.raises(DiagnosticsError, match="Error acquiring the state lock"):
                await ws.plan()  # another operation, while this one holds the lock
            result = await op.apply(planned, lambda e: None)
            assert result.ok and result.counts["add"] == 2
        again = await ws.plan()  # the lock was released
        assert not again.has_changes
        assert (await ws.outputs())["b"].value == "default"

    anyio.run(main)


def test_replace_and_refresh_only_are_plan_options(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)

    async def main() -> None:
        assert (await ws.apply().result()).ok
        replaced = await ws.plan(PlanOptions(replace=("terraform_data.a",)))
        assert {(c.address, c.action) for c in replaced.changes} >= {("terraform_data.a", "replace")}
        refreshed = await ws.plan(PlanOptions(refresh_only=True))
        assert refreshed.changes == ()

    anyio.run(main)


def test_read_state_reads_what_the_apply_made_durable(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    assert anyio.run(lambda: ws.apply().result()).ok
    read = ws.read_state()
    assert sorted(str(addr) for addr, *_ in read.state.objects()) == ["terraform_data.a", "terraform_data.b"]
    assert read.warnings == ()
