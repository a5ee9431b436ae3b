"""``moved`` blocks through the ``strata`` command, each step compared with terraform 1.11 on the
same files: the plan's text ("has moved to", "(moved from ...)"), its ``-json`` planned changes,
the state after the apply, and terraform's errors for statements it refuses."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def plan_text(res: Result) -> str:
    """A plan's text as both tools print it: the tool's name, object ids, refresh and import lines
    (in no set order) and the note after the rule (terraform leaves it out in automation) left out;
    a diagnostic's list of objects (" - ADDR" lines, in terraform's order of processing) sorted."""
    text = _UUID.sub("<id>", (res.stdout + res.stderr).split("\n─", 1)[0])
    text = text.replace("Terraform", "strata").replace("terraform apply", "strata apply")
    runs: list[list[str]] = []
    for line in text.splitlines():
        if any(skip in line for skip in ("Refreshing state...", "Preparing import...", "CLI configuration",
                                         ".terraformrc")):
            continue
        if line.startswith(" - ") and runs and runs[-1][0].startswith(" - "):
            runs[-1].append(line)
        else:
            runs.append([line])
    text = "\n".join(line for run in runs for line in sorted(run)).strip()
    # diagnostics are wrapped to a width, where the tool's name takes room: compared as words
    m = re.search(r"^(Warning|Error): ", text, re.MULTILINE)
    return text if m is None else text[:m.start()] + " ".join(text[m.start():].split())


def planned(res: Result) -> list[dict]:
    """The ``planned_change`` events of a ``-json`` plan, in address order."""
    events = [orjson.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    changes = [{k: v for k, v in e.items() if k not in ("@timestamp",)} for e in events
               if e["type"] in ("planned_change", "change_summary")]
    return sorted(changes, key=lambda e: e["@message"])


class Both:
    """The same files planned and applied by terraform (``tf``) and strata (``st``)."""

    def __init__(self, tmp_path: Path) -> None:
        (tmp_path / "tf").mkdir()
        (tmp_path / "st").mkdir()
        self.tf = Workdir(tmp_path / "tf")
        self.st = Workdir(tmp_path / "st")

    def write(self, files: dict[str, str]) -> None:
        for w in (self.tf, self.st):
            for old in list(w.path.rglob("*.tf")):
                old.unlink()
            for name, text in files.items():
                p = w.path / name
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(textwrap.dedent(text))

    def apply(self, files: dict[str, str]) -> None:
        self.write(files)
        self.tf.terraform("init", "-input=false", "-no-color")
        self.st.strata("init", "-input=false", check=True)
        tf = self.tf.terraform("apply", "-auto-approve", "-input=false", "-no-color")
        assert tf.returncode == 0, tf.stdout + tf.stderr
        self.st.strata("apply", "-auto-approve", "-input=false", "-no-color", check=True)

    def plan(self, files: dict[str, str], *options: str) -> tuple[Result, Result]:
        self.write(files)
        self.tf.terraform("init", "-input=false", "-no-color")
        self.st.strata("init", "-input=false")
        return (self.tf.terraform("plan", "-input=false", "-no-color", *options),
                self.st.strata("plan", "-input=false", "-no-color", *options))

    def same_plan(self, files: dict[str, str]) -> str:
        """Both plan ``files`` alike (text and -json planned changes); the text."""
        tf, st = self.plan(files)
        assert (st.returncode, plan_text(st)) == (tf.returncode, plan_text(tf))
        tfj, stj = self.plan(files, "-json")
        assert planned(stj) == [{**e, "@message": e["@message"]} for e in planned(tfj)]
        return plan_text(st)

    def state_list(self) -> str:
        ours = self.st.strata("state", "list", check=True).stdout
        assert ours == self.tf.terraform("state", "list").stdout
        return ours


@pytest.fixture
def both(tmp_path: Path) -> Both:
    return Both(tmp_path)


FIRST = {"main.tf": """
    resource "terraform_data" "a" {
      input = "x"
    }
    resource "terraform_data" "c" {
      count = 2
      input = count.index
    }
    """}


@requires_terraform
def test_rename_is_a_move_that_changes_nothing(both: Both) -> None:
    both.apply(FIRST)
    renamed = {"main.tf": """
        resource "terraform_data" "b" {
          input = "x"
        }
        resource "terraform_data" "c" {
          count = 2
          input = count.index
        }
        moved {
          from = terraform_data.a
          to   = terraform_data.b
        }
        """}
    text = both.same_plan(renamed)
    assert "# terraform_data.a has moved to terraform_data.b" in text
    both.apply(renamed)
    assert "terraform_data.b\n" in both.state_list()
    tf, st = both.plan(renamed, "-detailed-exitcode")
    assert (tf.returncode, st.returncode) == (0, 0), st.stdout + st.stderr


@requires_terraform
def test_count_instances_moved_to_for_each_keys_are_updated_in_place(both: Both) -> None:
    both.apply(FIRST)
    moved = {"main.tf": """
        resource "terraform_data" "a" {
          input = "x"
        }
        resource "terraform_data" "d" {
          for_each = toset(["p", "q"])
          input    = each.key
        }
        moved {
          from = terraform_data.c[0]
          to   = terraform_data.d["p"]
        }
        moved {
          from = terraform_data.c[1]
          to   = terraform_data.d["q"]
        }
        """}
    text = both.same_plan(moved)
    assert '# (moved from terraform_data.c[0])' in text
    both.apply(moved)
    assert both.state_list() == 'terraform_data.a\nterraform_data.d["p"]\nterraform_data.d["q"]\n'


CHILD = {"mod/main.tf": """
    resource "terraform_data" "x" {
      input = "x"
    }
    """}


@requires_terraform
def test_resource_moved_into_a_module_then_the_module_to_a_counted_call(both: Both) -> None:
    both.apply(FIRST)
    into = {**CHILD, "main.tf": """
        module "m" {
          source = "./mod"
        }
        resource "terraform_data" "c" {
          count = 2
          input = count.index
        }
        moved {
          from = terraform_data.a
          to   = module.m.terraform_data.x
        }
        """}
    assert "# terraform_data.a has moved to module.m.terraform_data.x" in both.same_plan(into)
    both.apply(into)
    counted = {**CHILD, "main.tf": """
        module "n" {
          source = "./mod"
          count  = 1
        }
        resource "terraform_data" "c" {
          count = 2
          input = count.index
        }
        moved {
          from = module.m
          to   = module.n[0]
        }
        """}
    assert "# module.m.terraform_data.x has moved to module.n[0].terraform_data.x" in both.same_plan(counted)
    both.apply(counted)
    assert "module.n[0].terraform_data.x" in both.state_list()


@requires_terraform
def test_a_chain_of_moves_takes_an_object_to_its_end(both: Both) -> None:
    both.apply(FIRST)
    chained = {"main.tf": """
        resource "terraform_data" "z" {
          input = "x"
        }
        resource "terraform_data" "c" {
          count = 2
          input = count.index
        }
        moved {
          from = terraform_data.a
          to   = terraform_data.b
        }
        moved {
          from = terraform_data.b
          to   = terraform_data.z
        }
        """}
    assert "# terraform_data.a has moved to terraform_data.z" in both.same_plan(chained)
    both.apply(chained)
    assert both.state_list().startswith("terraform_data.z") or "terraform_data.z\n" in both.state_list()


@requires_terraform
def test_whole_module_call_moves_every_instance(both: Both) -> None:
    files = {**CHILD, "main.tf": """
        module "m" {
          source   = "./mod"
          for_each = toset(["a", "b"])
        }
        """}
    both.apply(files)
    renamed = {**CHILD, "main.tf": """
        module "k" {
          source   = "./mod"
          for_each = toset(["a", "b"])
        }
        moved {
          from = module.m
          to   = module.k
        }
        """}
    text = both.same_plan(renamed)
    assert '# module.m["b"].terraform_data.x has moved to module.k["b"].terraform_data.x' in text
    both.apply(renamed)
    assert both.state_list() == 'module.k["a"].terraform_data.x\nmodule.k["b"].terraform_data.x\n'


def _errors(both: Both, files: dict[str, str]) -> str:
    tf, st = both.plan(files)
    assert st.returncode == tf.returncode == 1, st.stdout + st.stderr
    assert "Traceback" not in st.stderr
    assert plan_text(st) == plan_text(tf)
    return plan_text(st)


@requires_terraform
def test_a_moved_object_still_declared_is_terraforms_error(both: Both) -> None:
    both.apply({"main.tf": """
        resource "terraform_data" "d" {
          for_each = toset(["p", "q"])
          input    = each.key
        }
        """})
    text = _errors(both, {"main.tf": """
        resource "terraform_data" "d" {
          for_each = toset(["p", "q"])
          input    = each.key
        }
        moved {
          from = terraform_data.d["p"]
          to   = terraform_data.d["q"]
        }
        """})
    assert "Error: Moved object still exists" in text


@requires_terraform
def test_redundant_and_ambiguous_statements_are_terraforms_errors(both: Both) -> None:
    text = _errors(both, {"main.tf": """
        resource "terraform_data" "a" {
        }
        resource "terraform_data" "b" {
        }
        moved {
          from = terraform_data.a
          to   = terraform_data.b
        }
        moved {
          from = terraform_data.c
          to   = terraform_data.c
        }
        moved {
          from = terraform_data.x
          to   = terraform_data.y
        }
        moved {
          from = terraform_data.x
          to   = terraform_data.z
        }
        """})
    for summary in ("Moved object still exists", "Redundant move statement", "Ambiguous move statements"):
        assert f"Error: {summary}" in text


@requires_terraform
def test_a_cycle_of_moves_is_terraforms_error(both: Both) -> None:
    text = _errors(both, {"main.tf": """
        resource "terraform_data" "c" {
        }
        moved {
          from = terraform_data.a
          to   = terraform_data.b
        }
        moved {
          from = terraform_data.b
          to   = terraform_data.a
        }
        """})
    assert "main.tf:4,1: terraform_data.a[*] → terraform_data.b[*]" in text


@requires_terraform
def test_addresses_that_cannot_be_moved_are_terraforms_errors(both: Both) -> None:
    text = _errors(both, {"main.tf": """
        moved {
          from = terraform_data.a
          to   = module.x
        }
        moved {
          from = "terraform_data.x"
          to   = terraform_data.y[var.x]
        }
        """})
    assert 'Error: Invalid "moved" addresses' in text
    assert "A single static variable reference is required" in text


RENAMED = {"main.tf": """
    resource "terraform_data" "b" {
      input = "x"
    }
    resource "terraform_data" "c" {
      count = 2
      input = count.index
    }
    moved {
      from = terraform_data.a
      to   = terraform_data.b
    }
    """}


@requires_terraform
def test_a_refresh_only_plan_shows_moves_among_the_changes_outside(both: Both) -> None:
    both.apply(FIRST)
    both.write(RENAMED)
    tf = both.tf.terraform("plan", "-refresh-only", "-no-color")
    st = both.st.strata("plan", "-refresh-only", "-no-color")
    assert (st.returncode, plan_text(st)) == (tf.returncode, plan_text(tf))
    assert "# terraform_data.a has moved to terraform_data.b" in plan_text(st)
    tfj = both.tf.terraform("plan", "-refresh-only", "-json")
    stj = both.st.strata("plan", "-refresh-only", "-json")
    drift = [[{k: v for k, v in e.items() if k != "@timestamp"} for e in (orjson.loads(x) for x in r.stdout.splitlines()
              if x.startswith("{")) if e["type"] == "resource_drift"] for r in (tfj, stj)]
    assert drift[1] == drift[0] and drift[0]


@requires_terraform
def test_a_destroy_plan_destroys_moved_objects_at_their_new_address(both: Both) -> None:
    both.apply(FIRST)
    both.write(RENAMED)
    tf = both.tf.terraform("plan", "-destroy", "-no-color")
    st = both.st.strata("plan", "-destroy", "-no-color")
    assert (st.returncode, plan_text(st)) == (tf.returncode, plan_text(tf))
    assert "# terraform_data.b will be destroyed" in plan_text(st)


def test_a_saved_plan_moves_the_objects_when_applied(workdir: Workdir) -> None:
    workdir.write(FIRST["main.tf"])
    workdir.strata("apply", "-auto-approve", check=True)
    workdir.write(RENAMED["main.tf"])
    workdir.strata("plan", "-out=p.plan", check=True)
    workdir.strata("apply", "p.plan", check=True)
    assert workdir.strata("state", "list", check=True).stdout == \
        "terraform_data.b\nterraform_data.c[0]\nterraform_data.c[1]\n"
    again = workdir.strata("plan", "-detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr


def _with_null_plugin(both: Both, files: dict[str, str]) -> None:
    """``files`` applied by both tools, the real terraform-provider-null installed from the mirror."""
    from tests.plugins.fetch import fetch

    got = fetch(aws=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(got.problems))
    both.write(files)
    for w in (both.tf, both.st):
        assert w.terraform("init", "-input=false", "-no-color", f"-plugin-dir={got.mirror}").returncode == 0
    assert both.tf.terraform("apply", "-auto-approve", "-no-color").returncode == 0
    both.st.strata("apply", "-auto-approve", "-no-color", check=True)


def _numbered(res: Result) -> str:  # null_resource ids are random numbers
    return re.sub(r"\d{8,}", "<id>", plan_text(res))


@requires_terraform
def test_a_null_resource_moved_to_terraform_data_is_taken_by_the_builtin_provider(both: Both) -> None:
    _with_null_plugin(both, {"main.tf": 'resource "null_resource" "a" {\n  triggers = { v = "1" }\n}\n'})
    moved = {"main.tf": """
        resource "terraform_data" "b" {
          triggers_replace = { v = "1" }
        }
        moved {
          from = null_resource.a
          to   = terraform_data.b
        }
        """}
    tf, st = both.plan(moved)
    assert (st.returncode, _numbered(st)) == (tf.returncode, _numbered(tf))
    assert "# null_resource.a has moved to terraform_data.b" in plan_text(st)
    both.st.strata("apply", "-auto-approve", "-no-color", check=True)
    (res,) = orjson.loads((both.st.path / "terraform.tfstate").read_bytes())["resources"]
    assert res["provider"] == 'provider["terraform.io/builtin/terraform"]'
    assert res["instances"][0]["attributes"]["triggers_replace"] == {"value": {"v": "1"},
                                                                      "type": ["object", {"v": "string"}]}
    # terraform plans no change on the state strata wrote
    theirs = both.tf.path / "terraform.tfstate"
    theirs.write_bytes((both.st.path / "terraform.tfstate").read_bytes())
    assert both.tf.terraform("plan", "-detailed-exitcode", "-no-color").returncode == 0


@requires_terraform
def test_a_move_to_a_provider_without_move_resource_state_is_terraforms_error(both: Both) -> None:
    _with_null_plugin(both, {"main.tf": 'resource "terraform_data" "a" {\n}\n'
                                        'resource "null_resource" "n" {\n}\n'})
    tf, st = both.plan({"main.tf": """
        resource "null_resource" "n" {
        }
        resource "null_resource" "b" {
        }
        moved {
          from = terraform_data.a
          to   = null_resource.b
        }
        """})
    assert st.returncode == tf.returncode == 1
    assert _numbered(st) == _numbered(tf)
    assert "Error: Unsupported `moved` across resource types" in plan_text(st)
