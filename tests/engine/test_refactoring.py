"""The refactoring blocks without an event loop: their decoding (engine.config.refactoring), the
moves applied to a state (engine.planning.moves, State.move), what a removed block forgets
(engine.planning.forget), and the plan file carrying moves, imports and forgets."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from engine.addrs import (
    ROOT,
    ModulePath,
    parse_instance_addr,
    parse_provider_config_addr,
    resource_addr,
)
from engine.config.model import Module
from engine.config.module import load_module
from engine.config.refactoring import Endpoint
from engine.diagnostics import DiagnosticsError
from engine.planning.forget import check_removed, forgets, forgotten
from engine.planning.moves import apply_moves, moved_address
from engine.plans.plan import Action, Plan, ResourceInstanceChange
from engine.plans.planfile import decode_plan, encode_plan
from engine.state.model import ObjectState, State

PROV = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')


def load(tmp_path: Path, text: str, child: str | None = None) -> Module:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text))
    if child is not None:
        (tmp_path / "mod").mkdir()
        (tmp_path / "mod" / "main.tf").write_text(textwrap.dedent(child))
    return load_module(str(tmp_path))


def state_with(*addrs: str) -> State:
    s = State()
    for a in addrs:
        s.set_object(parse_instance_addr(a), PROV, ObjectState({"id": a}))
    return s


def addresses(s: State) -> list[str]:
    return sorted(str(a) for a, _d, _o, _p in s.objects())


def test_moved_endpoints_decode_resources_instances_and_modules(tmp_path: Path) -> None:
    m = load(tmp_path, """
        moved {
          from = terraform_data.a[0]
          to   = terraform_data.b["k"]
        }
        moved {
          from = module.x
          to   = module.y[2]
        }
        moved {
          from = module.x.terraform_data.a
          to   = terraform_data.a
        }
        """)
    first, second, third = m.moved
    assert (str(first.from_), str(first.to)) == ("terraform_data.a[0]", 'terraform_data.b["k"]')
    # a whole call moved to one instance is its single instance (terraform's UnifyMoveEndpoints)
    assert second.from_ == Endpoint((("x", None),), None, None, True)
    assert str(second.to) == "module.y[2]"
    assert str(third.from_) == "module.x.terraform_data.a" and not third.from_.keyed


@pytest.mark.parametrize("from_, to, summary", [
    ("terraform_data.a", "module.x", 'Invalid "moved" addresses'),
    ('"terraform_data.a"', "terraform_data.b", "Invalid expression"),
    ("terraform_data.a[var.i]", "terraform_data.b", "Invalid expression"),
    ("data.terraform_data.a", "data.terraform_data.b", 'Invalid "moved" addresses'),
])
def test_moved_blocks_that_cannot_be_moves_are_errors(tmp_path: Path, from_: str, to: str, summary: str) -> None:
    with pytest.raises(DiagnosticsError) as exc:
        load(tmp_path, f"moved {{\n  from = {from_}\n  to = {to}\n}}\n")
    assert [d.summary for d in exc.value.diagnostics] == [summary]
    assert exc.value.diagnostics[0].subject is not None


def test_a_chain_of_moves_takes_each_object_to_its_end(tmp_path: Path) -> None:
    m = load(tmp_path, """
        moved {
          from = terraform_data.b
          to   = terraform_data.c
        }
        moved {
          from = terraform_data.a
          to   = terraform_data.b
        }
        """)
    s = state_with("terraform_data.a")
    moved = apply_moves(m, s)
    assert addresses(s) == ["terraform_data.c"]
    assert {str(k): str(v) for k, v in moved.items()} == {"terraform_data.c": "terraform_data.a"}


def test_nothing_is_moved_onto_an_object_already_there(tmp_path: Path) -> None:
    m = load(tmp_path, "moved {\n  from = terraform_data.a\n  to = terraform_data.b\n}\n")
    s = state_with("terraform_data.a", "terraform_data.b")
    assert apply_moves(m, s) == {}
    assert addresses(s) == ["terraform_data.a", "terraform_data.b"]


def test_a_module_call_moves_with_every_instance_key_and_resource_in_it(tmp_path: Path) -> None:
    m = load(tmp_path, "moved {\n  from = module.a\n  to = module.b\n}\n")
    s = state_with('module.a["x"].terraform_data.r[0]', "module.a[1].module.c.terraform_data.r", "terraform_data.r")
    apply_moves(m, s)
    assert addresses(s) == ['module.b["x"].terraform_data.r[0]', "module.b[1].module.c.terraform_data.r",
                            "terraform_data.r"]


def test_a_moved_block_in_a_module_applies_in_each_of_its_instances(tmp_path: Path) -> None:
    m = load(tmp_path, 'module "m" {\n  source = "./mod"\n  count = 2\n}\n', child="""
        resource "terraform_data" "new" {
        }
        moved {
          from = terraform_data.old
          to   = terraform_data.new
        }
        """)
    s = state_with("module.m[0].terraform_data.old", "module.m[1].terraform_data.old", "terraform_data.old")
    apply_moves(m, s)
    assert addresses(s) == ["module.m[0].terraform_data.new", "module.m[1].terraform_data.new", "terraform_data.old"]


def test_an_instance_move_matches_only_its_key(tmp_path: Path) -> None:
    m = load(tmp_path, 'moved {\n  from = terraform_data.a[1]\n  to = terraform_data.a["one"]\n}\n')
    (stmt,) = m.moved
    assert moved_address(parse_instance_addr("terraform_data.a[0]"), stmt) is None
    assert str(moved_address(parse_instance_addr("terraform_data.a[1]"), stmt)) == 'terraform_data.a["one"]'


def test_state_move_swaps_two_objects_at_once() -> None:
    s = state_with("terraform_data.a", "terraform_data.b")
    a, b = parse_instance_addr("terraform_data.a"), parse_instance_addr("terraform_data.b")
    s.move({a: b, b: a})
    assert s.object(a) == ObjectState({"id": "terraform_data.b"})
    assert s.object(b) == ObjectState({"id": "terraform_data.a"})


def test_a_removed_block_forgets_its_resource_in_every_module_instance(tmp_path: Path) -> None:
    m = load(tmp_path, 'module "m" {\n  source = "./mod"\n  count = 2\n}\n', child="""
        removed {
          from = terraform_data.gone
          lifecycle {
            destroy = false
          }
        }
        """)
    blocks = forgotten(m)
    assert forgets(blocks, parse_instance_addr("module.m[1].terraform_data.gone[3]"))
    assert not forgets(blocks, parse_instance_addr("terraform_data.gone"))
    assert not forgets(blocks, parse_instance_addr("module.m[1].terraform_data.other"))


def test_removed_without_lifecycle_destroys(tmp_path: Path) -> None:
    m = load(tmp_path, "removed {\n  from = module.old\n}\n")
    assert forgotten(m) == ()
    assert m.removed[0].destroy


def test_a_removed_resource_still_declared_is_an_error(tmp_path: Path) -> None:
    m = load(tmp_path, """
        resource "terraform_data" "a" {
        }
        removed {
          from = terraform_data.a
          lifecycle {
            destroy = false
          }
        }
        """)
    (d,) = check_removed(m)
    assert d.summary == "Removed resource still exists"
    assert d.subject is not None and d.subject.line == 2


def test_a_removed_block_names_no_instance(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticsError) as exc:
        load(tmp_path, "removed {\n  from = terraform_data.a[0]\n}\n")
    assert [d.summary for d in exc.value.diagnostics] == ["Resource instance keys not allowed"]


def test_import_blocks_only_in_the_root_module(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticsError) as exc:
        load(tmp_path, 'module "m" {\n  source = "./mod"\n}\n',
             child='resource "terraform_data" "a" {\n}\nimport {\n  to = terraform_data.a\n  id = "x"\n}\n')
    assert [d.summary for d in exc.value.diagnostics] == ["Invalid import configuration"]


def test_the_plan_file_carries_moves_imports_and_forgets() -> None:
    a = resource_addr("terraform_data", "a").instance(None)
    b = resource_addr("terraform_data", "b", module=ModulePath((("m", 0),))).instance("k")
    plan = Plan(changes=[
        ResourceInstanceChange(b, Action.NOOP, PROV, {"id": "1"}, {"id": "1"}, previous=a),
        ResourceInstanceChange(a, Action.UPDATE, PROV, {"id": "2"}, {"id": "2"}, importing="2"),
        ResourceInstanceChange(a, Action.FORGET, PROV, {"id": "3"}, {"id": "3"}),
    ], forget=[a], moves={b: a})
    back = decode_plan(encode_plan(plan))
    assert back.changes == plan.changes
    assert dict(back.moves) == {b: a}
    assert back.forget == (a,)
    assert back.counts()["import"] == 1
    assert ROOT.is_root


def test_events_say_where_an_object_moved_from_and_what_it_was_imported_by() -> None:
    from engine.events import stream as ev

    a = parse_instance_addr("terraform_data.a")
    b = parse_instance_addr("terraform_data.b")
    moved = ev.planned_change(b, Action.NOOP, previous=a)
    assert moved.message == "terraform_data.b: Plan to move"
    assert moved.payload["change"]["previous_resource"]["addr"] == "terraform_data.a"
    imported = ev.planned_change(a, Action.NOOP, importing="abc")
    assert (imported.message, imported.payload["change"]["importing"]) == ("terraform_data.a: Plan to import",
                                                                           {"id": "abc"})
    assert ev.planned_change(a, Action.FORGET).payload["change"]["action"] == "remove"
    summary = ev.change_summary({"add": 0, "change": 1, "import": 2, "remove": 0}, "plan")
    assert summary.message == "Plan: 2 to import, 0 to add, 1 to change, 0 to destroy."


def test_the_json_stream_leaves_out_import_progress_terraform_prints_only_as_text() -> None:
    import io

    from engine.events import json_sink
    from engine.events import stream as ev

    out = io.BytesIO()
    sink = json_sink.JsonSink(out)
    a = parse_instance_addr("terraform_data.a")
    for e in (ev.import_preparing(a, "x"), ev.import_start(a, "x"), ev.import_complete(a, "x")):
        sink(e)
    sink(ev.refresh_start(a, "id", "x"))
    sink.flush()
    lines = out.getvalue().decode().splitlines()
    assert len(lines) == 1 and "Refreshing state" in lines[0]


def test_plan_text_of_a_move_an_import_and_a_forget() -> None:
    from engine.render.text import render_change

    a = parse_instance_addr("terraform_data.a")
    b = parse_instance_addr("terraform_data.b")
    obj = {"id": "1", "input": "x"}
    assert render_change(ResourceInstanceChange(b, Action.NOOP, PROV, obj, obj, previous=a)).splitlines()[:2] == [
        "  # terraform_data.a has moved to terraform_data.b", '    resource "terraform_data" "b" {']
    assert render_change(ResourceInstanceChange(a, Action.UPDATE, PROV, obj, {**obj, "input": "y"},
                                                importing="1")).splitlines()[1] == '  # (imported from "1")'
    forget = render_change(ResourceInstanceChange(a, Action.FORGET, PROV, obj, obj)).splitlines()
    assert forget[:3] == [" # terraform_data.a will no longer be managed by strata, but will not be destroyed",
                          " # (destroy = false is set in the configuration)", ' . resource "terraform_data" "a" {']
