"""``strata state rm``, ``state mv``, ``taint`` and ``untaint``: terraform's messages and errors, the state as it was kept in
a backup, nothing changed by ``-dry-run`` or by a mistake, and the same result as terraform 1.11's
own commands on the same state when it is on PATH."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = '''\
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
resource "terraform_data" "b" {
  input = "b"
}
'''


@pytest.fixture
def applied(workdir: Workdir) -> Workdir:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    return workdir


def ids(workdir: Workdir, state: str = "terraform.tfstate") -> dict[str, str]:
    """Each instance address in the state with its object's id."""
    doc = orjson.loads((workdir.path / state).read_bytes())
    out = {}
    for r in doc["resources"]:
        for inst in r["instances"]:
            key = inst.get("index_key")
            suffix = "" if key is None else f"[{key}]" if isinstance(key, int) else f'["{key}"]'
            out[f'{r["type"]}.{r["name"]}{suffix}'] = inst["attributes"]["id"]
    return out


def backups(workdir: Workdir) -> list[Path]:
    return sorted(p for p in workdir.path.glob("terraform.tfstate.*.backup"))


def test_rm_forgets_instances_and_keeps_the_old_state_in_a_backup(applied: Workdir) -> None:
    before = ids(applied)
    old = (applied.path / "terraform.tfstate").read_bytes()
    res = applied.strata("state", "rm", "terraform_data.a", "terraform_data.b", check=True)
    assert res.stdout == ("Removed terraform_data.a[0]\nRemoved terraform_data.a[1]\nRemoved terraform_data.a[2]\n"
                          "Removed terraform_data.b\nSuccessfully removed 4 resource instance(s).\n")
    assert ids(applied) == {}
    assert [p.read_bytes() for p in backups(applied)] == [old]
    assert orjson.loads(old)["serial"] + 1 == applied.state()["serial"]
    # forgotten, not destroyed: the next plan creates them again
    assert "Plan: 4 to add, 0 to change, 0 to destroy." in applied.strata("plan", check=True).stdout
    assert before  # the objects existed


def test_rm_of_one_instance_ignores_an_address_that_matches_nothing_as_terraform_does(applied: Workdir) -> None:
    res = applied.strata("state", "rm", "terraform_data.a[1]", "terraform_data.nope", check=True)
    assert res.stdout == "Removed terraform_data.a[1]\nSuccessfully removed 1 resource instance(s).\n"
    assert sorted(ids(applied)) == ["terraform_data.a[0]", "terraform_data.a[2]", "terraform_data.b"]


def test_dry_run_and_mistakes_change_nothing(applied: Workdir) -> None:
    old = (applied.path / "terraform.tfstate").read_bytes()
    res = applied.strata("state", "rm", "-dry-run", "terraform_data.a", check=True)
    assert res.stdout == ("Would remove terraform_data.a[0]\nWould remove terraform_data.a[1]\n"
                          "Would remove terraform_data.a[2]\n")
    res = applied.strata("state", "mv", "-dry-run", "terraform_data.b", "terraform_data.c", check=True)
    assert res.stdout == 'Would move "terraform_data.b" to "terraform_data.c"\n'
    for args, summary in [
        (("rm", "terraform_data.nope", "terraform_data.c"), "Invalid target address"),
        (("rm", "not an address"), "Invalid target address"),
        (("mv", "terraform_data.nope", "terraform_data.x"), "Invalid source address"),
        (("mv", "terraform_data.b", "terraform_data.a"), "Invalid target address"),
        (("mv", "terraform_data.a[0]", "terraform_data.a[1]"), "Invalid target address"),
        (("mv", "terraform_data.a", "terraform_data.c[0]"), "Invalid target address"),
        (("mv", "terraform_data.b", "null_resource.b"), "Invalid state move request"),
    ]:
        res = applied.strata("state", *args)
        assert res.returncode == 1 and summary in res.stderr and "Traceback" not in res.stderr, (args, res.stderr)
    for args in (("rm",), ("mv", "terraform_data.b")):
        res = applied.strata("state", *args)
        assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert (applied.path / "terraform.tfstate").read_bytes() == old
    assert backups(applied) == []


def test_mv_renames_a_resource_or_moves_one_instance(applied: Workdir) -> None:
    before = ids(applied)
    res = applied.strata("state", "mv", "terraform_data.a[0]", 'terraform_data.a["k"]', check=True)
    assert res.stdout == 'Move "terraform_data.a[0]" to "terraform_data.a[\\"k\\"]"\nSuccessfully moved 1 object(s).\n'
    applied.strata("state", "mv", "terraform_data.b", "terraform_data.bb[0]", check=True)
    applied.strata("state", "mv", "-backup=-", "terraform_data.a", "terraform_data.z", check=True)
    assert ids(applied) == {'terraform_data.z["k"]': before["terraform_data.a[0]"],
                            "terraform_data.z[1]": before["terraform_data.a[1]"],
                            "terraform_data.z[2]": before["terraform_data.a[2]"],
                            "terraform_data.bb[0]": before["terraform_data.b"]}


def test_a_locked_state_is_not_edited(applied: Workdir) -> None:
    import fcntl
    import os

    fd = os.open(applied.path / ".terraform.tfstate.lock.info", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        res = applied.strata("state", "rm", "terraform_data.b")
    finally:
        os.close(fd)
    assert res.returncode == 1 and "lock" in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert "terraform_data.b" in ids(applied)


@requires_terraform
def test_the_results_are_terraforms(applied: Workdir) -> None:
    steps = [("rm", "terraform_data.a[2]"), ("mv", "terraform_data.a[0]", 'terraform_data.a["k"]'),
             ("mv", "terraform_data.b", "terraform_data.bb[0]"), ("mv", "terraform_data.a", "terraform_data.z")]
    shutil.copyfile(applied.path / "terraform.tfstate", applied.path / "tf.tfstate")
    for step in steps:
        ours = applied.strata("state", *step, check=True)
        theirs = applied.terraform("state", step[0], "-state=tf.tfstate", *step[1:])
        assert ours.stdout == theirs.stdout.replace("Terraform", "strata"), step
    assert ids(applied) == ids(applied, "tf.tfstate")


def test_taint_marks_an_object_for_replacement_and_untaint_takes_the_mark_off(applied: Workdir) -> None:
    res = applied.strata("taint", "terraform_data.a[1]", check=True)
    assert res.stdout == "Resource instance terraform_data.a[1] has been marked as tainted.\n"
    plan = applied.strata("plan", check=True).stdout
    assert "# terraform_data.a[1] is tainted, so must be replaced" in plan
    assert "Plan: 1 to add, 0 to change, 1 to destroy." in plan
    res = applied.strata("untaint", "terraform_data.a[1]", check=True)
    assert res.stdout == "Resource instance terraform_data.a[1] has been successfully untainted.\n"
    assert "No changes." in applied.strata("plan", check=True).stdout


def test_taint_and_untaint_mistakes(applied: Workdir) -> None:
    old = (applied.path / "terraform.tfstate").read_bytes()
    for args, summary in [(("taint", "terraform_data.a"), "No such resource instance"),
                          (("taint", "terraform_data.nope"), "No such resource instance"),
                          (("untaint", "terraform_data.b"), "Resource instance is not tainted")]:
        res = applied.strata(*args)
        assert res.returncode == 1 and summary in res.stderr and "Traceback" not in res.stderr, (args, res.stderr)
    for cmd in ("taint", "untaint"):
        res = applied.strata(cmd, "-allow-missing", "terraform_data.nope", check=True)
        assert "Warning: No such resource instance" in res.stderr
    res = applied.strata("taint", "data.terraform_data.d")
    assert res.returncode == 1 and "cannot be tainted" in res.stderr, res.stderr
    assert (applied.path / "terraform.tfstate").read_bytes() == old


@requires_terraform
def test_terraform_reads_the_taint(applied: Workdir) -> None:
    applied.strata("taint", "terraform_data.b", check=True)
    plan = applied.terraform("plan", "-no-color").stdout
    assert "# terraform_data.b is tainted, so must be replaced" in plan, plan


def test_without_a_state_file_the_commands_say_so(workdir: Workdir) -> None:
    for args in (("state", "rm", "terraform_data.b"), ("state", "mv", "terraform_data.b", "terraform_data.c"),
                 ("taint", "terraform_data.b")):
        res = workdir.strata(*args)
        assert res.returncode == 1 and "No state file was found!" in res.stderr, (args, res.stderr)
    assert not list(workdir.path.iterdir()), "nothing may be written"


def test_edits_wait_for_the_lock_and_leave_none_behind(applied: Workdir) -> None:
    """Each edit takes the state's lock (refused while another operation holds it, as terraform's
    state rm and taint are), writes through the one writer (one serial on), and lets it go."""
    from tests.cli.test_state_lock import LOCK_FILE, held

    serial = applied.state()["serial"]
    with held(applied):
        for args in (("state", "rm", "terraform_data.b"), ("state", "mv", "terraform_data.b", "terraform_data.c"),
                     ("taint", "terraform_data.b"), ("untaint", "terraform_data.b")):
            res = applied.strata(*args)
            assert res.returncode == 1 and "Error acquiring the state lock" in res.stderr, (args, res.stderr)
    assert applied.state()["serial"] == serial, "nothing may be written without the lock"
    applied.strata("taint", "terraform_data.b", check=True)
    applied.strata("state", "mv", "terraform_data.b", "terraform_data.c", check=True)
    assert applied.state()["serial"] == serial + 2
    assert not (applied.path / LOCK_FILE).exists()


def test_backup_is_as_private_as_the_state(applied: Workdir) -> None:
    state = applied.path / "terraform.tfstate"
    assert state.stat().st_mode & 0o777 == 0o600
    applied.strata("state", "rm", "terraform_data.b", check=True)
    (backup,) = backups(applied)
    assert backup.stat().st_mode & 0o777 == 0o600, "a backup holds the same secrets as the state"
