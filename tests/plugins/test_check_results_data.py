"""The conditions of a data source, read through a real plugin (the protocol-6 example
provider's ``example_item``), recorded as terraform 1.11 records them: its ``postcondition``
while the read waits for apply and once read, in ``show -json PLANFILE``'s ``checks`` and the
state's ``check_results``, strata and terraform on the same files."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.cli.test_check_results import check_results
from tests.conftest import Workdir, requires_terraform
from tests.plugins.conftest import init_from_mirror, requires_plugin_client

pytestmark = [requires_terraform, requires_plugin_client]

CONFIG = '''
terraform {
  required_providers {
    example = { source = "hashicorp/example", version = "0.1.0" }
  }
}

provider "example" {
  root = "${path.module}/objects"
}

resource "example_item" "i" {
  name    = "i"
  content = "hello"
}

data "example_item" "got" {
  name = example_item.i.name
  lifecycle {
    precondition {
      condition     = example_item.i.name != ""
      error_message = "no name"
    }
    postcondition {
      condition     = self.content == "hello"
      error_message = "content is ${self.content}"
    }
  }
}
'''


def _sides(tmp_path: Path, mirror: Path) -> dict[str, Workdir]:
    sides = {}
    for tool in ("strata", "terraform"):
        wd = Workdir(tmp_path / tool)
        wd.path.mkdir()
        wd.write(CONFIG)
        init_from_mirror(wd, mirror)
        sides[tool] = wd
    return sides


def _plan_checks(tool: str, wd: Workdir) -> list[dict]:
    run = wd.strata if tool == "strata" else wd.terraform
    res = run("plan", "-no-color", "-out=p.plan")
    assert res.returncode == 0, res.stdout + res.stderr
    return list(orjson.loads(run("show", "-json", "p.plan").stdout).get("checks", []))


def _apply(tool: str, wd: Workdir) -> None:
    run = wd.strata if tool == "strata" else wd.terraform
    res = run("apply", "-no-color", "p.plan")
    assert res.returncode == 0, res.stdout + res.stderr


def test_data_source_conditions_recorded_as_terraform(tmp_path: Path, example_mirror_here: Path) -> None:
    sides = _sides(tmp_path, example_mirror_here)
    for _round in ("read at apply", "read while planning"):
        planned = {tool: _plan_checks(tool, wd) for tool, wd in sides.items()}
        assert planned["strata"] == planned["terraform"], _round
        for tool, wd in sides.items():
            _apply(tool, wd)
        states = {tool: check_results(wd.state()) for tool, wd in sides.items()}
        assert states["strata"] == states["terraform"], _round
