"""Damaged and unusual states and journals, through the `strata` command: every case a clear
error or a correct load, nothing silently forgotten, and terraform 1.11's answer where it has one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.cli.test_crash_recovery import apply_killed_after
from tests.conftest import REPO, Result, Workdir, terraform_available

CONFIG = """
resource "terraform_data" "a" {
  count = 3
  input = "x${count.index}"
}
"""


def no_traceback(res: Result) -> None:
    assert "Traceback" not in res.stdout + res.stderr, f"a traceback instead of a diagnostic:\n{res.stderr}"


@pytest.fixture(scope="module")
def applied_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CONFIG applied (by terraform when it is on PATH, its state then terraform's own), once."""
    wd = Workdir(tmp_path_factory.mktemp("applied"))
    wd.write(CONFIG)
    if terraform_available():
        res = wd.terraform("apply", "-auto-approve", "-no-color", "-input=false")
        assert res.returncode == 0, res.stderr
    else:
        wd.strata("apply", "-auto-approve", check=True)
    return wd.path


@pytest.fixture
def applied(applied_dir: Path, workdir: Workdir) -> dict[str, Any]:
    """``workdir`` holding CONFIG and its state (returned, to be damaged)."""
    shutil.copy(applied_dir / "main.tf", workdir.path / "main.tf")
    return orjson.loads((applied_dir / "terraform.tfstate").read_bytes())


def twin(workdir: Workdir, tmp_path: Path, doc: Any, applied_dir: Path) -> Workdir:
    """``workdir`` and a directory for terraform (initialised) both holding the state ``doc``."""
    data = doc if isinstance(doc, bytes) else orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    other = Workdir(tmp_path / "terraform")
    shutil.copytree(applied_dir, other.path, ignore=shutil.ignore_patterns("terraform.tfstate*"))
    other._terraform_ready = True  # init reads the state too: it was run before the state was damaged
    for wd in (workdir, other):
        (wd.path / "terraform.tfstate").write_bytes(data)
    return other


def plans(wd: Workdir) -> Result:
    return wd.strata("plan", "-no-color")


def terraform_plans(wd: Workdir) -> Result:
    return wd.terraform("plan", "-lock=false", "-no-color", "-input=false")


# ----------------------------------------------------------------------------- state content

def test_a_resource_split_over_two_entries_is_merged_and_plans_no_changes(
        workdir: Workdir, tmp_path: Path, applied: dict[str, Any], applied_dir: Path) -> None:
    doc = applied
    first = doc["resources"][0]
    second = {**first, "instances": first["instances"][1:]}
    first["instances"] = first["instances"][:1]
    doc["resources"].append(second)
    theirs = twin(workdir, tmp_path, doc, applied_dir)
    res = plans(workdir)
    assert res.returncode == 0 and "No changes." in res.stdout, f"a[0] was forgotten:\n{res.stdout}{res.stderr}"
    listed = workdir.strata("state", "list", check=True).stdout.split()
    assert listed == ["terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.a[2]"], listed
    if terraform_available():
        assert "No changes." in terraform_plans(theirs).stdout


def test_a_duplicate_instance_is_refused_in_terraforms_words(workdir: Workdir, tmp_path: Path,
                                                             applied: dict[str, Any], applied_dir: Path) -> None:
    doc = applied
    doc["resources"].append({**doc["resources"][0], "instances": doc["resources"][0]["instances"][:1]})
    theirs = twin(workdir, tmp_path, doc, applied_dir)
    before = (workdir.path / "terraform.tfstate").read_bytes()
    for args in (("plan", "-no-color"), ("apply", "-auto-approve", "-no-color"), ("state", "list")):
        res = workdir.strata(*args)
        no_traceback(res)
        assert res.returncode == 1, f"strata {args[0]} accepted a duplicate a[0]:\n{res.stdout}"
        assert "Duplicate resource instance in state" in res.stdout + res.stderr, res.stdout + res.stderr
        assert "Instance terraform_data.a[0] appears multiple times in the state file." in res.stdout + res.stderr
    assert (workdir.path / "terraform.tfstate").read_bytes() == before, "a refused state was rewritten"
    if terraform_available():
        res = terraform_plans(theirs)
        assert res.returncode == 1 and "Duplicate resource instance in state" in res.stderr, res.stderr


def test_a_state_of_whitespace_is_an_error_as_in_terraform(workdir: Workdir, tmp_path: Path,
                                                           applied: dict[str, Any], applied_dir: Path) -> None:
    theirs = twin(workdir, tmp_path, b"  \n\t \n", applied_dir)
    for args in (("plan", "-no-color"), ("apply", "-auto-approve", "-no-color")):
        res = workdir.strata(*args)
        no_traceback(res)
        assert res.returncode == 1, f"strata {args[0]} read whitespace as an empty state:\n{res.stdout}"
        out = res.stdout + res.stderr
        assert "Unsupported state file format" in out and "could not be parsed as JSON" in out, out
    assert (workdir.path / "terraform.tfstate").read_bytes() == b"  \n\t \n"
    if terraform_available():
        res = terraform_plans(theirs)
        assert res.returncode == 1 and "Unsupported state file format" in res.stderr, res.stderr


def test_an_empty_state_file_is_no_state(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    (workdir.path / "terraform.tfstate").write_bytes(b"")
    res = plans(workdir)
    assert res.returncode == 0 and "Plan: 3 to add" in res.stdout, res.stdout + res.stderr


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        doc = doc[step]
    doc[path[-1]] = value


WRONG_TYPES = [  # (where, what, terraform 1.11's detail, or None where it says something else)
    (("serial",), "abc", 'The state file field "serial" has invalid value string'),
    (("outputs",), {"o": 5}, 'The state file field "outputs" has invalid value number'),
    (("resources", 0, "instances", 1), "x", 'The state file field "resources.instances" has invalid value string'),
    # terraform reads this one, then fails its plan with "missing expected {"
    (("resources", 0, "instances", 1, "attributes"), [1], None),
]


@pytest.mark.parametrize(("path", "value", "detail"), WRONG_TYPES, ids=["serial", "outputs", "instance", "attributes"])
def test_a_wrongly_typed_state_is_an_invalid_state_file_format_diagnostic(
        workdir: Workdir, tmp_path: Path, applied: dict[str, Any], applied_dir: Path, path: tuple[Any, ...],
        value: Any, detail: str | None) -> None:
    doc = applied
    _set(doc, path, value)
    theirs = twin(workdir, tmp_path, doc, applied_dir)
    for args in (("plan", "-no-color"), ("state", "list"), ("output",)):
        res = workdir.strata(*args)
        no_traceback(res)
        out = res.stdout + res.stderr
        assert res.returncode == 1 and "Invalid state file format" in out, f"strata {args[0]}:\n{out}"
        assert "terraform.tfstate" in out, f"the diagnostic should name the state file:\n{out}"
        if detail is not None:
            assert detail in out, out
    if terraform_available():
        res = terraform_plans(theirs)
        assert res.returncode == 1, res.stdout
        if detail is not None:
            assert "Invalid state file format" in res.stderr and detail in res.stderr, res.stderr


# ----------------------------------------------------------------------------- journals

N = 24
KILL_AFTER = 15
SIM = f"""
provider "sim" {{
  ledger     = "cloud.jsonl"
  latency_ms = 30
}}

resource "sim_object" "o" {{
  count = {N}
  name  = "obj-${{count.index}}"
}}
"""


def live_objects(wd: Workdir) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "providers.sim", "ls", str(wd.path / "cloud.jsonl")],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    return sorted(orjson.loads(line)["name"] for line in out.splitlines() if line.strip())


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A directory where an apply of SIM was killed after KILL_AFTER objects: a journal is left."""
    wd = Workdir(tmp_path_factory.mktemp("crashed"))
    wd.write(SIM)
    completed = apply_killed_after(wd, KILL_AFTER, parallelism=2)
    assert (wd.path / "terraform.tfstate.journal").exists(), "the killed apply left no journal"
    return wd.path, completed


@pytest.fixture
def after_crash(crashed: tuple[Path, list[str]], tmp_path: Path) -> tuple[Workdir, list[str]]:
    src, completed = crashed
    shutil.copytree(src, tmp_path / "w")
    return Workdir(tmp_path / "w"), completed


def journal_of(wd: Workdir) -> Path:
    return wd.path / "terraform.tfstate.journal"


def damage_record(path: Path, record: int, how: Callable[[bytes], bytes]) -> None:
    """Record ``record`` (1-based after the header) of the journal at ``path``, changed by ``how``."""
    lines = path.read_bytes().split(b"\n")
    assert len(lines) > record + 1, f"the journal has only {len(lines) - 2} records"
    lines[record] = how(lines[record])
    path.write_bytes(b"\n".join(lines))


def flip_bit(line: bytes) -> bytes:
    at = len(line) // 2
    return line[:at] + bytes([line[at] ^ 0x10]) + line[at + 1:]


def non_utf8(line: bytes) -> bytes:
    at = line.index(b'"obj-') + 2
    return line[:at] + b"\xff" + line[at + 1:]


def without_fields(line: bytes) -> bytes:
    from engine.state.journal import frame

    rec = orjson.loads(line[9:])
    del rec["p"], rec["k"]
    return frame(orjson.dumps(rec))[:-1]


@pytest.mark.parametrize(("record", "how", "says"), [
    (8, flip_bit, "checksum does not match"),
    (2, flip_bit, "checksum does not match"),
    (7, non_utf8, "checksum does not match"),
    (5, without_fields, "it has no 'k', 'p'"),
], ids=["flip-8", "flip-2", "non-utf8-7", "no-fields-5"])
def test_a_damaged_journal_record_is_refused_not_forgotten(after_crash: tuple[Workdir, list[str]], record: int,
                                                          how: Callable[[bytes], bytes], says: str) -> None:
    wd, completed = after_crash
    journal = journal_of(wd)
    damage_record(journal, record, how)
    damaged = journal.read_bytes()
    cloud = live_objects(wd)
    commands = [("state", "list"), ("apply", "-auto-approve", "-no-color")]
    if record == 8:  # the same refusal in every command: one case is enough to see plan say it too
        commands.append(("plan", "-no-color"))
    for args in commands:
        res = wd.strata(*args)
        no_traceback(res)
        out = res.stdout + res.stderr
        assert res.returncode == 1, f"strata {args[0]} went on over a damaged journal:\n{out}"
        assert "Damaged state journal" in out and f"Record {record} of" in out and says in out, out
        assert "terraform.tfstate.journal" in out, f"the diagnostic should name the journal:\n{out}"
    assert journal.read_bytes() == damaged, "the damaged journal was changed or removed"
    assert live_objects(wd) == cloud, "an apply over a damaged journal changed the cloud"


def test_a_torn_last_record_is_dropped_with_a_warning_and_the_rest_kept(after_crash: tuple[Workdir, list[str]]
                                                                       ) -> None:
    wd, completed = after_crash
    journal = journal_of(wd)
    data = journal.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    journal.write_bytes(data[:last_start + 40])  # the last record cut short, as a crash mid-write leaves it
    res = wd.strata("state", "list")
    assert res.returncode == 0, res.stderr
    assert "Incomplete last record in the state journal" in res.stderr and str(journal.name) in res.stderr, \
        res.stderr
    listed = set(res.stdout.split())
    records = data.count(b"\n") - 1
    assert len(listed) == records - 1, f"{records} records, the last torn: {len(listed)} listed"
    assert set(completed) - listed <= {_addr_of(data[last_start:])}, "a record before the torn one was lost"
    # the next apply finishes the job: one object per instance in the cloud
    wd.strata("apply", "-auto-approve", "-parallelism=8", check=True)
    assert live_objects(wd) == sorted(f"obj-{i}" for i in range(N)), "duplicates or orphans after recovery"


def _addr_of(line: bytes) -> str:
    rec = orjson.loads(line[9:].rstrip(b"\n"))
    return f"{rec['r'][1]}.{rec['r'][2]}[{rec['k']}]"
