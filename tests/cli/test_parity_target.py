"""What terraform does under ``-target`` that strata does not. Found by the differential
harness (tests/differential), issue 20."""

from __future__ import annotations

import pytest

from tests.conftest import Workdir
from tests.differential.scenario import Scenario, assert_before, both_tools, steps, tools

CBD = """
resource "terraform_data" "a" {
  triggers_replace = "1"
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
}
"""


@both_tools("under -target strata destroys the deposed object of a create_before_destroy "
       "replacement, which terraform leaves in the state")
def test_target_keeps_the_deposed_object_of_a_replaced_dependency(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(CBD)
    res = s.apply(CBD.replace('"1"', '"2"'), "-target=terraform_data.b")
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("create", "terraform_data.a"), ("update", "terraform_data.b")], started
    deposed = [i for r in s.state()["resources"] for i in r["instances"] if i.get("deposed")]
    assert len(deposed) == 1, deposed



OUTPUT_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
output "o" {
  value = terraform_data.a.output
}
"""
OUTPUT_V2 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = "1"
}
"""


@both_tools("under -target strata removes from the state an output the configuration no longer "
       "has; terraform leaves outputs alone when targeting")
def test_target_keeps_an_output_the_configuration_no_longer_has(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(OUTPUT_V1)
    s.apply(OUTPUT_V2, "-target=terraform_data.b")
    assert list(s.state()["outputs"]) == ["o"]


FORCED_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
"""
FORCED_V2 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("under -target strata computes the create_before_destroy that dependents force "
       "from the targeted resources only; terraform from the whole configuration")
def test_target_records_create_before_destroy_forced_by_an_untargeted_dependent(
        workdir: Workdir, tool: str) -> None:
    # b (new, create_before_destroy, not targeted) uses a: terraform records a as
    # create_before_destroy although only a is applied.
    s = Scenario(workdir, tool)
    s.apply(FORCED_V1)
    res = s.apply(FORCED_V2, "-replace=terraform_data.a", "-target=terraform_data.a")
    assert s.instance("terraform_data.a").get("create_before_destroy") is True
    # the order is planned from the targets alone: destroyed first, as not forced
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("delete", "terraform_data.a"), ("create", "terraform_data.a")], started


UNCHANGED = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("under -target strata kept the create_before_destroy flag a dependent left out "
            "had forced on a targeted object without a change")
def test_target_records_the_flag_of_an_unchanged_object_from_the_targets(
        workdir: Workdir, tool: str) -> None:
    # b forced the flag on a; targeting a alone, terraform plans a without b and records
    # a's own flag for the unchanged object
    s = Scenario(workdir, tool)
    s.apply(UNCHANGED)
    assert s.instance("terraform_data.a").get("create_before_destroy") is True
    s.apply(UNCHANGED, "-target=terraform_data.a")
    assert not s.instance("terraform_data.a").get("create_before_destroy", False)


CHAIN_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "m" {
  input = terraform_data.a.id
}
resource "terraform_data" "b" {
  input = terraform_data.m.id
}
"""
CHAIN_V2 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "m" {
  input = "2"
}
resource "terraform_data" "b" {
  input = terraform_data.m.id
}
"""


@both_tools("strata records direct dependencies: when -target rewrote those of an object in "
            "between, an untargeted dependent lost the transitive dependency terraform keeps")
def test_target_keeps_the_transitive_dependencies_of_an_untargeted_dependent(
        workdir: Workdir, tool: str) -> None:
    # b is untargeted and keeps its entry; m no longer refers to a. terraform's b still lists
    # a (its transitive list was recorded whole); strata's b lists m, whose list is now empty.
    s = Scenario(workdir, tool)
    s.apply(CHAIN_V1)
    s.apply(CHAIN_V2, "-target=terraform_data.m")
    deps = set(s.instance("terraform_data.b").get("dependencies", []))
    for r in list(deps):  # strata's list closed over its own state, as the harness compares them
        deps |= set(s.instance(r).get("dependencies", []))
    assert "terraform_data.a" in deps, deps


COUNTED = """
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "b" {
  input = terraform_data.a[*].id
}
"""


@both_tools("under -target strata destroyed a create_before_destroy instance of a dependency "
            "that the configuration no longer has; terraform plans the delete and leaves it out")
def test_target_leaves_out_the_delete_of_a_dependency_instance_destroyed_after_its_dependents(
        workdir: Workdir, tool: str) -> None:
    # a[2]'s destroy waits for b (create_before_destroy): not a dependency of the target b
    s = Scenario(workdir, tool)
    s.apply(COUNTED)
    res = s.apply(COUNTED.replace("count = 3", "count = 2"), "-target=terraform_data.b")
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("update", "terraform_data.b")], started
    kept = [i.get("index_key") for r in s.state()["resources"] if r["name"] == "a" for i in r["instances"]]
    assert kept == [0, 1, 2], kept


SPLAT = """
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
output "o" {
  value = terraform_data.a[*].output
}
"""


@both_tools("under -target strata evaluated an output over a resource's instances as the "
            "configuration expands it; terraform over the instances the state still has")
def test_target_output_sees_an_untargeted_instance_still_in_the_state(workdir: Workdir, tool: str) -> None:
    # a[2] is no longer configured but, untargeted, not destroyed: terraform's output lists it
    s = Scenario(workdir, tool)
    s.apply(SPLAT)
    s.apply(SPLAT.replace("count = 3", "count = 2"), "-target=terraform_data.a[0]")
    assert s.state()["outputs"]["o"]["value"] == ["a0", "a1", "a2"]


EMPTIED_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  for_each = toset(["x"])
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""
EMPTIED_V2 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  for_each = toset([])
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = true
  }
}
"""


@both_tools("under -target strata did not force create_before_destroy on a target's dependency "
            "from the targeted create_before_destroy resource without instances (seed 203): it "
            "planned a delete-first replacement and found a cycle terraform does not have")
def test_target_forces_create_before_destroy_from_a_targeted_resource_without_instances(
        workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(EMPTIED_V1)
    res = s.apply(EMPTIED_V2, "-replace=terraform_data.a", "-target=terraform_data.b")
    # a is replaced create-first; its old object, deposed, is left for later as -target leaves
    # out a destroy that waits for dependents
    assert steps(res) == [("start", "create", "terraform_data.a"), ("complete", "create", "terraform_data.a"),
                          ("start", "delete", 'terraform_data.b["x"]'),
                          ("complete", "delete", 'terraform_data.b["x"]')], steps(res)
    a = next(r for r in s.state()["resources"] if r["name"] == "a")
    assert any(i.get("deposed") for i in a["instances"]), a["instances"]


GAINED_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "z" {
  input = "1"
}
resource "terraform_data" "m" {
  input = terraform_data.a.id
}
resource "terraform_data" "b" {
  input = terraform_data.m.id
}
"""
GAINED_V2 = GAINED_V1.replace("input = terraform_data.a.id", "input = terraform_data.z.id")


@tools("strata records direct dependencies: when -target rewrites those of an object in between "
       "to a new dependency, an untargeted dependent's closure gains it, where terraform keeps the "
       "dependent's transitive list as it was (seed 349); only transitive lists in state would match")
def test_target_does_not_add_a_new_dependency_to_an_untargeted_dependent(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(GAINED_V1)
    s.apply(GAINED_V2, "-target=terraform_data.m")
    deps = set(s.instance("terraform_data.b").get("dependencies", []))
    if tool == "strata":  # its direct list closed over its own state, as the harness compares them
        for r in list(deps):
            deps |= set(s.instance(r).get("dependencies", []))
    assert deps == {"terraform_data.a", "terraform_data.m"}, deps


def _module(workdir: Workdir, text: str) -> None:
    (workdir.path / "m").mkdir(exist_ok=True)
    (workdir.path / "m" / "main.tf").write_text(text)


GONE_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "gone" {
  input = terraform_data.a.output
}
output "x" {
  value = terraform_data.a.output
}
"""
GONE_V2 = """
resource "terraform_data" "a" {
  input = "2"
}
output "x" {
  value = terraform_data.a.output
}
"""
CALLER = """
module "m" {
  source = "./m"
  count  = 1
}
resource "terraform_data" "b" {
  input = module.m[*].x
}
"""


@both_tools("under -target strata left in the state a module's resource the configuration no longer "
            "has, although a target refers to the module call, which waits for it (seed 632)")
def test_target_deletes_a_removed_resource_of_a_module_a_target_refers_to(
        workdir: Workdir, tool: str) -> None:
    _module(workdir, GONE_V1)
    s = Scenario(workdir, tool)
    s.apply(CALLER)
    _module(workdir, GONE_V2)
    # gone, only in the state, is planned with the call b refers to; a's update waits for it
    res = s.apply(CALLER, "-target=terraform_data.b")
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("delete", "module.m[0].terraform_data.gone"), ("update", "module.m[0].terraform_data.a"),
                       ("update", "terraform_data.b")], started


EACH = """
variable "x" {}
resource "terraform_data" "r" {
  input = var.x
}
output "x" {
  value = terraform_data.r.output
}
"""
EACH_CALLER = """
resource "terraform_data" "a" {
  input = "%s"
}
module "m" {
  source   = "./m"
  for_each = toset(%s)
  x        = terraform_data.a.output
}
output "o" {
  value = { for k, v in module.m : k => v.x }
}
"""


@both_tools("under -target of a resource in one instance of a module, strata left the module "
            "instances the configuration no longer has; terraform deletes their objects (seed 903)")
def test_target_in_a_module_instance_deletes_the_module_instances_no_longer_configured(
        workdir: Workdir, tool: str) -> None:
    _module(workdir, EACH)
    s = Scenario(workdir, tool)
    s.apply(EACH_CALLER % ("1", '["x", "y"]'))
    # the delete of module.m["x"]'s object, planned with the targeted resource, comes before the
    # update of a (its dependency), which the target waits for
    res = s.apply(EACH_CALLER % ("2", '["y"]'), '-target=module.m["y"].terraform_data.r')
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("delete", 'module.m["x"].terraform_data.r'), ("update", "terraform_data.a"),
                       ("update", 'module.m["y"].terraform_data.r')], started


THROUGH_V1 = """
resource "terraform_data" "a" {
  input = "1"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
}
resource "terraform_data" "c" {
  input = terraform_data.b.output
  triggers_replace = "1"
}
"""
THROUGH_V2 = """
resource "terraform_data" "a" {
  input = "2"
}
resource "terraform_data" "c" {
  input = "x"
  triggers_replace = "2"
}
resource "terraform_data" "d" {
  input = [terraform_data.a.output, terraform_data.c.output]
}
"""

TARGET_MODULE = """
resource "terraform_data" "a" {
  input = "a1"
}
output "a" {
  value = terraform_data.a.output
}
"""

TARGET_MODULE_CALL = """
module "m" {
  source   = "./m"
  for_each = toset(["x", "y"])
}
resource "terraform_data" "b" {
  input = "b1"
}
output "a" {
  value = { for k, v in module.m : k => v.a }
}
output "b" {
  value = { for k, v in module.m : k => [v.a, terraform_data.b.output] }
}
"""


@both_tools("under -target strata updated a dependency before destroying an object that depended on "
            "it through an untargeted object the apply leaves alone (seed 783)")
def test_target_destroys_a_dependent_through_an_untargeted_object_before_updating_its_dependency(
        workdir: Workdir, tool: str) -> None:
    # c depended on a through b, which is no longer configured and, untargeted, stays: c's
    # delete-first replacement still destroys it before a is updated
    s = Scenario(workdir, tool)
    s.apply(THROUGH_V1)
    res = s.apply(THROUGH_V2, "-target=terraform_data.d")
    assert_before(res, ("delete", "terraform_data.c"), ("update", "terraform_data.a"))


ONE_V1 = """
resource "terraform_data" "a" {
  count = 1
  input = "${count.index}-1"
}
resource "terraform_data" "b" {
  input = terraform_data.a[0].output
}
"""


@both_tools("under -target strata applied every planned change of a target's dependency; terraform "
            "plans the dependency whole but applies only the changes its apply graph reaches from the "
            "targets, where a reference to one instance with a change reaches that instance alone (seed 712)")
def test_target_applies_only_the_instance_a_target_refers_to(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(ONE_V1)
    res = s.apply(ONE_V1.replace("count = 1", "count = 2").replace("-1", "-2"), "-target=terraform_data.b")
    started = [(action, addr) for kind, action, addr in steps(res) if kind == "start"]
    assert started == [("update", "terraform_data.a[0]"), ("update", "terraform_data.b")], started
    planned = sorted((e["change"]["action"], e["change"]["resource"]["addr"])
                     for e in res.events if e["type"] == "planned_change")
    assert planned == [("create", "terraform_data.a[1]"), ("update", "terraform_data.a[0]"),
                       ("update", "terraform_data.b")], planned
    assert [i["index_key"] for r in s.state()["resources"] for i in r["instances"] if r["name"] == "a"] == [0]


@both_tools("under -target strata neither planned nor applied the delete of a module's resource the "
            "configuration no longer has; terraform plans it with the call a target refers to, and "
            "applies it only when something the targets keep waits for it")
def test_target_plans_a_removed_resource_of_a_module_but_applies_it_only_when_waited_for(
        workdir: Workdir, tool: str) -> None:
    _module(workdir, GONE_V1.replace("terraform_data.a.output", '"1"'))
    s = Scenario(workdir, tool)
    s.apply(CALLER)
    _module(workdir, GONE_V2.replace('"2"', '"1"'))
    res = s.apply(CALLER, "-target=terraform_data.b")
    planned = [(e["change"]["action"], e["change"]["resource"]["addr"])
               for e in res.events if e["type"] == "planned_change"]
    assert planned == [("delete", "module.m[0].terraform_data.gone")], planned
    assert steps(res) == [], steps(res)
    assert "gone" in [r["name"] for r in s.state()["resources"]]


@both_tools("under -target of a resource in one instance of a module, strata kept the value of an "
            "output over the module call; terraform's targeted graph has one node per configuration "
            "resource, which the target selects, so the output is planned (seed 903)")
def test_target_in_a_module_instance_updates_an_output_over_the_call(workdir: Workdir, tool: str) -> None:
    _module(workdir, EACH)
    s = Scenario(workdir, tool)
    s.apply(EACH_CALLER % ("1", '["x", "y"]'))
    s.apply(EACH_CALLER % ("2", '["y"]'), '-target=module.m["y"].terraform_data.r')
    assert s.state()["outputs"]["o"]["value"] == {"y": "2"}


@both_tools("under -target of a resource in one instance of an expanded module strata kept an "
            "output over the module's instances; terraform's targeted graph has one node per "
            "resource of a module, which the target takes in every instance, and plans it (seed 1468)")
@pytest.mark.parametrize("target", ['module.m["x"].terraform_data.a', 'module.m["x"]'])
def test_target_in_one_module_instance_plans_an_output_over_every_instance(
        workdir: Workdir, tool: str, target: str) -> None:
    (workdir.path / "m").mkdir()
    (workdir.path / "m" / "main.tf").write_text(TARGET_MODULE)
    s = Scenario(workdir, tool)
    s.apply(TARGET_MODULE_CALL)
    (workdir.path / "m" / "main.tf").write_text(TARGET_MODULE.replace('"a1"', '"a2"'))
    s.apply(TARGET_MODULE_CALL.replace('"b1"', '"b2"'), f"-target={target}")
    outputs = s.state()["outputs"]
    # a is planned: m["x"].a updated, m["y"].a as the state has it; b also refers to what was
    # left out, and keeps its value
    assert outputs["a"]["value"] == {"x": "a2", "y": "a1"}, outputs
    assert outputs["b"]["value"] == {"x": ["a1", "b1"], "y": ["a1", "b1"]}, outputs
