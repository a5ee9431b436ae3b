"""``removed`` blocks through the ``strata`` command, compared with terraform 1.11 on the same
files: ``destroy = false`` forgets the object (terraform's plan text, warning and ``-json``), the
state after the apply; ``destroy = true`` destroys as a removed resource; terraform's error for a
block whose resource is still declared."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from tests.cli.test_moved_blocks import Both, plan_text
from tests.conftest import requires_terraform


@pytest.fixture
def both(tmp_path: Path) -> Both:
    return Both(tmp_path)


START = {
    "main.tf": """
        resource "terraform_data" "e" {
          input = "y"
        }
        resource "terraform_data" "d" {
          for_each = toset(["p", "q"])
          input    = each.key
        }
        module "m" {
          source = "./mod"
        }
        """,
    "mod/main.tf": """
        resource "terraform_data" "x" {
          count = 2
          input = count.index
        }
        """,
}


def _without(*names: str, extra: str) -> dict[str, str]:
    main = START["main.tf"]
    for n in names:
        start = main.index(n)
        main = main[:start] + main[main.index("\n        }\n", start) + len("\n        }\n"):]
    return {**START, "main.tf": main + extra}


FORGET_E = """
        removed {
          from = terraform_data.e
          lifecycle {
            destroy = false
          }
        }
        """


@requires_terraform
def test_destroy_false_forgets_the_object_without_destroying_it(both: Both) -> None:
    both.apply(START)
    files = _without('resource "terraform_data" "e"', extra=FORGET_E)
    text = both.same_plan(files)
    assert "# terraform_data.e will no longer be managed by strata, but will not be destroyed" in text
    assert "Warning: Some objects will no longer be managed by strata" in text
    both.apply(files)
    assert "terraform_data.e" not in both.state_list()
    tf, st = both.plan(files, "-detailed-exitcode")
    assert (tf.returncode, st.returncode) == (0, 0), st.stdout + st.stderr


@requires_terraform
def test_a_removed_module_is_forgotten_with_every_instance_in_it(both: Both) -> None:
    both.apply(START)
    files = _without('module "m"', extra="""
        removed {
          from = module.m
          lifecycle {
            destroy = false
          }
        }
        """)
    text = both.same_plan(files)
    assert "# module.m.terraform_data.x[1] will no longer be managed" in text
    both.apply(files)
    assert "module.m" not in both.state_list()


@requires_terraform
def test_destroy_true_destroys_as_a_removed_resource(both: Both) -> None:
    both.apply(START)
    files = _without('resource "terraform_data" "d"', extra="""
        removed {
          from = terraform_data.d
          lifecycle {
            destroy = true
          }
        }
        """)
    text = both.same_plan(files)
    assert '# terraform_data.d["p"] will be destroyed' in text
    both.apply(files)
    assert "terraform_data.d" not in both.state_list()


@requires_terraform
def test_a_removed_resource_still_declared_is_terraforms_error(both: Both) -> None:
    tf, st = both.plan({**START, "main.tf": START["main.tf"] + FORGET_E})
    assert st.returncode == tf.returncode == 1
    assert "Traceback" not in st.stderr
    assert plan_text(st) == plan_text(tf)
    assert "Error: Removed resource still exists" in plan_text(st)


def _changes_json(res_stdout: str) -> str:
    doc = orjson.loads(res_stdout)
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>",
                  orjson.dumps([doc["resource_changes"], doc["planned_values"]], option=orjson.OPT_SORT_KEYS).decode())


@requires_terraform
def test_show_json_of_a_plan_that_moves_imports_and_forgets_is_terraforms(both: Both) -> None:
    both.apply(START)
    both.write({**START, "main.tf": _without('module "m"', extra="""
        removed {
          from = module.m
          lifecycle {
            destroy = false
          }
        }
        moved {
          from = terraform_data.e
          to   = terraform_data.moved_e
        }
        resource "terraform_data" "imported" {
        }
        import {
          to = terraform_data.imported
          id = "abc"
        }
        """)["main.tf"].replace('"e" {', '"moved_e" {')})
    assert both.tf.terraform("plan", "-out=p.tfplan", "-no-color").returncode == 0
    both.st.strata("plan", "-out=p.tfplan", "-no-color", check=True)
    ours = both.st.strata("show", "-json", "p.tfplan", check=True).stdout
    theirs = both.tf.terraform("show", "-json", "p.tfplan").stdout
    assert _changes_json(ours) == _changes_json(theirs)
