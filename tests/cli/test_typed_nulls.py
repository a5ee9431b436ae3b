"""Typed nulls outside the console: an output whose value holds a null (an ``optional()``
attribute left out, a typed variable's null) records that null's type as terraform does, in the
state file, ``output -json``, ``show -json`` (state and plan) and the apply's text; a null output
is no output in the state, but a plan lists it, of type dynamic."""

from __future__ import annotations

import orjson

from tests.conftest import Workdir, requires_terraform

CONFIG = """
variable "l" {
  type    = list(string)
  default = null
}
variable "o" {
  type    = object({ a = string, b = optional(list(number)), c = optional(map(string)) })
  default = { a = "x" }
}
variable "n" {
  type    = object({ p = optional(object({ q = string })), r = optional(set(bool)) })
  default = {}
}
output "l" { value = var.l }
output "o" { value = var.o }
output "n" { value = var.n }
output "u" { value = null }
output "c" { value = true ? var.l : null }
output "m" { value = { k = var.o.b } }
"""

O_TYPE = ["object", {"a": "string", "b": ["list", "number"], "c": ["map", "string"]}]
N_TYPE = ["object", {"p": ["object", {"q": "string"}], "r": ["set", "bool"]}]
M_TYPE = ["object", {"k": ["list", "number"]}]


def _applied(workdir: Workdir) -> Workdir:
    workdir.write(CONFIG)
    workdir.strata("init", check=True)
    workdir.strata("apply", "-auto-approve", "-no-color", check=True)
    return workdir


def test_output_json_gives_the_types_of_nulls_inside(workdir: Workdir) -> None:
    got = orjson.loads(_applied(workdir).strata("output", "-json", check=True).stdout)
    assert sorted(got) == ["m", "n", "o"]  # null outputs are no outputs
    assert got["o"] == {"sensitive": False, "type": O_TYPE, "value": {"a": "x", "b": None, "c": None}}
    assert got["n"]["type"] == N_TYPE
    assert got["m"]["type"] == M_TYPE


def test_the_state_file_records_them(workdir: Workdir) -> None:
    outputs = _applied(workdir).state()["outputs"]
    assert outputs["o"]["type"] == O_TYPE
    assert outputs["n"]["type"] == N_TYPE


def test_show_json_of_the_state_gives_them(workdir: Workdir) -> None:
    doc = orjson.loads(_applied(workdir).strata("show", "-json", check=True).stdout)
    assert doc["values"]["outputs"]["o"]["type"] == O_TYPE


def test_output_text_shows_typed_nulls_as_terraform(workdir: Workdir) -> None:
    res = _applied(workdir).strata("output", "-no-color", "o", check=True)
    assert res.stdout == '{\n  "a" = "x"\n  "b" = tolist(null) /* of number */\n  "c" = tomap(null) /* of string */\n}\n'


def test_a_saved_plan_lists_null_outputs_of_type_dynamic(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("init", check=True)
    workdir.strata("plan", "-out=p.bin", "-no-color", check=True)
    doc = orjson.loads(workdir.strata("show", "-json", "p.bin", check=True).stdout)
    planned = doc["planned_values"]["outputs"]
    assert planned["u"] == {"sensitive": False, "type": "dynamic", "value": None}
    assert planned["l"]["type"] == "dynamic"
    assert planned["o"]["type"] == O_TYPE
    assert doc["output_changes"]["o"]["after_unknown"] is False


@requires_terraform
def test_each_surface_matches_terraform(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    docs = {}
    for tool in ("terraform", "strata"):
        run = workdir.terraform if tool == "terraform" else workdir.strata
        if tool == "strata":
            (workdir.path / "terraform.tfstate").unlink()
            run("init")
        assert run("plan", "-out=p.bin", "-no-color").returncode == 0
        plan = orjson.loads(run("show", "-json", "p.bin").stdout)
        applied = run("apply", "-auto-approve", "-no-color")
        assert applied.returncode == 0, applied.stderr
        docs[tool] = {
            "planned": plan["planned_values"]["outputs"], "changes": plan["output_changes"],
            "output": orjson.loads(run("output", "-json").stdout),
            "state": orjson.loads(run("show", "-json").stdout)["values"]["outputs"],
            "file": workdir.state()["outputs"],
            "text": applied.stdout[applied.stdout.rindex("\nOutputs:"):],
        }
    for surface, theirs in docs["terraform"].items():
        assert docs["strata"][surface] == theirs, surface


RESOURCE = """
variable "o" {
  type    = object({ a = optional(string), b = optional(list(number)) })
  default = {}
}
resource "terraform_data" "d" {
  input = var.o
}
"""

D_TYPE = ["object", {"a": "string", "b": ["list", "number"]}]


def test_a_dynamic_attribute_records_the_types_of_its_nulls(workdir: Workdir) -> None:
    workdir.write(RESOURCE)
    workdir.strata("init", check=True)
    workdir.strata("apply", "-auto-approve", "-no-color", check=True)
    attrs = workdir.state()["resources"][0]["instances"][0]["attributes"]
    assert attrs["input"] == {"value": {"a": None, "b": None}, "type": D_TYPE}
    assert attrs["output"] == {"value": {"a": None, "b": None}, "type": D_TYPE}
    assert workdir.strata("plan", "-detailed-exitcode", "-no-color").returncode == 0


@requires_terraform
def test_terraform_plans_no_change_on_the_state(workdir: Workdir) -> None:
    workdir.write(RESOURCE)
    workdir.strata("init", check=True)
    workdir.strata("apply", "-auto-approve", "-no-color", check=True)
    res = workdir.terraform("plan", "-detailed-exitcode", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
