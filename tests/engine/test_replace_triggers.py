"""replace_triggered_by's pure pieces: the items checked when loaded
(engine/config/replace_triggers.py), each item as the reference an instance makes of it, and
which planned changes trigger (engine/planning/replace_triggers.py); and, through the planner,
the graph's edge and a module's instance."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.addrs import ROOT, InstanceAddr, ModulePath, parse_provider_config_addr, resource_addr
from engine.backend.operations import Options, apply_planned, make_plan
from engine.config.model import Module
from engine.config.module import load_module
from engine.config.replace_triggers import decode_replace_triggered_by
from engine.diagnostics import Diagnostic, DiagnosticsError
from engine.lang.hcl import Attribute, parse_expression
from engine.planning.order import CfgNode, config_graph
from engine.planning.replace_triggers import (
    WHOLE,
    TriggerRef,
    changes_by_resource,
    fires,
    trigger_reference,
    triggered,
    value_at,
)
from engine.plans.plan import Action, ResourceInstanceChange
from engine.state.model import State
from engine.values import UNKNOWN

A = resource_addr("terraform_data", "a")
PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def _expr(text: str) -> Any:
    return parse_expression(text, "main.tf", 3)


def _decode(text: str) -> list[str]:
    from engine.diagnostics import SourceRange

    diags: list[Diagnostic] = []
    decode_replace_triggered_by(Attribute("replace_triggered_by", _expr(text), SourceRange("main.tf", 3)), diags)
    return [d.detail or d.summary for d in diags]


@pytest.mark.parametrize("text", ["[terraform_data.a]", "[terraform_data.a[0].output]", "[terraform_data.a[count.index]]",
                                  '[terraform_data.a[each.key].input["k"]]', "[data.terraform_remote_state.x]"])
def test_resource_instance_and_attribute_references_are_accepted(text: str) -> None:
    assert _decode(text) == []


@pytest.mark.parametrize(("text", "detail"), [
    ("terraform_data.a", "A static list expression is required."),
    ("[each.value]", "Only each.key may be used in replace_triggered_by."),
    ("[terraform_data.a[count.foo]]", "Only count.index may be used in replace_triggered_by."),
    ("[local.x]", "Only resources, count.index, and each.key may be used in replace_triggered_by."),
    ("[1]", "Missing resource reference in replace_triggered_by expression."),
    ("[terraform_data.a == terraform_data.b]", "Multiple resource references in replace_triggered_by expression."),
])
def test_mistake_found_when_loaded(text: str, detail: str) -> None:
    assert detail in _decode(text)


def test_each_item_as_the_instance_refers_to_it() -> None:
    got = trigger_reference(_expr("terraform_data.a[count.index].input.k"), "main.tf", 2, None, ROOT)
    assert got == TriggerRef(A, 2, (("attr", "input"), ("attr", "k")), "terraform_data.a[2]")
    got = trigger_reference(_expr('terraform_data.a[each.key]'), "main.tf", None, "x", ROOT)
    assert isinstance(got, TriggerRef) and got.key == "x" and got.path == ()
    got = trigger_reference(_expr("terraform_data.a"), "main.tf", None, None, ROOT)
    assert isinstance(got, TriggerRef) and got.key is WHOLE and got.subject == "terraform_data.a"


def test_attribute_without_a_key_is_of_the_instance_without_one() -> None:
    # terraform's ParseRef: for a counted resource, there is no such instance ("no change found")
    got = trigger_reference(_expr("terraform_data.a.output"), "main.tf", None, None, ROOT)
    assert isinstance(got, TriggerRef) and got.key is None and got.subject == "terraform_data.a"


def test_reference_in_a_module_instance_is_to_its_own_resource() -> None:
    path = ModulePath((("m", 0),))
    got = trigger_reference(_expr("terraform_data.a"), "main.tf", None, None, path)
    assert isinstance(got, TriggerRef) and got.resource == resource_addr("terraform_data", "a", "managed", path)


@pytest.mark.parametrize(("text", "summary"), [
    ("terraform_data.a[count.index + 1]", "Invalid expression"),
    ("terraform_data.a[count.index]", 'Reference to "count" in non-counted context'),
    ("terraform_data.a[each.key]", 'Reference to "each" in context without for_each'),
    ("terraform_data.a[*].id", "Invalid replace_triggered_by expression"),
])
def test_mistake_found_for_an_instance(text: str, summary: str) -> None:
    got = trigger_reference(_expr(text), "main.tf", None, None, ROOT)
    assert isinstance(got, Diagnostic) and got.summary == summary


def _change(action: str, before: Any, after: Any, key: Any = None, deposed: str | None = None) -> ResourceInstanceChange:
    return ResourceInstanceChange(InstanceAddr(A, key), action, PROVIDER, before, after, None, deposed)


WHOLE_A = TriggerRef(A, WHOLE, (), "terraform_data.a")


@pytest.mark.parametrize(("action", "fired"), [(Action.UPDATE, True), (Action.DELETE_THEN_CREATE, True),
                                              (Action.CREATE_THEN_DELETE, True), (Action.CREATE, False),
                                              (Action.DELETE, False), (Action.NOOP, False)])
def test_which_actions_of_a_whole_resource_trigger(action: str, fired: bool) -> None:
    assert fires(WHOLE_A, [_change(action, {"x": 1}, {"x": 1})]) is fired


def test_any_instance_of_a_whole_resource_triggers() -> None:
    assert fires(WHOLE_A, [_change(Action.NOOP, {}, {}, 0), _change(Action.UPDATE, {}, {}, 1)])


@pytest.mark.parametrize(("before", "after", "fired"), [
    ({"input": "x"}, {"input": "x"}, False),
    ({"input": "x"}, {"input": "y"}, True),
    ({"input": "x"}, {"input": UNKNOWN}, True),  # becoming unknown is a change
    ({"input": UNKNOWN}, {"input": UNKNOWN}, False),
    ({"input": 1}, {"input": 1.0}, False),
    ({"input": "1"}, {"input": 1}, True),  # another type is another value
    ({}, {}, False),  # nowhere on both sides
    ({"input": None}, {}, True),  # null on one side, nowhere on the other
])
def test_attribute_triggers_when_its_value_differs(before: Any, after: Any, fired: bool) -> None:
    ref = TriggerRef(A, None, (("attr", "input"),), "terraform_data.a")
    assert fires(ref, [_change(Action.UPDATE, before, after)]) is fired


def test_attribute_of_an_instance_not_updated_nor_replaced_triggers_nothing() -> None:
    ref = TriggerRef(A, None, (("attr", "input"),), "terraform_data.a")
    assert not fires(ref, [_change(Action.CREATE, None, {"input": "y"})])
    assert not fires(ref, [_change(Action.DELETE, {"input": "y"}, None)])


def test_value_at_follows_attributes_and_indexes_through_unknown() -> None:
    v = {"input": {"k": ("a", "b")}, "u": UNKNOWN}
    assert value_at(v, (("attr", "input"), ("attr", "k"), ("index", 1))) == "b"
    assert value_at(v, (("attr", "u"), ("attr", "deep"))) is UNKNOWN
    assert value_at(v, (("attr", "input"), ("attr", "k"), ("index", 5))) is not None  # nowhere, not null


def test_current_objects_come_before_deposed_ones() -> None:
    got = changes_by_resource([_change(Action.DELETE, {}, None, deposed="abcd"), _change(Action.UPDATE, {}, {})])
    assert [c.deposed for c in got[A]] == [None, "abcd"]


def _module(tmp_path: Path, text: str) -> Module:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text))
    return load_module(str(tmp_path))


def test_no_change_for_what_the_item_names_is_an_error(tmp_path: Path) -> None:
    module = _module(tmp_path, """
        resource "terraform_data" "a" {
          count = 0
        }
        resource "terraform_data" "b" {
          lifecycle {
            replace_triggered_by = [terraform_data.a]
          }
        }
        """)
    items = module.resources[resource_addr("terraform_data", "b")].lifecycle.replace_triggered_by
    fired, diags = triggered(items, "main.tf", None, None, module, ROOT, {}, State())
    assert not fired
    assert [d.summary for d in diags] == ["no change found for terraform_data.a in the root module"]


def test_item_is_an_edge_of_the_configuration_graph(tmp_path: Path) -> None:
    module = _module(tmp_path, """
        resource "terraform_data" "a" {
        }
        resource "terraform_data" "b" {
          lifecycle {
            replace_triggered_by = [terraform_data.a.output]
          }
        }
        """)
    g = config_graph(module)
    assert CfgNode("resource", A) in g.deps[CfgNode("resource", resource_addr("terraform_data", "b"))]


MODULE_CALL = """
    module "m" {
      source = "./m"
      count  = 1
      v      = var.v
    }
    variable "v" {}
    """
CHILD = """
    variable "v" {}
    resource "terraform_data" "a" {
      input = var.v
    }
    resource "terraform_data" "b" {
      lifecycle {
        replace_triggered_by = [terraform_data.a.input]
      }
    }
    resource "terraform_data" "c" {
      lifecycle {
        replace_triggered_by = [terraform_data.zzz]
      }
    }
    """


@pytest.mark.trio
async def test_trigger_inside_a_module_instance(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "main.tf").write_text(textwrap.dedent(MODULE_CALL))
    (tmp_path / "m" / "main.tf").write_text(textwrap.dedent(CHILD.replace("[terraform_data.zzz]", "[terraform_data.a]")))

    def options(v: str) -> Options:
        return Options(chdir=str(tmp_path), fsync=False, variables={"v": v})

    planned = await make_plan(options("x"), emit=lambda e: None)
    assert (await apply_planned(planned, options("x"), lambda e: None)).ok
    planned = await make_plan(options("y"), emit=lambda e: None)
    reasons = {str(c.addr): c.reason for c in planned.plan.changes}
    assert reasons["module.m[0].terraform_data.b"] == "replace_by_triggers"
    assert reasons["module.m[0].terraform_data.c"] == "replace_by_triggers"


@pytest.mark.trio
async def test_undeclared_resource_in_a_module_names_the_module_instance(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "main.tf").write_text(textwrap.dedent(MODULE_CALL))
    (tmp_path / "m" / "main.tf").write_text(textwrap.dedent(CHILD))
    opts = Options(chdir=str(tmp_path), fsync=False, variables={"v": "x"})
    with pytest.raises(DiagnosticsError) as got:
        await make_plan(opts, emit=lambda e: None)
    assert any(d.detail == "A resource terraform_data.zzz has not been declared in module.m[0]"
               for d in got.value.diagnostics)


def _state_with(addr: Any, key: Any) -> State:
    from engine.state.model import InstanceState, ObjectState, ResourceState

    state = State()
    state.resources[addr] = ResourceState(addr, PROVIDER, {key: InstanceState(ObjectState({"id": "x"}))})
    return state


def test_object_left_in_the_state_is_a_change_that_triggers_nothing(tmp_path: Path) -> None:
    # a[1] is out of range for count now: its deletion is planned after b, and is no error
    module = _module(tmp_path, """
        resource "terraform_data" "a" {
          count = 0
        }
        resource "terraform_data" "b" {
          lifecycle {
            replace_triggered_by = [terraform_data.a[1], terraform_data.a]
          }
        }
        """)
    items = module.resources[resource_addr("terraform_data", "b")].lifecycle.replace_triggered_by
    assert triggered(items, "main.tf", None, None, module, ROOT, {}, _state_with(A, 1)) == (False, [])


def test_data_source_read_while_planning_is_no_change(tmp_path: Path) -> None:
    module = _module(tmp_path, """
        data "terraform_data_source" "d" {
        }
        resource "terraform_data" "b" {
          lifecycle {
            replace_triggered_by = [data.terraform_data_source.d]
          }
        }
        """)
    d = resource_addr("terraform_data_source", "d", "data")
    items = module.resources[resource_addr("terraform_data", "b")].lifecycle.replace_triggered_by
    fired, diags = triggered(items, "main.tf", None, None, module, ROOT, {}, _state_with(d, None))
    assert [x.summary for x in diags] == ["no change found for data.terraform_data_source.d in the root module"]
