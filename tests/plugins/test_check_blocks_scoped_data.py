"""Data sources scoped to check blocks, read through a real plugin (the protocol-6 example
provider, whose ``example_item`` data source fails for an item that does not exist), by strata
and by terraform on the same files: a read that fails is a warning and the check failed; a read
whose configuration is not known waits for apply; every scoped read is planned again for apply
(``read_because_check_nested``) and done once the managed resources are applied."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.cli.test_check_blocks import check_results, diagnostics
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

check "present" {
  data "example_item" "got" {
    name = "i"
  }
  assert {
    condition     = data.example_item.got.content == "hello"
    error_message = "content is ${data.example_item.got.content}"
  }
}

check "missing" {
  data "example_item" "nope" {
    name = "nope"
  }
  assert {
    condition     = data.example_item.nope.content == "x"
    error_message = "nope"
  }
}

check "deferred" {
  data "example_item" "later" {
    name = example_item.i.name
  }
  assert {
    condition     = data.example_item.later.revision == 1
    error_message = "revision"
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


def _run(tool: str, wd: Workdir, *args: str):  # type: ignore[no-untyped-def]
    return (wd.strata if tool == "strata" else wd.terraform)(*args)


def _plan(tool: str, wd: Workdir) -> tuple[int, list[str], list[dict], list[tuple[str, str | None]]]:
    """A plan's exit code (-detailed-exitcode), warnings, checks, and reads with their reasons."""
    res = _run(tool, wd, "plan", "-no-color", "-detailed-exitcode", "-out=p.plan")
    shown = orjson.loads(_run(tool, wd, "show", "-json", "p.plan").stdout)
    reads = sorted((c["address"], c.get("action_reason")) for c in shown["resource_changes"]
                   if c["change"]["actions"] == ["read"])
    return res.returncode, sorted(diagnostics(res.stdout)), shown.get("checks", []), reads


def _data(state: dict) -> dict[str, object]:
    return {r["name"]: r["instances"][0]["attributes"] for r in state["resources"] if r["mode"] == "data"}


def test_scoped_data_sources_as_terraform_reads_them(tmp_path: Path, example_mirror_here: Path) -> None:
    sides = _sides(tmp_path, example_mirror_here)  # a copy of its own: another checkout may rewrite the shared one
    first = {tool: _plan(tool, wd) for tool, wd in sides.items()}
    assert first["strata"] == first["terraform"]
    code, warned, _checks, reads = first["strata"]
    assert code == 2 and len(warned) == 3
    assert ("data.example_item.got", "read_because_check_nested") in reads
    applied = {tool: _run(tool, wd, "apply", "-no-color", "p.plan") for tool, wd in sides.items()}
    assert [r.returncode for r in applied.values()] == [0, 0]
    assert diagnostics(applied["strata"].stdout) == diagnostics(applied["terraform"].stdout)
    states = {tool: wd.state() for tool, wd in sides.items()}
    assert check_results(states["strata"]) == check_results(states["terraform"])
    assert [r["status"] for r in check_results(states["strata"])] == ["pass", "fail", "pass"]
    assert _data(states["strata"]) == _data(states["terraform"])
    again = {tool: _plan(tool, wd)[:3] for tool, wd in sides.items()}
    assert again["strata"] == again["terraform"]
