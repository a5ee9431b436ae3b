"""Ctrl-C (or SIGTERM) during an apply, as terraform does it: the first stops it gracefully (what
is in flight finishes and is recorded, nothing new starts), a second stops it at once. Either
way the state holds every object the sim cloud's ledger says exists."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import orjson
import pytest

from tests.conftest import REPO, Workdir

pytestmark = pytest.mark.usefixtures("each_event_loop")  # the apply must hold on asyncio and trio alike

CONFIG = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 600
}

resource "sim_object" "a" {
  count = 6
  name  = "a-${count.index}"
}

resource "sim_object" "b" {
  count   = 6
  name    = "b-${count.index}"
  payload = sim_object.a[count.index].id
}
"""


def _ledger_names(workdir: Workdir) -> set[str]:
    out = subprocess.run([sys.executable, "-m", "providers.sim", "ls", str(workdir.path / "cloud.jsonl")],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    return {orjson.loads(line)["name"] for line in out.splitlines() if line.strip()}


def _state_names(workdir: Workdir) -> set[str]:
    state = orjson.loads((workdir.path / "terraform.tfstate").read_bytes())
    return {i["attributes"]["name"] for r in state["resources"] for i in r["instances"]}


def _apply_and_signal(workdir: Workdir, signals: list[int], group: bool = False,
                      **env_vars: str) -> tuple[int, list[dict], str]:
    """Start an apply; once two operations have started, send ``signals`` 0.2 s apart (as a person
    pressing Ctrl-C twice; the same signal twice at once is one to the event loop); return the exit
    code, the -json events and stderr. ``group``: to the whole process group, as a terminal does."""
    workdir.write(CONFIG)
    env = dict(os.environ, PYTHONPATH=str(REPO), **env_vars)
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json", "-parallelism=2"],
                            cwd=workdir.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=group)
    events: list[dict] = []
    assert proc.stdout is not None and proc.stderr is not None
    started = 0
    try:
        for line in proc.stdout:
            event = orjson.loads(line)
            events.append(event)
            if event["type"] == "apply_start":
                started += 1
                if started == 2:
                    for i, s in enumerate(signals):
                        if i:
                            time.sleep(0.2)
                        if group:
                            os.killpg(proc.pid, s)
                        else:
                            proc.send_signal(s)
    finally:
        code = proc.wait(timeout=60)
    return code, events, proc.stderr.read().decode()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_first_interrupt_lets_operations_in_flight_finish_and_starts_nothing_new(workdir: Workdir,
                                                                                   sig: int) -> None:
    code, events, stderr = _apply_and_signal(workdir, [sig])
    assert code == 130, f"exit {code}\n{stderr}"
    assert "Traceback" not in stderr, stderr
    assert "Interrupt received" in stderr and "Gracefully shutting down" in stderr, stderr
    started = {e["hook"]["resource"]["addr"] for e in events if e["type"] == "apply_start"}
    completed = {e["hook"]["resource"]["addr"] for e in events if e["type"] == "apply_complete"}
    skipped = [e for e in events if e["type"] == "apply_skipped"]
    assert len(started) == 2 and completed == started, (
        f"what was in flight must finish, and nothing more start: started {started}, completed {completed}")
    assert len(skipped) == 10 and all(e["hook"]["reason"] == "interrupted" for e in skipped)
    assert _state_names(workdir) == _ledger_names(workdir) and len(_ledger_names(workdir)) == 2

    # the next apply finishes the job without duplicating anything
    workdir.strata("apply", "-auto-approve", check=True)
    assert len(_ledger_names(workdir)) == 12 and _state_names(workdir) == _ledger_names(workdir)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_the_whole_group_leaves_the_json_writer_to_write_every_line(workdir: Workdir,
                                                                                  sig: int) -> None:
    # a terminal's Ctrl-C, or a service manager's SIGTERM, goes to the whole process group; the
    # -json writer process (forced on) must outlive it, so the lines of what finished after the
    # interrupt, and of what was skipped, are written
    code, events, stderr = _apply_and_signal(workdir, [sig], group=True, STRATA_JSON_WRITER_AFTER="0")
    assert code == 130 and "Traceback" not in stderr, f"exit {code}\n{stderr}"
    started = {e["hook"]["resource"]["addr"] for e in events if e["type"] == "apply_start"}
    completed = {e["hook"]["resource"]["addr"] for e in events if e["type"] == "apply_complete"}
    assert len(started) == 2 and completed == started
    assert len([e for e in events if e["type"] == "apply_skipped"]) == 10
    # what finished after the interrupt reached the stream: the writer outlived the signal
    assert events[-1]["type"] == "apply_complete"


def test_second_interrupt_stops_at_once_and_the_state_still_matches_the_cloud(workdir: Workdir) -> None:
    code, events, stderr = _apply_and_signal(workdir, [signal.SIGINT, signal.SIGINT])
    assert code == 130, f"exit {code}\n{stderr}"
    assert "Traceback" not in stderr, stderr
    assert not any(e["type"] == "apply_complete" for e in events), "the second interrupt should not wait"
    # no snapshot was written: the journal left behind is the state (replayed by every reader,
    # compacted by the next apply)
    listed = workdir.strata("state", "list", check=True).stdout.split()
    names = {a.removeprefix("sim_object.").replace("[", "-").rstrip("]") for a in listed}
    assert names == _ledger_names(workdir), f"state {sorted(names)} vs cloud {sorted(_ledger_names(workdir))}"
    workdir.strata("apply", "-auto-approve", check=True)
    assert len(_ledger_names(workdir)) == 12 and _state_names(workdir) == _ledger_names(workdir)
