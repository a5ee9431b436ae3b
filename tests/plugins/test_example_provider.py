"""The protocol-6 example provider (``tests/plugins/example_provider``, PyPI framework ``tf``).

It runs from a filesystem mirror through a wrapper script, in its own virtual environment, and
keeps its objects as JSON files under the directory its ``root`` names: the tests count and read
those files the way the aws tests list queues. terraform 1.11 is the oracle; strata must leave
the same files and the same state, and each tool must plan no changes on the other's state.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from tests.conftest import Workdir, requires_terraform
from tests.plugins.conftest import init_from_mirror, requires_plugin_client
from tests.plugins.lifecycle import Observed, drive, ok

pytestmark = requires_terraform

REQUIRED = '''terraform {
  required_providers {
    example = { source = "hashicorp/example", version = "0.1.0" }
  }
}

provider "example" {
  root = "${path.module}/objects"
}
'''


def example_config(content: str, size: int, members: int = 2) -> str:
    """Two items (a nested ``settings`` attribute each), a group of their ids, a data source reading one."""
    return REQUIRED + f'''
resource "example_item" "i" {{
  count    = 2
  name     = "i${{count.index}}"
  content  = "{content}-${{count.index}}"
  settings = {{ size = {size}, label = "l${{count.index}}" }}
}}

resource "example_group" "g" {{
  name    = "g"
  members = {"example_item.i[*].id" if members == 2 else "[example_item.i[0].id]"}
}}

data "example_item" "first" {{
  name       = example_item.i[0].name
  depends_on = [example_item.i]
}}

output "first_revision" {{
  value = data.example_item.first.revision
}}

output "group_size" {{
  value = example_group.g.size
}}
'''


def objects(wd: Workdir) -> dict[str, dict[str, object]]:
    """The provider's files: name -> decoded JSON."""
    root = wd.path / "objects"
    if not root.is_dir():
        return {}
    return {p.name: json.loads(p.read_text()) for p in sorted(root.glob("*.json"))}


def item(i: int, content: str, size: int, revision: int) -> dict[str, object]:
    return {"name": f"i{i}", "id": f"item-i{i}", "content": f"{content}-{i}", "revision": revision,
            "digest": hashlib.sha256(f"{content}-{i}".encode()).hexdigest()[:16],
            "settings": {"size": size, "label": f"l{i}"}}


def lifecycle(tool: str, wd: Workdir, mirror: Path) -> Observed:
    create = example_config("one", 3, members=1)
    wd.write(create)
    init_from_mirror(wd, mirror)
    run = wd.strata if tool == "strata" else wd.terraform
    return drive(run, wd, create, example_config("two", 4, members=2), lambda: objects(wd))


def attributes(state: dict) -> dict[str, object]:
    """Each managed instance's attributes in a state file, by address."""
    out: dict[str, object] = {}
    for r in state["resources"]:
        if r["mode"] != "managed":
            continue
        for inst in r["instances"]:
            key = f"{r['type']}.{r['name']}" + (f"[{inst['index_key']}]" if "index_key" in inst else "")
            out[key] = inst["attributes"]
    return out


def test_terraform_drives_the_protocol_6_provider(workdir: Workdir, example_mirror: Path) -> None:
    got = lifecycle("terraform", workdir, example_mirror)
    assert got == Observed(
        created={"group-g.json": {"name": "g", "id": "group-g", "members": ["item-i0"], "size": 1},
                 "item-i0.json": item(0, "one", 3, 1), "item-i1.json": item(1, "one", 3, 1)},
        noop_plan_exit=0, update_plan="Plan: 0 to add, 3 to change, 0 to destroy.",
        updated={"group-g.json": {"name": "g", "id": "group-g", "members": ["item-i0", "item-i1"], "size": 2},
                 "item-i0.json": item(0, "two", 4, 2), "item-i1.json": item(1, "two", 4, 2)},
        after_update_plan_exit=0, destroyed={})


@requires_plugin_client
def test_strata_leaves_the_same_objects_as_terraform(tmp_path: Path, example_mirror: Path) -> None:
    (tmp_path / "tf").mkdir()
    (tmp_path / "strata").mkdir()
    by_terraform = lifecycle("terraform", Workdir(tmp_path / "tf"), example_mirror)
    by_strata = lifecycle("strata", Workdir(tmp_path / "strata"), example_mirror)
    assert by_strata == by_terraform


@requires_plugin_client
def test_strata_writes_the_state_terraform_writes(tmp_path: Path, example_mirror: Path) -> None:
    sides = {}
    for tool in ("terraform", "strata"):
        wd = Workdir(tmp_path / tool)
        wd.path.mkdir()
        wd.write(example_config("one", 3))
        init_from_mirror(wd, example_mirror)
        ok((wd.strata if tool == "strata" else wd.terraform)("apply", "-auto-approve", "-no-color"), tool)
        sides[tool] = wd.state()
    assert attributes(sides["strata"]) == attributes(sides["terraform"])
    assert sides["strata"]["outputs"] == sides["terraform"]["outputs"]


@requires_plugin_client
def test_each_tool_plans_no_changes_on_the_others_example_state(tmp_path: Path, example_mirror: Path) -> None:
    for first, second in (("strata", "terraform"), ("terraform", "strata")):
        wd = Workdir(tmp_path / first)
        wd.path.mkdir()
        wd.write(example_config("one", 3))
        init_from_mirror(wd, example_mirror)
        run = {"strata": wd.strata, "terraform": wd.terraform}
        ok(run[first]("apply", "-auto-approve", "-no-color"), f"{first} apply")
        plan = run[second]("plan", "-detailed-exitcode", "-no-color")
        assert plan.returncode == 0, f"{second} on {first}'s state:\n{plan.stdout}\n{plan.stderr}"
        ok(run[second]("destroy", "-auto-approve", "-no-color"), f"{second} destroy")
        assert objects(wd) == {}


@requires_plugin_client
def test_strata_drives_a_plugin_of_another_namespace(tmp_path: Path, example_mirror: Path) -> None:
    built = example_mirror / "registry.terraform.io" / "hashicorp" / "example" / "0.1.0" / "linux_amd64"
    mirror = tmp_path / "mirror"
    ours = mirror / "registry.terraform.io" / "strata" / "example" / "0.1.0" / "linux_amd64"
    shutil.copytree(built, ours)
    wd = Workdir(tmp_path / "work")
    wd.path.mkdir()
    wd.write(example_config("one", 3).replace('source = "hashicorp/example"', 'source = "strata/example"'))
    init_from_mirror(wd, mirror)
    ok(wd.strata("apply", "-auto-approve", "-no-color"), "strata apply")
    assert set(objects(wd)) == {"group-g.json", "item-i0.json", "item-i1.json"}
