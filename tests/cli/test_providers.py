"""``strata providers``: terraform's requirements tree (same lines as terraform 1.11 prints, which
orders them at random: compared as sets), the state's providers, and what serves each provider."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Workdir, requires_terraform
from tests.engine.install.conftest import unpacked

CONFIG = """terraform {
  required_providers {
    null = "~> 2.1"
    foo = { version = "1.0" }
    random = { source = "hashicorp/random" }
    widget = { source = "acme/widget", version = "<3.0.0,>=2" }
  }
}
resource "local_file" "x" {
  filename = "x"
  content  = "x"
}
resource "terraform_data" "d" {}
provider "aws" {}
"""


@pytest.fixture(autouse=True)
def no_user_configuration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CHECKPOINT_DISABLE", "1")


def tree(stdout: str) -> tuple[str, set[str]]:
    """The tree's heading and its provider lines, without their branch characters."""
    lines = stdout.split("Providers required by configuration:\n.\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return stdout.split("\n.\n", 1)[0], {line[4:] for line in lines}


@requires_terraform
def test_the_requirements_tree_is_terraforms(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    ours = workdir.strata("providers", check=True)
    theirs = subprocess.run(["terraform", "providers", "-no-color"], cwd=workdir.path, capture_output=True,
                            text=True, timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert tree(ours.stdout) == tree(theirs.stdout)
    lines = ours.stdout.split("\n.\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line[:4] for line in lines] == ["├── "] * (len(lines) - 1) + ["└── "]


def test_each_provider_says_what_serves_it(workdir: Workdir, tmp_path: Path) -> None:
    unpacked(tmp_path / "mirror", "acme", "widget", "2.5.0")
    workdir.write(CONFIG.replace('    foo = { version = "1.0" }\n', "").replace('provider "aws" {}\n', ""))
    workdir.strata("init", f"-plugin-dir={tmp_path / 'mirror'}", check=True)
    out = workdir.strata("providers", check=True).stdout
    served = out.split("Providers serving this configuration:\n\n", 1)[1]
    assert "    provider[registry.terraform.io/acme/widget]: plugin v2.5.0 (.terraform/providers/registry." \
           "terraform.io/acme/widget/2.5.0/" in served
    assert "    provider[registry.terraform.io/hashicorp/null]: built in\n" in served
    assert "    provider[terraform.io/builtin/terraform]: built in\n" in served


def test_providers_the_state_refers_to_are_listed(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "d" {}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    out = workdir.strata("providers", check=True).stdout
    assert "\nProviders required by state:\n\n    provider[terraform.io/builtin/terraform]\n\n" in out


@requires_terraform
def test_required_providers_mistakes_are_diagnostics_at_their_line_as_terraforms(workdir: Workdir) -> None:
    workdir.write('terraform {\n  required_providers {\n    null = { source = "hashicorp/nul_l", version = "2.1.2" }\n'
                  '    foo = { source = "acme/foo", version = "=> 2" }\n    bar = { source = "a/b/c/d" }\n'
                  '    baz = { source = "hashicorp/baz", version = "v1.0" }\n  }\n}\n')
    ours = workdir.strata("providers", "-no-color")
    theirs = subprocess.run(["terraform", "providers", "-no-color"], cwd=workdir.path, capture_output=True,
                            text=True, timeout=120)
    assert ours.returncode == theirs.returncode == 1
    blocks = {b.strip() for b in theirs.stderr.split("\nError: ")[1:]}
    assert len(blocks) >= 3 and all(b in ours.stderr for b in blocks), ours.stderr
    assert "a \"v\" prefix should not be used" in ours.stderr
    assert "Traceback" not in ours.stderr
