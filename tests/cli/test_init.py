"""``strata init`` through the command, compared with terraform 1.11 on the same mirrors: the lock
file byte for byte, ``.terraform/providers`` as terraform lays it out, the progress lines, and each
tool accepting what the other wrote. The real terraform-provider-null 2.1.2 and fake packages
(terraform installs a package without running it) are both used."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine.install.mirror import current_platform
from tests.conftest import Workdir, requires_terraform
from tests.engine.install.conftest import packed, real_null_mirror, unpacked

NULL_DIR = Path(".terraform/providers/registry.terraform.io/hashicorp/null/2.1.2") / current_platform()
NULL_TF = """terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "~> 2.1"
    }
  }
}
resource "null_resource" "a" {}
"""


@pytest.fixture(autouse=True)
def no_user_configuration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither tool reads the user's CLI configuration or implied mirrors."""
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home/.local/share"))
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "none"))
    monkeypatch.setenv("CHECKPOINT_DISABLE", "1")


def twin(workdir: Workdir, tmp_path: Path, tf: str) -> tuple[Workdir, Workdir]:
    """Two directories with the same configuration: one for strata, one for terraform."""
    ours = Workdir(tmp_path / "strata")
    theirs = Workdir(tmp_path / "terraform")
    for w in (ours, theirs):
        w.path.mkdir()
        w.write(tf)
    return ours, theirs


def terraform_init(w: Workdir, *args: str):
    import subprocess

    proc = subprocess.run(["terraform", "init", "-no-color", "-input=false", *args], cwd=w.path,
                          capture_output=True, text=True, timeout=300)
    return proc


def progress(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("- ")]


@requires_terraform
def test_init_with_the_real_null_plugin_writes_terraforms_lock_file_and_layout(workdir: Workdir,
                                                                                tmp_path: Path) -> None:
    mirror = real_null_mirror()
    ours, theirs = twin(workdir, tmp_path, NULL_TF)
    res = ours.strata("init", f"-plugin-dir={mirror}", check=True)
    tf = terraform_init(theirs, f"-plugin-dir={mirror}")
    assert tf.returncode == 0, tf.stderr
    assert (ours.path / ".terraform.lock.hcl").read_bytes() == (theirs.path / ".terraform.lock.hcl").read_bytes()
    assert os.readlink(ours.path / NULL_DIR) == os.readlink(theirs.path / NULL_DIR)
    assert (ours.path / ".terraform/plugin_path").read_bytes() == (theirs.path / ".terraform/plugin_path").read_bytes()
    assert progress(res.stdout) == progress(tf.stdout) == [
        '- Finding hashicorp/null versions matching "~> 2.1"...', "- Installing hashicorp/null v2.1.2...",
        "- Installed hashicorp/null v2.1.2 (unauthenticated)"]
    assert "strata has been successfully initialized!" in res.stdout
    again = ours.strata("init", f"-plugin-dir={mirror}", check=True)
    assert progress(again.stdout) == progress(terraform_init(theirs, f"-plugin-dir={mirror}").stdout)


@requires_terraform
def test_terraform_accepts_the_directory_strata_initialised(workdir: Workdir, tmp_path: Path) -> None:
    mirror = real_null_mirror()
    workdir.write(NULL_TF)
    workdir.strata("init", f"-plugin-dir={mirror}", check=True)
    import subprocess

    plan = subprocess.run(["terraform", "plan", "-no-color", "-input=false"], cwd=workdir.path, capture_output=True,
                          text=True, timeout=300)
    assert plan.returncode == 0 and "null_resource.a will be created" in plan.stdout, plan.stderr


@requires_terraform
def test_strata_accepts_the_directory_terraform_initialised(workdir: Workdir) -> None:
    from engine.addrs import parse_provider_source
    from engine.install.installed import check_installed, installed_plugins
    from engine.install.versions import parse_constraints

    mirror = real_null_mirror()
    workdir.write(NULL_TF)
    assert terraform_init(workdir, f"-plugin-dir={mirror}").returncode == 0
    null = parse_provider_source("hashicorp/null")
    assert check_installed({null: parse_constraints("~> 2.1")}, set(), workdir.path) == []
    assert installed_plugins(workdir.path)[null].name == "terraform-provider-null_v2.1.2_x4"
    res = workdir.strata("providers", check=True)
    assert "provider[registry.terraform.io/hashicorp/null]: plugin v2.1.2" in res.stdout
    again = workdir.strata("init", f"-plugin-dir={mirror}", check=True)
    assert progress(again.stdout)[-1] == "- Using previously-installed hashicorp/null v2.1.2"
    assert not (workdir.path / ".terraform.lock.hcl.tmp").exists()


@requires_terraform
def test_packed_and_unpacked_packages_install_as_terraform_installs_them(workdir: Workdir, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    unpacked(mirror, "acme", "widget", "1.0.0")
    unpacked(mirror, "acme", "widget", "1.4.0")
    packed(mirror, "acme", "gadget", "0.3.0")
    packed(mirror, "acme", "gadget", "0.2.0")
    tf = ('terraform {\n  required_providers {\n    widget = { source = "acme/widget", version = ">= 1.0, < 2.0" }\n'
          '    gadget = { source = "acme/gadget", version = "!= 0.3.0" }\n  }\n}\n')
    ours, theirs = twin(workdir, tmp_path, tf)
    res = ours.strata("init", f"-plugin-dir={mirror}", check=True)
    their = terraform_init(theirs, f"-plugin-dir={mirror}")
    assert their.returncode == 0, their.stderr
    assert (ours.path / ".terraform.lock.hcl").read_text() == (theirs.path / ".terraform.lock.hcl").read_text()
    # terraform goes through the providers in no fixed order; strata in the address's
    assert sorted(progress(res.stdout)) == sorted(progress(their.stdout))
    assert progress(res.stdout)[0] == '- Finding acme/gadget versions matching "!= 0.3.0"...'
    rel = Path(".terraform/providers/registry.terraform.io/acme/gadget/0.2.0") / current_platform()
    for w in (ours, theirs):
        exe = w.path / rel / "terraform-provider-gadget_v0.2.0_x5"
        assert exe.is_file() and os.access(exe, os.X_OK) and not (w.path / rel).is_symlink()


@requires_terraform
def test_upgrade_selects_a_newer_version_the_lock_file_held_back(workdir: Workdir, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    unpacked(mirror, "acme", "widget", "1.0.0")
    tf = 'terraform {\n  required_providers {\n    widget = { source = "acme/widget" }\n  }\n}\n'
    ours, theirs = twin(workdir, tmp_path, tf)
    ours.strata("init", f"-plugin-dir={mirror}", check=True)
    assert terraform_init(theirs, f"-plugin-dir={mirror}").returncode == 0
    unpacked(mirror, "acme", "widget", "1.1.0")
    kept = ours.strata("init", f"-plugin-dir={mirror}", check=True)
    assert '"1.0.0"' in (ours.path / ".terraform.lock.hcl").read_text()
    assert progress(kept.stdout) == progress(terraform_init(theirs, f"-plugin-dir={mirror}").stdout)
    up = ours.strata("init", "-upgrade", f"-plugin-dir={mirror}", check=True)
    their_up = terraform_init(theirs, "-upgrade", f"-plugin-dir={mirror}")
    assert progress(up.stdout) == progress(their_up.stdout)
    assert "strata has made some changes to the provider dependency selections" in up.stdout
    assert (ours.path / ".terraform.lock.hcl").read_bytes() == (theirs.path / ".terraform.lock.hcl").read_bytes()


def test_a_cli_configuration_filesystem_mirror_and_plugin_cache_are_used(workdir: Workdir, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    mirror = tmp_path / "mirror"
    packed(mirror, "acme", "widget", "1.0.0")
    rc = tmp_path / "terraformrc"
    rc.write_text(f'plugin_cache_dir = "{tmp_path / "cache"}"\nprovider_installation {{\n  filesystem_mirror {{\n'
                  f'    path = "{mirror}"\n    include = ["acme/*"]\n  }}\n  direct {{\n    exclude = ["acme/*"]\n'
                  "  }\n}\n")
    (tmp_path / "cache").mkdir()
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    workdir.write('terraform {\n  required_providers {\n    widget = { source = "acme/widget" }\n  }\n}\n')
    res = workdir.strata("init", check=True)
    assert "- Installed acme/widget v1.0.0 (unauthenticated)" in res.stdout
    link = workdir.path / ".terraform/providers/registry.terraform.io/acme/widget/1.0.0" / current_platform()
    assert link.is_symlink() and Path(os.readlink(link)).is_relative_to(tmp_path / "cache")


def test_implied_local_mirrors_are_searched(workdir: Workdir) -> None:
    unpacked(workdir.path / "terraform.d" / "plugins", "acme", "widget", "2.0.0")
    workdir.write('terraform {\n  required_providers {\n    widget = { source = "acme/widget" }\n  }\n}\n')
    res = workdir.strata("init", check=True)
    assert "- Installed acme/widget v2.0.0 (unauthenticated)" in res.stdout


def test_a_provider_only_a_registry_has_says_how_to_use_a_mirror(workdir: Workdir) -> None:
    workdir.write('terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws", version = "~> 3.0" }\n'
                  "  }\n}\n")
    res = workdir.strata("init")
    assert res.returncode == 1
    assert "Error: Failed to query available provider packages" in res.stderr
    assert "hashicorp/aws" in res.stderr and "-plugin-dir" in res.stderr and "filesystem_mirror" in res.stderr
    assert "Traceback" not in res.stderr and not (workdir.path / ".terraform.lock.hcl").exists()


def test_init_says_which_built_ins_serve(workdir: Workdir, tmp_path: Path) -> None:
    workdir.write('resource "random_id" "a" {\n  byte_length = 2\n}\nresource "terraform_data" "b" {}\n')
    res = workdir.strata("init", f"-plugin-dir={tmp_path / 'empty'}", check=True)
    assert progress(res.stdout) == ["- terraform.io/builtin/terraform is built in to strata",
                                    "- Finding latest version of hashicorp/random...",
                                    "- Using built-in hashicorp/random (no plugin installed)"]
    assert not (workdir.path / ".terraform.lock.hcl").exists()
    assert workdir.strata("plan", check=True).returncode == 0


@requires_terraform
@pytest.mark.parametrize("damage", ["hash", "constraint", "package", "new provider"])
def test_every_run_refuses_a_lock_file_that_disagrees_as_terraform_does(workdir: Workdir, tmp_path: Path,
                                                                        damage: str) -> None:
    mirror = real_null_mirror()
    ours, theirs = twin(workdir, tmp_path, NULL_TF)
    ours.strata("init", f"-plugin-dir={mirror}", check=True)
    assert terraform_init(theirs, f"-plugin-dir={mirror}").returncode == 0
    for w in (ours, theirs):
        lock = w.path / ".terraform.lock.hcl"
        if damage == "hash":
            lock.write_text(lock.read_text().replace("h1:CF", "h1:XX"))
        elif damage == "constraint":
            w.write(NULL_TF.replace("~> 2.1", "~> 3.0"))
        elif damage == "package":
            shutil.rmtree(w.path / ".terraform")
        else:
            w.write('resource "aws_sqs_queue" "q" {}\n', "more.tf")
    import subprocess

    res = ours.strata("plan", "-no-color")
    tf = subprocess.run(["terraform", "plan", "-no-color", "-input=false"], cwd=theirs.path, capture_output=True,
                        text=True, timeout=300)
    assert res.returncode == tf.returncode == 1
    summary = next(line for line in tf.stderr.splitlines() if line.startswith("Error: "))
    assert summary in res.stderr, res.stderr
    item = next(line for line in tf.stderr.splitlines() if line.startswith("  - "))
    assert item in res.stderr, res.stderr
    assert ours.strata("validate", "-no-color").returncode == 1
