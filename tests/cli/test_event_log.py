"""``-events=FILE``: the numbered event log, beside the -json stream or the human output; what each
apply event says of its dependencies and times; and what a SIGKILL leaves of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import orjson
import pytest

from engine.events.log import read_log
from tests.conftest import REPO, Workdir

CHAIN = """
resource "terraform_data" "a" {
  count = 3
  input = count.index
}
resource "terraform_data" "b" {
  input = terraform_data.a[*].id
}
resource "terraform_data" "c" {
  input = terraform_data.b.id
}
"""


def _log(workdir: Workdir, name: str = "events.jsonl") -> list[dict]:
    return [orjson.loads(line) for line in (workdir.path / name).read_bytes().splitlines()]


@pytest.mark.parametrize("writer_after", ["5000", "0"], ids=["formatted-here", "writer-processes"])
def test_event_log_numbers_every_event_of_the_json_stream_without_gaps(
        workdir: Workdir, monkeypatch: pytest.MonkeyPatch, writer_after: str) -> None:
    # "0": the -json stream and the log go to their writer processes from the first event, the
    # log's arrays made from the stream's
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", writer_after)
    workdir.write(CHAIN)
    res = workdir.strata("apply", "-auto-approve", "-json", "-events=events.jsonl", check=True)
    log = _log(workdir)
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    stamps = [e["monotonic"] for e in log]
    assert stamps == sorted(stamps), "monotonic times go back"
    # the same events in the same order as the -json stream, which stays terraform's
    assert log[0]["type"] == "log_start"
    strip = ("seq", "monotonic", "detail")
    assert [{k: v for k, v in e.items() if k not in strip} for e in log[1:]] == res.events
    assert not any("seq" in e or "detail" in e for e in res.events)
    assert all("detail" in e for e in log if e["type"] in ("apply_start", "apply_complete"))


def test_event_log_is_written_with_human_output(workdir: Workdir) -> None:
    workdir.write(CHAIN)
    res = workdir.strata("apply", "-auto-approve", "-events=events.jsonl", check=True)
    assert "Apply complete! Resources: 5 added" in res.stdout
    assert not res.stdout.lstrip().startswith("{")
    types = [e["type"] for e in _log(workdir)]
    assert types.count("apply_complete") == 5
    assert types[-2:] == ["change_summary", "outputs"]


def test_apply_events_carry_dependencies_and_wait_and_run_times(workdir: Workdir) -> None:
    workdir.write(CHAIN)
    workdir.strata("apply", "-auto-approve", "-events=events.jsonl", check=True)
    done = {e["detail"]["node"]: e for e in _log(workdir) if e["type"] == "apply_complete"}
    c = done["terraform_data.c (create)"]["detail"]
    assert c["deps"] == ["terraform_data.b (create)"] and c["after"] == "terraform_data.b (create)"
    b = done["terraform_data.b (create)"]["detail"]
    # through the resource's barrier, the instance of a[*] whose end made b ready
    assert b["deps"] == ["terraform_data.a [applied]"]
    last_a = max((done[f"terraform_data.a[{i}] (create)"] for i in range(3)), key=lambda e: e["monotonic"])
    assert b["after"] == last_a["detail"]["node"]
    for e in done.values():
        d = e["detail"]
        assert d["provider"] == "terraform" and d["wait"] >= 0 and d["run"] > 0
    # b started after a's last end, and its run ends at its apply_complete
    b_start = next(e for e in _log(workdir) if e["type"] == "apply_start" and e["detail"]["node"].startswith("terraform_data.b"))
    assert b_start["monotonic"] >= last_a["monotonic"]
    assert abs(b_start["monotonic"] + b["run"] - done["terraform_data.b (create)"]["monotonic"]) < 0.05


def test_event_log_that_cannot_be_opened_is_a_diagnostic(workdir: Workdir) -> None:
    workdir.write(CHAIN)
    res = workdir.strata("apply", "-auto-approve", "-events=no/such/dir/events.jsonl")
    assert res.returncode == 1
    assert "Failed to open the event log" in res.stderr and "Traceback" not in res.stderr
    assert not (workdir.path / "terraform.tfstate").exists()


def test_events_option_is_refused_where_it_means_nothing(workdir: Workdir) -> None:
    workdir.write(CHAIN)
    res = workdir.strata("state", "list", "-events=x.jsonl")
    assert res.returncode == 1 and "-events option is not valid" in res.stderr


SLOW = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 30
}

resource "sim_object" "o" {
  count = 60
  name  = "obj-${count.index}"
}
"""


def test_after_sigkill_every_line_but_the_last_is_json_and_every_completion_is_in_the_state(
        workdir: Workdir) -> None:
    workdir.write(SLOW)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json", "-parallelism=4",
                             "-events=events.jsonl"], cwd=workdir.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    completions = 0
    try:
        for line in proc.stdout:
            if orjson.loads(line)["type"] == "apply_complete":
                completions += 1
                if completions == 25:
                    proc.send_signal(signal.SIGKILL)
                    break
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the apply finished before it could be killed"
    lines = (workdir.path / "events.jsonl").read_bytes().split(b"\n")
    for raw in lines[:-1]:
        orjson.loads(raw)  # every line but the last is whole
    logged = {e.address for e in read_log(str(workdir.path / "events.jsonl")) if e.type == "apply_complete"}
    assert len(logged) >= 10, f"only {len(logged)} completions reached the log"
    listed = set(workdir.strata("state", "list", check=True).stdout.split())
    assert logged <= listed, f"in the log but not in the state: {sorted(logged - listed)}"


def test_read_log_skips_a_torn_last_line_and_resumes_after_a_sequence_number(workdir: Workdir) -> None:
    workdir.write(CHAIN)
    workdir.strata("apply", "-auto-approve", "-events=events.jsonl", check=True)
    path = workdir.path / "events.jsonl"
    whole = list(read_log(str(path)))
    path.write_bytes(path.read_bytes()[:-10])
    torn = list(read_log(str(path)))
    assert [e.seq for e in torn] == [e.seq for e in whole[:-1]]
    assert [e.seq for e in read_log(str(path), after=5)] == [e.seq for e in whole[5:-1]]


def test_a_nats_target_that_is_not_a_url_with_a_subject_is_a_usage_error(workdir: Workdir) -> None:
    workdir.write(CHAIN)
    res = workdir.strata("apply", "-auto-approve", "-events=nats://127.0.0.1:4222")
    assert res.returncode == 1 and "expected nats://HOST:PORT/SUBJECT" in res.stderr
    assert "Traceback" not in res.stderr and not (workdir.path / "terraform.tfstate").exists()
