"""``plan -generate-config-out=FILE`` through the ``strata`` command, compared with terraform 1.11
on the same files: the file written (byte for byte), the plan's text and ``-json`` planned
changes, the apply after it, and terraform's refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_moved_blocks import Both, plan_text, planned
from tests.conftest import Result, Workdir, requires_terraform
from tests.plugins.fetch import fetch

GEN = "gen.tf"

NO_CONFIG = {"main.tf": """
    import {
      to = terraform_data.a
      id = "abc"
    }
    """}


@pytest.fixture
def both(tmp_path: Path) -> Both:
    return Both(tmp_path)


def _generate(both: Both, files: dict[str, str] | None, *extra: str) -> tuple[Result, Result]:
    """Both plan ``files`` (None: the files there) with -generate-config-out."""
    if files is not None:
        both.write(files)
    tf = both.tf.terraform("plan", "-input=false", "-no-color", f"-generate-config-out={GEN}", *extra)
    st = both.st.strata("plan", "-input=false", "-no-color", f"-generate-config-out={GEN}", *extra)
    return tf, st


def _generated(w: Workdir) -> bytes | None:
    p = w.path / GEN
    return p.read_bytes() if p.exists() else None


@requires_terraform
def test_the_generated_file_is_terraforms_byte_for_byte(both: Both) -> None:
    tf, st = _generate(both, NO_CONFIG)
    assert st.returncode == tf.returncode == 0, st.stdout + st.stderr
    assert _generated(both.st) == _generated(both.tf)
    assert _generated(both.st) == (b"# __generated__ by Terraform\n"
                                   b"# Please review these resources and move them into your main configuration "
                                   b"files.\n\n"
                                   b'# __generated__ by Terraform from "abc"\n'
                                   b'resource "terraform_data" "a" {\n'
                                   b"  input            = null\n"
                                   b"  triggers_replace = null\n"
                                   b"}\n")


@requires_terraform
def test_the_plan_imports_with_the_generated_configuration_and_warns(both: Both) -> None:
    tf, st = _generate(both, NO_CONFIG)
    text = plan_text(st)
    assert text == plan_text(tf)
    assert "# terraform_data.a will be imported\n  # (config will be generated)" in text
    assert "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy." in text
    assert "Warning: Config generation is experimental" in text


def test_the_plan_says_where_the_configuration_was_written(workdir: Workdir) -> None:
    workdir.write(NO_CONFIG["main.tf"])
    st = workdir.strata("plan", "-no-color", f"-generate-config-out={GEN}", check=True)
    after = st.stdout.rsplit("─\n", 1)[1]
    assert " ".join(after.split()).startswith(f"strata has generated configuration and written it to {GEN}.")
    assert "Note: You didn't use the -out option" in after


@requires_terraform
def test_the_json_planned_change_carries_the_generated_configuration(both: Both) -> None:
    tf, st = _generate(both, NO_CONFIG, "-json")
    assert st.returncode == tf.returncode == 0, st.stdout + st.stderr
    ours = planned(st)
    assert ours == planned(tf)
    assert ours[-1]["change"]["generated_config"].startswith('resource "terraform_data" "a" {')


@requires_terraform
def test_the_generated_configuration_applies_and_then_plans_nothing(both: Both) -> None:
    _generate(both, NO_CONFIG)
    for run in (both.tf.terraform, both.st.strata):
        r = run("apply", "-auto-approve", "-input=false", "-no-color")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed." in r.stdout
        again = run("plan", "-detailed-exitcode", "-input=false", "-no-color")
        assert again.returncode == 0, again.stdout + again.stderr
    assert both.st.state()["resources"][0]["instances"][0]["attributes"] == \
        both.tf.state()["resources"][0]["instances"][0]["attributes"]


def test_a_saved_plan_with_generated_configuration_applies(workdir: Workdir) -> None:
    workdir.write(NO_CONFIG["main.tf"])
    workdir.strata("plan", f"-generate-config-out={GEN}", "-out=p", check=True)
    r = workdir.strata("apply", "-no-color", "p", check=True)
    assert "Resources: 1 imported, 0 added, 0 changed, 0 destroyed." in r.stdout


@requires_terraform
def test_only_targets_without_configuration_get_generated_configuration(both: Both) -> None:
    files = {"main.tf": NO_CONFIG["main.tf"] + """
        resource "terraform_data" "b" {
          input = "kept"
        }
        import {
          to = terraform_data.b
          id = "b-id"
        }
        """}
    tf, st = _generate(both, files)
    assert st.returncode == tf.returncode == 0, st.stdout + st.stderr
    # (terraform warns of the file or not as its walk happens to finish the changes; strata does)
    assert plan_text(st).split("\n\nWarning:")[0] == plan_text(tf).split("\n\nWarning:")[0]
    assert "Warning: Config generation is experimental" in plan_text(st)
    assert _generated(both.st) == _generated(both.tf)
    assert b"terraform_data\" \"b\"" not in (_generated(both.st) or b"")


@requires_terraform
def test_nothing_to_generate_writes_no_file_and_no_warning(both: Both) -> None:
    files = {"main.tf": """
        resource "terraform_data" "b" {
        }
        import {
          to = terraform_data.b
          id = "x"
        }
        """}
    tf, st = _generate(both, files)
    assert st.returncode == tf.returncode == 0, st.stdout + st.stderr
    assert plan_text(st) == plan_text(tf)
    assert "Config generation" not in st.stdout
    assert _generated(both.st) is None and _generated(both.tf) is None


@requires_terraform
def test_an_existing_target_file_is_refused(both: Both) -> None:
    both.write(NO_CONFIG)
    for w in (both.tf, both.st):
        (w.path / GEN).write_text("# mine\n")
    tf, st = _generate(both, None)
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert "Error: Target generated file already exists" in plan_text(st)
    assert (both.st.path / GEN).read_text() == "# mine\n"


@requires_terraform
def test_a_destroy_plan_cannot_generate_configuration(both: Both) -> None:
    tf, st = _generate(both, NO_CONFIG, "-destroy")
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert "Error: Invalid generate-config-out flag" in plan_text(st)


@requires_terraform
@pytest.mark.parametrize("target", ['terraform_data.a["k"]', "terraform_data.a[0]"])
def test_an_instance_key_cannot_have_configuration_generated(both: Both, target: str) -> None:
    tf, st = _generate(both, {"main.tf": NO_CONFIG["main.tf"].replace("terraform_data.a", target)})
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert "cannot be used with import blocks which use for_each" in plan_text(st)
    assert _generated(both.st) is None


@requires_terraform
def test_a_target_in_a_module_cannot_have_configuration_generated(both: Both) -> None:
    files = {"main.tf": """
        module "m" {
          source = "./m"
        }
        import {
          to = module.m.terraform_data.a
          id = "k"
        }
        """, "m/main.tf": 'resource "terraform_data" "z" {\n}\n'}
    both.write(files)
    both.tf.terraform("init", "-input=false", "-no-color")
    both.st.strata("init", "-input=false", check=True)
    tf, st = _generate(both, None)
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert "Only resources within the root module are eligible for config generation." in plan_text(st)


@requires_terraform
def test_without_the_option_terraforms_error_suggests_it(both: Both) -> None:
    both.write(NO_CONFIG)
    tf = both.tf.terraform("plan", "-input=false", "-no-color")
    st = both.st.strata("plan", "-input=false", "-no-color")
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf).replace("terraform plan", "strata plan")


@requires_terraform
@pytest.mark.parametrize("saved", [False, True])
def test_apply_does_not_take_the_option(both: Both, saved: bool) -> None:
    both.write({"main.tf": NO_CONFIG["main.tf"] + 'resource "terraform_data" "a" {\n}\n'})
    results = []
    for run in (both.tf.terraform, both.st.strata):
        if saved:
            run("plan", "-out=p", "-input=false", "-no-color")
        results.append(run("apply", "-auto-approve", "-no-color", f"-generate-config-out={GEN}",
                           *(["p"] if saved else [])))
    tf, st = results
    assert st.returncode == tf.returncode == 1
    assert "flag provided but not defined: -generate-config-out" in tf.stderr
    assert plan_text(st).split("For more help")[0] == plan_text(tf).split("For more help")[0]
    assert not (both.st.path / "terraform.tfstate").exists()


@requires_terraform
def test_a_plugin_that_refuses_import_writes_no_file(both: Both) -> None:
    got = fetch(aws=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(got.problems))
    files = {"main.tf": """
        import {
          to = null_resource.a
          id = "abc"
        }
        """}
    both.write(files)
    for w in (both.tf, both.st):
        r = w.terraform("init", "-input=false", "-no-color", f"-plugin-dir={got.mirror}")
        assert r.returncode == 0, r.stderr
    tf, st = _generate(both, None)
    assert st.returncode == tf.returncode == 1
    assert plan_text(st) == plan_text(tf)
    assert "Error: resource null_resource doesn't support import" in plan_text(st)
    assert _generated(both.st) is None and _generated(both.tf) is None


@requires_terraform
def test_a_target_the_state_already_has_gets_no_configuration(both: Both) -> None:
    both.apply({"main.tf": 'resource "terraform_data" "a" {\n}\n'})
    tf, st = _generate(both, NO_CONFIG)
    assert st.returncode == tf.returncode == 0, st.stdout + st.stderr
    assert "# terraform_data.a will be destroyed" in plan_text(st)
    assert _generated(both.st) is None
    # terraform 1.11 is not deterministic here: in about one run in seven its plan walk imports
    # the object and generates its configuration after all (whichever of its nodes finishes
    # last decides); strata takes the other, usual branch, and is compared with it
    if "# terraform_data.a will be imported" not in plan_text(tf):
        assert plan_text(st) == plan_text(tf)
        assert _generated(both.tf) is None
