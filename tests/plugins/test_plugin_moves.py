"""A ``moved`` block across resource types into a plugin's resource (MoveResourceState,
tfplugin 6.5), with terraform 1.11 as the oracle: the example provider turns an ``example_item``
into an ``example_group``; with its capability withheld (``EXAMPLE_NO_MOVES``) the move is
terraform's "Unsupported `moved` across resource types".

As in test_provider_functions.py, the provider runs from a mirror of this test's own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Result, Workdir, requires_terraform
from tests.plugins.conftest import init_with, requires_plugin_client, run_with

pytestmark = [requires_terraform, requires_plugin_client]

PROVIDER = '''terraform {
  required_providers {
    example = { source = "hashicorp/example", version = "0.1.0" }
  }
}

provider "example" {
  root = "${path.module}/objects"
}
'''

BEFORE = PROVIDER + '''
resource "example_item" "a" {
  name    = "a"
  content = "x"
}
'''

AFTER = PROVIDER + '''
resource "example_group" "a" {
  name    = "a"
  members = ["x"]
}

moved {
  from = example_item.a
  to   = example_group.a
}
'''


def _moved(tool: str, path: Path, mirror: Path) -> tuple[Workdir, Result]:
    """``example_item.a`` applied, then planned as moved to ``example_group.a``."""
    path.mkdir()
    wd = Workdir(path)
    wd.write(BEFORE)
    init_with(tool, wd, mirror)
    res = run_with(tool, wd, "apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    wd.write(AFTER)
    return wd, run_with(tool, wd, "apply", "-auto-approve", "-no-color")


def _resources(wd: Workdir) -> list[dict[str, object]]:
    return [{k: r[k] for k in ("type", "name")} | {"attributes": r["instances"][0]["attributes"]}
            for r in wd.state()["resources"]]


def test_a_move_across_types_into_a_plugin_resource_is_terraforms(tmp_path: Path, example_mirror_here: Path) -> None:
    got = {}
    for tool in ("terraform", "strata"):
        wd, res = _moved(tool, tmp_path / tool, example_mirror_here)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "example_item.a has moved to example_group.a" in res.stdout
        assert "0 added, 0 changed, 0 destroyed" in res.stdout
        again = run_with(tool, wd, "plan", "-detailed-exitcode", "-no-color")
        assert again.returncode == 0, again.stdout + again.stderr
        got[tool] = _resources(wd)
    assert got["strata"] == got["terraform"]
    assert got["strata"] == [{"type": "example_group", "name": "a",
                              "attributes": {"id": "group-a", "members": ["x"], "name": "a", "size": 1}}]


def test_a_plugin_without_the_capability_refuses_the_move_in_terraforms_words(
        tmp_path: Path, example_mirror_here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(os.environ, "EXAMPLE_NO_MOVES", "1")
    errors = {}
    for tool in ("terraform", "strata"):
        wd, res = _moved(tool, tmp_path / tool, example_mirror_here)
        assert res.returncode == 1, res.stdout + res.stderr
        text = res.stderr
        errors[tool] = text[text.index("Error:"):].strip()
        assert json.dumps(_resources(wd)).count("example_item") == 1  # nothing moved
    assert errors["strata"] == errors["terraform"]
    assert "Error: Unsupported `moved` across resource types" in errors["strata"]
    assert 'The provider "registry.terraform.io/hashicorp/example" does not support moved' in errors["strata"]
