"""tests/forkserver.py: a command forked from the warm server is the command started cold, as the
suite's ``Workdir.strata`` sees it (status, both streams, input, environment, directory, time-out)."""

from __future__ import annotations

import os
import subprocess
import sys
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


def _env(**extra: str) -> dict[str, str]:
    return forkserver.environment(**extra)  # Workdir.strata's: the worker's one server serves it


def _cold(args: list[str], cwd: Path, env: dict[str, str], input: str | None = None) -> forkserver.Completed:
    stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    proc = subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, **stdin)
    return forkserver.Completed(proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.parametrize(("args", "input"), [
    (["plan", "-no-color"], None),
    (["apply", "-no-color"], "no\n"),  # prompted, refused: status 1
    (["nonsense"], None),  # a usage error on stderr
    (["plan", "-var", "greeting="], None),
])
def test_a_forked_command_is_the_command_started_cold(tmp_path: Path, args: list[str], input: str | None) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    env = _env(TF_VAR_greeting="hello")  # read from the command's own environment
    warm = forkserver.run(args, tmp_path, env, input, timeout=120)
    cold = _cold(args, tmp_path, env, input)
    assert warm == cold
    assert warm.stdout or warm.stderr


def test_an_apply_leaves_the_same_state_and_outputs(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    env = _env(TF_VAR_greeting="hi")
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
        forkserver.run(["apply", "-auto-approve"], tmp_path, _env(), None, timeout=3)
    assert time.monotonic() - t0 < 15
    # and the server goes on serving
    assert forkserver.run(["version"], tmp_path, _env(), None, timeout=60).returncode == 0


def test_a_command_whose_interpreter_would_start_otherwise_starts_cold(tmp_path: Path) -> None:
    # its own PYTHONPATH (a provider's entry point, say) or locale: what the server's interpreter
    # read once as it started would be wrong for it
    env = _env()
    assert forkserver._get(env) is not None
    assert forkserver._get(dict(env, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO}")) is None
    assert forkserver._get(dict(env, LC_ALL="C")) is None
    (tmp_path / "main.tf").write_text(CONFIG)
    other = dict(env, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO}", TF_VAR_greeting="x")
    assert forkserver.run(["plan", "-no-color"], tmp_path, other, None, 120) == _cold(["plan", "-no-color"], tmp_path,
                                                                                         other)
