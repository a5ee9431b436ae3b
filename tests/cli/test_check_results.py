"""The results of every *checkable object* through the ``strata`` command, side by side with
terraform 1.11 on the same files: resources' ``precondition`` / ``postcondition`` (kind
``resource``), outputs' ``precondition`` (``output_value``; ``output`` in the state) and
variables' ``validation`` (``var``), besides ``check`` blocks (tests/cli/test_check_blocks.py).
They are ``show -json PLANFILE``'s ``checks`` and, once applied, the state's ``check_results``
and ``show -json``'s ``checks``: statuses unknown while a value is, count and for_each instances,
module instances, conditions that fail, and those never reached because of an earlier failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

CONDITIONS = """
variable "name" {
  type    = string
  default = "web"
  validation {
    condition     = length(var.name) > 2
    error_message = "Name too short."
  }
  validation {
    condition     = var.name != "bad"
    error_message = "Name is bad."
  }
}

variable "plain" {
  default = 1
}

resource "terraform_data" "a" {
  count = 2
  input = "${var.name}-${count.index}"
  lifecycle {
    precondition {
      condition     = var.name != ""
      error_message = "empty"
    }
    postcondition {
      condition     = self.output != "x"
      error_message = "output is x"
    }
  }
}

resource "terraform_data" "b" {
  for_each = toset(["k1", "k.2"])
  input    = each.key
  lifecycle {
    postcondition {
      condition     = self.id != ""
      error_message = "no id"
    }
  }
}

resource "terraform_data" "zero" {
  count = 0
  lifecycle {
    precondition {
      condition     = var.plain == 1
      error_message = "x"
    }
  }
}

resource "terraform_data" "plain" {
  input = 1
}

output "o" {
  value = terraform_data.a[0].output
  precondition {
    condition     = terraform_data.a[0].output != "zzz"
    error_message = "o bad"
  }
}

output "known" {
  value = var.name
  precondition {
    condition     = var.name == "web"
    error_message = "not web"
  }
}

check "c" {
  assert {
    condition     = var.name == "web"
    error_message = "check failed"
  }
}
"""

CALLS = """
module "m" {
  source = "./mod"
  count  = 2
  v      = "val${count.index}"
}

module "one" {
  source = "./mod"
  v      = "single"
}
"""

MODULE = """
variable "v" {
  validation {
    condition     = length(var.v) > 1
    error_message = "short"
  }
}

variable "nv" {
  default = 1
}

resource "terraform_data" "r" {
  input = var.v
  lifecycle {
    postcondition {
      condition     = self.input == var.v
      error_message = "mismatch ${var.v}"
    }
  }
}

output "o" {
  value = terraform_data.r.input
  precondition {
    condition     = terraform_data.r.output != ""
    error_message = "empty"
  }
}
"""

APPLY_FAILURES = """
resource "terraform_data" "src" {
  input = "abc"
}

resource "terraform_data" "pre" {
  count = 2
  input = count.index
  lifecycle {
    precondition {
      condition     = terraform_data.src.output == "abc"
      error_message = "src is ${terraform_data.src.output}"
    }
    postcondition {
      condition     = self.output == count.index
      error_message = "post ok"
    }
  }
}

resource "terraform_data" "fails" {
  input = terraform_data.src.output
  lifecycle {
    postcondition {
      condition     = self.output == "zzz"
      error_message = "  output is not zzz  "
    }
    postcondition {
      condition     = self.output == "abc"
      error_message = "second"
    }
  }
}

resource "terraform_data" "downstream" {
  input = terraform_data.fails.output
  lifecycle {
    precondition {
      condition     = terraform_data.fails.output != ""
      error_message = "x"
    }
  }
}

output "o" {
  value = terraform_data.fails.output
  precondition {
    condition     = terraform_data.fails.output == "abc"
    error_message = "o"
  }
}

output "p" {
  value = terraform_data.src.output
  precondition {
    condition     = terraform_data.src.output == "nope"
    error_message = "p fails"
  }
}
"""

APPLY_FAILURES_RESULTS = [
    {"object_kind": "output", "config_addr": "output.o", "status": "unknown",
     "objects": [{"object_addr": "output.o", "status": "unknown"}]},
    {"object_kind": "output", "config_addr": "output.p", "status": "fail",
     "objects": [{"object_addr": "output.p", "status": "fail", "failure_messages": ["p fails"]}]},
    {"object_kind": "resource", "config_addr": "terraform_data.downstream", "status": "unknown",
     "objects": [{"object_addr": "terraform_data.downstream", "status": "unknown"}]},
    {"object_kind": "resource", "config_addr": "terraform_data.fails", "status": "fail",
     "objects": [{"object_addr": "terraform_data.fails", "status": "fail",
                  "failure_messages": ["output is not zzz"]}]},
    {"object_kind": "resource", "config_addr": "terraform_data.pre", "status": "pass",
     "objects": [{"object_addr": "terraform_data.pre[0]", "status": "pass"},
                 {"object_addr": "terraform_data.pre[1]", "status": "pass"}]},
]
"""What terraform 1.11 records of APPLY_FAILURES' apply (sorted as :func:`check_results` sorts)."""


def check_results(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The state's ``check_results`` in one order (terraform writes them in its map's order)."""
    got = state.get("check_results") or []
    return sorted(({**r, "objects": sorted(r["objects"] or [], key=lambda o: o["object_addr"])} for r in got),
                  key=lambda r: (r["object_kind"], r["config_addr"]))


def plan_checks(wd: Workdir, tool: str, *args: str) -> list[dict[str, Any]]:
    """``show -json``'s ``checks`` of a plan saved with ``args``."""
    run = wd.strata if tool == "strata" else wd.terraform
    res = run("plan", "-out=checks.plan", "-no-color", *args)
    assert res.returncode == 0, res.stdout + res.stderr
    shown = run("show", "-json", "checks.plan")
    assert shown.returncode == 0, shown.stderr
    return list(orjson.loads(shown.stdout).get("checks", []))


def side_by_side(tmp_path: Path, files: dict[str, str]) -> tuple[Workdir, Workdir]:
    out = []
    for tool in ("strata", "terraform"):
        wd = Workdir(tmp_path / tool)
        wd.path.mkdir()
        for name, text in files.items():
            (wd.path / name).parent.mkdir(parents=True, exist_ok=True)
            wd.write(text, name)
        out.append(wd)
    return out[0], out[1]


def apply_both(strata: Workdir, terraform: Workdir, *args: str) -> None:
    got = strata.strata("apply", "-auto-approve", "-no-color", *args)
    want = terraform.terraform("apply", "-auto-approve", "-no-color", *args)
    assert got.returncode == want.returncode == 0, got.stdout + got.stderr + want.stdout + want.stderr


FILES = {"root": {"main.tf": CONDITIONS}, "modules": {"main.tf": CALLS, "mod/main.tf": MODULE}}


def test_plan_json_has_every_checkable_object(workdir: Workdir) -> None:
    workdir.write(CONDITIONS)
    got = {c["address"]["to_display"]: c for c in plan_checks(workdir, "strata")}
    assert list(got) == sorted(got)  # as terraform's jsonchecks: sorted by address
    assert {a: c["address"]["kind"] for a, c in got.items()} == {
        "check.c": "check", "output.known": "output_value", "output.o": "output_value",
        "terraform_data.a": "resource", "terraform_data.b": "resource", "terraform_data.zero": "resource",
        "var.name": "var"}  # no var.plain nor terraform_data.plain: nothing to check
    assert got["terraform_data.b"]["instances"][0]["address"] == {
        "instance_key": "k.2", "to_display": 'terraform_data.b["k.2"]'}
    # known at plan: pass; refers to what is known only after apply: unknown; no instance: pass
    assert [(a, c["status"]) for a, c in got.items()] == [
        ("check.c", "pass"), ("output.known", "pass"), ("output.o", "unknown"), ("terraform_data.a", "unknown"),
        ("terraform_data.b", "unknown"), ("terraform_data.zero", "pass"), ("var.name", "pass")]
    assert "instances" not in got["terraform_data.zero"]


@requires_terraform
@pytest.mark.parametrize("files", list(FILES.values()), ids=list(FILES))
def test_plan_json_checks_match_terraform(tmp_path: Path, files: dict[str, str]) -> None:
    strata, terraform = side_by_side(tmp_path, files)
    assert plan_checks(strata, "strata") == plan_checks(terraform, "terraform")


@requires_terraform
@pytest.mark.parametrize("files", list(FILES.values()), ids=list(FILES))
def test_state_check_results_match_terraform(tmp_path: Path, files: dict[str, str]) -> None:
    strata, terraform = side_by_side(tmp_path, files)
    apply_both(strata, terraform)
    assert check_results(strata.state()) == check_results(terraform.state())
    got = orjson.loads(strata.strata("show", "-json", check=True).stdout)
    want = orjson.loads(terraform.terraform("show", "-json").stdout)
    assert got["checks"] == want["checks"]


@requires_terraform
def test_unchanged_instances_are_checked_again_as_terraform_does(tmp_path: Path) -> None:
    strata, terraform = side_by_side(tmp_path, FILES["root"])
    apply_both(strata, terraform)
    # nothing to change: every condition decided at plan, and at apply against the objects as they are
    assert plan_checks(strata, "strata") == plan_checks(terraform, "terraform")
    apply_both(strata, terraform, "-var", "plain=2")
    assert check_results(strata.state()) == check_results(terraform.state())
    assert {r["status"] for r in check_results(strata.state())} == {"pass"}


def test_conditions_that_fail_at_apply_are_recorded(workdir: Workdir) -> None:
    workdir.write(APPLY_FAILURES)
    applied = workdir.strata("apply", "-auto-approve", "-no-color")
    assert applied.returncode == 1
    assert check_results(workdir.state()) == APPLY_FAILURES_RESULTS


@requires_terraform
def test_conditions_that_fail_at_apply_match_terraform(workdir: Workdir) -> None:
    workdir.write(APPLY_FAILURES)
    assert workdir.terraform("apply", "-auto-approve", "-no-color").returncode == 1
    assert check_results(workdir.state()) == APPLY_FAILURES_RESULTS


@requires_terraform
@pytest.mark.parametrize("args", [("-destroy",), ("-refresh-only",), ("-target=terraform_data.a",),
                                  ("-target=terraform_data.plain",), ("-target=terraform_data.b[\"k1\"]",)],
                         ids=["destroy", "refresh-only", "target", "target-elsewhere", "target-instance"])
def test_plan_json_checks_of_other_plans_match_terraform(tmp_path: Path, args: tuple[str, ...]) -> None:
    strata, terraform = side_by_side(tmp_path, FILES["root"])
    apply_both(strata, terraform)
    assert plan_checks(strata, "strata", *args) == plan_checks(terraform, "terraform", *args)


@requires_terraform
@pytest.mark.parametrize("args", [("-destroy",), ("-refresh-only",), ("-target=terraform_data.plain",)],
                         ids=["destroy", "refresh-only", "target"])
def test_state_check_results_of_other_applies_match_terraform(tmp_path: Path, args: tuple[str, ...]) -> None:
    strata, terraform = side_by_side(tmp_path, FILES["root"])
    apply_both(strata, terraform)
    apply_both(strata, terraform, *args)
    assert check_results(strata.state()) == check_results(terraform.state())


@requires_terraform
def test_plan_json_checks_of_a_targeted_module_match_terraform(tmp_path: Path) -> None:
    strata, terraform = side_by_side(tmp_path, FILES["modules"])
    args = ("-target=module.one",)
    assert plan_checks(strata, "strata", *args) == plan_checks(terraform, "terraform", *args)


@requires_terraform
@pytest.mark.parametrize("args", [("-destroy",), ("-refresh-only",)], ids=["destroy", "refresh-only"])
def test_plan_json_checks_of_other_plans_in_modules_match_terraform(tmp_path: Path, args: tuple[str, ...]) -> None:
    strata, terraform = side_by_side(tmp_path, FILES["modules"])
    apply_both(strata, terraform)
    assert plan_checks(strata, "strata", *args) == plan_checks(terraform, "terraform", *args)
    apply_both(strata, terraform, *args)
    assert check_results(strata.state()) == check_results(terraform.state())


ONE_CHECKABLE = """
resource "terraform_data" "a" {
  input = 1
  lifecycle {
    postcondition {
      condition     = self.output == 1
      error_message = "changed"
    }
  }
}
"""


@requires_terraform
def test_same_results_write_no_new_serial_as_terraform(tmp_path: Path) -> None:
    # one checkable object: with more, terraform writes them in its maps' order, which differs from
    # run to run, and each no-op apply then writes a new serial (strata's order is the configuration's)
    strata, terraform = side_by_side(tmp_path, {"main.tf": ONE_CHECKABLE})
    apply_both(strata, terraform)
    before = strata.state()["serial"], terraform.state()["serial"]  # (terraform writes after each object)
    apply_both(strata, terraform)
    assert (strata.state()["serial"], terraform.state()["serial"]) == before


def test_same_results_write_no_new_serial(workdir: Workdir) -> None:
    workdir.write(CONDITIONS)  # a resource without instances among them: null objects in the file
    workdir.strata("apply", "-auto-approve", check=True)
    before = workdir.state()["serial"]
    workdir.strata("apply", "-auto-approve", check=True)
    assert workdir.state()["serial"] == before


NOT_REACHED = """
resource "terraform_data" "fails" {
  input = "abc"
  lifecycle {
    postcondition {
      condition     = self.output == "zzz"
      error_message = "not zzz"
    }
  }
}

module "m" {
  source = "./mod"
  v      = terraform_data.fails.output
}

module "ok" {
  source = "./mod"
  v      = "fine"
}
"""

PASS_THROUGH = """
variable "v" {
  validation {
    condition     = var.v != ""
    error_message = "empty"
  }
}

output "o" {
  value = var.v
  precondition {
    condition     = var.v != "q"
    error_message = "q"
  }
}
"""


def test_values_from_a_failed_resource_are_not_checked(workdir: Workdir) -> None:
    workdir.write(NOT_REACHED)
    (workdir.path / "mod").mkdir()
    workdir.write(PASS_THROUGH, "mod/main.tf")
    assert workdir.strata("apply", "-auto-approve", "-no-color").returncode == 1
    # as terraform 1.11 records them: module.m's variable and output are never reached
    assert [(r["config_addr"], r["status"]) for r in check_results(workdir.state())] == [
        ("module.m.output.o", "unknown"), ("module.ok.output.o", "pass"), ("terraform_data.fails", "fail"),
        ("module.m.var.v", "unknown"), ("module.ok.var.v", "pass")]


@requires_terraform
def test_values_from_a_failed_resource_match_terraform(tmp_path: Path) -> None:
    strata, terraform = side_by_side(tmp_path, {"main.tf": NOT_REACHED, "mod/main.tf": PASS_THROUGH})
    assert strata.strata("apply", "-auto-approve", "-no-color").returncode == 1
    assert terraform.terraform("apply", "-auto-approve", "-no-color").returncode == 1
    assert check_results(strata.state()) == check_results(terraform.state())
