"""``removed`` blocks through the ``strata`` command, compared with terraform 1.11 on the same
files: ``destroy = false`` forgets the object (terraform's plan text, warning and ``-json``), the
state after the apply; ``destroy = true`` destroys as a removed resource; terraform's error for a
block whose resource is still declared."""

from __future__ import annotations

from pathlib import Path

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
