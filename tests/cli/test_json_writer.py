"""`-json` through the writer process (a large run hands it the formatting; forced here with
STRATA_JSON_WRITER_AFTER=0): the same stream as without it, ended cleanly by a reader that goes
away, and Ctrl-C still gets every line that was emitted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Workdir

CONFIG = """
resource "terraform_data" "x" {
  count = 40
  input = count.index
}
resource "terraform_data" "huge" {
  input = 18446744073709551616000
}
output "first" {
  value = terraform_data.x[0].output
}
"""


def comparable(stdout: str) -> list[str]:
    """The stream without what differs between two runs: timestamps, ids, and the order of
    concurrent operations."""
    out = []
    for line in stdout.splitlines():
        d = orjson.loads(line)
        d.pop("@timestamp")
        out.append(re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "ID", orjson.dumps(d, option=orjson.OPT_SORT_KEYS).decode()))
    return sorted(out)


def test_the_stream_through_the_writer_is_the_stream(workdir: Workdir, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    workdir.write(CONFIG)
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "0")
    through = workdir.strata("apply", "-auto-approve", "-json", check=True)
    lines = through.stdout.splitlines()
    assert orjson.loads(lines[0])["type"] == "version" and orjson.loads(lines[-1])["type"] == "outputs"
    workdir.strata("destroy", "-auto-approve", check=True)
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "-1")
    direct = workdir.strata("apply", "-auto-approve", "-json", check=True)
    assert comparable(through.stdout) == comparable(direct.stdout)
    # version; planned_change, apply_start and apply_complete of 41; two change_summary, two outputs
    assert len(lines) == 1 + 41 * 3 + 2 + 2


def test_a_reader_that_goes_away_ends_the_stream_not_the_apply(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    env = dict(os.environ, PYTHONPATH=str(REPO), STRATA_JSON_WRITER_AFTER="0")
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"], cwd=workdir.path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert orjson.loads(first)["type"] == "version" and "Traceback" not in err and err == "", err
    assert len(workdir.strata("state", "list", check=True).stdout.split()) == 41


SLOW = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 300
}
resource "sim_object" "a" {
  count = 3
  name  = "a-${count.index}"
}
"""


def children(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with_args = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            out.append(" ".join(a.decode() for a in with_args if a))
    return out


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/TID/children")
def test_the_writer_process_is_what_writes_the_stream(workdir: Workdir) -> None:
    # the other tests here pass as well when the writer silently fails to start: this one
    # looks for it while the apply runs
    workdir.write(SLOW)
    env = dict(os.environ, PYTHONPATH=str(REPO), STRATA_JSON_WRITER_AFTER="0")
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"],
                            cwd=workdir.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if orjson.loads(line)["type"] == "apply_start":  # written by the writer, if there is one
                kids = children(proc.pid)
                break
        rest = proc.stdout.read()
    finally:
        code = proc.wait(timeout=60)
    assert code == 0
    # the relay (engine/events/relay.py), which writes every output of a large run
    assert any("engine/events/relay.py" in k for k in kids), kids
    assert rest.decode().count("apply_complete") == 3
