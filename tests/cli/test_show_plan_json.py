"""``show -json PLANFILE``: terraform's JSON plan (format 1.2), compared with terraform 1.11's on
the same files and state."""

from __future__ import annotations

import re
import shutil

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

V1 = """
variable "prefix" {
  type    = string
  default = "p"
}
resource "terraform_data" "a" {
  count = 2
  input = "${var.prefix}${count.index}"
}
resource "terraform_data" "gone" {
  input = "bye"
}
resource "terraform_data" "kept" {
  for_each         = toset(["x", "y"])
  input            = each.key
  triggers_replace = each.key
}
output "first" { value = terraform_data.a[0].output }
"""

V2 = """
variable "prefix" {
  type    = string
  default = "q"
}
resource "terraform_data" "a" {
  count = 2
  input = "${var.prefix}${count.index}"
}
resource "terraform_data" "kept" {
  for_each         = toset(["x", "y"])
  input            = each.key
  triggers_replace = each.key == "y" ? "y2" : each.key
}
resource "terraform_data" "b" {
  input = { n = 1, l = [terraform_data.a[1].id] }
  lifecycle { create_before_destroy = true }
}
output "first" { value = terraform_data.a[0].output }
output "x" { value = terraform_data.kept["x"].output }
output "secret" {
  value     = "hidden"
  sensitive = true
}
"""


SENSITIVE_KEYS = ("sensitive_values", "before_sensitive", "after_sensitive")


def _without_empty(v: object) -> object:
    """A sensitivity skeleton without its empty parts: terraform writes ``{}`` or ``[]`` for an
    unknown value whose type is an object or a list, and strata does not know the type of a value
    the provider has not decided yet."""
    if isinstance(v, dict):  # inner parts first: what they leave empty goes too
        return {k: y for k, x in v.items() if (y := _without_empty(x)) not in ({}, [])}
    if isinstance(v, list):  # an element's place is kept: false there
        return [False if (y := _without_empty(x)) in ({}, []) else y for x in v]
    return v


def _normalise(doc: dict) -> dict:
    def walk(v: object) -> object:
        if isinstance(v, dict):
            return {k: (_without_empty(x) if k in SENSITIVE_KEYS else walk(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    out = walk(orjson.loads(UUID.sub("ID", orjson.dumps(doc).decode())))
    assert isinstance(out, dict)
    out.pop("timestamp", None)
    out.pop("terraform_version", None)
    if "prior_state" in out:
        out["prior_state"].pop("terraform_version", None)
    # terraform's order of these varies from run to run
    out["relevant_attributes"] = sorted(out.get("relevant_attributes", []), key=orjson.dumps)
    return out


def _saved_plan_json(wd: Workdir, tool: str) -> dict:
    run = wd.strata if tool == "strata" else wd.terraform
    run("plan", "-out=p.bin", *(("-input=false",) if tool == "terraform" else ()))
    res = run("show", "-json", "p.bin")
    assert res.returncode == 0, res.stderr
    return orjson.loads(res.stdout)


def test_show_json_of_a_saved_plan_has_terraforms_shape(workdir: Workdir) -> None:
    workdir.write(V1)
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(V2)
    doc = _saved_plan_json(workdir, "strata")
    assert doc["format_version"] == "1.2" and doc["applyable"] and doc["complete"] and not doc["errored"]
    actions = {c["address"]: c["change"]["actions"] for c in doc["resource_changes"]}
    assert actions == {"terraform_data.a[0]": ["update"], "terraform_data.a[1]": ["update"],
                       "terraform_data.b": ["create"], "terraform_data.gone": ["delete"],
                       'terraform_data.kept["x"]': ["no-op"], 'terraform_data.kept["y"]': ["delete", "create"]}
    gone = next(c for c in doc["resource_changes"] if c["address"] == "terraform_data.gone")
    assert gone["action_reason"] == "delete_because_no_resource_config" and gone["change"]["after"] is None
    b = next(c for c in doc["resource_changes"] if c["address"] == "terraform_data.b")
    assert b["change"]["after_unknown"]["id"] is True and b["change"]["before_sensitive"] is False
    assert doc["output_changes"]["secret"]["after_sensitive"] is True
    assert doc["variables"] == {"prefix": {"value": "q"}}
    assert {r["address"] for r in doc["prior_state"]["values"]["root_module"]["resources"]} >= {"terraform_data.gone"}


@requires_terraform
def test_show_json_of_a_saved_plan_matches_terraform(workdir: Workdir, tmp_path_factory: pytest.TempPathFactory) -> None:
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        wd.write(V1)
    workdir.strata("apply", "-auto-approve", check=True)
    assert tf.terraform("apply", "-auto-approve", "-input=false").returncode == 0
    # the same objects in both: terraform plans against strata's state
    shutil.copy(workdir.path / "terraform.tfstate", tf.path / "terraform.tfstate")
    for wd in (workdir, tf):
        wd.write(V2)
    ours = _normalise(_saved_plan_json(workdir, "strata"))
    theirs = _normalise(_saved_plan_json(tf, "terraform"))
    for key in ("format_version", "variables", "planned_values", "resource_changes", "output_changes",
                "prior_state", "configuration", "relevant_attributes", "applyable", "complete", "errored"):
        assert ours.get(key) == theirs.get(key), key


MODULES_MAIN = """
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
locals {
  first = terraform_data.base.output
  tags  = { env = "x", n = 1 + 1 }
}
resource "terraform_data" "base" {
  input = local.tags
}
resource "terraform_data" "unused" {
  input = "stays"
}
module "m" {
  source   = "./m"
  for_each = toset(var.names)
  seed     = local.first
}
module "empty" {
  source = "./empty"
}
resource "terraform_data" "after" {
  input      = [for k, v in module.m : v.out]
  depends_on = [module.empty]
}
output "from_module" { value = module.m["a"].out }
output "constant" { value = { a = [1, 2] } }
"""

MODULES_CHILD = """
variable "seed" {}
resource "terraform_data" "inner" {
  input = { s = var.seed, k = "${var.seed}-k" }
}
output "out" { value = terraform_data.inner.output.s }
"""


@requires_terraform
def test_configuration_and_relevant_attributes_with_modules_match_terraform(
        workdir: Workdir, tmp_path_factory: pytest.TempPathFactory) -> None:
    # what contributed to each change, through locals, module arguments and outputs, and the
    # configuration of every module called (an empty one too), as terraform 1.11 writes them
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        (wd.path / "m").mkdir()
        (wd.path / "empty").mkdir()
        wd.write(MODULES_MAIN)
        wd.write(MODULES_CHILD, "m/main.tf")
        wd.write("", "empty/main.tf")
    assert tf.terraform("init", "-input=false").returncode == 0
    workdir.strata("init", "-input=false", check=True)
    ours = _normalise(_saved_plan_json(workdir, "strata"))
    theirs = _normalise(_saved_plan_json(tf, "terraform"))
    assert theirs["relevant_attributes"]  # the case has some: the comparison below is not vacuous
    for key in ("configuration", "relevant_attributes", "planned_values", "output_changes"):
        assert ours.get(key) == theirs.get(key), key


TARGET_MAIN = """
module "m" {
  source = "./m"
  count  = 2
}
output "o0" { value = module.m[*].r0_output }
output "o1" { value = module.m[*].r1_output }
"""

TARGET_CHILD = """
resource "terraform_data" "r0" {
  count            = 2
  input            = "v-${count.index}"
  triggers_replace = "%s"
}
resource "terraform_data" "r1" {
  for_each   = toset(["a", "b"])
  input      = "%s-${each.key}"
  depends_on = [terraform_data.r0]
}
output "r0_output" { value = terraform_data.r0[*].output }
output "r1_output" { value = { for k, v in terraform_data.r1 : k => v.output } }
"""


def _targeted_plans(workdir: Workdir, tf: Workdir, main: str, child: tuple[str, str], changed: tuple[str, str],
                    target: str) -> tuple[dict, dict]:
    """Both tools' ``show -json`` of a plan of ``changed`` under ``-target`` after applying ``child``
    (the module ``./m``, called from ``main``)."""
    for wd in (workdir, tf):
        (wd.path / "m").mkdir()
        wd.write(main)
        wd.write(TARGET_CHILD % child, "m/main.tf")
    assert tf.terraform("apply", "-auto-approve", "-input=false").returncode == 0
    workdir.strata("apply", "-auto-approve", check=True)
    docs = []
    for wd, tool in ((workdir, "strata"), (tf, "terraform")):
        wd.write(TARGET_CHILD % changed, "m/main.tf")
        run = wd.strata if tool == "strata" else wd.terraform
        assert run("plan", "-out=p.bin", f"-target={target}", "-input=false").returncode == 0
        res = run("show", "-json", "p.bin")
        assert res.returncode == 0, res.stderr
        docs.append(_normalise(orjson.loads(res.stdout)))
    return docs[0], docs[1]


@requires_terraform
def test_targeted_plan_evaluates_module_outputs_only_as_dependencies(
        workdir: Workdir, tmp_path_factory: pytest.TempPathFactory) -> None:
    # under -target a module output is kept only when something kept depends on it: the root
    # outputs over the whole module refer to an untargeted resource too, so they are left out, and
    # the module output over the targeted resource is evaluated by nothing: no relevant attributes
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    ours, theirs = _targeted_plans(workdir, tf, TARGET_MAIN, ("t1", "v1"), ("t2", "v2"),
                                   "module.m[0].terraform_data.r0[0]")
    assert [c["address"] for c in theirs["resource_changes"]] == ["module.m[0].terraform_data.r0[0]"]
    for key in ("relevant_attributes", "output_changes", "resource_changes"):
        assert ours.get(key) == theirs.get(key), key


EARLY_MAIN = """
resource "terraform_data" "r1" {
  input = module.m.r0_output
}
module "m" {
  source = "./m"
  r1_id  = terraform_data.r1.id
}
output "ids" { value = module.m.r7_id }
output "none" { value = module.m.none }
"""

EARLY_CHILD = """
variable "r1_id" {}
resource "terraform_data" "r0" {
  input = "v0"
}
resource "terraform_data" "r7" {
  count = 1
  input = var.r1_id
}
resource "terraform_data" "r8" {
  count = 0
  input = var.r1_id
}
output "r0_output" { value = terraform_data.r0.output }
output "r7_id" { value = terraform_data.r7[*].id }
output "none" { value = terraform_data.r8[*].id }
"""


@requires_terraform
def test_module_output_read_before_its_resources_are_planned_is_planned_as_precisely(
        workdir: Workdir, tmp_path_factory: pytest.TempPathFactory) -> None:
    # r1 reads module.m (so every output of m) before m's r7 and r8, which wait for r1, are
    # planned: the outputs' values once they are must be as precise as terraform's ([unknown], [])
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        (wd.path / "m").mkdir()
        wd.write(EARLY_MAIN)
        wd.write(EARLY_CHILD, "m/main.tf")
    assert tf.terraform("init", "-input=false").returncode == 0
    workdir.strata("init", "-input=false", check=True)
    ours = _normalise(_saved_plan_json(workdir, "strata"))
    theirs = _normalise(_saved_plan_json(tf, "terraform"))
    assert theirs["output_changes"]["ids"]["after_unknown"] == [True]
    assert theirs["output_changes"]["none"]["after"] == []
    for key in ("planned_values", "output_changes", "resource_changes"):
        assert ours.get(key) == theirs.get(key), key


EXPANDED_MAIN = """
module "m" {
  source   = "./m"
  for_each = toset(["x", "y"])
}
output "o1" { value = { for k, v in module.m : k => v.r3_output } }
"""

EXPANDED_CHILD = """
resource "terraform_data" "r0" {
  input = "v2"
}
resource "terraform_data" "r3" {
  input = { v = "%s", r0 = terraform_data.r0.output }
}
output "r0_id" { value = terraform_data.r0.id }
output "r3_output" { value = terraform_data.r3.output }
"""


@requires_terraform
def test_targeted_instance_in_one_module_instance_leaves_the_others_as_the_state_has_them(
        workdir: Workdir, tmp_path_factory: pytest.TempPathFactory) -> None:
    # -target of r3 in module.m["x"]: r3 of module.m["y"] is not planned, and the output over the
    # whole module sees it as the state has it (known), as terraform's does
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        (wd.path / "m").mkdir()
        wd.write(EXPANDED_MAIN)
        wd.write(EXPANDED_CHILD % "v0", "m/main.tf")
    assert tf.terraform("apply", "-auto-approve", "-input=false").returncode == 0
    workdir.strata("apply", "-auto-approve", check=True)
    docs = []
    for wd, run in ((workdir, workdir.strata), (tf, tf.terraform)):
        wd.write(EXPANDED_CHILD % "v1", "m/main.tf")
        assert run("plan", "-out=p.bin", '-target=module.m["x"].terraform_data.r3', "-input=false").returncode == 0
        res = run("show", "-json", "p.bin")
        assert res.returncode == 0, res.stderr
        docs.append(_normalise(orjson.loads(res.stdout)))
    ours, theirs = docs
    assert theirs["output_changes"]["o1"]["after"] == {"y": {"r0": "v2", "v": "v0"}}
    for key in ("output_changes", "planned_values", "resource_changes", "relevant_attributes"):
        assert ours.get(key) == theirs.get(key), key
    assert ours["prior_state"].get("values", {}).get("outputs") == theirs["prior_state"].get("values", {}).get("outputs")
    workdir.strata("apply", "p.bin", check=True)
    out = orjson.loads(workdir.strata("output", "-json", check=True).stdout)
    assert out["o1"]["value"] == {"x": {"r0": "v2", "v": "v1"}, "y": {"r0": "v2", "v": "v0"}}


DEPENDS_ON_MAIN = """
variable "x" {
  default = "v"
}
resource "terraform_data" "a" {
  count = 2
}
module "m" {
  source     = "./m"
  depends_on = [terraform_data.a[1], var.x]
}
resource "terraform_data" "b" {
  depends_on = [module.m, terraform_data.a, var.x]
}
output "o" {
  value      = "o"
  depends_on = [module.m, terraform_data.b]
}
"""


@requires_terraform
def test_configuration_depends_on_keeps_the_order_written(workdir: Workdir,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    # differential seed 881: module.m listed before a resource came out after it
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    docs = []
    for wd, tool in ((workdir, "strata"), (tf, "terraform")):
        wd.write(DEPENDS_ON_MAIN)
        (wd.path / "m").mkdir()
        wd.write('resource "terraform_data" "c" {}\n', "m/main.tf")
        if tool == "terraform":
            assert tf.terraform("init", "-input=false").returncode == 0
        docs.append(_saved_plan_json(wd, tool)["configuration"]["root_module"])
    ours, theirs = docs
    assert [r.get("depends_on") for r in ours["resources"]] == [r.get("depends_on") for r in theirs["resources"]]
    assert ours["resources"][1]["depends_on"] == ["module.m", "terraform_data.a", "var.x"]
    assert ours["module_calls"]["m"]["depends_on"] == theirs["module_calls"]["m"]["depends_on"]
    assert ours["outputs"]["o"]["depends_on"] == theirs["outputs"]["o"]["depends_on"]
