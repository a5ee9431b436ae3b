"""``-target``: a plan of the targeted resources or instances and what they depend on, nothing else;
outputs that refer to what was left out keep their values; a targeted destroy takes what depends
on the targets too. The planned changes are compared with terraform 1.11's own when it is on PATH."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = '''\
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
resource "terraform_data" "b" {
  input = terraform_data.a[0].id
}
resource "terraform_data" "c" {
  input = "c"
}
locals {
  l = terraform_data.c.id
}
output "oa" {
  value = terraform_data.a[*].id
}
output "oc" {
  value = local.l
}
'''

ALL = ["terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.a[2]", "terraform_data.b",
       "terraform_data.c"]


def planned(stdout: str) -> list[str]:
    """The addresses of the planned changes in a -json stream, with their action."""
    out = []
    for line in stdout.splitlines():
        e = orjson.loads(line)
        if e["type"] == "planned_change":
            out.append(f'{e["change"]["resource"]["addr"]} {e["change"]["action"]}')
    return sorted(out)


def state_list(workdir: Workdir) -> list[str]:
    return workdir.strata("state", "list", check=True).stdout.split()


def test_a_target_plans_itself_and_what_it_depends_on(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("plan", "-json", "-target=terraform_data.b", check=True)
    assert planned(res.stdout) == [f"{a} create" for a in ALL[:4]]
    warnings = [orjson.loads(x)["diagnostic"]["summary"] for x in res.stdout.splitlines()
                if '"type":"diagnostic"' in x]
    assert warnings == ["Resource targeting is in effect"]


def test_a_targeted_apply_changes_only_that_and_warns_on_stdout(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("apply", "-auto-approve", "-target=terraform_data.b", check=True)
    # as terraform 1.11's: a[1] and a[2] are planned (a is a dependency, planned whole) but not
    # applied: b refers to a[0] alone, and so does the apply graph pruned to the targets
    assert state_list(workdir) == [ALL[0], ALL[3]]
    assert "Apply complete! Resources: 2 added, 0 changed, 0 destroyed." in res.stdout
    warned = res.stdout.index("Warning: Resource targeting is in effect")
    assert warned < res.stdout.index("Warning: Applied changes may be incomplete") < res.stdout.index("Apply complete!")
    # oc refers to terraform_data.c, which was not targeted; oa to a[1] and a[2], not applied
    assert workdir.state()["outputs"] == {}

    # a later target updates the outputs that refer to it, and keeps the others
    workdir.strata("apply", "-auto-approve", "-target=terraform_data.c", check=True)
    assert state_list(workdir) == [ALL[0], ALL[3], ALL[4]]
    outputs = workdir.state()["outputs"]
    assert set(outputs) == {"oc"}
    assert outputs["oc"]["value"] == workdir.state()["resources"][2]["instances"][0]["attributes"]["id"]


def test_an_instance_target_plans_that_instance_alone(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", "-target=terraform_data.a[1]", check=True)
    assert state_list(workdir) == ["terraform_data.a[1]"]
    res = workdir.strata("plan", "-json", check=True)
    assert planned(res.stdout) == [f"{a} create" for a in ALL if a != "terraform_data.a[1]"]


def test_a_targeted_destroy_takes_what_depends_on_the_target(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    outputs = workdir.state()["outputs"]
    res = workdir.strata("destroy", "-auto-approve", "-target=terraform_data.a[0]", check=True)
    assert "Destroy complete! Resources: 2 destroyed." in res.stdout, res.stdout
    assert state_list(workdir) == ["terraform_data.a[1]", "terraform_data.a[2]", "terraform_data.c"]
    assert workdir.state()["outputs"] == outputs, "a targeted destroy leaves the outputs alone"


def test_a_target_that_is_not_an_address_is_an_error_naming_it(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    for bad in ("module.m.x", "data.local_file"):
        res = workdir.strata("plan", f"-target={bad}")
        assert res.returncode == 1 and "Traceback" not in res.stderr
        assert "Invalid target address" in res.stderr and bad in res.stderr, res.stderr
    res = workdir.strata("validate", "-target=terraform_data.a")
    assert res.returncode == 1 and "-target option is not valid" in res.stderr, res.stderr


@requires_terraform
@pytest.mark.parametrize("target", ["terraform_data.b", "terraform_data.a[1]", "terraform_data.c"])
def test_the_planned_changes_are_terraforms(workdir: Workdir, target: str) -> None:
    workdir.write(CONFIG)
    ours = planned(workdir.strata("plan", "-json", f"-target={target}", check=True).stdout)
    theirs = planned(workdir.terraform("plan", "-json", f"-target={target}").stdout)
    assert ours == theirs


@requires_terraform
def test_the_targeted_destroy_plan_is_terraforms(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.terraform("apply", "-auto-approve")
    theirs = planned(workdir.terraform("plan", "-json", "-destroy", "-target=terraform_data.a[0]").stdout)
    ours = planned(workdir.strata("plan", "-json", "-destroy", "-target=terraform_data.a[0]", check=True).stdout)
    assert ours == theirs == ["terraform_data.a[0] delete", "terraform_data.b delete"]


def test_outputs_follow_terraforms_rule_under_target(workdir: Workdir) -> None:
    # planned when they refer to a targeted resource (one instance is enough) and to nothing left out
    workdir.write(CONFIG + '''
output "first" {
  value = terraform_data.a[0].input
}
output "const" {
  value = "k"
}
''')
    workdir.strata("apply", "-auto-approve", "-target=terraform_data.a[0]", check=True)
    assert set(workdir.state()["outputs"]) == {"first", "oa"}  # not "const", nor "oc" (terraform_data.c)


def test_a_targeted_apply_leaves_untargeted_data_sources_in_the_state(workdir: Workdir) -> None:
    (workdir.path / "src.txt").write_text("v1")
    workdir.write('''
data "local_file" "r" {
  filename = "src.txt"
}
resource "terraform_data" "t" {
  input = "t"
}
resource "terraform_data" "u" {
  input = data.local_file.r.content
}
''')
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write((workdir.path / "main.tf").read_text().replace('"t"', '"t2"'))
    workdir.strata("apply", "-auto-approve", "-target=terraform_data.t", check=True)
    assert "data.local_file.r" in state_list(workdir)


def test_a_targeted_destroy_plan_shows_no_output_change(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    res = workdir.strata("plan", "-destroy", "-target=terraform_data.a[0]", check=True)
    assert "Changes to Outputs" not in res.stdout, res.stdout


def test_plan_modes_that_cannot_be_combined_are_refused(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    for args in (("destroy", "-refresh-only"), ("plan", "-destroy", "-refresh-only"),
                 ("plan", "-refresh-only", "-replace=terraform_data.b"), ("plan", "-refresh-only", "-refresh=false")):
        res = workdir.strata(*args)
        assert res.returncode == 1 and "Traceback" not in res.stderr and "-refresh-only" in res.stderr, (args, res.stderr)


def _oa_after_two_instance_targets(run: Any, workdir: Workdir) -> int:
    workdir.write(CONFIG)
    run("apply", "-auto-approve", "-target=terraform_data.a[0]")
    run("apply", "-auto-approve", "-target=terraform_data.a[1]")
    return len(workdir.state()["outputs"]["oa"]["value"])


def test_an_output_over_the_resource_sees_its_untargeted_instances_in_the_state(workdir: Workdir) -> None:
    assert _oa_after_two_instance_targets(lambda *a: workdir.strata(*a, check=True), workdir) == 2


@requires_terraform
def test_so_does_terraforms(workdir: Workdir) -> None:
    assert _oa_after_two_instance_targets(workdir.terraform, workdir) == 2
