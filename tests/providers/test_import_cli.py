"""`strata import ADDR ID` through the real command: the object lands in state, and a
configuration that matches it plans no changes."""

from __future__ import annotations

from tests.conftest import Workdir


def test_import_random_id_then_plan_is_a_noop(workdir: Workdir) -> None:
    workdir.write('resource "random_id" "x" {\n  byte_length = 4\n}\n')
    res = workdir.strata("import", "random_id.x", "p-4Q5A")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith('random_id.x: Importing from ID "p-4Q5A"...\n') and "Import successful!" in res.stdout
    state = workdir.state()
    attrs = state["resources"][0]["instances"][0]["attributes"]
    assert attrs["b64_url"] == "p-4Q5A" and attrs["byte_length"] == 4
    plan = workdir.strata("plan", "-detailed-exitcode")
    assert plan.returncode == 0, f"the imported object should match its configuration:\n{plan.stdout}"


def test_import_random_string_keeps_the_result(workdir: Workdir) -> None:
    workdir.write('resource "random_string" "s" {\n  length = 8\n}\n')
    workdir.strata("import", "random_string.s", "Ab3$efGh", check=True)
    listed = workdir.strata("state", "show", "random_string.s", check=True).stdout
    assert '"Ab3$efGh"' in listed


def test_import_needs_a_configured_resource(workdir: Workdir) -> None:
    workdir.write('resource "random_id" "x" {\n  byte_length = 4\n}\n')
    res = workdir.strata("import", "random_id.other", "p-4Q5A")
    assert res.returncode == 1
    assert "Configuration for import target does not exist" in res.stderr
    assert "Traceback" not in res.stderr
    assert "Importing" not in res.stdout, "nothing is imported: the error comes first, as in terraform"


def test_import_of_an_existing_address_is_refused(workdir: Workdir) -> None:
    workdir.write('resource "random_id" "x" {\n  byte_length = 4\n}\n')
    workdir.strata("import", "random_id.x", "p-4Q5A", check=True)
    again = workdir.strata("import", "random_id.x", "AAAAAA")
    assert again.returncode == 1 and "already managing" in again.stderr


def test_import_with_a_bad_id_reports_the_provider_error(workdir: Workdir) -> None:
    workdir.write('resource "random_id" "x" {\n  byte_length = 4\n}\n')
    res = workdir.strata("import", "random_id.x", "***")
    assert res.returncode == 1 and "Import Random ID Error" in res.stderr and "Traceback" not in res.stderr


def test_import_key_must_match_the_resource_expansion(workdir: Workdir) -> None:
    workdir.write('resource "random_id" "r" {\n  byte_length = 4\n}\n')
    res = workdir.strata("import", "random_id.r[0]", "p-4Q5A")
    assert res.returncode == 1 and "Invalid import address" in res.stderr and "main.tf line 1" in res.stderr
