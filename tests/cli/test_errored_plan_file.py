"""``plan -out`` when planning stops at errors: as terraform's, the changes planned before them are
saved, marked errored, for tools to read (``show``, ``show -json``), and ``apply FILE`` refuses
the file. Compared with terraform 1.11 on the same files when it is present."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

PARTIAL = """
resource "terraform_data" "a" {
  input = "x"
}
resource "terraform_data" "b" {
  input = "y"
  lifecycle {
    precondition {
      condition     = terraform_data.a.input == "z"
      error_message = "a is not z."
    }
  }
}
output "o" { value = terraform_data.a.input }
"""

NOTHING_PLANNED = """
variable "v" { default = "x" }
resource "terraform_data" "b" {
  input = "y"
  lifecycle {
    precondition {
      condition     = var.v == "z"
      error_message = "v is not z."
    }
  }
}
"""


def _summary(doc: dict) -> dict:
    """What a saved plan's JSON says beside its configuration, without the times and versions."""
    return {k: v for k, v in doc.items() if k not in ("configuration", "timestamp", "terraform_version")}


def _errored_plan(wd: Workdir, tool: str) -> tuple[dict, str]:
    run = wd.strata if tool == "strata" else wd.terraform
    made = run("plan", "-no-color", "-input=false", "-out=p.bin")
    assert made.returncode == 1, made.stdout + made.stderr
    assert (wd.path / "p.bin").exists(), f"{tool} saved no plan file"
    doc = run("show", "-json", "p.bin")
    text = run("show", "-no-color", "p.bin")
    assert doc.returncode == 0 and text.returncode == 0, doc.stderr + text.stderr
    return orjson.loads(doc.stdout), text.stdout


def test_a_plan_that_stopped_at_an_error_is_saved_marked_errored(workdir: Workdir) -> None:
    workdir.write(PARTIAL)
    doc, text = _errored_plan(workdir, "strata")
    assert (doc["errored"], doc["applyable"], doc["complete"]) == (True, False, False)
    assert [c["address"] for c in doc["resource_changes"]] == ["terraform_data.a"]
    assert doc["checks"][0]["status"] == "fail"
    assert "strata planned the following actions, but then encountered a problem:" in text
    assert "terraform_data.a will be created" in text


def test_an_errored_plan_file_is_never_applied(workdir: Workdir) -> None:
    workdir.write(PARTIAL)
    _errored_plan(workdir, "strata")
    res = workdir.strata("apply", "-no-color", "p.bin")
    assert res.returncode == 1
    assert "Error: Cannot apply incomplete plan" in res.stderr
    assert "strata encountered an error when generating this plan, so it cannot be" in res.stderr
    assert not (workdir.path / "terraform.tfstate").exists() or not workdir.state()["resources"]


def test_an_errored_plan_with_nothing_planned_says_planning_failed(workdir: Workdir) -> None:
    workdir.write(NOTHING_PLANNED)
    doc, text = _errored_plan(workdir, "strata")
    assert doc["errored"] is True and "resource_changes" not in doc
    assert text == "\nPlanning failed. strata encountered an error while generating this plan.\n\n"


def test_an_error_before_planning_saves_no_plan_file(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = var.missing\n}\n')
    res = workdir.strata("plan", "-no-color", "-out=p.bin")
    assert res.returncode == 1 and "Reference to undeclared input variable" in res.stderr
    assert not (workdir.path / "p.bin").exists()


@requires_terraform
@pytest.mark.parametrize("config", [PARTIAL, NOTHING_PLANNED], ids=["partial", "nothing-planned"])
def test_an_errored_plan_file_matches_terraforms(workdir: Workdir, tmp_path_factory: pytest.TempPathFactory,
                                                 config: str) -> None:
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        wd.write(config)
    ours, our_text = _errored_plan(workdir, "strata")
    theirs, their_text = _errored_plan(tf, "terraform")
    assert _summary(ours) == _summary(theirs)
    assert our_text == their_text.replace("Terraform", "strata")
    applied = [wd.strata("apply", "-no-color", "p.bin") if wd is workdir else wd.terraform("apply", "-no-color", "p.bin")
               for wd in (workdir, tf)]
    assert [r.returncode for r in applied] == [1, 1]
    assert "Cannot apply incomplete plan" in applied[0].stderr and "Cannot apply incomplete plan" in applied[1].stderr
