"""A program reading ``strata apply -json`` through a pipe sees each event while the apply runs,
not when it ends: the stream is written in batches, each within a few milliseconds."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import orjson

from tests.conftest import REPO, Workdir

CONFIG = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 3000
}

resource "sim_object" "slow" {
  name = "slow"
}
"""


def test_apply_start_reaches_a_pipe_reader_long_before_the_apply_ends(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTHONUNBUFFERED", None)  # a block-buffered stdout, as most users have on a pipe
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"],
                            cwd=workdir.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: dict[str, float] = {}
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            seen.setdefault(orjson.loads(line)["type"], time.monotonic())
    finally:
        proc.wait(timeout=60)
    ended = time.monotonic()
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    assert {"planned_change", "apply_start", "apply_complete", "change_summary"} <= set(seen)
    # the create takes 3 s: its apply_start must have arrived well before then
    assert seen["apply_complete"] - seen["apply_start"] > 2.0
    assert ended - seen["apply_start"] > 2.0


def test_human_progress_reaches_a_pipe_reader_while_the_apply_runs(workdir: Workdir) -> None:
    """``strata apply | tee apply.log``: "Creating..." shows while the create is in flight."""
    workdir.write(CONFIG)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve"],
                            cwd=workdir.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    seen: dict[str, float] = {}
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            for marker in ("Creating...", "Creation complete", "Apply complete!"):
                if marker in line:
                    seen.setdefault(marker, time.monotonic())
    finally:
        proc.wait(timeout=60)
    ended = time.monotonic()
    assert proc.returncode == 0
    assert set(seen) == {"Creating...", "Creation complete", "Apply complete!"}
    assert seen["Creation complete"] - seen["Creating..."] > 2.0
    assert ended - seen["Creating..."] > 2.0
