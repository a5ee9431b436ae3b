"""Local modules: a reference to an expanded module call (``module.m[*].x``, ``{ for k, v in
module.m : … }``) stands for the whole call, so terraform makes the referrer depend on every
resource in the module, not only on those behind the output it reads: it waits for all of
them and records all of them in the state. And terraform's graph has one node per resource of a
module, not per module instance: a resource in an expanded module waits for what it depends on
in every instance of the module. Found by the differential harness's module cases
(tests/differential/generate_modules.py), issue 20."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, assert_before, both_tools

MODULE = """
variable "x" {}
resource "terraform_data" "r0" {
  input = var.x
}
resource "terraform_data" "r5" {
  input = "y"
}
output "r5_id" {
  value = terraform_data.r5.id
}
"""

EXPANDED = """
resource "terraform_data" "b" {
  input = "z"
}
module "m" {
  source = "./m"
  count  = 1
  x      = terraform_data.b.id
}
resource "terraform_data" "a" {
  input = module.m[*].r5_id
}
"""


def _scenario(workdir: Workdir, tool: str) -> Scenario:
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(MODULE)
    return Scenario(workdir, tool)


@both_tools("a reference to an expanded module call depended only on the resources behind the "
            "output it reads; terraform's depends on every resource in the module")
def test_reference_to_an_expanded_module_depends_on_every_resource_in_it(
        workdir: Workdir, tool: str) -> None:
    s = _scenario(workdir, tool)
    s.apply(EXPANDED)
    deps = _dependencies(s, "terraform_data.a")
    if tool == "strata":  # its direct list closed over its own state, as the harness compares them
        for r in list(deps):
            deps |= _dependencies(s, r)
    assert deps == {"module.m.terraform_data.r0", "module.m.terraform_data.r5", "terraform_data.b"}, deps


def _dependencies(s: Scenario, resource: str) -> set[str]:
    """The dependencies of the (first) current object of ``resource``, in a module or not
    (``module.m.terraform_data.r0``)."""
    for res in s.state()["resources"]:
        addr = f"{res['type']}.{res['name']}"
        if "module" in res:
            addr = f"{_KEYS.sub('', res['module'])}.{addr}"
        if addr == resource:
            for inst in res["instances"]:
                if not inst.get("deposed"):
                    return set(inst.get("dependencies", []))
    raise AssertionError(f"{resource} is not in {s.tool}'s state")


_KEYS = re.compile(r"\[[^]]*\]")


@both_tools("a reference to an expanded module call waited only for the resources behind the "
            "output it reads; terraform's waits for every resource in the module")
def test_reference_to_an_expanded_module_waits_for_every_resource_in_it(
        workdir: Workdir, tool: str) -> None:
    # r0 waits for b, r5 for nothing: a may start once r5 is created, unless it waits for r0
    res = _scenario(workdir, tool).apply(EXPANDED)
    assert_before(res, ("create", "module.m[0].terraform_data.r0"), ("create", "terraform_data.a"))


EVERY_MODULE = """
variable "x" {}
variable "y" {}
resource "terraform_data" "r0" {
  input = var.x
}
resource "terraform_data" "r1" {
  input = terraform_data.r0.output
}
resource "terraform_data" "r5" {
  input = var.y
  %s
}
"""

EVERY_V1 = """
module "m" {
  source = "./m"
  count  = 2
  x      = "x"
  y      = "y"
}
"""

EVERY_V2 = """
module "m" {
  source = "./m"
  count  = 2
  x      = count.index == 1 ? "x2" : "x"
  y      = count.index == 0 ? "y2" : "y"
}
"""


@both_tools("a resource in an expanded module waited for its dependency in its own instance of the "
            "module only; terraform's waits for it in every instance (seed 63)")
@pytest.mark.parametrize("refers", ["depends_on = [terraform_data.r1]",
                                    "triggers_replace = terraform_data.r1.id"])
def test_waits_for_its_dependency_in_every_instance_of_an_expanded_module(
        workdir: Workdir, tool: str, refers: str) -> None:
    # v2 updates r0 and r1 in m[1] and r5 in m[0]: only m[0]'s r1, unchanged, is r5's own
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(EVERY_MODULE % refers)
    s = Scenario(workdir, tool)
    s.apply(EVERY_V1)
    res = s.apply(EVERY_V2)
    assert_before(res, ("update", "module.m[1].terraform_data.r1"), ("update", "module.m[0].terraform_data.r5"))


ONE_MODULE = """
variable "y" {}
resource "terraform_data" "r5" {
  input = var.y
}
output "r5_id" {
  value = terraform_data.r5.id
}
"""

ONE_V1 = """
module "m" {
  source = "./m"
  count  = 2
  y      = "y"
}
resource "terraform_data" "a" {
  input = [module.m[0].r5_id, "a"]
}
"""

ONE_V2 = """
module "m" {
  source = "./m"
  count  = 2
  y      = count.index == 1 ? "y2" : "y"
}
resource "terraform_data" "a" {
  input = [module.m[0].r5_id, "a2"]
}
"""


@both_tools("a reference to an output of one instance of an expanded module waited for the "
            "resources behind it in that instance only; terraform's waits for them in every instance")
def test_reference_to_an_output_of_one_module_instance_waits_for_it_in_every_instance(
        workdir: Workdir, tool: str) -> None:
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(ONE_MODULE)
    s = Scenario(workdir, tool)
    s.apply(ONE_V1)
    res = s.apply(ONE_V2)
    assert_before(res, ("update", "module.m[1].terraform_data.r5"), ("update", "terraform_data.a"))
    # only the resources behind the output: a reference to one output is not one to the call
    assert _dependencies(s, "terraform_data.a") == {"module.m.terraform_data.r5"}


CALLS = """
module "one" {
  source = "./m"
  x      = "x"
}
module "many" {
  source   = "./m"
  for_each = toset(["k"])
  x        = "x"
}
resource "terraform_data" "a" {
  for_each = toset(["k"])
  input    = %s
}
"""


@both_tools("a reference to a module call that names no output by a static traversal depended "
            "only on the resources behind the outputs it reads")
@pytest.mark.parametrize(("refers", "want"), [
    ("length(keys(module.one))", {"module.one.terraform_data.r0", "module.one.terraform_data.r5"}),
    ("module.one.r5_id", {"module.one.terraform_data.r5"}),
    ("module.many[each.key].r5_id", {"module.many.terraform_data.r0", "module.many.terraform_data.r5"}),
    ('module.many["k"].r5_id', {"module.many.terraform_data.r5"}),
    ('length(keys(module.many["k"]))', {"module.many.terraform_data.r0", "module.many.terraform_data.r5"}),
])
def test_reference_to_a_module_call_itself_depends_on_every_resource_in_it(
        workdir: Workdir, tool: str, refers: str, want: set[str]) -> None:
    # terraform's graph resolves module.NAME, module.NAME[KEY] and a non-constant key to the
    # node closing the module; module.NAME.OUT and module.NAME["k"].OUT to the output alone
    s = _scenario(workdir, tool)
    s.apply(CALLS % refers)
    assert _dependencies(s, "terraform_data.a") == want


UNREAD_MODULE = """
variable "unread" {}
resource "terraform_data" "r5" {
  input = "y"
}
output "r5_id" {
  value = terraform_data.r5.id
}
"""

UNREAD = """
resource "terraform_data" "b" {
  input = "z"
}
module "m" {
  source = "./m"
  count  = %d
  unread = terraform_data.b.id
}
resource "terraform_data" "a" {
  input = module.m[*].r5_id
}
"""


@both_tools("a reference to a module call depended only on the module's resources; terraform's "
            "also on what the call's arguments refer to, read or not, with or without instances "
            "(seed 120)")
@pytest.mark.parametrize(("count", "want"), [
    (0, {"module.m.terraform_data.r5", "terraform_data.b"}),  # the resource's node, without instances
    (2, {"module.m.terraform_data.r5", "terraform_data.b"}),
])
def test_reference_to_a_module_call_depends_on_what_its_arguments_refer_to(
        workdir: Workdir, tool: str, count: int, want: set[str]) -> None:
    # terraform's node closing the module waits for its variables, whose values come from b
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(UNREAD_MODULE)
    s = Scenario(workdir, tool)
    s.apply(UNREAD % count)
    assert _dependencies(s, "terraform_data.a") == want


ORPHAN_MODULE_V1 = """
variable "x" {}
resource "terraform_data" "r2" {
  input = var.x
}
"""

ORPHAN_V1 = """
resource "terraform_data" "r1" {
  input = "a"
}
module "m" {
  source = "./m"
  x      = terraform_data.r1.output
}
"""

ORPHAN_V2 = """
resource "terraform_data" "r1" {
  input            = "a"
  triggers_replace = "t"
  depends_on       = [module.m]
}
module "m" {
  source = "./m"
}
"""


@both_tools("a reference to a module call did not count the resources the module has only in the "
            "state; terraform's node closing the module waits for their orphans' nodes too, so "
            "here it finds a cycle (seed 160)")
def test_reference_to_a_module_call_depends_on_the_resources_it_has_only_in_the_state(
        workdir: Workdir, tool: str) -> None:
    # r2, removed, was destroyed before r1, which it used; r1, replaced, now depends on the
    # whole module, r2 included: its old object would be destroyed before r2's, and after
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(ORPHAN_MODULE_V1)
    s = Scenario(workdir, tool)
    s.apply(ORPHAN_V1)
    (workdir.path / "m" / "main.tf").write_text("")
    res = s.apply(ORPHAN_V2, check=False)
    assert res.returncode == 1
    assert "Cycle: " in res.stderr or "Cycle: " in res.stdout


INSTANCE_MODULE_V1 = """
resource "terraform_data" "a" {
}
resource "terraform_data" "b" {
  depends_on = [terraform_data.a]
  lifecycle {
    create_before_destroy = true
  }
}
"""

INSTANCE_MODULE_V2 = """
resource "terraform_data" "a" {
}
resource "terraform_data" "b" {
  depends_on = [terraform_data.a]
}
"""

INSTANCE_V1 = """
module "m" {
  source   = "./m"
  for_each = toset(["x", "y"])
}
"""

INSTANCE_V2 = """
module "m" {
  source   = "./m"
  for_each = toset(["y"])
}
"""


@both_tools("the dependency recorded in the state by a resource in an expanded module stood for the "
            "resource in every instance of the module, so the create_before_destroy destroy of "
            "m['x'].b waited for the delete-first replacement of m['y'].a and found a cycle; "
            "terraform's destroy edges skip other instances of the same module (seed 1684)")
def test_recorded_dependency_in_an_expanded_module_orders_nothing_in_its_other_instances(
        workdir: Workdir, tool: str) -> None:
    # m["x"] is removed: its b, create_before_destroy in the state, is destroyed after what it
    # depends on is created; m["y"].a is replaced delete-first. Were m["x"].b's recorded
    # dependency on module.m.terraform_data.a m["y"]'s too, its destroy would wait for m["y"].a's
    # create, which waits for m["y"].a's destroy, which waits for its dependents' destroys
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(INSTANCE_MODULE_V1)
    s = Scenario(workdir, tool)
    s.apply(INSTANCE_V1)
    (workdir.path / "m" / "main.tf").write_text(INSTANCE_MODULE_V2)
    res = s.apply(INSTANCE_V2, '-replace=module.m["y"].terraform_data.a')
    assert_before(res, ("delete", 'module.m["x"].terraform_data.b'), ("delete", 'module.m["x"].terraform_data.a'))
    assert_before(res, ("delete", 'module.m["y"].terraform_data.a'), ("create", 'module.m["y"].terraform_data.a'))
