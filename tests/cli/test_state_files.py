"""The state's files through the ``strata`` command: a symlinked state is written through the link,
new state and journal files are private (0600) and existing ones keep their mode, paths that
cannot be files and a read-only directory are diagnostics naming the path, a full disk during
the final snapshot says what failed and loses nothing, and running out of memory is one line."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Result, Workdir, requires_terraform

CONFIG = """
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
"""


def names(state_file: Path) -> list[str]:
    doc = orjson.loads(state_file.read_bytes())
    return sorted(f'{r["type"]}.{r["name"]}[{i["index_key"]}]' for r in doc["resources"] for i in r["instances"])


def flat(text: str) -> str:
    """A diagnostic's words, without its frame and line breaks."""
    return " ".join(text.replace("│", " ").split())


def no_traceback(res: Result | subprocess.CompletedProcess[str]) -> None:
    stderr = res.stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


# ----------------------------------------------------------------------------- symlinks

def test_symlinked_state_is_written_through_the_link(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    shared = workdir.path / "shared"
    shared.mkdir()
    (shared / "real.tfstate").write_bytes(b"")
    link = workdir.path / "terraform.tfstate"
    link.symlink_to("shared/real.tfstate")
    workdir.strata("apply", "-auto-approve", check=True)
    assert link.is_symlink(), "the link was replaced by a regular file"
    assert names(shared / "real.tfstate") == ["terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.a[2]"]
    assert not list(workdir.path.glob("terraform.tfstate.*")), "journal and backup belong beside the real file"
    workdir.write(CONFIG.replace("count = 3", "count = 1"))
    workdir.strata("apply", "-auto-approve", check=True)
    assert link.is_symlink()
    assert names(shared / "real.tfstate") == ["terraform_data.a[0]"]
    assert "No changes." in workdir.strata("plan", check=True).stdout


@requires_terraform
def test_terraform_also_writes_through_the_link(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    (workdir.path / "real.tfstate").write_bytes(b"")
    (workdir.path / "terraform.tfstate").symlink_to("real.tfstate")
    assert workdir.terraform("apply", "-auto-approve").returncode == 0
    assert (workdir.path / "terraform.tfstate").is_symlink()
    assert len(names(workdir.path / "real.tfstate")) == 3


def test_two_paths_to_one_state_share_its_journal_and_lock(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", "-state=real.tfstate", check=True)
    (workdir.path / "alias.tfstate").symlink_to("real.tfstate")
    workdir.write(CONFIG.replace("count = 3", "count = 5"))
    workdir.strata("apply", "-auto-approve", "-state=alias.tfstate", check=True)
    assert len(names(workdir.path / "real.tfstate")) == 5
    assert (workdir.path / "alias.tfstate").is_symlink()
    assert "No changes." in workdir.strata("plan", "-state=real.tfstate", check=True).stdout


# ----------------------------------------------------------------------------- modes

def test_new_state_and_journal_are_private(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    assert (workdir.path / "terraform.tfstate").stat().st_mode & 0o777 == 0o600
    # the journal of an apply that did not finish
    workdir.write('provider "sim" {\n  ledger = "cloud.jsonl"\n}\nresource "sim_object" "h" {\n  name = "h"\n'
                  '  fail = "create"\n}\n' + CONFIG.replace("count = 3", "count = 4"))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"], cwd=workdir.path,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    mode = None
    for line in proc.stdout:
        if orjson.loads(line)["type"] == "apply_complete":  # durable, so in the journal by now
            mode = (workdir.path / "terraform.tfstate.journal").stat().st_mode & 0o777
            break
    proc.kill()
    proc.wait()
    assert mode == 0o600


def test_existing_state_keeps_its_mode(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    state = workdir.path / "terraform.tfstate"
    state.chmod(0o640)
    workdir.write(CONFIG.replace("count = 3", "count = 2"))
    workdir.strata("apply", "-auto-approve", check=True)
    assert state.stat().st_mode & 0o777 == 0o640
    workdir.strata("taint", "terraform_data.a[0]", check=True)
    assert state.stat().st_mode & 0o777 == 0o640


def test_a_private_umask_is_not_widened(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    code = "import os, sys; os.umask(0o077); from engine.cli.main import main; sys.exit(main(sys.argv[1:]))"
    subprocess.run([sys.executable, "-c", code, "apply", "-auto-approve"], cwd=workdir.path, check=True,
                   env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True)
    assert (workdir.path / "terraform.tfstate").stat().st_mode & 0o777 == 0o600


# ----------------------------------------------------------------------------- paths that cannot be files

@pytest.mark.parametrize("command", [("plan",), ("apply", "-auto-approve"), ("state", "list")])
def test_state_path_that_is_a_directory(workdir: Workdir, command: tuple[str, ...]) -> None:
    workdir.write(CONFIG)
    (workdir.path / "terraform.tfstate").mkdir()
    res = workdir.strata(*command)
    no_traceback(res)
    assert res.returncode == 1
    assert "Error: Invalid state path" in res.stderr
    assert "terraform.tfstate is a directory, not a state file" in flat(res.stderr)


def test_state_path_that_is_not_a_regular_file_is_left_alone(workdir: Workdir) -> None:
    # a device or a pipe (-state=/dev/null) would be replaced by the state's atomic rename: refused
    workdir.write(CONFIG)
    fifo = workdir.path / "pipe.tfstate"
    os.mkfifo(fifo)
    res = workdir.strata("apply", "-auto-approve", f"-state={fifo}")
    no_traceback(res)
    assert res.returncode == 1
    assert "Error: Invalid state path" in res.stderr
    assert "is not a regular file (a device, a pipe or a socket)" in flat(res.stderr)
    assert fifo.is_fifo()


def test_journal_path_that_is_a_directory(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    (workdir.path / "terraform.tfstate.journal").mkdir()
    for command in [("plan",), ("apply", "-auto-approve")]:
        res = workdir.strata(*command)
        no_traceback(res)
        assert res.returncode == 1
        assert "Error: Invalid state journal path" in res.stderr
        assert "terraform.tfstate.journal is a directory, not a state journal file" in flat(res.stderr)


def test_lock_path_that_is_a_directory(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    (workdir.path / ".terraform.tfstate.lock.info").mkdir()
    res = workdir.strata("apply", "-auto-approve")
    no_traceback(res)
    assert res.returncode == 1
    assert "Error acquiring the state lock" in res.stderr
    assert ".terraform.tfstate.lock.info is a directory, not a lock file" in flat(res.stderr)
    assert not (workdir.path / "terraform.tfstate").exists()


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """``directory`` read-only for everyone, root included: a read-only bind mount of itself."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        try:
            yield
        finally:
            directory.chmod(0o755)
        return
    d = str(directory)
    if subprocess.run(["mount", "--bind", d, d], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here to make a read-only directory")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", d], capture_output=True).returncode != 0:
            pytest.skip("cannot remount read-only here")
        yield
    finally:
        subprocess.run(["umount", d], check=True)


def test_read_only_state_directory(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(CONFIG.replace("count = 3", "count = 4"))
    before = (workdir.path / "terraform.tfstate").read_bytes()
    with read_only(workdir.path):
        # as terraform: the lock cannot be taken there, for plan as for apply
        for command in [("plan",), ("apply", "-auto-approve")]:
            res = workdir.strata(*command)
            no_traceback(res)
            assert res.returncode == 1
            assert "Error acquiring the state lock" in res.stderr
            assert "read-only file system" in flat(res.stderr), res.stderr
        res = workdir.strata("plan", "-lock=false", check=True)  # reading needs no lock
        assert "Plan: 1 to add" in res.stdout
        res = workdir.strata("apply", "-auto-approve", "-lock=false")
        no_traceback(res)
        assert res.returncode == 1
        assert "Failed to write the state journal" in res.stderr and "nothing was changed" in flat(res.stderr)
    assert (workdir.path / "terraform.tfstate").read_bytes() == before


@requires_terraform
def test_terraform_refuses_a_read_only_directory_at_the_lock_too(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    assert workdir.terraform("apply", "-auto-approve").returncode == 0
    with read_only(workdir.path):
        res = workdir.terraform("plan", "-no-color")
        assert res.returncode == 1
        assert "Error acquiring the state lock" in res.stderr and "read-only file system" in res.stderr
        assert workdir.terraform("plan", "-no-color", "-lock=false").returncode == 0


# ----------------------------------------------------------------------------- a full disk

_FULL_DISK = textwrap.dedent("""
    import errno, os, sys
    from engine.state import store
    real_write_all = store._write_all

    def full(fd, data):  # the snapshot's temporary file fills the disk half-way
        real_write_all(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    store._write_all = full
    from engine.cli.main import main
    sys.exit(main(sys.argv[1:]))
""")


def test_full_disk_during_the_final_snapshot(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    before = (workdir.path / "terraform.tfstate").read_bytes()
    workdir.write(CONFIG.replace("count = 3", "count = 5"))
    res = subprocess.run([sys.executable, "-c", _FULL_DISK, "apply", "-auto-approve"], cwd=workdir.path,
                         env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True)
    no_traceback(res)
    assert res.returncode == 1
    assert "could not write the output" not in res.stderr
    assert "Error: Failed to write the state snapshot" in res.stderr
    assert "No space left on device" in flat(res.stderr)
    assert "Nothing is lost: the state journal terraform.tfstate.journal still holds every change" in flat(res.stderr)
    assert not (workdir.path / "terraform.tfstate.tmp").exists(), "the half-written snapshot was left behind"
    assert (workdir.path / "terraform.tfstate").read_bytes() == before, "the old snapshot must stay whole"
    assert (workdir.path / "terraform.tfstate.journal").exists()
    assert not (workdir.path / ".terraform.tfstate.lock.info").exists()
    # with space again: the next apply compacts the journal, and nothing is created twice
    res = workdir.strata("apply", "-auto-approve", check=True)
    assert "Apply complete! Resources: 0 added, 0 changed, 0 destroyed." in res.stdout
    assert len(names(workdir.path / "terraform.tfstate")) == 5
    assert not (workdir.path / "terraform.tfstate.journal").exists()


def test_full_disk_during_a_state_edit(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    before = (workdir.path / "terraform.tfstate").read_bytes()
    res = subprocess.run([sys.executable, "-c", _FULL_DISK, "taint", "terraform_data.a[0]"], cwd=workdir.path,
                         env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True)
    no_traceback(res)
    assert res.returncode == 1
    assert "Failed to write the state snapshot" in res.stderr and "No space left on device" in flat(res.stderr)
    assert "has been marked as tainted" not in res.stdout
    assert (workdir.path / "terraform.tfstate").read_bytes() == before
    assert not (workdir.path / "terraform.tfstate.tmp").exists()


# ----------------------------------------------------------------------------- out of memory

@pytest.mark.parametrize("loop", ["trio", "asyncio"])
def test_out_of_memory_is_one_line(workdir: Workdir, loop: str) -> None:
    """Out of memory inside the walk (2M instances under a 1 GB address-space limit): the one line,
    not the event loop's half-unwound task groups complaining as the interpreter shuts down."""
    workdir.write(CONFIG.replace("count = 3", "count = 2000000"))
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1_000_000_000, 1_000_000_000)); "
            "from engine.cli.main import main; sys.exit(main())")
    res = subprocess.run([sys.executable, "-c", code, "apply", "-auto-approve"], cwd=workdir.path,
                         env=dict(os.environ, PYTHONPATH=str(REPO), STRATA_ASYNC_BACKEND=loop),
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 1
    assert res.stderr == "strata: out of memory (is a count or for_each much larger than intended?)\n"
    assert not (workdir.path / ".terraform.tfstate.lock.info").exists()
