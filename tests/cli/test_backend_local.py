"""``terraform { backend "local" { path, workspace_dir } }``: strata works on the state file
terraform 1.11 would, for every command (plan, apply, state, output), with ``-state``, workspaces
(``TF_WORKSPACE``, ``.terraform/environment``) and ``-chdir`` as terraform has them. Any other
backend is refused: running on a local file the configuration does not name would plan to create
everything again."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

BACKEND = """
terraform {
  backend "local" {
    path          = "sub/my.tfstate"
    workspace_dir = "wsd"
  }
}
resource "terraform_data" "a" {
  input = "x"
}
output "o" {
  value = terraform_data.a.input
}
"""


def state_files(root: Path) -> list[str]:
    """The state files under ``root`` (locks, backups and terraform's own directory left out)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.tfstate") if ".terraform" not in p.parts)


def resources(path: Path) -> list[str]:
    return [r["name"] for r in orjson.loads(path.read_bytes())["resources"]]


def test_apply_writes_the_state_at_the_backend_path(workdir: Workdir) -> None:
    workdir.write(BACKEND)
    workdir.strata("apply", "-auto-approve", check=True)
    assert state_files(workdir.path) == ["sub/my.tfstate"]
    assert resources(workdir.path / "sub/my.tfstate") == ["a"]


def test_plan_after_apply_at_the_backend_path_has_no_changes(workdir: Workdir) -> None:
    # the defect this guards against: the path was ignored, and the plan created everything again
    workdir.write(BACKEND)
    workdir.strata("apply", "-auto-approve", check=True)
    again = workdir.strata("plan", "-detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr


@requires_terraform
def test_plan_reads_the_state_terraform_wrote_at_the_backend_path(workdir: Workdir) -> None:
    workdir.write(BACKEND)
    applied = workdir.terraform("apply", "-auto-approve", "-no-color")
    assert applied.returncode == 0, applied.stderr
    assert state_files(workdir.path) == ["sub/my.tfstate"]
    plan = workdir.strata("plan", "-detailed-exitcode")
    assert plan.returncode == 0, plan.stdout + plan.stderr


@requires_terraform
def test_state_files_are_where_terraform_puts_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the default workspace at path, another at workspace_dir/NAME/terraform.tfstate, -state over both
    ours, theirs = Workdir(tmp_path / "strata"), Workdir(tmp_path / "terraform")
    for w in (ours, theirs):
        w.path.mkdir()
        w.write(BACKEND)
    ours.strata("apply", "-auto-approve", check=True)
    assert theirs.terraform("apply", "-auto-approve").returncode == 0
    monkeypatch.setenv("TF_WORKSPACE", "foo")
    ours.strata("apply", "-auto-approve", check=True)
    assert theirs.terraform("apply", "-auto-approve").returncode == 0
    ours.strata("apply", "-auto-approve", "-state=other.tfstate", check=True)
    assert theirs.terraform("apply", "-auto-approve", "-state=other.tfstate").returncode == 0
    assert state_files(ours.path) == state_files(theirs.path) == [
        "other.tfstate", "sub/my.tfstate", "wsd/foo/terraform.tfstate"]


def test_state_and_output_commands_read_the_backend_path(workdir: Workdir) -> None:
    workdir.write(BACKEND)
    workdir.strata("apply", "-auto-approve", check=True)
    assert workdir.strata("state", "list", check=True).stdout == "terraform_data.a\n"
    assert workdir.strata("output", "-raw", "o", check=True).stdout == "x"
    workdir.strata("state", "rm", "terraform_data.a", check=True)
    assert resources(workdir.path / "sub/my.tfstate") == []


def test_tf_workspace_selects_the_state_under_workspace_dir(workdir: Workdir,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(BACKEND)
    workdir.strata("apply", "-auto-approve", check=True)
    monkeypatch.setenv("TF_WORKSPACE", "dev")
    plan = workdir.strata("plan", "-detailed-exitcode")
    assert plan.returncode == 2, "another workspace starts with no state"
    workdir.strata("apply", "-auto-approve", check=True)
    assert state_files(workdir.path) == ["sub/my.tfstate", "wsd/dev/terraform.tfstate"]


def test_the_workspace_terraform_selected_is_honoured(workdir: Workdir) -> None:
    # terraform workspace select writes the name to .terraform/environment
    workdir.write(BACKEND)
    (workdir.path / ".terraform").mkdir()
    (workdir.path / ".terraform" / "environment").write_text("staging")
    workdir.strata("apply", "-auto-approve", check=True)
    assert state_files(workdir.path) == ["wsd/staging/terraform.tfstate"]


def test_default_workspace_dir_without_a_backend_block(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write('resource "terraform_data" "a" {}\n')
    monkeypatch.setenv("TF_WORKSPACE", "dev")
    workdir.strata("apply", "-auto-approve", check=True)
    assert state_files(workdir.path) == ["terraform.tfstate.d/dev/terraform.tfstate"]


@pytest.mark.parametrize("name", ["../escape", "a b", "x/y"])
def test_an_invalid_workspace_name_is_refused(workdir: Workdir, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    workdir.write(BACKEND)
    monkeypatch.setenv("TF_WORKSPACE", name)
    res = workdir.strata("apply", "-auto-approve")
    assert res.returncode == 1
    assert "Invalid workspace name set using TF_WORKSPACE" in res.stderr and "Traceback" not in res.stderr
    assert state_files(workdir.path) == [], "nothing written anywhere"


def test_backend_path_is_relative_to_the_chdir_directory(workdir: Workdir) -> None:
    (workdir.path / "proj").mkdir()
    workdir.write(BACKEND, "proj/main.tf")
    workdir.strata("-chdir=proj", "apply", "-auto-approve", check=True)
    assert state_files(workdir.path) == ["proj/sub/my.tfstate"]
    assert workdir.strata("-chdir=proj", "state", "list", check=True).stdout == "terraform_data.a\n"


@pytest.mark.parametrize("block", ['backend "s3" {\n    bucket = "b"\n  }', 'cloud {\n    organization = "o"\n  }'])
@pytest.mark.parametrize("command", [("plan",), ("state", "list"), ("output",)])
def test_other_backends_are_refused(workdir: Workdir, block: str, command: tuple[str, ...]) -> None:
    workdir.write(f'terraform {{\n  {block}\n}}\nresource "terraform_data" "a" {{}}\n')
    (workdir.path / "terraform.tfstate").write_text("{}")  # a local state is not taken for the real one
    res = workdir.strata(*command)
    assert res.returncode == 1, res.stdout
    assert "Unsupported backend" in res.stderr and "main.tf line 2" in res.stderr, res.stderr


@requires_terraform
@pytest.mark.parametrize(("body", "summary"), [
    ("path = var.p", "Variables not allowed"),
    ('pth = "x"', "Unsupported argument"),
    ('path = ""', "Invalid local state file path"),
    ('workspace_dir = ""', "Invalid local workspace directory path"),
])
def test_backend_mistakes_are_terraforms_diagnostics(workdir: Workdir, body: str, summary: str) -> None:
    workdir.write(f'variable "p" {{\n  default = "x"\n}}\nterraform {{\n  backend "local" {{\n    {body}\n  }}\n}}\n')
    theirs = workdir.terraform("init", "-input=false", "-no-color")
    assert f"Error: {summary}" in theirs.stderr, theirs.stderr
    ours = workdir.strata("state", "list")
    assert ours.returncode == 1
    assert f"Error: {summary}" in ours.stderr and "main.tf line 6" in ours.stderr, ours.stderr


@requires_terraform
def test_a_second_backend_block_is_terraforms_error(workdir: Workdir) -> None:
    workdir.write('terraform {\n  backend "local" {\n  }\n}\nterraform {\n  backend "local" {\n  }\n}\n')
    theirs = workdir.terraform("init", "-input=false", "-no-color")
    ours = workdir.strata("plan", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    detail = "A module may have only one backend configuration. The backend was previously configured at main.tf:2,3-18."
    for res in (theirs, ours):
        text = " ".join(res.stderr.split())  # the same words, wrapped at different widths
        assert "Error: Duplicate backend configuration" in text and detail in text, res.stderr


def test_a_saved_plan_is_applied_to_the_state_at_the_backend_path(workdir: Workdir) -> None:
    workdir.write(BACKEND)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(BACKEND.replace('input = "x"', 'input = "y"'))
    workdir.strata("plan", "-out=tfplan", check=True)
    workdir.strata("apply", "tfplan", check=True)
    assert state_files(workdir.path) == ["sub/my.tfstate"]
    assert workdir.strata("output", "-raw", "o", check=True).stdout == "y"


def test_import_writes_to_the_state_at_the_backend_path(workdir: Workdir) -> None:
    workdir.write(BACKEND.split("resource")[0] + 'resource "random_password" "q" {\n  length = 13\n}\n')
    workdir.strata("import", "random_password.q", "MyImportedPw1", check=True)
    assert state_files(workdir.path) == ["sub/my.tfstate"]
    assert resources(workdir.path / "sub/my.tfstate") == ["q"]
