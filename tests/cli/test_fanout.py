"""engine/events/fanout.py through the command: in a large run (here from the first event,
``STRATA_JSON_WRITER_AFTER=0``) one relay process writes the ``-json`` stream and every event log,
the same lines as each writes in a small run; an event log that cannot be written stops alone."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Workdir

CONFIG = """
resource "terraform_data" "a" {
  count = 30
  input = count.index
}
resource "terraform_data" "b" {
  input = terraform_data.a[*].id
}
output "n" {
  value = length(terraform_data.a)
}
"""

VOLATILE = ("@timestamp", "monotonic", "detail", "seq")  # and the objects' ids, new in each run


def _comparable(lines: list[bytes]) -> list[dict]:
    out = []
    for raw in lines:
        e = orjson.loads(raw)
        for k in VOLATILE:
            e.pop(k, None)
        if e["type"] == "apply_complete":  # "after 0s" or "after 1s": a moment, not a format
            e["@message"] = e["@message"].split(" after ")[0]
            e["hook"].pop("elapsed_seconds", None)
            e["hook"].pop("id_value", None)
        out.append(e)
    # in the order of their kind and resource: operations run concurrently
    return sorted(out, key=lambda e: orjson.dumps(e, option=orjson.OPT_SORT_KEYS))


def _apply(workdir: Workdir, monkeypatch: pytest.MonkeyPatch, after: str, *extra: str) -> tuple[list[bytes], ...]:
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", after)
    for name in ("one.jsonl", "two.jsonl", "terraform.tfstate", "terraform.tfstate.backup"):
        (workdir.path / name).unlink(missing_ok=True)
    res = workdir.strata("apply", "-auto-approve", "-json", "-events=one.jsonl", "-events=two.jsonl", *extra,
                         check=True)
    return (res.stdout.encode().splitlines(), (workdir.path / "one.jsonl").read_bytes().splitlines(),
            (workdir.path / "two.jsonl").read_bytes().splitlines())


def test_the_relay_writes_the_stream_and_every_log_as_they_write_themselves(workdir: Workdir,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(CONFIG)
    relayed = _apply(workdir, monkeypatch, "0")
    itself = _apply(workdir, monkeypatch, "-1")
    stream, one, two = relayed
    assert len(stream) == 1 + 31 * 3 + 2 + 2  # version; 31 planned, started, complete; summaries; outputs
    assert one == two  # byte for byte: one relay wrote both
    assert [orjson.loads(x)["seq"] for x in one] == list(range(1, len(one) + 1))
    assert [_comparable(x) for x in relayed] == [_comparable(x) for x in itself]
    assert all("detail" in orjson.loads(x) for x in one if b'"type":"apply_complete"' in x)


def test_an_event_log_that_cannot_be_written_stops_alone(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(CONFIG)
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "0")
    res = workdir.strata("apply", "-auto-approve", "-json", "-events=one.jsonl", "-events=/dev/full")
    assert res.returncode == 1, res.stderr  # output was lost: said, and the exit status says it too
    said = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(said) == 1 and said[0].startswith("strata: the event log /dev/full could not be written"), said
    assert "Traceback" not in res.stderr
    assert res.of_type("change_summary")[-1]["changes"]["add"] == 31
    assert len((workdir.path / "one.jsonl").read_bytes().splitlines()) == len(res.events) + 1  # and log_start
    assert len(workdir.strata("state", "list", check=True).stdout.split()) == 31


SLOW = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 300
}
resource "sim_object" "a" {
  count = 6
  name  = "a-${count.index}"
}
"""


def _relay_pid(pid: int) -> int | None:
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if b"engine/events/relay.py" in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
    return None


def _wrote_lines(pid: int) -> bool:
    """Whether the relay ``pid`` wrote more than the one byte that says it runs."""
    with contextlib.suppress(OSError):
        for row in Path(f"/proc/{pid}/io").read_text().splitlines():
            if row.startswith("wchar:"):
                return int(row.split()[1]) > 1
    return False


def _start(workdir: Workdir, *args: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("STRATA_JSON_WRITER_AFTER", None)
    return subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json", "-parallelism=1",
                             "-events=events.jsonl", *args], cwd=workdir.path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/TID/children")
def test_through_the_relay_the_stream_stays_live(workdir: Workdir) -> None:
    # six creates of 300 ms one at a time: each completion is read while the next ones still run
    # (before, a hand-over that did not ask for a flush held every line until the summary)
    workdir.write(SLOW)
    proc = _start(workdir)
    assert proc.stdout is not None
    try:
        relay = None
        for line in proc.stdout:
            if orjson.loads(line)["type"] == "apply_complete":
                relay = _relay_pid(proc.pid)
                still_running = proc.poll() is None
                break
        rest = proc.stdout.read()
    finally:
        proc.wait(timeout=120)
    assert relay is not None and still_running
    assert rest.count(b'"type":"apply_complete"') == 5
    log = [orjson.loads(x) for x in (workdir.path / "events.jsonl").read_bytes().splitlines()]
    assert sum(e["type"] == "apply_complete" for e in log) == 6


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/TID/children")
def test_a_relay_that_dies_is_said_once_and_the_outputs_go_on(workdir: Workdir) -> None:
    workdir.write(SLOW.replace("count = 6", "count = 12"))
    proc = _start(workdir)
    assert proc.stdout is not None and proc.stderr is not None
    killed = False
    try:
        for line in proc.stdout:
            if orjson.loads(line)["type"] == "apply_complete":
                # killed once it has taken over (it has written lines): a relay killed while it
                # starts is one that never ran, and strata's outputs rightly write on unharmed
                relay = _relay_pid(proc.pid)
                if relay is not None and _wrote_lines(relay):
                    os.kill(relay, signal.SIGKILL)
                    killed = True
                    break
        out = proc.stdout.read()
        err = proc.stderr.read().decode()
    finally:
        code = proc.wait(timeout=120)
    assert killed, "the relay had not taken over when the apply ended"
    assert code == 1, err
    said = [x for x in err.splitlines() if x.strip()]
    assert len(said) == 1 and "the relay process writing it stopped" in said[0], said
    assert "-json event stream" in said[0] and "event log events.jsonl" in said[0]
    assert "Traceback" not in err
    # the summary, after the relay was gone, is written by the stream itself
    assert b'"type":"change_summary"' in out.splitlines()[-2] or b'"type":"change_summary"' in out
    assert len(workdir.strata("state", "list", check=True).stdout.split()) == 12


def test_with_human_output_a_log_that_cannot_be_written_is_said_once(workdir: Workdir,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # "0": every output would start a writer of its own at the first event; the relay takes over
    workdir.write(CONFIG)
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "0")
    res = workdir.strata("apply", "-auto-approve", "-events=/dev/full", "-events=one.jsonl")
    assert res.returncode == 1
    said = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(said) == 1 and said[0].startswith("strata: the event log /dev/full could not be written"), said
    assert "Apply complete! Resources: 31 added" in res.stdout


_COUNTING = """
import collections, sys
from engine.events import fanout
from engine.cli.main import main
kinds = collections.Counter()
encoded = fanout._encoded
def counting(batch):
    kinds.update(entry[0] for entry in batch)
    return encoded(batch)
fanout._encoded = counting
try:
    code = main(sys.argv[1:])
finally:
    sys.stderr.write("KINDS %d %d\\n" % (kinds[2], kinds[3]))
sys.exit(code)
"""


def test_the_relay_words_the_operations_nothing_in_strata_reads(workdir: Workdir) -> None:
    # once the relay has taken over, an operation's start and end go to it as their parts (no
    # Event made in strata's process): its lines are still terraform's, and the log's the same
    workdir.write(SLOW)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("STRATA_JSON_WRITER_AFTER", None)
    res = subprocess.run([sys.executable, "-c", _COUNTING, "apply", "-auto-approve", "-json", "-parallelism=1",
                          "-events=events.jsonl"], cwd=workdir.path, env=env, capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    started, ended = map(int, res.stderr.decode().split("KINDS ")[1].split())
    assert started >= 1 and ended >= 1  # six creates of 300 ms: the relay runs before the last ones
    stream = [orjson.loads(x) for x in res.stdout.splitlines()]
    log = [orjson.loads(x) for x in (workdir.path / "events.jsonl").read_bytes().splitlines()]
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert [{k: v for k, v in e.items() if k not in ("seq", "monotonic", "detail")} for e in log[1:]] == stream
    ops = [e for e in log if e["type"] in ("apply_start", "apply_complete")]
    assert len(ops) == 12 and all(e["detail"]["node"].startswith("sim_object.a[") for e in ops)
    for e in ops:
        addr = e["hook"]["resource"]["addr"]
        if e["type"] == "apply_start":
            assert e["@message"] == f"{addr}: Creating..." and e["hook"]["action"] == "create"
        else:
            assert e["@message"] == (f"{addr}: Creation complete after 0s "
                                     f"[{e['hook']['id_key']}={e['hook']['id_value']}]")


CHAIN = """
provider "sim" {
  ledger = "ledger.json"
}
resource "sim_object" "first" {
  name       = "first"
  latency_ms = 1000
}
resource "sim_object" "slow" {
  name       = "slow"
  latency_ms = 1500
  depends_on = [sim_object.first]
}
"""


def test_an_operation_given_to_the_relay_as_its_parts_still_has_its_heartbeat(workdir: Workdir,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the second create starts a second in, the relay running: its start reaches the heartbeat
    # without an event, and its beats stop at its end
    monkeypatch.setenv("STRATA_HEARTBEAT_INTERVAL", "0.2")
    monkeypatch.delenv("STRATA_JSON_WRITER_AFTER", raising=False)
    workdir.write(CHAIN)
    res = workdir.strata("apply", "-auto-approve", "-json", "-events=events.jsonl", check=True)
    types = [(e["type"], e.get("hook", {}).get("resource", {}).get("addr")) for e in res.events]
    slow = [i for i, t in enumerate(types) if t[1] == "sim_object.slow"]
    assert types[slow[0]][0] == "apply_start" and types[slow[-1]][0] == "apply_complete"
    beats = [res.events[i] for i in slow[1:-1]]
    assert len(beats) >= 3 and all(b["type"] == "apply_progress" for b in beats), types
    assert all(b["@message"].startswith("sim_object.slow: Still creating... [") for b in beats)
