"""``import`` blocks through the ``strata`` command, compared with terraform 1.11 on the same files:
the plan's text ("will be imported", "(imported from ...)", "Plan: 1 to import, ..."), its
``-json`` planned changes, the apply's "Importing..." lines and summary, the state after it, and
terraform's errors."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from tests.cli.test_moved_blocks import _UUID, Both, plan_text
from tests.conftest import Result, requires_terraform


@pytest.fixture
def both(tmp_path: Path) -> Both:
    return Both(tmp_path)


def _apply_lines(res: Result) -> list[str]:
    """What an apply printed about objects and its summary, in order of address."""
    return sorted(_UUID.sub("<id>", line) for line in res.stdout.splitlines()
                  if re.search(r": (Import|Modif|Creat|Destr)|Apply complete", line))


def _resources(w_path: Path) -> object:
    state = orjson.loads(_UUID.sub("<id>", (w_path / "terraform.tfstate").read_text()))
    return [(r.get("module"), r["type"], r["name"], [i.get("index_key") for i in r["instances"]],
             [i["attributes"] for i in r["instances"]]) for r in state["resources"]]


def _apply_both(both: Both, files: dict[str, str]) -> None:
    both.write(files)
    tf = both.tf.terraform("apply", "-auto-approve", "-input=false", "-no-color")
    st = both.st.strata("apply", "-auto-approve", "-input=false", "-no-color")
    assert st.returncode == tf.returncode == 0, st.stdout + st.stderr
    assert _apply_lines(st) == _apply_lines(tf)
    assert _resources(both.st.path) == _resources(both.tf.path)


PLAIN = {"main.tf": """
    resource "terraform_data" "a" {
    }
    import {
      to = terraform_data.a
      id = "abc"
    }
    """}


@requires_terraform
def test_an_import_block_imports_the_object_without_changing_it(both: Both) -> None:
    text = both.same_plan(PLAIN)
    assert "terraform_data.a: Preparing import... [id=abc]" in both.st.strata("plan", "-no-color").stdout
    assert "# terraform_data.a will be imported" in text
    assert "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy." in text
    _apply_both(both, PLAIN)
    tf, st = both.plan(PLAIN, "-detailed-exitcode")
    assert (tf.returncode, st.returncode) == (0, 0), st.stdout + st.stderr


@requires_terraform
def test_an_imported_object_that_differs_from_its_configuration_is_updated(both: Both) -> None:
    files = {"main.tf": PLAIN["main.tf"].replace('"a" {\n', '"a" {\n      input = "q"\n', 1)}
    text = both.same_plan(files)
    assert '# (imported from "abc")' in text
    assert "Plan: 1 to import, 0 to add, 1 to change, 0 to destroy." in text
    _apply_both(both, files)


@requires_terraform
def test_import_for_each_imports_one_instance_per_element(both: Both) -> None:
    files = {"main.tf": """
        locals {
          ids = { p = "id-p", q = "id-q" }
        }
        resource "terraform_data" "d" {
          for_each = local.ids
        }
        import {
          for_each = local.ids
          to       = terraform_data.d[each.key]
          id       = each.value
        }
        """}
    text = both.same_plan(files)
    assert "Plan: 2 to import, 0 to add, 0 to change, 0 to destroy." in text
    _apply_both(both, files)


@requires_terraform
def test_an_import_block_for_an_object_already_managed_does_nothing(both: Both) -> None:
    _apply_both(both, PLAIN)
    changed = {"main.tf": PLAIN["main.tf"].replace('"abc"', '"other"')}
    tf, st = both.plan(changed, "-detailed-exitcode")
    assert (tf.returncode, st.returncode) == (0, 0), st.stdout + st.stderr


@requires_terraform
def test_an_import_target_without_configuration_is_terraforms_error(both: Both) -> None:
    tf, st = both.plan({"main.tf": """
        import {
          to = terraform_data.missing
          id = "abc"
        }
        """})
    assert st.returncode == tf.returncode == 1
    assert "Traceback" not in st.stderr
    # terraform's detail goes on to suggest -generate-config-out, which strata has not
    assert plan_text(st).split("does not")[0] == plan_text(tf).split("does not")[0]
    assert "Error: Configuration for import target does not exist" in plan_text(st)


@requires_terraform
def test_an_import_to_an_instance_its_for_each_does_not_declare_is_terraforms_error(both: Both) -> None:
    tf, st = both.plan({"main.tf": """
        resource "terraform_data" "d" {
          for_each = toset(["p"])
        }
        import {
          to = terraform_data.d["zzz"]
          id = "abc"
        }
        """})
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert 'The configuration for the given import terraform_data.d["zzz"] does not exist' in plan_text(st)
    assert not (both.st.path / "terraform.tfstate").exists()


@requires_terraform
def test_two_import_blocks_for_one_instance_are_terraforms_error(both: Both) -> None:
    tf, st = both.plan({"main.tf": """
        resource "terraform_data" "d" {
        }
        import {
          to = terraform_data.d
          id = "abc"
        }
        import {
          to = terraform_data.d
          id = "abc"
        }
        """})
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert "Preparing import" not in st.stdout


def test_a_saved_plan_with_an_import_records_the_object_when_applied(tmp_path: Path) -> None:
    from tests.conftest import Workdir

    w = Workdir(tmp_path)
    w.write(PLAIN["main.tf"])
    w.strata("plan", "-out=p.plan", check=True)
    applied = w.strata("apply", "-no-color", "p.plan", check=True)
    assert "terraform_data.a: Import complete [id=abc]" in applied.stdout
    assert "Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed." in applied.stdout
    assert w.strata("state", "list", check=True).stdout == "terraform_data.a\n"


@requires_terraform
def test_the_null_plugin_refusing_an_import_stops_the_plan_as_terraforms(both: Both) -> None:
    """The real terraform-provider-null: its null_resource has no importer. The plan shows what it
    planned before (a move), then the provider's error, as terraform's does."""
    from tests.plugins.fetch import fetch

    got = fetch(aws=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(got.problems))
    first = {"main.tf": 'resource "null_resource" "a" {\n  triggers = { v = "1" }\n}\n'}
    both.write(first)
    for w in (both.tf, both.st):
        assert w.terraform("init", "-input=false", "-no-color", f"-plugin-dir={got.mirror}").returncode == 0
    assert both.tf.terraform("apply", "-auto-approve", "-no-color").returncode == 0
    both.st.strata("apply", "-auto-approve", "-no-color", check=True)
    both.write({"main.tf": """
        resource "null_resource" "b" {
          triggers = { v = "1" }
        }
        moved {
          from = null_resource.a
          to   = null_resource.b
        }
        resource "null_resource" "i" {
        }
        import {
          to = null_resource.i
          id = "12345"
        }
        """})
    tf = both.tf.terraform("plan", "-input=false", "-no-color")
    st = both.st.strata("plan", "-input=false", "-no-color")
    assert st.returncode == tf.returncode == 1

    def numbered(res: Result) -> str:  # null_resource ids are random numbers
        return re.sub(r"\d{8,}", "<id>", plan_text(res))

    assert numbered(st) == numbered(tf)
    assert "Error: resource null_resource doesn't support import" in plan_text(st)


@requires_terraform
def test_an_import_block_imports_into_a_module_instance(both: Both) -> None:
    files = {
        "main.tf": """
            module "m" {
              source = "./mod"
              count  = 2
            }
            import {
              to = module.m[1].terraform_data.x
              id = "in-module"
            }
            """,
        "mod/main.tf": """
            resource "terraform_data" "x" {
            }
            """,
    }
    text = both.same_plan(files)
    assert "# module.m[1].terraform_data.x will be imported" in text
    _apply_both(both, files)
