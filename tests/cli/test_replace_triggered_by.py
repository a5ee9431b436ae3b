"""``lifecycle { replace_triggered_by = [...] }`` through the ``strata`` command, held to
terraform 1.11's plans for the same files (issue 20, item 2).

Each scenario applies v1, then plans v2: the plan's headers, the ``-json`` stream's
``planned_change`` reasons and ``show -json``'s ``action_reason`` are what terraform writes. The
expectations written out here are terraform's (the ``*_like_terraform`` tests check them against
the binary when it is on PATH)."""

from __future__ import annotations

import os
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform
from tests.differential.scenario import Scenario, assert_before, both_tools, steps


@dataclass(frozen=True)
class Case:
    v1: str
    v2: str
    args: tuple[str, ...] = ()
    taint: str | None = None


def _run(tool: str, path: Path, *args: str) -> Result:
    if tool == "strata":
        return Workdir(path).strata(*args)
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
    if not (path / ".terraform").exists():  # fails on a mistake in the configuration: plan reports it
        subprocess.run(["terraform", "init", "-input=false", "-no-color"], cwd=path, env=env,
                       capture_output=True, timeout=300)
    proc = subprocess.run(["terraform", *args], cwd=path, env=env, capture_output=True, text=True, timeout=300)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@dataclass(frozen=True)
class Planned:
    """What a plan says, on each surface: the text's headers (``# ADDR will be ...``), the
    stream's ``planned_change`` (address, action, reason), ``show -json``'s resource changes
    (address, actions, action_reason)."""

    text: tuple[str, ...]
    stream: frozenset[tuple[str, str, str | None]]
    plan_json: tuple[tuple[str, tuple[str, ...], str | None], ...]


def _plan(tool: str, path: Path, case: Case) -> Planned:
    path.mkdir(exist_ok=True)
    (path / "main.tf").write_text(textwrap.dedent(case.v1))
    res = _run(tool, path, "apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    if case.taint:
        assert _run(tool, path, "taint", case.taint).returncode == 0
    (path / "main.tf").write_text(textwrap.dedent(case.v2))
    res = _run(tool, path, "plan", "-no-color", "-out=tfplan", *case.args)
    assert res.returncode == 0, res.stdout + res.stderr
    text = tuple(line for line in res.stdout.splitlines()
                 if line.startswith(("  # terraform_data", "Plan:")))
    stream = _run(tool, path, "plan", "-json", *case.args)
    changes = frozenset((e["change"]["resource"]["addr"], e["change"]["action"], e["change"].get("reason"))
                        for e in stream.events if e["type"] == "planned_change")
    shown = orjson.loads(_run(tool, path, "show", "-json", "tfplan").stdout)
    plan_json = tuple((rc["address"], tuple(rc["change"]["actions"]), rc.get("action_reason"))
                      for rc in shown["resource_changes"])
    return Planned(text, changes, plan_json)


UPDATE_V1 = """
    resource "terraform_data" "a" {
      input = "one"
    }
    resource "terraform_data" "b" {
      lifecycle {
        replace_triggered_by = [terraform_data.a]
      }
    }
    resource "terraform_data" "c" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.output]
      }
    }
    resource "terraform_data" "e" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.id]
      }
    }
    """
UPDATE = Case(UPDATE_V1, UPDATE_V1.replace('"one"', '"two"'))

CHAIN_V1 = """
    resource "terraform_data" "a" {
      input = "x"
    }
    resource "terraform_data" "b" {
      lifecycle {
        replace_triggered_by = [terraform_data.a]
      }
    }
    resource "terraform_data" "c" {
      lifecycle {
        replace_triggered_by = [terraform_data.b]
        create_before_destroy = true
      }
    }
    resource "terraform_data" "d" {
      lifecycle {
        replace_triggered_by = [terraform_data.c.id]
      }
    }
    """
CHAIN = Case(CHAIN_V1, CHAIN_V1.replace('"x"', '"y"'))

REPLACED_V1 = """
    resource "terraform_data" "a" {
      input = "x"
      triggers_replace = "1"
    }
    resource "terraform_data" "b" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.input]
      }
    }
    resource "terraform_data" "c" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.output, terraform_data.a.id]
      }
    }
    resource "terraform_data" "d" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.nope]
      }
    }
    """
REPLACED = Case(REPLACED_V1, REPLACED_V1.replace('"1"', '"2"'))

COUNTED_V1 = """
    resource "terraform_data" "a" {
      count = 2
      input = "x"
    }
    resource "terraform_data" "b" {
      lifecycle {
        replace_triggered_by = [terraform_data.a]
      }
    }
    resource "terraform_data" "c" {
      count = 2
      lifecycle {
        replace_triggered_by = [terraform_data.a[count.index].input]
      }
    }
    """
GROWN = Case(COUNTED_V1, COUNTED_V1.replace("count = 2\n      input", "count = 3\n      input", 1))
SHRUNK = Case(COUNTED_V1, COUNTED_V1.replace("count = 2\n      input", "count = 1\n      input", 1))
REQUESTED = Case(COUNTED_V1, COUNTED_V1, ("-replace=terraform_data.a[1]",))

EACH_V1 = """
    resource "terraform_data" "a" {
      for_each = toset(["p", "q"])
      input = "x"
    }
    resource "terraform_data" "b" {
      for_each = toset(["p", "q"])
      lifecycle {
        replace_triggered_by = [terraform_data.a[each.key], terraform_data.a["q"].output]
      }
    }
    resource "terraform_data" "c" {
      for_each = toset(["p", "q"])
      lifecycle {
        replace_triggered_by = [terraform_data.a[each.key].input]
      }
    }
    resource "terraform_data" "d" {
      count = 1
      input = {k = "v"}
    }
    resource "terraform_data" "e" {
      lifecycle {
        replace_triggered_by = [terraform_data.d[0].input.k]
      }
    }
    """
EACH = Case(EACH_V1, EACH_V1.replace('input = "x"', 'input = each.key == "p" ? "y" : "x"').replace('"v"', '"w"'))

NEW_V1 = """
    resource "terraform_data" "a" {
      input = "x"
    }
    resource "terraform_data" "b" {
      count = 1
      lifecycle {
        replace_triggered_by = [terraform_data.a]
      }
    }
    """
NEW_INSTANCE = Case(NEW_V1, NEW_V1.replace("count = 1", "count = 2").replace('"x"', '"y"'))

SINGLE_V1 = """
    resource "terraform_data" "a" {
      input = "x"
    }
    resource "terraform_data" "b" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.input]
      }
    }
    """
TAINTED = Case(SINGLE_V1, SINGLE_V1.replace('"x"', '"y"'), taint="terraform_data.b")
REQUESTED_TOO = Case(SINGLE_V1, SINGLE_V1.replace('"x"', '"y"'), ("-replace=terraform_data.b",))

CASES = {"update": UPDATE, "chain": CHAIN, "replaced": REPLACED, "grown": GROWN, "shrunk": SHRUNK,
         "requested": REQUESTED, "each": EACH, "new_instance": NEW_INSTANCE, "tainted": TAINTED,
         "requested_too": REQUESTED_TOO}

R = "replace_triggered_by"  # the stream's spelling
J = "replace_by_triggers"  # the plan JSON's


def _headers(p: Planned) -> list[str]:
    return [line.removeprefix("  # ") for line in p.text if line.startswith("  # ")]


def test_update_replaces_whole_resource_and_changed_attribute_references(tmp_path: Path) -> None:
    p = _plan("strata", tmp_path, UPDATE)
    assert _headers(p) == ["terraform_data.a will be updated in-place",
                           "terraform_data.b will be replaced due to changes in replace_triggered_by",
                           "terraform_data.c will be replaced due to changes in replace_triggered_by"]
    assert ("terraform_data.b", "replace", R) in p.stream
    assert ("terraform_data.e", ("no-op",), None) in p.plan_json  # a.id does not change in an update
    assert ("terraform_data.c", ("delete", "create"), J) in p.plan_json


def test_replacement_by_trigger_triggers_in_turn(tmp_path: Path) -> None:
    p = _plan("strata", tmp_path, CHAIN)
    assert p.plan_json == (("terraform_data.a", ("update",), None),
                           ("terraform_data.b", ("create", "delete"), J),  # c's create_before_destroy
                           ("terraform_data.c", ("create", "delete"), J),
                           ("terraform_data.d", ("delete", "create"), J))


def test_attribute_reference_triggers_only_when_the_value_changes(tmp_path: Path) -> None:
    # a is replaced: its input stays, its output and id become unknown; a missing attribute never triggers
    p = _plan("strata", tmp_path, REPLACED)
    assert p.plan_json == (("terraform_data.a", ("delete", "create"), "replace_because_cannot_update"),
                           ("terraform_data.b", ("no-op",), None),
                           ("terraform_data.c", ("delete", "create"), J),
                           ("terraform_data.d", ("no-op",), None))


@pytest.mark.parametrize("name", ["grown", "shrunk"])
def test_create_or_delete_of_a_referenced_instance_triggers_nothing(tmp_path: Path, name: str) -> None:
    p = _plan("strata", tmp_path, CASES[name])
    assert {(a, r) for a, _acts, r in p.plan_json if a.startswith(("terraform_data.b", "terraform_data.c"))} == {
        ("terraform_data.b", None), ("terraform_data.c[0]", None), ("terraform_data.c[1]", None)}


def test_replace_option_on_a_referenced_instance_triggers(tmp_path: Path) -> None:
    p = _plan("strata", tmp_path, REQUESTED)
    assert _headers(p) == ["terraform_data.a[1] will be replaced, as requested",
                           "terraform_data.b will be replaced due to changes in replace_triggered_by"]
    # c[1] names a[1].input, which the replacement keeps
    assert ("terraform_data.c[1]", ("no-op",), None) in p.plan_json


def test_count_index_and_each_key_name_the_instance_of_the_same_key(tmp_path: Path) -> None:
    p = _plan("strata", tmp_path, EACH)
    replaced = {a for a, acts, r in p.plan_json if r == J}
    assert replaced == {'terraform_data.b["p"]', 'terraform_data.c["p"]', "terraform_data.e"}


def test_new_instance_triggered_is_created_with_the_reason(tmp_path: Path) -> None:
    p = _plan("strata", tmp_path, NEW_INSTANCE)
    assert ("terraform_data.b[1]", "create", R) in p.stream
    assert ("terraform_data.b[1]", ("create",), J) in p.plan_json
    assert "terraform_data.b[1] will be created" in _headers(p)


@pytest.mark.parametrize("name", ["tainted", "requested_too"])
def test_trigger_is_the_reason_over_taint_and_replace_option(tmp_path: Path, name: str) -> None:
    p = _plan("strata", tmp_path, CASES[name])
    assert ("terraform_data.b", ("delete", "create"), J) in p.plan_json


@requires_terraform
@pytest.mark.parametrize("name", sorted(CASES))
def test_plan_surfaces_like_terraform(tmp_path: Path, name: str) -> None:
    ours = _plan("strata", tmp_path / "strata", CASES[name])
    theirs = _plan("terraform", tmp_path / "terraform", CASES[name])
    assert ours == theirs


# mistakes: when the configuration is loaded, or (what needs an instance's key or the plan) in
# the plan walk, after the changes planned before them are shown
ERRORS = {
    "not_a_list": ("terraform_data.a", "", "Invalid expression", "A static list expression is required."),
    "variable": ("[var.v]", "", "Invalid reference in replace_triggered_by expression",
                 "Only resources, count.index, and each.key may be used in\nreplace_triggered_by."),
    "each_value": ("[terraform_data.m[each.value]]", 'for_each = toset(["x"])',
                   "Invalid each reference in replace_triggered_by expression",
                   "Only each.key may be used in replace_triggered_by."),
    "no_resource": ('["terraform_data.s"]', "", "Invalid replace_triggered_by expression",
                    "Missing resource reference in replace_triggered_by expression."),
    "two_resources": ("[join(terraform_data.a[0].id, terraform_data.s.id)]", "",
                      "Invalid replace_triggered_by expression",
                      "Multiple resource references in replace_triggered_by expression."),
    "bare_type": ("[terraform_data]", "", "Invalid reference",
                  "A reference to a resource type must be followed by at least one attribute\n"
                  "access, specifying the resource name."),
    "splat": ("[terraform_data.a[*].id]", "", "Invalid replace_triggered_by expression",
              "Unexpected expression found in replace_triggered_by."),
    "computed_key": ("[terraform_data.a[count.index + 1]]", "count = 1", "Invalid expression",
                     "A single static variable reference is required: only attribute access and\n"
                     "indexing with constant keys. No calculations, function calls, template\n"
                     "expressions, etc are allowed here."),
    "count_without_count": ("[terraform_data.a[count.index]]", "", 'Reference to "count" in non-counted context',
                            'The "count" object can only be used in "resource" blocks when the "count"\n'
                            "argument is set."),
    "undeclared": ("[terraform_data.zzz]", "", "Reference to undeclared resource",
                   "A resource terraform_data.zzz has not been declared in the root module"),
    "attribute_without_key": ("[terraform_data.a.id]", "", "no change found for terraform_data.a in the root module",
                              None),  # of the instance without a key: a has count
    "no_such_instance": ("[terraform_data.a[5]]", "", "no change found for terraform_data.a[5] in the root module",
                         None),
}


def _error_config(items: str, extra: str) -> str:
    return f"""variable "v" {{
  default = "x"
}}
resource "terraform_data" "a" {{
  count = 2
}}
resource "terraform_data" "m" {{
  for_each = toset(["x", "y"])
}}
resource "terraform_data" "s" {{
}}
resource "terraform_data" "b" {{
  {extra}
  lifecycle {{
    replace_triggered_by = {items}
  }}
}}
"""


def _errors(tool: str, path: Path, name: str) -> str:
    path.mkdir(exist_ok=True)
    items, extra, *_ = ERRORS[name]
    (path / "main.tf").write_text(_error_config(items, extra))
    res = _run(tool, path, "plan", "-no-color")
    assert res.returncode == 1
    out = res.stdout + res.stderr
    return "\n".join(line for line in out[out.index("Error: "):].splitlines() if line)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_mistake_is_reported_in_terraform_words(tmp_path: Path, name: str) -> None:
    items, _extra, summary, detail = ERRORS[name]
    got = _errors("strata", tmp_path, name)
    assert got.startswith(f"Error: {summary}")
    if detail is not None:
        assert "  on main.tf line 15, in resource \"terraform_data\" \"b\":" in got
        assert detail in got


@requires_terraform
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_mistake_is_reported_like_terraform(tmp_path: Path, name: str) -> None:
    assert _errors("strata", tmp_path / "strata", name) == _errors("terraform", tmp_path / "terraform", name)


def test_items_are_dependencies_in_the_state(tmp_path: Path) -> None:
    p = tmp_path / "w"
    _plan("strata", p, UPDATE)
    state = orjson.loads((p / "terraform.tfstate").read_bytes())
    deps = {r["name"]: r["instances"][0].get("dependencies") for r in state["resources"]}
    assert deps == {"a": None, "b": ["terraform_data.a"], "c": ["terraform_data.a"], "e": ["terraform_data.a"]}


@both_tools("replace_triggered_by was refused")
def test_triggered_replacement_is_applied_in_terraform_order(workdir: Workdir, tool: str) -> None:
    # b's old object goes before a is updated (a depends on b's destroy, as on any dependent's),
    # and b's new one after
    s = Scenario(workdir, tool)
    s.apply(textwrap.dedent(SINGLE_V1))
    res = s.apply(textwrap.dedent(SINGLE_V1).replace('"x"', '"y"'))
    assert steps(res) == [("start", "delete", "terraform_data.b"), ("complete", "delete", "terraform_data.b"),
                          ("start", "update", "terraform_data.a"), ("complete", "update", "terraform_data.a"),
                          ("start", "create", "terraform_data.b"), ("complete", "create", "terraform_data.b")]


THROUGH_EMPTY = """
resource "terraform_data" "a" {
  input = "A"
}
resource "terraform_data" "m" {
  count = M
  input = terraform_data.a.output
}
resource "terraform_data" "b" {
  input = "B"
  lifecycle {
    replace_triggered_by = [terraform_data.m[0].input]
  }
}
"""


@both_tools("an instance named of a resource without instances any more (m[0], its object still in the "
            "state) broke the chain through it: b did not wait for a, nor record it")
def test_instance_of_a_resource_without_instances_is_waited_through(workdir: Workdir, tool: str) -> None:
    s = Scenario(workdir, tool)
    s.apply(THROUGH_EMPTY.replace("M", "1"))
    res = s.apply(THROUGH_EMPTY.replace("M", "0").replace('"A"', '"A2"').replace('"B"', '"B2"'))
    assert_before(res, ("update", "terraform_data.a"), ("update", "terraform_data.b"))
    assert "terraform_data.a" in s.instance("terraform_data.b").get("dependencies", [])
