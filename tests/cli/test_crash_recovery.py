"""Kill strata mid-apply: nothing it reported complete is lost, and the next apply finishes
the job without duplicating a real object (the sim cloud's ledger is the ground truth)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import orjson

from tests.conftest import REPO, Workdir

N = 40

CONFIG = f"""
provider "sim" {{
  ledger     = "cloud.jsonl"
  latency_ms = 40
}}

resource "sim_object" "o" {{
  count = {N}
  name  = "obj-${{count.index}}"
}}
"""


def _live_objects(workdir: Workdir) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "providers.sim", "ls", str(workdir.path / "cloud.jsonl")],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [orjson.loads(line) for line in out.splitlines() if line.strip()]


def test_kill_mid_apply_loses_nothing_reported_complete(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json", "-parallelism=4"],
                            cwd=workdir.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    completed: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            event = orjson.loads(line)
            if event["type"] == "apply_complete":
                completed.append(event["hook"]["resource"]["addr"])
                if len(completed) == 10:
                    proc.send_signal(signal.SIGKILL)
                    break
    finally:
        proc.wait(timeout=60)
    assert len(completed) == 10, f"the apply finished before it could be killed: {len(completed)} completions"

    listed = workdir.strata("state", "list", check=True).stdout.split()
    missing = set(completed) - set(listed)
    assert not missing, f"objects reported complete before the crash are missing from the state: {missing}"

    workdir.strata("apply", "-auto-approve", "-parallelism=8", check=True)
    assert sorted(workdir.strata("state", "list", check=True).stdout.split()) == sorted(
        f"sim_object.o[{i}]" for i in range(N))
    live = _live_objects(workdir)
    names = sorted(o["name"] for o in live)
    assert names == sorted(f"obj-{i}" for i in range(N)), (
        f"the cloud should hold exactly one object per instance after recovery; it holds {len(live)}: "
        f"duplicates {sorted({n for n in names if names.count(n) > 1})}")
    assert not (workdir.path / "terraform.tfstate.journal").exists(), "the recovered journal was not compacted"

    workdir.strata("destroy", "-auto-approve", check=True)
    assert _live_objects(workdir) == [], "destroy left orphans in the cloud"
