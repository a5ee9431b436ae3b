"""The state lock through the ``strata`` command: every command that uses the state takes it once
and lets it go (no lock file left behind), ``plan`` too; a second operation is refused with the
holder named as terraform names it; ``-lock=false``, ``-lock-timeout`` and ``force-unlock`` as
terraform 1.11 has them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest

from engine.cli.args import parse_duration
from tests.conftest import REPO, Workdir, requires_terraform

CONFIG = """
resource "terraform_data" "a" {
  count = 2
  input = "a${count.index}"
}
"""

HANG = """
provider "sim" {
  ledger = "cloud.jsonl"
}
resource "sim_object" "h" {
  name = "h"
  fail = "hang"
}
"""

LOCK_FILE = ".terraform.tfstate.lock.info"
LABELS = ["ID:", "Path:", "Operation:", "Who:", "Version:", "Created:", "Info:"]
CLOSING = ("acquires a state lock to protect the state from being written\n"
           "by multiple users at the same time. Please resolve the issue above and try\n"
           'again. For most commands, you can disable locking with the "-lock=false"\n'
           "flag, but this is not recommended.")

_HOLDER = """
import sys
from engine.state.lock import StateLock
with StateLock(sys.argv[1], "OperationTypeApply") as lock:
    print(lock.info.id, flush=True)
    sys.stdin.read()  # held until the test closes our stdin
"""


@contextmanager
def held(workdir: Workdir, state: str = "terraform.tfstate") -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The state's lock, held by another process for the block: (its lock ID, the process)."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, state], cwd=workdir.path, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        lock_id = proc.stdout.readline().strip()
        assert lock_id, "the holder did not take the lock"
        yield lock_id, proc
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


@contextmanager
def hanging_apply(workdir: Workdir) -> Iterator[subprocess.Popen[str]]:
    """A strata apply holding the lock, its one create hanging, until the block ends (SIGKILL)."""
    workdir.write(HANG)
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"],
                            cwd=workdir.path, env=dict(os.environ, PYTHONPATH=str(REPO)), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if orjson.loads(line)["type"] == "apply_start":
                break
        else:
            raise AssertionError(f"the apply ended before it started its create: {proc.stderr}")
        yield proc
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def lock_info_lines(stderr: str) -> list[str]:
    """The labels of the lock info lines in a lock error, in order."""
    return [m.group(1) for m in re.finditer(r"^[│ ]*\s+(\w+:)\s", stderr, re.M) if m.group(1) in LABELS]


def unframed(text: str) -> str:
    return "\n".join(line.removeprefix("│ ").removeprefix("│").rstrip() for line in text.splitlines())


def test_no_lock_file_is_left_after_any_command(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    for args in [("apply", "-auto-approve"), ("plan",), ("plan", "-destroy"), ("refresh",),
                 ("taint", "terraform_data.a[0]"), ("untaint", "terraform_data.a[0]"),
                 ("state", "mv", "terraform_data.a[1]", "terraform_data.a[5]"),
                 ("state", "rm", "-dry-run", "terraform_data.a[5]"), ("state", "rm", "terraform_data.a[5]"),
                 ("graph", "-type=plan"), ("destroy", "-auto-approve")]:
        workdir.strata(*args, check=True)
        assert not (workdir.path / LOCK_FILE).exists(), f"strata {' '.join(args)} left {LOCK_FILE} behind"
    res = workdir.strata("plan", "-var", "undeclared=1")  # a failed plan lets go too
    assert res.returncode == 1
    assert not (workdir.path / LOCK_FILE).exists()


def test_plan_is_refused_while_an_apply_holds_the_state(workdir: Workdir) -> None:
    with hanging_apply(workdir):
        info = orjson.loads((workdir.path / LOCK_FILE).read_bytes())
        res = workdir.strata("plan")
    assert res.returncode == 1, res.stdout
    assert "Error: Error acquiring the state lock" in res.stderr
    assert lock_info_lines(res.stderr) == LABELS, res.stderr
    text = unframed(res.stderr)
    assert "Error message: resource temporarily unavailable\nLock Info:\n" in text
    assert f"  ID:        {info['ID']}\n  Path:      terraform.tfstate\n  Operation: OperationTypeApply\n" in text
    assert re.search(r"  Created:   \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC\n", text), text
    assert "strata " + CLOSING in text
    assert sorted(info) == ["Created", "ID", "Info", "Operation", "Path", "Version", "Who"]


def test_a_killed_holder_leaves_no_lock(workdir: Workdir) -> None:
    with hanging_apply(workdir):
        pass
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)  # its lock died with it
    assert not (workdir.path / LOCK_FILE).exists()


@requires_terraform
def test_lock_error_reads_as_terraforms(workdir: Workdir) -> None:
    """terraform holding its own state (a provisioner sleeping) and a second terraform plan: the same
    lines as strata's, label for label, and the same closing paragraph."""
    workdir.write('resource "terraform_data" "a" {\n  provisioner "local-exec" {\n    command = "sleep 60"\n'
                  "  }\n}\n")
    workdir.terraform("init", "-input=false")
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    holder = subprocess.Popen(["terraform", "apply", "-auto-approve", "-no-color"], cwd=workdir.path, env=env,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    try:
        for line in holder.stdout:
            if "Executing:" in line:
                break
        theirs = workdir.terraform("plan", "-no-color")
    finally:
        holder.kill()
        holder.wait()
    (workdir.path / "terraform.tfstate").unlink(missing_ok=True)
    (workdir.path / LOCK_FILE).unlink(missing_ok=True)
    with hanging_apply(workdir):
        ours = workdir.strata("plan", "-no-color")
    assert lock_info_lines(ours.stderr) == lock_info_lines(theirs.stderr) == LABELS
    assert "Terraform " + CLOSING in theirs.stderr and "strata " + CLOSING in ours.stderr

    def skeleton(text: str) -> list[str]:
        return [line.split(":")[0].replace("Terraform", "strata") for line in text.strip().splitlines()]

    assert skeleton(ours.stderr) == skeleton(theirs.stderr)


def test_lock_false_takes_no_lock(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    with held(workdir):
        assert workdir.strata("plan").returncode == 1
        res = workdir.strata("plan", "-lock=false", check=True)
        assert "No changes." in res.stdout
        workdir.strata("taint", "-lock=false", "terraform_data.a[0]", check=True)
        assert (workdir.path / LOCK_FILE).exists(), "the holder's lock must stay"
    assert workdir.state()["resources"][0]["instances"][0]["status"] == "tainted"


def test_lock_timeout_waits_then_gives_up(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    with held(workdir):
        start = time.monotonic()
        res = workdir.strata("apply", "-auto-approve", "-lock-timeout=1s")
        waited = time.monotonic() - start
    assert res.returncode == 1
    assert "Error acquiring the state lock" in res.stderr
    assert res.stdout.startswith("Acquiring state lock. This may take a few moments...\n"), res.stdout
    assert waited >= 1.0, f"gave up after {waited:.2f}s, before -lock-timeout=1s"
    assert not (workdir.path / "terraform.tfstate").exists(), "nothing may be applied without the lock"


def test_lock_timeout_waits_for_the_holder_to_let_go(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    with held(workdir) as (_id, holder):
        proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-lock-timeout=2m"],
                                cwd=workdir.path, env=dict(os.environ, PYTHONPATH=str(REPO)), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and holder.stdin is not None
        assert proc.stdout.readline() == "Acquiring state lock. This may take a few moments...\n"
        holder.stdin.close()  # the holder lets go while the apply waits
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "Apply complete! Resources: 2 added" in out


@pytest.mark.parametrize("text, seconds", [("20s", 20.0), ("1m", 60.0), ("1m30s", 90.0), ("0", 0.0),
                                           ("1.5h", 5400.0), ("300ms", 0.3), ("2h45m", 9900.0)])
def test_lock_timeout_takes_terraforms_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["5", "abc", "", "1x", "s", "1m30"])
def test_lock_timeout_refuses_what_terraform_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


@requires_terraform
def test_bad_lock_timeout_is_terraforms_error(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    ours = workdir.strata("plan", "-no-color", "-lock-timeout=5")
    theirs = workdir.terraform("plan", "-no-color", "-lock-timeout=5")
    assert ours.returncode == theirs.returncode == 1
    # terraform then points at its -help, which strata has not per command
    assert theirs.stderr.strip().startswith(ours.stderr.strip()), (ours.stderr, theirs.stderr)


def test_lock_flags_are_refused_where_terraform_refuses_them(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    for args in [("state", "list", "-lock=false"), ("output", "-lock=false"), ("show", "-lock-timeout=1s")]:
        res = workdir.strata(*args)
        assert res.returncode == 1 and "-lock" in res.stderr, (args, res.stderr)


def test_symlinked_states_share_one_lock(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", "-state=real.tfstate", check=True)
    (workdir.path / "alias.tfstate").symlink_to("real.tfstate")
    with held(workdir, "real.tfstate"):
        res = workdir.strata("plan", "-state=alias.tfstate")
    assert res.returncode == 1
    assert "Error acquiring the state lock" in res.stderr


def test_force_unlock_refuses_a_wrong_id_and_keeps_the_lock(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    with held(workdir) as (lock_id, _):
        res = workdir.strata("force-unlock", "-force", "not-the-id")
        assert res.returncode == 1
        assert res.stderr.startswith('Failed to unlock state: lock id "not-the-id" does not match existing lock\n'
                                     f"Lock Info:\n  ID:        {lock_id}\n"), res.stderr
        assert workdir.strata("plan").returncode == 1, "the lock must still be held"


def test_force_unlock_asks_first(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    with held(workdir) as (lock_id, _):
        res = workdir.strata("force-unlock", lock_id, input="no\n")
        assert res.returncode == 1
        assert res.stdout == ("Do you really want to force-unlock?\n  strata will remove the lock on the state.\n"
                              "  This will allow local strata commands to modify this state, even though it\n"
                              "  may still be in use. Only 'yes' will be accepted to confirm.\n\n"
                              "  Enter a value: force-unlock cancelled.\n")
        assert (workdir.path / LOCK_FILE).exists()


def test_force_unlock_lets_the_next_operation_in(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    with held(workdir) as (lock_id, _):
        res = workdir.strata("force-unlock", lock_id, input="yes\n")
        assert res.returncode == 0, res.stderr
        assert res.stdout.endswith("\nstrata state has been successfully unlocked!\n\nThe state has been unlocked, "
                                   "and strata commands should now be able to\nobtain a new lock on the state.\n")
        assert not (workdir.path / LOCK_FILE).exists()
        workdir.strata("apply", "-auto-approve", check=True)
    assert not (workdir.path / LOCK_FILE).exists(), "the old holder must not remove the new holder's file"


def test_force_unlock_without_a_lock(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("force-unlock", "-force", "some-id")
    assert (res.returncode, res.stderr) == (1, "Failed to unlock state: LocalState not locked\n")
    res = workdir.strata("force-unlock")
    assert res.returncode == 1 and "Expected a single argument: LOCK_ID" in res.stderr


def test_lock_file_is_private(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    with held(workdir):
        assert (Path(workdir.path) / LOCK_FILE).stat().st_mode & 0o777 == 0o600  # as terraform's
