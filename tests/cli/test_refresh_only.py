"""``-refresh-only`` and ``strata refresh``: what refresh found changed outside strata is shown as
terraform's "Objects have changed outside" note and, once applied, recorded in the state, with no
object created, changed or destroyed. The no-drift texts are compared with terraform 1.11."""

from __future__ import annotations

import subprocess
import sys

import orjson

from tests.conftest import REPO, Workdir, requires_terraform

SIM = '''\
provider "sim" {
  ledger     = "ledger.jsonl"
  latency_ms = 1
}
resource "sim_object" "a" {
  name = "a"
}
resource "sim_object" "b" {
  name = "b"
}
output "ids" {
  value = [sim_object.a.id]
}
'''


def delete_behind_strata(workdir: Workdir, addr: str) -> None:
    state = workdir.state()
    name = addr.split(".")[1]
    oid = next(r["instances"][0]["attributes"]["id"] for r in state["resources"] if r["name"] == name)
    subprocess.run([sys.executable, "-m", "providers.sim", "rm", "ledger.jsonl", oid], cwd=workdir.path,
                   env={"PYTHONPATH": str(REPO)}, check=True)


def test_a_deleted_object_is_drift_and_applying_forgets_it(workdir: Workdir) -> None:
    workdir.write(SIM)
    workdir.strata("apply", "-auto-approve", check=True)
    delete_behind_strata(workdir, "sim_object.b")

    plan = workdir.strata("plan", "-refresh-only", "-no-color", "-detailed-exitcode")
    assert plan.returncode == 2, plan.stderr
    assert "Note: Objects have changed outside of strata" in plan.stdout
    assert "  # sim_object.b has been deleted\n  - resource \"sim_object\" \"b\" {\n" in plan.stdout
    assert "This is a refresh-only plan, so strata will not take any actions to undo" in plan.stdout
    assert "Plan:" not in plan.stdout
    events = [orjson.loads(x) for x in workdir.strata("plan", "-refresh-only", "-json", check=True).stdout.split("\n")
              if x]
    drift = [e for e in events if e["type"] == "resource_drift"]
    assert [(e["change"]["resource"]["addr"], e["change"]["action"], e["@message"]) for e in drift] == [
        ("sim_object.b", "delete", "sim_object.b: Drift detected (delete)")]
    assert "sim_object.b" in workdir.strata("state", "list", check=True).stdout, "a plan must not write the state"

    res = workdir.strata("apply", "-refresh-only", "-auto-approve", "-no-color", check=True)
    assert "Apply complete! Resources: 0 added, 0 changed, 0 destroyed." in res.stdout
    assert workdir.strata("state", "list", check=True).stdout == "sim_object.a\n"
    assert "Plan: 1 to add, 0 to change, 0 to destroy." in workdir.strata("plan", check=True).stdout


def test_refresh_records_the_drift_and_prints_the_outputs(workdir: Workdir) -> None:
    workdir.write(SIM)
    workdir.strata("apply", "-auto-approve", check=True)
    ids = workdir.state()["outputs"]["ids"]
    delete_behind_strata(workdir, "sim_object.b")
    res = workdir.strata("refresh", check=True)
    assert res.stdout.endswith(f'\nOutputs:\n\nids = [\n  "{ids["value"][0]}",\n]\n'), res.stdout
    assert "Apply complete" not in res.stdout and "Note:" not in res.stdout
    assert workdir.strata("state", "list", check=True).stdout == "sim_object.a\n"
    assert workdir.state()["outputs"]["ids"] == ids


def test_a_refresh_only_apply_asks_its_own_question(workdir: Workdir) -> None:
    workdir.write(SIM)
    workdir.strata("apply", "-auto-approve", check=True)
    delete_behind_strata(workdir, "sim_object.a")
    res = workdir.strata("apply", "-refresh-only", input="no\n")
    assert "Would you like to update the strata state to reflect these detected changes?" in res.stdout
    assert res.returncode == 1 and "sim_object.a" in workdir.strata("state", "list", check=True).stdout


NO_DRIFT = '''\
resource "terraform_data" "x" {
  input = "x"
}
'''


def _no_changes(text: str) -> str:
    start = text.index("\nNo changes.")
    return text[start:text.index("differences.", start) + len("differences.")].replace("Terraform", "strata")


def test_without_drift_there_are_no_changes(workdir: Workdir) -> None:
    workdir.write(NO_DRIFT)
    workdir.strata("apply", "-auto-approve", check=True)
    res = workdir.strata("apply", "-refresh-only", "-auto-approve", "-no-color", check=True)
    assert _no_changes(res.stdout) == (
        "\nNo changes. Your infrastructure still matches the configuration.\n\n"
        "strata has checked that the real remote objects still match the result of\n"
        "your most recent changes, and found no differences.")
    assert res.stdout.rstrip().endswith("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.")


@requires_terraform
def test_the_no_drift_text_is_terraforms(workdir: Workdir) -> None:
    workdir.write(NO_DRIFT)
    workdir.terraform("apply", "-auto-approve")
    theirs = workdir.terraform("plan", "-refresh-only", "-no-color").stdout
    ours = workdir.strata("plan", "-refresh-only", "-no-color", check=True).stdout
    assert _no_changes(ours) == _no_changes(theirs)


SAVE = ("\nYou can apply this plan to save these new output values to the strata\n"
        "state, without changing any real infrastructure.\n")
NOTE = ("\n─────────────────────────────────────────────────────────────────────────────\n\nNote: You didn't use "
        "the -out option to save this plan, so strata can't\nguarantee to take exactly these actions if you run "
        '"strata apply" now.\n')


def test_refresh_only_reads_data_sources_again_for_the_outputs(workdir: Workdir) -> None:
    (workdir.path / "src.txt").write_text("v1")
    workdir.write('data "local_file" "r" {\n  filename = "src.txt"\n}\n'
                  'output "r" {\n  value = data.local_file.r.content\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    (workdir.path / "src.txt").write_text("v2")
    plan = workdir.strata("plan", "-refresh-only", "-no-color", check=True).stdout
    assert plan.endswith('\nChanges to Outputs:\n  ~ r = "v1" -> "v2"\n' + SAVE + NOTE), plan
    workdir.strata("refresh", check=True)
    assert workdir.state()["outputs"]["r"]["value"] == "v2"


def test_a_plan_that_changes_only_outputs_says_so_as_terraform_does(workdir: Workdir) -> None:
    workdir.write('variable "v" {\n  default = "a"\n}\noutput "o" {\n  value = var.v\n}\n')
    workdir.strata("apply", "-auto-approve", check=True)
    for args in (("plan",), ("plan", "-refresh-only")):
        text = workdir.strata(*args, "-no-color", "-var", "v=b", check=True).stdout
        assert text == '\nChanges to Outputs:\n  ~ o = "a" -> "b"\n' + SAVE + NOTE, (args, text)


@requires_terraform
def test_the_outputs_only_text_is_terraforms(workdir: Workdir) -> None:
    workdir.write('variable "v" {\n  default = "a"\n}\noutput "o" {\n  value = var.v\n}\n')
    workdir.terraform("apply", "-auto-approve")
    text = workdir.terraform("plan", "-no-color", "-var", "v=b").stdout.replace("Terraform", "strata")
    assert text == '\nChanges to Outputs:\n  ~ o = "a" -> "b"\n' + SAVE, text  # TF_IN_AUTOMATION: no note
