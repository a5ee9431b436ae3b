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


_LOOP_LOST_TRACK = """
import resource, sys
import engine.cli.main as cli

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmPeak:"):
            return int(line.split()[1]) * 1024

limit = peak() + {headroom}
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))

async def loop_lost_track(argv):
    if {exhaust}:
        try:
            hog = []
            while True:
                hog.append(bytearray(1 << 20))
        except MemoryError:
            del hog
    # what escaped trio when the MemoryError struck its own bookkeeping: an internal error, no
    # MemoryError among its causes
    raise RuntimeError("internal error in the event loop") from KeyError("task")

cli.run = loop_lost_track
sys.argv = ["strata", "plan"]
sys.exit(cli.main())
"""


@pytest.mark.parametrize("exhaust", [True, False])
def test_an_event_loop_broken_by_exhaustion_is_still_one_line(tmp_path, exhaust: bool) -> None:  # type: ignore[no-untyped-def]
    """When memory runs out inside the event loop's own bookkeeping, what escapes names no
    MemoryError; the address space's peak at its limit tells it was memory. An internal error with
    memory to spare is a defect and keeps its traceback."""
    import subprocess
    import sys

    from tests.conftest import REPO

    code = _LOOP_LOST_TRACK.format(headroom=256 << 20, exhaust=exhaust)
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO)}, timeout=120)
    if exhaust:
        assert (res.returncode, res.stderr) == (1, "strata: out of memory (is a count or for_each much larger than intended?)\n")
    else:
        assert res.returncode == 1 and "Traceback" in res.stderr and "internal error in the event loop" in res.stderr


def test_a_failed_output_of_an_earlier_run_in_the_process_does_not_fail_the_next(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """``main(argv)`` runs again in one process (a program, the tests): what could not be written
    in one run is that run's business, not the next's."""
    from engine.cli.main import main
    from engine.events import stream

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(stream, "OUTPUT_FAILED", [OSError("an earlier run's disk was full")])
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    assert main(["plan"]) == 0, capsys.readouterr()
