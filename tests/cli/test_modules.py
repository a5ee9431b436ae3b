"""Module blocks through the ``strata`` command, each configuration compared with terraform 1.11 on
the same files: the operations performed, terraform's own ordering constraints (``terraform graph
-type=apply -plan=FILE``) respected, ``output -json``, ``state list``, and the state interoperable
both ways (each tool plans no changes on the other's state)."""

from __future__ import annotations

import re
import shutil
import textwrap
from collections import Counter
from pathlib import Path

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform
from tests.differential.compare import graph_constraints
from tests.differential.run import parse_graph


def _events(res: Result) -> list[dict]:
    return [orjson.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]


def _operations(events: list[dict]) -> Counter[tuple[str, str]]:
    return Counter((e["hook"]["resource"]["addr"], e["hook"]["action"]) for e in events if e["type"] == "apply_start")


def _violations(events: list[dict], edges: list[tuple[str, str]]) -> list[str]:
    started: dict[tuple[str, str], int] = {}
    completed: dict[tuple[str, str], int] = {}
    for i, e in enumerate(events):
        if e["type"] in ("apply_start", "apply_complete"):
            key = (e["hook"]["resource"]["addr"], "delete" if e["hook"]["action"] == "delete" else "write")
            if e["type"] == "apply_start":
                started.setdefault(key, i)
            else:
                completed[key] = i
    return [f"{then} started before {first} completed" for first, then in sorted(graph_constraints(edges))
            if first in completed and then in started and completed[first] > started[then]]


class Both:
    """The same files applied by terraform (in ``tf``) and strata (in ``st``), step after step."""

    def __init__(self, tmp_path: Path) -> None:
        (tmp_path / "tf").mkdir()
        (tmp_path / "st").mkdir()
        self.tf = Workdir(tmp_path / "tf")
        self.st = Workdir(tmp_path / "st")

    def write(self, files: dict[str, str]) -> None:
        for w in (self.tf, self.st):
            for name in list(w.path.rglob("*.tf")):
                name.unlink()
            for name, text in files.items():
                p = w.path / name
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(textwrap.dedent(text))

    def apply(self, files: dict[str, str], *options: str) -> tuple[list[dict], list[dict]]:
        """Apply ``files`` with both tools; their event streams (terraform's, strata's)."""
        self.write(files)
        self.tf.terraform("init", "-input=false", "-no-color")
        plan = self.tf.terraform("plan", "-input=false", "-out=step.tfplan", *options)
        assert plan.returncode == 0, plan.stderr + plan.stdout
        edges = parse_graph(self.tf.terraform("graph", "-type=apply", "-plan=step.tfplan").stdout)
        tf = self.tf.terraform("apply", "-input=false", "-json", "-parallelism=1", "step.tfplan")
        assert tf.returncode == 0, tf.stdout + tf.stderr
        st = self.st.strata("apply", "-auto-approve", "-input=false", "-json", "-parallelism=1", *options)
        assert st.returncode == 0, st.stdout + st.stderr
        tf_events, st_events = _events(tf), _events(st)
        assert _operations(st_events) == _operations(tf_events)
        assert _violations(st_events, edges) == []
        assert self.st.strata("output", "-json").stdout and self._outputs(self.st) == self._outputs(self.tf)
        assert self.st.strata("state", "list", check=True).stdout == self.tf.terraform("state", "list").stdout
        return tf_events, st_events

    @staticmethod
    def _outputs(w: Workdir) -> object:
        res = w.strata("output", "-json") if w.path.name == "st" else w.terraform("output", "-json")
        return _without_ids(orjson.loads(res.stdout or "{}"))

    def interoperable(self, *options: str) -> None:
        """Each tool plans no changes on the state the other wrote."""
        other = self.st.path.parent / "swap"
        shutil.copytree(self.tf.path, other / "tf", ignore=shutil.ignore_patterns("terraform.tfstate*"))
        shutil.copytree(self.st.path, other / "st", ignore=shutil.ignore_patterns("terraform.tfstate*"))
        shutil.copy(self.st.path / "terraform.tfstate", other / "tf" / "terraform.tfstate")
        shutil.copy(self.tf.path / "terraform.tfstate", other / "st" / "terraform.tfstate")
        theirs = Workdir(other / "tf").terraform("plan", "-detailed-exitcode", "-no-color", *options)
        assert theirs.returncode == 0, theirs.stdout + theirs.stderr
        ours = Workdir(other / "st").strata("plan", "-detailed-exitcode", "-no-color", *options)
        assert ours.returncode == 0, ours.stdout + ours.stderr


def _without_ids(v: object) -> object:
    """Output values with the random ids of terraform_data replaced (the tools made different ones)."""
    if isinstance(v, dict):
        return {k: _without_ids(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_without_ids(x) for x in v]
    if isinstance(v, str) and re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", v):
        return "<id>"
    return v


@pytest.fixture
def both(tmp_path: Path) -> Both:
    return Both(tmp_path)


NESTED = {
    "main.tf": """
        module "a" {
          source = "./modules/child"
          name   = "one"
        }
        resource "terraform_data" "root" {
          input = module.a.leaf
        }
        output "a" {
          value = module.a
        }
        output "root" {
          value = terraform_data.root.output
        }
        """,
    "modules/child/main.tf": """
        variable "name" {
          type = string
        }
        resource "terraform_data" "r" {
          input = var.name
        }
        module "leaf" {
          source = "../leaf"
          v      = terraform_data.r.output
        }
        output "id" {
          value = terraform_data.r.id
        }
        output "leaf" {
          value = module.leaf.out
        }
        output "path" {
          value = path.module
        }
        """,
    "modules/leaf/main.tf": """
        variable "v" {}
        locals {
          up = upper(var.v)
        }
        resource "terraform_data" "l" {
          input = local.up
        }
        output "out" {
          value = terraform_data.l.output
        }
        """,
}


@requires_terraform
def test_nested_modules_apply_as_terraform_applies_them(both: Both) -> None:
    both.apply(NESTED)
    assert both.st.strata("output", "-json", "root").stdout.strip() == '"ONE"'
    both.interoperable()


def _repeated(count: int, keys: list[str]) -> dict[str, str]:
    return {
        "main.tf": f"""
            variable "keys" {{
              default = {orjson.dumps(keys).decode()}
            }}
            module "counted" {{
              source = "./m"
              count  = {count}
              name   = "c${{count.index}}"
            }}
            module "keyed" {{
              source   = "./m"
              for_each = toset(var.keys)
              name     = each.key
            }}
            resource "terraform_data" "first" {{
              count = {count}
              input = module.counted[count.index].value
            }}
            output "counted" {{
              value = module.counted[*].value
            }}
            output "keyed" {{
              value = {{ for k, m in module.keyed : k => m.value }}
            }}
            """,
        "m/main.tf": """
            variable "name" {
              type = string
            }
            resource "terraform_data" "x" {
              input = var.name
            }
            resource "terraform_data" "y" {
              input = terraform_data.x.output
            }
            output "value" {
              value = terraform_data.y.output
            }
            """,
    }


@requires_terraform
def test_count_and_for_each_on_modules_expand_as_terraform_expands_them(both: Both) -> None:
    both.apply(_repeated(2, ["a", "b"]))
    both.interoperable()
    both.apply(_repeated(2, ["a", "b"]), "-destroy")


@requires_terraform
def test_module_instances_removed_are_destroyed_in_terraforms_order(both: Both) -> None:
    both.apply(_repeated(3, ["a", "b", "c"]))
    both.apply(_repeated(1, ["b"]))
    both.interoperable()


@requires_terraform
def test_a_removed_module_block_is_destroyed_in_terraforms_order(both: Both) -> None:
    both.apply(NESTED)
    both.apply({"main.tf": 'resource "terraform_data" "other" {\n  input = 1\n}\n'})
    both.interoperable()


CBD = {
    "main.tf": """
        variable "v" {
          default = "1"
        }
        resource "terraform_data" "source" {
          triggers_replace = var.v
        }
        module "outer" {
          source = "./outer"
          v      = terraform_data.source.id
        }
        resource "terraform_data" "dependent" {
          input = module.outer.id
        }
        """,
    "outer/main.tf": """
        variable "v" {}
        module "inner" {
          source = "../inner"
          v      = var.v
        }
        output "id" {
          value = module.inner.id
        }
        """,
    "inner/main.tf": """
        variable "v" {}
        resource "terraform_data" "base" {
          input = var.v
        }
        resource "terraform_data" "cbd" {
          # var.v too: strata records direct dependencies only (a known deviation, not the modules')
          triggers_replace = "${terraform_data.base.output}-${var.v}"
          lifecycle {
            create_before_destroy = true
          }
        }
        output "id" {
          value = terraform_data.cbd.id
        }
        """,
}


@requires_terraform
def test_create_before_destroy_in_a_nested_module_with_dependents_in_the_root(both: Both) -> None:
    # the module's create_before_destroy forces it on terraform_data.source, in the root
    both.apply(CBD)
    tf, st = both.apply(CBD, "-var=v=2")
    assert [e["hook"]["action"] for e in st if e["type"] == "apply_start"
            and e["hook"]["resource"]["addr"] == "terraform_data.source"] == ["create", "delete"]
    both.interoperable("-var=v=2")
    both.apply(CBD, "-var=v=2", "-destroy")


DEPENDS = {
    "main.tf": """
        resource "terraform_data" "first" {
          input = "x"
        }
        module "m" {
          source     = "./m"
          count      = 2
          depends_on = [terraform_data.first]
        }
        resource "terraform_data" "last" {
          input      = "y"
          depends_on = [module.m]
        }
        """,
    "m/main.tf": """
        resource "terraform_data" "a" {
          input = "a"
        }
        resource "terraform_data" "b" {
          input = "b"
        }
        """,
}


@requires_terraform
def test_depends_on_a_module_and_from_a_module_wait_for_every_instance(both: Both) -> None:
    _tf, st = both.apply(DEPENDS)
    order = [e["hook"]["resource"]["addr"] for e in st if e["type"] == "apply_complete"]
    assert order[0] == "terraform_data.first" and order[-1] == "terraform_data.last"
    # (what has no change in between orders nothing in strata: a known deviation, not the modules')
    both.apply({"main.tf": DEPENDS["main.tf"].replace('"x"', '"x2"').replace('"y"', '"y2"'),
                "m/main.tf": DEPENDS["m/main.tf"].replace('"a"', '"a2"').replace('"b"', '"b2"')})
    both.interoperable()


PROVIDERS = {
    "main.tf": """
        terraform {
          required_providers {
            terraform = {
              source = "terraform.io/builtin/terraform"
            }
          }
        }
        provider "terraform" {
          alias = "other"
        }
        module "a" {
          source = "./m"
          providers = {
            terraform.x = terraform.other
          }
        }
        """,
    "m/main.tf": """
        terraform {
          required_providers {
            terraform = {
              source                = "terraform.io/builtin/terraform"
              configuration_aliases = [terraform.x]
            }
          }
        }
        resource "terraform_data" "inherited" {
          input = 1
        }
        resource "terraform_data" "passed" {
          provider = terraform.x
          input    = 2
        }
        """,
}


@requires_terraform
def test_providers_are_inherited_and_passed_as_terraform_passes_them(both: Both) -> None:
    both.apply(PROVIDERS)
    providers = {(r["module"], r["name"]): r["provider"] for r in both.st.state()["resources"]}
    assert providers == {r: p for r, p in ((("module.a", "inherited"), 'provider["terraform.io/builtin/terraform"]'),
                                           (("module.a", "passed"),
                                            'provider["terraform.io/builtin/terraform"].other'))}
    assert providers == {(r["module"], r["name"]): r["provider"] for r in both.tf.state()["resources"]}
    both.interoperable()


def test_an_alias_a_module_requires_and_is_not_passed_is_a_diagnostic(workdir: Workdir) -> None:
    (workdir.path / "m").mkdir()
    workdir.write(PROVIDERS["m/main.tf"], "m/main.tf")
    workdir.write('module "a" {\n  source = "./m"\n}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "Error: Missing required provider configuration" in res.stderr
    assert "on main.tf line 1:" in res.stderr and "Traceback" not in res.stderr


def _planned(res: Result) -> list[str]:
    return sorted(e["change"]["resource"]["addr"] for e in _events(res) if e["type"] == "planned_change")


@requires_terraform
def test_target_a_module_instance_or_a_resource_in_it_plans_what_terraform_plans(both: Both) -> None:
    both.write(NESTED | {"main.tf": NESTED["main.tf"].replace('name   = "one"', 'name   = "one"\n  count  = 2')
                         .replace("module.a.leaf", "module.a[0].leaf")})
    for target in ("module.a", "module.a[1]", "module.a[0].module.leaf.terraform_data.l", "terraform_data.root"):
        ours = both.st.strata("plan", "-json", f"-target={target}")
        theirs = both.tf.terraform("plan", "-json", f"-target={target}")
        assert _planned(ours) == _planned(theirs), target


@requires_terraform
def test_state_rm_and_mv_of_whole_modules_as_terraform(both: Both) -> None:
    both.apply(_repeated(2, ["a", "b"]))
    for args in (("mv", "module.counted[0]", "module.moved"), ("rm", 'module.keyed["a"]'), ("rm", "module.counted")):
        ours = both.st.strata("state", *args)
        theirs = both.tf.terraform("state", *args)
        assert ours.returncode == theirs.returncode == 0, ours.stderr + theirs.stderr
        assert ours.stdout.splitlines()[-1] == theirs.stdout.splitlines()[-1]
        assert both.st.strata("state", "list").stdout == both.tf.terraform("state", "list").stdout


VALIDATED = {
    "main.tf": """
        module "a" {
          source = "./m"
          n      = 12
        }
        """,
    "m/main.tf": """
        variable "n" {
          type = number
          validation {
            condition     = var.n < 10
            error_message = "n must be small."
          }
        }
        variable "nn" {
          nullable = false
          default  = "d"
        }
        resource "terraform_data" "x" {
          input = "${var.nn}-${var.n}"
        }
        """,
}


@requires_terraform
def test_a_module_variables_validation_fails_the_plan_in_terraforms_words(both: Both) -> None:
    both.write(VALIDATED)
    ours = both.st.strata("plan", "-no-color")
    theirs = both.tf.terraform("plan", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    for line in ("Error: Invalid value for variable", 'on main.tf line 4, in module "a":', "n must be small.",
                 "This was checked by the validation rule at m/main.tf:4,3-13."):
        assert line in ours.stderr and line in theirs.stderr, line


@requires_terraform
def test_a_null_for_a_variable_that_is_not_nullable_takes_its_default(both: Both) -> None:
    files = {"main.tf": 'module "a" {\n  source = "./m"\n  n      = 1\n  nn     = null\n}\n'
             'output "x" {\n  value = module.a.x\n}\n',
             "m/main.tf": VALIDATED["m/main.tf"] + 'output "x" {\n  value = terraform_data.x.output\n}\n'}
    both.apply(files)
    assert both.st.strata("output", "-raw", "x").stdout == "d-1"


SENSITIVE = {
    "main.tf": """
        module "a" {
          source = "./m"
        }
        resource "terraform_data" "x" {
          input = module.a.marked
        }
        output "bad" {
          value = module.a.marked
        }
        output "ok" {
          value = module.a.declared
        }
        """,
    "m/main.tf": """
        output "marked" {
          value = sensitive("secret")
        }
        output "declared" {
          value     = "shown"
          sensitive = true
        }
        """,
}


@requires_terraform
def test_a_sensitive_value_through_a_module_output_is_refused_in_a_root_output_as_terraform(both: Both) -> None:
    # as terraform 1.11: a value marked sensitive stays so through an output; "sensitive = true" on
    # the module's output does not mark what the caller gets
    both.write(SENSITIVE)
    ours = both.st.strata("plan", "-no-color")
    theirs = both.tf.terraform("plan", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    for text in (ours.stdout + ours.stderr, theirs.stdout + theirs.stderr):
        assert "input  = (sensitive value)" in text and '+ ok = "shown"' in text
        assert "Error: Output refers to sensitive values" in text and "on main.tf line 8:" in text


@requires_terraform
def test_a_module_outputs_failed_precondition_stops_what_refers_to_it_as_terraform(both: Both) -> None:
    both.write({"main.tf": 'module "a" {\n  source = "./m"\n  n      = 3\n}\noutput "x" {\n  value = module.a.o\n}\n',
                "m/main.tf": """
                    variable "n" {}
                    output "o" {
                      value = var.n
                      precondition {
                        condition     = var.n > 5
                        error_message = "n too small."
                      }
                    }
                    """})
    ours = both.st.strata("plan", "-no-color")
    theirs = both.tf.terraform("plan", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    for text in (ours.stdout + ours.stderr, theirs.stdout + theirs.stderr):
        assert "Error: Module output value precondition failed" in text and "n too small." in text
        assert 'on m/main.tf line 6, in output "o":' in text and "Changes to Outputs" not in text
