"""The results of the conditions outside check blocks, inside: what the walk reports
(engine.config.checkables), what each condition comes to (engine.config.conditions), the plan
JSON's addresses of each kind (engine.render.checks_json) and the state encoding of each kind
(engine.state.checks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.config import conditions
from engine.config.check_results import (
    ERROR,
    FAIL,
    OUTPUT,
    PASS,
    RESOURCE,
    UNKNOWN,
    VAR,
    CheckObject,
    CheckResult,
)
from engine.config.checkables import (
    POSTCONDITION,
    PRECONDITION,
    VALIDATION,
    Checkables,
    not_checked,
)
from engine.config.module import load_module
from engine.diagnostics import DiagnosticsError
from engine.lang.evaluate import Scope
from engine.planning.planner import Planner
from engine.provider.mock import MockProvider
from engine.provider.protocol import AttributeSchema
from engine.provider.registry import Providers
from engine.render.checks_json import plan_json
from engine.state import checks as state_checks
from engine.state.model import State
from engine.values import UNKNOWN as UNKNOWN_VALUE

CONFIG = '''
variable "n" {
  default = 1
  validation {
    condition     = var.n > 0
    error_message = "positive"
  }
}

variable "plain" {
  default = 1
}

resource "terraform_data" "a" {
  count = 2
  lifecycle {
    precondition {
      condition     = var.n > 0
      error_message = "p"
    }
    postcondition {
      condition     = self.id != ""
      error_message = "q"
    }
  }
}

resource "terraform_data" "plain" {}

output "o" {
  value = var.n
  precondition {
    condition     = var.n > 0
    error_message = "o"
  }
}
'''


def _checkables(tmp_path: Path) -> Checkables:
    (tmp_path / "main.tf").write_text(CONFIG)
    return Checkables(load_module(str(tmp_path)))


def _by_addr(results: tuple[CheckResult, ...]) -> dict[str, CheckResult]:
    return {r.config_addr: r for r in results}


def test_only_what_has_conditions_is_checkable(tmp_path: Path) -> None:
    got = _by_addr(_checkables(tmp_path).results())
    assert {a: r.kind for a, r in got.items()} == {"var.n": VAR, "terraform_data.a": RESOURCE, "output.o": OUTPUT}


def test_objects_not_known_yet_are_unknown_without_objects(tmp_path: Path) -> None:
    got = _by_addr(_checkables(tmp_path).results())
    assert got["terraform_data.a"] == CheckResult("terraform_data.a", UNKNOWN, None, RESOURCE)


def test_no_objects_is_a_pass(tmp_path: Path) -> None:
    c = _checkables(tmp_path)
    c.objects("terraform_data.a", [])
    assert _by_addr(c.results())["terraform_data.a"] == CheckResult("terraform_data.a", PASS, (), RESOURCE)


def test_an_object_is_unknown_until_each_condition_is_reported(tmp_path: Path) -> None:
    c = _checkables(tmp_path)
    c.objects("terraform_data.a", ["terraform_data.a[0]", "terraform_data.a[1]"])
    c.report("terraform_data.a[0]", PRECONDITION, 0, PASS)
    c.report("terraform_data.a[0]", POSTCONDITION, 0, PASS)
    c.report("terraform_data.a[1]", PRECONDITION, 0, PASS)
    got = _by_addr(c.results())["terraform_data.a"]
    assert got.status == UNKNOWN
    assert got.objects == (CheckObject("terraform_data.a[0]", PASS), CheckObject("terraform_data.a[1]", UNKNOWN))


def test_an_error_outweighs_a_failure_whose_messages_are_kept_sorted(tmp_path: Path) -> None:
    c = _checkables(tmp_path)
    c.objects("terraform_data.a", ["terraform_data.a[0]"])
    c.report("terraform_data.a[0]", PRECONDITION, 0, FAIL, "z")
    c.report("terraform_data.a[0]", POSTCONDITION, 0, FAIL, "a")
    assert _by_addr(c.results())["terraform_data.a"].objects == (CheckObject("terraform_data.a[0]", FAIL, ("a", "z")),)
    c.report("terraform_data.a[0]", POSTCONDITION, 0, ERROR)
    got = _by_addr(c.results())["terraform_data.a"]
    assert (got.status, got.objects) == (ERROR, (CheckObject("terraform_data.a[0]", ERROR, ("z",)),))


def test_reports_of_undeclared_objects_are_ignored(tmp_path: Path) -> None:
    c = _checkables(tmp_path)
    c.objects("terraform_data.plain", ["terraform_data.plain"])  # nothing to check
    c.report("var.n", VALIDATION, 0, FAIL, "x")  # its object not known yet
    assert _by_addr(c.results())["var.n"].objects is None
    assert "terraform_data.plain" not in _by_addr(c.results())


def test_a_destroy_knows_only_its_root_outputs(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    got = _by_addr(not_checked(load_module(str(tmp_path)), destroy=True))
    assert got["output.o"].objects == (CheckObject("output.o", UNKNOWN),)
    assert got["terraform_data.a"].objects is None and got["var.n"].objects is None


def _scope(**values: Any) -> Scope:
    def no_local(name: str, line: int) -> object:
        raise AssertionError(name)

    return Scope(values, no_local, None)


def test_each_condition_reports_what_it_came_to(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('''
variable "v" {
  validation {
    condition     = var.v > 0
    error_message = "  not positive  "
  }
  validation {
    condition     = var.v < 10
    error_message = "big"
  }
  validation {
    condition     = var.v == 5 ? null : true
    error_message = "null"
  }
}
''')
    rules = load_module(str(tmp_path)).variables["v"].validations
    for value, want in [(-1, [(0, FAIL, "not positive"), (1, PASS, ""), (2, PASS, "")]),
                        (5, [(0, PASS, ""), (1, PASS, ""), (2, ERROR, "")]),
                        (UNKNOWN_VALUE, [(0, UNKNOWN, ""), (1, UNKNOWN, ""), (2, UNKNOWN, "")])]:
        said: list[tuple[int, str, str]] = []
        conditions.check(rules, _scope(v=value), "validation", report=lambda i, s, m, to=said: to.append((i, s, m)))
        assert said == want, value


RESULTS = (
    CheckResult("module.m.data.terraform_remote_state.s", PASS,
                (CheckObject("module.m[0].data.terraform_remote_state.s", PASS),), RESOURCE),
    CheckResult("terraform_data.b", FAIL, (CheckObject('terraform_data.b["k.2"]', FAIL, ("no",)),
                                           CheckObject("terraform_data.b[\"a\"]", PASS)), RESOURCE),
    CheckResult("module.m.output.o", UNKNOWN, (CheckObject('module.m["x"].output.o', UNKNOWN),), OUTPUT),
    CheckResult("var.v", PASS, (CheckObject("var.v", PASS),), VAR),
)


def test_plan_json_addresses_of_each_kind() -> None:
    got = {c["address"]["to_display"]: c for c in plan_json(RESULTS)}
    assert got["module.m.data.terraform_remote_state.s"]["address"] == {
        "kind": "resource", "mode": "data", "module": "module.m", "name": "s",
        "to_display": "module.m.data.terraform_remote_state.s", "type": "terraform_remote_state"}
    assert got["module.m.data.terraform_remote_state.s"]["instances"][0]["address"] == {
        "module": "module.m[0]", "to_display": "module.m[0].data.terraform_remote_state.s"}
    assert [i["address"] for i in got["terraform_data.b"]["instances"]] == [
        {"instance_key": "a", "to_display": 'terraform_data.b["a"]'},
        {"instance_key": "k.2", "to_display": 'terraform_data.b["k.2"]'}]
    assert got["module.m.output.o"]["address"] == {"kind": "output_value", "module": "module.m", "name": "o",
                                                   "to_display": "module.m.output.o"}
    assert got["module.m.output.o"]["instances"][0]["address"] == {"module": 'module.m["x"]',
                                                                   "to_display": 'module.m["x"].output.o'}
    assert got["var.v"]["address"] == {"kind": "var", "name": "v", "to_display": "var.v"}


def test_state_encoding_keeps_every_kind() -> None:
    doc = state_checks.encode(RESULTS)
    assert doc is not None and [r["object_kind"] for r in doc] == ["resource", "resource", "output", "var"]
    assert state_checks.decode(doc) == RESULTS
    assert state_checks.decode([*doc, {"object_kind": "future", "config_addr": "x", "status": "pass"}]) == RESULTS


PLAN_FAILURES = '''
resource "mock_thing" "a" {
  count = 3
  name  = "n${count.index}"
  lifecycle {
    precondition {
      condition     = count.index < 2
      error_message = "index ${count.index} too big"
    }
    postcondition {
      condition     = self.name != "n1"
      error_message = " one "
    }
  }
}

resource "mock_thing" "after" {
  name = mock_thing.a[0].name
  lifecycle {
    precondition {
      condition     = mock_thing.a[0].name != ""
      error_message = "x"
    }
  }
}

output "out" {
  value = mock_thing.a[0].name
  precondition {
    condition     = length(mock_thing.a) == 2
    error_message = "two"
  }
}
'''


@pytest.mark.trio
async def test_a_plan_that_fails_records_what_failed_and_what_it_never_reached(tmp_path: Path) -> None:
    # as terraform 1.11 records it in its errored plan (show -json's checks)
    (tmp_path / "main.tf").write_text(PLAN_FAILURES)
    mock = MockProvider({"mock_thing": {"id": AttributeSchema("string", computed=True),
                                        "name": AttributeSchema("string", required=True)}})
    planner = Planner(load_module(str(tmp_path)), State(), Providers({"mock": mock}), {}, lambda e: None)
    with pytest.raises(DiagnosticsError):
        await planner.run()
    got = _by_addr(planner.ctx.checkables.results())
    assert got["mock_thing.a"] == CheckResult("mock_thing.a", FAIL, (
        CheckObject("mock_thing.a[0]", PASS), CheckObject("mock_thing.a[1]", FAIL, ("one",)),
        CheckObject("mock_thing.a[2]", FAIL, ("index 2 too big",))), RESOURCE)
    assert got["mock_thing.after"] == CheckResult("mock_thing.after", UNKNOWN, None, RESOURCE)
    assert got["output.out"] == CheckResult("output.out", UNKNOWN, None, OUTPUT)
