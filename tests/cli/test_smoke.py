"""End to end: the issue's example through the real command."""

import pytest

from tests.conftest import Workdir

pytestmark = pytest.mark.usefixtures("each_event_loop")  # a whole run, on asyncio and trio alike

CONFIG = """
resource "terraform_data" "a" { input = "hello" }
resource "terraform_data" "b" { input = terraform_data.a.output }
"""


def test_plan_apply_replan_destroy(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    plan = workdir.strata("plan", "-detailed-exitcode")
    assert plan.returncode == 2, plan.stderr
    assert "Plan: 2 to add, 0 to change, 0 to destroy." in plan.stdout
    workdir.strata("apply", "-auto-approve", check=True)
    state = workdir.state()
    assert [r["name"] for r in state["resources"]] == ["a", "b"]
    assert state["resources"][1]["instances"][0]["dependencies"] == ["terraform_data.a"]
    again = workdir.strata("plan", "-detailed-exitcode")
    assert again.returncode == 0, again.stdout
    workdir.write(CONFIG.replace("hello", "world"))
    changed = workdir.strata("apply", "-auto-approve", "-json", check=True)
    summary = changed.of_type("change_summary")[-1]["changes"]
    assert (summary["add"], summary["change"], summary["remove"]) == (0, 2, 0)
    destroyed = workdir.strata("destroy", "-auto-approve", "-json", check=True)
    order = [e["hook"]["resource"]["addr"] for e in destroyed.of_type("apply_complete")]
    assert order == ["terraform_data.b", "terraform_data.a"]
    assert workdir.state()["resources"] == []


def test_running_out_of_memory_is_one_line_not_a_traceback(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    # e.g. count = 1e10: terraform itself dies of it; strata says so in one line and exits 1
    import engine.cli.main as cli

    async def exhausted(argv: list[str]) -> int:
        raise MemoryError

    monkeypatch.setattr(cli, "run", exhausted)
    # main() configures the process's collector: not for the tests that run after this one
    monkeypatch.setattr(cli.gc, "set_threshold", lambda *a: None)
    assert cli.main(["plan"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("strata: out of memory") and "Traceback" not in err, err
