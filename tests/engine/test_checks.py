"""Check blocks inside: decoding (engine.config.checks), the results' summaries
(engine.config.check_results), their state encoding (engine.state.checks) and plan JSON
(engine.render.checks_json), and one check evaluated in a scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.addrs import ROOT, ModulePath
from engine.config.check_eval import evaluate_check
from engine.config.check_results import (
    ERROR,
    FAIL,
    PASS,
    UNKNOWN,
    CheckObject,
    CheckResult,
    summarize,
)
from engine.config.checks import check_object, from_check_block, read_failure
from engine.config.module import load_module
from engine.diagnostics import DiagnosticsError, error
from engine.lang.evaluate import Scope
from engine.render.checks_json import plan_json
from engine.state import checks as state_checks
from engine.values import UNKNOWN as UNKNOWN_VALUE

CHECK = '''
variable "n" {
  default = 1
}

check "c" {
  assert {
    condition     = var.n > 2
    error_message = "  n is ${var.n}  "
  }
  assert {
    condition     = var.n > 0
    error_message = "n is positive"
  }
}
'''


def _module(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    (tmp_path / "main.tf").write_text(text)
    return load_module(str(tmp_path))


def _scope(n: object) -> Scope:
    def no_local(name: str, line: int) -> object:
        raise AssertionError(name)

    return Scope({"n": n}, no_local, None)


@pytest.mark.parametrize(("statuses", "want"), [
    ([], PASS), ([PASS, PASS], PASS), ([PASS, UNKNOWN], UNKNOWN), ([UNKNOWN, FAIL], FAIL),
    ([FAIL, ERROR, UNKNOWN], ERROR)])
def test_summary_is_error_then_fail_then_unknown_then_pass(statuses: list[str], want: str) -> None:
    assert summarize(statuses) == want


def test_check_block_decoded_with_its_asserts(tmp_path: Path) -> None:
    m = _module(tmp_path, CHECK)
    cc = m.checks["c"]
    assert (cc.name, cc.context, len(cc.asserts), cc.data) == ("c", 'check "c"', 2, None)


def test_scoped_data_source_is_one_of_the_module_data_sources(tmp_path: Path) -> None:
    m = _module(tmp_path, 'check "c" {\n  data "local_file" "f" {\n    filename = "x"\n  }\n  assert {\n'
                          '    condition     = data.local_file.f.content == "x"\n    error_message = "no"\n  }\n}\n')
    (addr,) = m.resources
    assert str(addr) == "data.local_file.f" and m.checks["c"].data == addr
    assert m.resources[addr].check == "c" and m.resources[addr].context == 'check "c"'


def test_check_without_asserts_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticsError) as got:
        _module(tmp_path, 'check "c" {\n}\n')
    assert [d.summary for d in got.value.diagnostics] == ["Zero assert blocks"]


def test_failed_assertion_is_a_warning_with_its_trimmed_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    monkeypatch.chdir(tmp_path)  # where the command runs: file names are relative to it
    cc = _module(tmp_path, CHECK).checks["c"]
    obj, diags = evaluate_check(cc, "check.c", _scope(1), None)
    assert obj == CheckObject("check.c", FAIL, ("n is 1",))
    assert [(d.severity, d.summary, d.context) for d in diags] == [
        ("warning", "Check block assertion failed", 'check "c"')]
    assert diags[0].detail == "n is 1"
    assert diags[0].subject is not None and diags[0].subject.column == 21  # the condition's expression
    assert from_check_block(diags[0])


def test_undecided_assertion_warns_only_while_planning(tmp_path: Path) -> None:
    cc = _module(tmp_path, CHECK).checks["c"]
    obj, diags = evaluate_check(cc, "check.c", _scope(UNKNOWN_VALUE), None, planning=True)
    assert obj.status == UNKNOWN
    assert [d.summary for d in diags] == ["Check block assertion known after apply"] * 2
    _, applying = evaluate_check(cc, "check.c", _scope(UNKNOWN_VALUE), None, planning=False)
    assert applying == []


def test_failed_data_source_leaves_the_assertions_unevaluated(tmp_path: Path) -> None:
    cc = _module(tmp_path, CHECK).checks["c"]
    obj, diags = evaluate_check(cc, "check.c", _scope(1), FAIL, "Read failed: gone")
    assert (obj, diags) == (CheckObject("check.c", FAIL, ("Read failed: gone",)), [])


def test_read_failure_is_worded_as_go_joins_errors() -> None:
    one = error("Read failed", "gone")
    assert read_failure([one]) == "Read failed: gone"
    assert read_failure([one, error("Again")]) == "2 problems:\n\n- Read failed: gone\n- Again"


def test_check_object_address_names_the_module_instance() -> None:
    assert check_object(ROOT, "c") == "check.c"
    assert check_object(ModulePath((("m", 0), ("n", "k"))), "c") == 'module.m[0].module.n["k"].check.c'


RESULTS = (CheckResult("module.m.check.c", FAIL, (CheckObject("module.m[1].check.c", FAIL, ("b", "a")),
                                                  CheckObject("module.m[0].check.c", PASS))),
           CheckResult("check.u", UNKNOWN, None))


def test_state_encoding_round_trips_and_is_null_when_empty() -> None:
    assert state_checks.encode(()) is None
    doc = state_checks.encode(RESULTS)
    assert doc is not None and [r["config_addr"] for r in doc] == ["module.m.check.c", "check.u"]
    assert doc[1]["objects"] is None and "failure_messages" not in doc[0]["objects"][1]
    assert state_checks.decode(doc) == RESULTS


def test_plan_json_sorts_instances_and_problems() -> None:
    got = plan_json(RESULTS)
    assert got[0] == {"address": {"kind": "check", "name": "u", "to_display": "check.u"}, "status": "unknown"}
    assert got[1]["address"] == {"kind": "check", "module": "module.m", "name": "c", "to_display": "module.m.check.c"}
    assert [i["address"]["to_display"] for i in got[1]["instances"]] == ["module.m[0].check.c", "module.m[1].check.c"]
    assert got[1]["instances"][1]["problems"] == [{"message": "a"}, {"message": "b"}]


def test_state_file_keeps_check_results() -> None:
    from engine.state.codec import decode_state, encode_state
    from engine.state.model import State

    state = State(check_results=RESULTS)
    back = decode_state(encode_state(state, lambda _t: {}), "terraform.tfstate", lambda _t: {})
    assert set(back.check_results) == set(RESULTS)
