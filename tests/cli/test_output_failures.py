"""When strata's own output cannot be written (a full disk: /dev/full), the run still does its
work and records it, says why on one stderr line, exits 1, and never shows a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, Workdir

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")

CONFIG = 'resource "terraform_data" "x" {\n  count = 3\n  input = count.index\n}\n'


def run_to_full_disk(workdir: Workdir, *args: str, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), **env_vars)
    with open("/dev/full", "w") as full:
        return subprocess.run([sys.executable, "-m", "engine", *args], cwd=workdir.path, env=env,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)


@pytest.mark.parametrize("flags", [[], ["-json"]])
def test_apply_to_a_full_disk_still_applies_and_records(workdir: Workdir, flags: list[str]) -> None:
    workdir.write(CONFIG)
    res = run_to_full_disk(workdir, "apply", "-auto-approve", *flags)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr and "No space left on device" in res.stderr
    assert workdir.strata("state", "list", check=True).stdout.split() == [
        "terraform_data.x[0]", "terraform_data.x[1]", "terraform_data.x[2]"]


@pytest.mark.parametrize("args", [["plan"], ["state", "list"], ["show"], ["version"]])
def test_other_commands_say_so_in_one_line(workdir: Workdir, args: list[str]) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    res = run_to_full_disk(workdir, *args)
    assert res.returncode == 1, res.stderr
    assert "Traceback" not in res.stderr and "No space left on device" in res.stderr


def test_a_large_runs_writer_process_reports_a_full_disk_as_strata_does(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = run_to_full_disk(workdir, "apply", "-auto-approve", "-json", STRATA_JSON_WRITER_AFTER="0")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr and res.stderr.count("No space left on device") == 1, res.stderr
    assert len(workdir.strata("state", "list", check=True).stdout.split()) == 3
