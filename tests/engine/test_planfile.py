"""engine/plans/planfile.py: a saved plan is the Plan value serialised; read back, it is the same
value (unknowns, sets, lists, maps, numbers of any size, marks, expansions, refreshed objects),
and applying it plans nothing again: it refuses a state that moved on or a changed configuration,
and holds the provider to the saved plan's known values."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from engine import UNKNOWN, DiagnosticsError, ListVal, MapVal, SetVal
from engine.addrs import parse_dependency, parse_provider_config_addr, resource_addr
from engine.backend.operations import Options, apply_planned, make_plan, open_saved_plan
from engine.config.check_results import CheckObject, CheckResult
from engine.plans import planfile
from engine.plans.plan import (
    Action,
    DataRead,
    Expansion,
    Plan,
    Refreshed,
    ResourceInstanceChange,
    whole_resource_value,
)
from engine.provider.mock import Call, MockProvider
from engine.provider.registry import Providers
from engine.state.model import ObjectState
from tests.engine.test_contracts import CONFIG, _messages, _write, misbehaving

A = resource_addr("terraform_data", "a")
D = resource_addr("local_file", "d", "data")
VALUE = {"id": UNKNOWN, "big": 2 ** 80, "f": 1.5, "neg": -(2 ** 70), "s": SetVal.of(["b", "a"]),
         "l": ListVal([1, 2]), "m": MapVal({"k": ListVal([])}), "t": ("x", None, True), "o": {"n": {"q": 1}},
         "e": SetVal.of([])}


P = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
ALIASED = parse_provider_config_addr('module.m.provider["registry.terraform.io/hashicorp/local"].other')


def _plan() -> Plan:
    change = ResourceInstanceChange(
        A.instance(0), Action.DELETE_THEN_CREATE, P,
        {"id": "1", "input": "x"}, VALUE, "cannot_update", None, (("input",), ("m", "k", 0)), False,
        frozenset({A.instance("k")}), frozenset({D}), (parse_dependency("data.local_file.d"),), (parse_dependency("module.m.terraform_data.b"),),
        {"input": UNKNOWN}, frozenset({"input"}), frozenset())
    deposed = ResourceInstanceChange(A.instance(0), Action.DELETE, P, {"id": "0"}, None, deposed="abcd1234",
                                     create_before_destroy=True)
    return Plan(
        changes=[change, deposed], outputs={"o": (VALUE, True)}, prior_outputs={"o": ("x", False)},
        variables={"v": SetVal.of([1, 2]), "w": None}, destroy=False, targeted=True, kept_outputs={"k"},
        refresh=False,
        data_reads={D.instance(): DataRead(ALIASED, {"content": "c"}, frozenset({"content"}))},
        forget=[D.instance("gone")], drift=[deposed],
        refreshed=(Refreshed(A.instance(1), P, ObjectState({"id": "1", "n": 2 ** 64}, "tainted", 2, (parse_dependency("a.b"),), True,
                                                             ([{"type": "get_attr", "value": "n"}],))),
                   Refreshed(A.instance(2), P, None), Refreshed(A.instance(3), P, ObjectState({}), "dep")),
        expansions=MappingProxyType({A: Expansion("count", (0, 1)), D: Expansion("single", (None,))}),
        local_dependencies=MappingProxyType({"l": frozenset({A, D}), "c": frozenset()}),
        config_digest="abc",
        checks=(CheckResult("module.m.check.c", "fail", (CheckObject("module.m[0].check.c", "fail", ("no",)),)),
                CheckResult("check.u", "unknown", None)),
        check_data={"module.m[0].check.c": ("fail", "Read failed: gone")}, scoped_reads={D.instance()})


def test_a_plan_reads_back_as_the_same_value() -> None:
    plan = _plan()
    back = planfile.decode_plan(planfile.encode_plan(plan))
    assert back == plan
    # == does not tell a list from a tuple, nor a set from one: the encoding does
    assert planfile.encode_plan(back) == planfile.encode_plan(plan)
    after = back.changes[0].after
    assert after is not None and after["id"] is UNKNOWN and type(after["s"]) is SetVal
    assert type(after["l"]) is ListVal and type(after["m"]) is MapVal and type(after["t"]) is tuple
    assert type(after["big"]) is int and after["big"] == 2 ** 80


def test_a_plan_file_holds_the_plan_and_what_it_was_made_from(tmp_path: Path) -> None:
    path = str(tmp_path / "tfplan")
    options = planfile.Options(destroy=False, refresh_only=False, refresh=True, targets=("a.b",), replace=())
    planfile.write(path, lineage="L", serial=3, options=options, plan=_plan(), text="the plan")
    saved = planfile.read(path)
    assert (saved.lineage, saved.serial, saved.options, saved.text) == ("L", 3, options, "the plan")
    assert saved.plan == _plan()


@pytest.mark.parametrize("edit", [
    lambda d: d["plan"]["changes"][0].__setitem__("addr", ["managed", "t", "n", 1.5]),
    lambda d: d["plan"]["changes"][0].__setitem__("after", {"not": "a value"}),
    lambda d: d["plan"]["expansions"][0].__setitem__(1, "sometimes"),
    lambda d: d["plan"].__setitem__("destroy", "yes"),
    lambda d: d.__setitem__("serial", "3"),
    lambda d: d["plan"].pop("local_dependencies"),
])
def test_a_plan_file_that_is_not_one_is_refused(tmp_path: Path, edit: Any) -> None:
    import orjson

    path = tmp_path / "tfplan"
    planfile.write(str(path), lineage="L", serial=3, options=planfile.Options(), plan=_plan(), text="")
    doc = orjson.loads(path.read_bytes())
    edit(doc)
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(DiagnosticsError, match="as a plan file"):
        planfile.read(str(path))


def test_whole_resource_value_follows_the_expansion() -> None:
    assert whole_resource_value("count", {1: "b", 0: "a"}) == ("a", "b")
    assert whole_resource_value("for_each", {"y": 2, "x": 1}) == {"x": 1, "y": 2}
    assert whole_resource_value("single", {None: "v"}) == "v"
    assert whole_resource_value("count", None) is UNKNOWN


# ------------------------------------------------------------------ applying a plan read back


async def _saved(tmp_path: Path, provider: MockProvider, config: str = CONFIG) -> tuple[Options, planfile.SavedPlan]:
    opts = _write(tmp_path, config)
    p = await make_plan(opts, lambda e: None, providers=Providers({"bad": provider}))
    p.store.unlock()
    path = str(tmp_path / "tfplan")
    planfile.write(path, lineage=None, serial=None, options=planfile.Options(), plan=p.plan, text="")
    return opts, planfile.read(path)


@pytest.mark.trio
async def test_a_saved_plan_is_applied_without_planning_again(tmp_path: Path) -> None:
    opts, saved = await _saved(tmp_path, misbehaving())
    provider = misbehaving()
    p = await open_saved_plan(opts, saved, lambda e: None, Providers({"bad": provider}))
    assert len(provider.requests("plan_resource_change")) == 0  # nothing planned when it is opened
    result = await apply_planned(p, opts, lambda e: None)
    assert result.ok, _messages(result.diagnostics)
    assert len(provider.requests("plan_resource_change")) == 1  # the final plan of the one change, at apply time


@pytest.mark.trio
async def test_a_final_plan_that_breaks_the_saved_plan_is_inconsistent(tmp_path: Path) -> None:
    opts, saved = await _saved(tmp_path, misbehaving())
    provider = misbehaving(drift_final_plan=True)
    # as if it had planned once already: its next plan (the final one) changes a value the saved plan knew
    provider.calls.append(Call("plan_resource_change", None))
    p = await open_saved_plan(opts, saved, lambda e: None, Providers({"bad": provider}))
    result = await apply_planned(p, opts, lambda e: None)
    text = _messages(result.diagnostics)
    assert "Provider produced inconsistent final plan" in text and ".size" in text, text
    assert not (tmp_path / "terraform.tfstate").exists() or '"bad_thing"' not in (
        tmp_path / "terraform.tfstate").read_text()


@pytest.mark.trio
async def test_a_saved_plan_refuses_a_state_that_moved_on(tmp_path: Path) -> None:
    opts, saved = await _saved(tmp_path, misbehaving())
    p = await open_saved_plan(opts, saved, lambda e: None, Providers({"bad": misbehaving()}))
    assert (await apply_planned(p, opts, lambda e: None)).ok
    with pytest.raises(DiagnosticsError, match="Saved plan is stale"):
        await open_saved_plan(opts, saved, lambda e: None, Providers({"bad": misbehaving()}))


@pytest.mark.trio
async def test_a_saved_plan_refuses_a_changed_configuration(tmp_path: Path) -> None:
    opts, saved = await _saved(tmp_path, misbehaving())
    (tmp_path / "main.tf").write_text(CONFIG.replace("hello", "bye"))
    with pytest.raises(DiagnosticsError, match="Saved plan does not match the configuration"):
        await open_saved_plan(opts, saved, lambda e: None, Providers({"bad": misbehaving()}))


def test_private_bytes_and_module_paths_read_back() -> None:
    from dataclasses import replace

    from engine.addrs import parse_instance_addr

    plan = _plan()
    addr = parse_instance_addr('module.m["x"].terraform_data.a[0]')
    changed = replace(plan.changes[0], addr=addr, private=b"\x00\xffopaque")
    plan = replace(plan, changes=[changed, *plan.changes[1:]])
    back = planfile.decode_plan(planfile.encode_plan(plan))
    assert back.changes[0].private == b"\x00\xffopaque"
    assert back.changes[0].addr == addr
