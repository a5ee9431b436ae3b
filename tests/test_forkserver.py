"""tests/forkserver.py: a command forked from the warm server is the command started cold, as the
suite's ``Workdir.strata`` sees it (status, both streams, input, environment, directory, time-out)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests import forkserver
from tests.conftest import REPO

CONFIG = """
variable "greeting" {
  type = string
}
resource "terraform_data" "a" {
  count = 3
  input = "${var.greeting}-${count.index}"
}
output "first" {
  value = terraform_data.a[0].input
}
"""


@pytest.mark.parametrize(("args", "input"), [
    (["plan", "-no-color"], None),
    (["apply", "-no-color"], "no\n"),  # prompted, refused: status 1
    (["nonsense"], None),  # a usage error on stderr
    (["plan", "-var", "greeting="], None),
])
def test_a_forked_command_is_the_command_started_cold(tmp_path: Path, args: list[str], input: str | None) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    env = forkserver.environment(TF_VAR_greeting="hello")  # read from the command's own environment
    warm = forkserver.run(args, tmp_path, env, input, timeout=120)
    cold = forkserver.cold(args, tmp_path, env, input, 120)
    assert warm == cold
    assert warm.stdout or warm.stderr


def test_an_apply_leaves_the_same_state_and_outputs(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    env = forkserver.environment(TF_VAR_greeting="hi")
    applied = forkserver.run(["apply", "-auto-approve", "-no-color"], tmp_path, env, None, timeout=120)
    assert applied.returncode == 0, applied.stderr
    assert "Apply complete! Resources: 3 added" in applied.stdout
    assert (tmp_path / "terraform.tfstate").exists()  # in the command's directory, not the server's
    assert forkserver.run(["output", "-raw", "first"], tmp_path, env, None, timeout=120).stdout == "hi-0"
    assert forkserver.run(["plan", "-detailed-exitcode"], tmp_path, env, None, timeout=120).returncode == 0


def test_a_command_past_its_time_is_killed(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('provider "sim" {\n  ledger     = "cloud.jsonl"\n  latency_ms = 20000\n}\n'
                                      'resource "sim_object" "slow" {\n  name = "slow"\n}\n')
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        forkserver.run(["apply", "-auto-approve"], tmp_path, forkserver.environment(), None, timeout=3)
    assert time.monotonic() - t0 < 15
    # and the server goes on serving
    assert forkserver.run(["version"], tmp_path, forkserver.environment(), None, timeout=60).returncode == 0


def test_a_command_whose_interpreter_would_start_otherwise_starts_cold(tmp_path: Path) -> None:
    # its own PYTHONPATH (a provider's entry point, say) or locale: what the server's interpreter
    # read once as it started would be wrong for it
    env = forkserver.environment()
    assert forkserver._get(env) is not None
    assert forkserver._get(dict(env, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO}")) is None
    assert forkserver._get(dict(env, LC_ALL="C")) is None
    (tmp_path / "main.tf").write_text(CONFIG)
    other = dict(env, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO}", TF_VAR_greeting="x")
    args = ["plan", "-no-color"]
    assert forkserver.run(args, tmp_path, other, None, 120) == forkserver.cold(args, tmp_path, other, None, 120)
