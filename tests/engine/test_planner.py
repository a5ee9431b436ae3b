"""engine/planning/ through engine.backend.operations.make_plan, on temporary configuration directories;
its pure pieces (expansion, per-instance dependencies, the configuration order) on their own.

Each test writes a configuration using the built-in ``terraform_data``
resource, plans it (applying a first configuration where prior state is
needed), and checks the plan: per-instance dependencies, expansion
diagnostics, variables, outputs, ignore_changes and forced
create_before_destroy.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.addrs import ROOT, InstanceAddr, ResourceAddr, resource_addr
from engine.backend.operations import Options, Planned, apply_planned, make_plan
from engine.config.constants import _NoResources
from engine.config.model import ResourceConfig
from engine.config.module import load_module
from engine.config.module_instances import ModuleInstances
from engine.diagnostics import Diagnostic, DiagnosticsError
from engine.lang.evaluate import Scope
from engine.planning.dependencies import instance_deps, ref_specs
from engine.planning.expansion import Instances, expand
from engine.planning.module_deps import ModuleDeps
from engine.planning.order import config_graph, config_order
from engine.plans.plan import Action, Reason, ResourceInstanceChange, whole_resource_value
from engine.values import UNKNOWN, ListVal, equal, to_json

pytestmark = pytest.mark.trio

A = ResourceAddr("terraform_data", "a")
B = ResourceAddr("terraform_data", "b")


def inst(name: str, key: Any = None) -> InstanceAddr:
    return InstanceAddr(ResourceAddr("terraform_data", name), key)


class Dir:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.events: list[Any] = []

    def options(self, **kw: Any) -> Options:
        return Options(chdir=str(self.path), fsync=False, **kw)

    async def plan(self, config: str, **kw: Any) -> Planned:
        (self.path / "main.tf").write_text(textwrap.dedent(config))
        self.events = []
        return await make_plan(self.options(**kw), emit=self.events.append)

    async def apply(self, config: str, **kw: Any) -> None:
        p = await self.plan(config, **kw)
        result = await apply_planned(p, self.options(**kw), lambda e: None)
        assert result.ok, f"applying the first configuration failed: {result.diagnostics}"

    async def plan_error(self, config: str, **kw: Any) -> list[tuple[str, str, str]]:
        with pytest.raises(DiagnosticsError) as ei:
            p = await self.plan(config, **kw)
            pytest.fail(f"planning must fail, got {[(str(c.addr), c.action) for c in p.plan.changes]}")
        return [(d.summary, str(d.subject) if d.subject else "", d.detail) for d in ei.value.diagnostics]


@pytest.fixture
def wd(tmp_path: Path) -> Dir:
    return Dir(tmp_path)


def changes(p: Planned) -> dict[str, ResourceInstanceChange]:
    return {str(c.addr): c for c in p.plan.changes if c.deposed is None}


# --------------------------------------------------------------------------- create plans


async def test_expanded_instances_are_planned_for_create(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
          input = "a${count.index}"
        }
        resource "terraform_data" "b" {
          for_each = toset(["x", "y"])
          input    = each.key
        }
        """)
    got = {a: c.action for a, c in changes(p).items()}
    assert got == {"terraform_data.a[0]": "create", "terraform_data.a[1]": "create",
                   'terraform_data.b["x"]': "create", 'terraform_data.b["y"]': "create"}
    assert p.plan.counts() == {"add": 4, "change": 0, "import": 0, "remove": 0}


async def test_planned_values_use_count_index_and_each(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
          input = "a${count.index}"
        }
        resource "terraform_data" "b" {
          for_each = {x = 1}
          input    = "${each.key}=${each.value}"
        }
        """)
    c = changes(p)
    assert c["terraform_data.a[1]"].after["input"] == "a1"
    assert c['terraform_data.b["x"]'].after["input"] == "x=1"
    assert c["terraform_data.a[0]"].after["id"] is UNKNOWN


async def test_planned_change_events_are_emitted_for_each_change(wd):
    await wd.plan('resource "terraform_data" "a" {\n  count = 2\n}\n')
    got = [(e.type, e.payload["change"]["resource"]["addr"], e.payload["change"]["action"]) for e in wd.events]
    assert sorted(got) == [("planned_change", "terraform_data.a[0]", "create"),
                           ("planned_change", "terraform_data.a[1]", "create")]


# --------------------------------------------------------------------------- dependencies


async def test_instance_reference_depends_on_that_instance_only(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 3
          input = "a${count.index}"
        }
        resource "terraform_data" "b" {
          count = 3
          input = terraform_data.a[count.index].output
        }
        """)
    c = changes(p)
    for i in range(3):
        b = c[f"terraform_data.b[{i}]"]
        assert b.depends_on == {inst("a", i)}, f"b[{i}] refers to a[{i}] only; depends_on is {set(map(str, b.depends_on))}"
        assert b.depends_on_resources == frozenset(), "an indexed reference must not depend on the whole resource"


async def test_instance_reference_value_is_that_instance(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
          input = "a${count.index}"
        }
        resource "terraform_data" "b" {
          count = 2
          input = terraform_data.a[count.index].input
        }
        """)
    assert changes(p)["terraform_data.b[1]"].after["input"] == "a1"


async def test_splat_depends_on_the_whole_resource(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
        }
        resource "terraform_data" "c" {
          input = terraform_data.a[*].id
        }
        """)
    c = changes(p)["terraform_data.c"]
    assert c.depends_on_resources == {A}, f"a[*] depends on all of a; got {set(map(str, c.depends_on_resources))}"
    assert c.depends_on == frozenset()


async def test_reference_to_single_resource_is_an_instance_dependency(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {}
        resource "terraform_data" "b" {
          input = terraform_data.a.id
        }
        """)
    b = changes(p)["terraform_data.b"]
    assert b.depends_on == {inst("a")} and b.depends_on_resources == frozenset()


async def test_for_each_reference_by_each_key_depends_on_that_instance(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          for_each = toset(["x", "y"])
        }
        resource "terraform_data" "b" {
          for_each = toset(["x", "y"])
          input    = terraform_data.a[each.key].id
        }
        """)
    b = changes(p)['terraform_data.b["y"]']
    assert b.depends_on == {inst("a", "y")}


async def test_depends_on_whole_expanded_resource(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
        }
        resource "terraform_data" "b" {
          depends_on = [terraform_data.a]
        }
        """)
    assert changes(p)["terraform_data.b"].depends_on_resources == {A}


async def test_depends_on_an_instance(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
        }
        resource "terraform_data" "b" {
          depends_on = [terraform_data.a[1]]
        }
        """)
    b = changes(p)["terraform_data.b"]
    assert b.depends_on == {inst("a", 1)} and b.depends_on_resources == frozenset()


async def test_reference_through_a_local_depends_on_the_whole_resource(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
        }
        locals {
          ids = terraform_data.a[*].id
        }
        resource "terraform_data" "b" {
          input = local.ids
        }
        """)
    assert A in changes(p)["terraform_data.b"].depends_on_resources


async def test_state_dependencies_name_resources(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
        }
        resource "terraform_data" "b" {
          count = 2
          input = terraform_data.a[count.index].id
        }
        """)
    assert changes(p)["terraform_data.b[0]"].state_dependencies == (resource_addr("terraform_data", "a"),)


async def test_whole_resource_value_for_count_is_a_tuple_in_index_order():
    got = whole_resource_value("count", {1: {"id": "b"}, 0: {"id": "a"}})
    assert got == ({"id": "a"}, {"id": "b"}) and isinstance(got, tuple)


async def test_whole_resource_value_for_for_each_is_an_object():
    got = whole_resource_value("for_each", {"y": {"id": "y"}, "x": {"id": "x"}})
    assert got == {"x": {"id": "x"}, "y": {"id": "y"}} and type(got) is dict


async def test_whole_resource_value_for_single_is_the_object():
    assert whole_resource_value("single", {None: {"id": "s"}}) == {"id": "s"}


# --------------------------------------------------------------------------- expansion diagnostics


async def test_unknown_count_is_a_diagnostic(wd):
    got = await wd.plan_error("""\
        resource "terraform_data" "a" {}
        resource "terraform_data" "b" {
          count = length(terraform_data.a.id)
        }
        """)
    assert [(s, w) for s, w, _d in got] == [("Invalid count argument", "main.tf:3")]


async def test_negative_count_is_a_diagnostic(wd):
    got = await wd.plan_error('resource "terraform_data" "a" {\n  count = -1\n}\n')
    assert [(s, w) for s, w, _d in got] == [("Invalid count argument", "main.tf:2")]


async def test_non_number_count_is_a_diagnostic(wd):
    # terraform's words: the value is converted to a number as cty converts it
    got = await wd.plan_error('resource "terraform_data" "a" {\n  count = "two"\n}\n')
    assert got == [("Incorrect value type", "main.tf:2", "Invalid expression value: a number is required.")]


async def test_numeric_string_count_is_accepted(wd):
    p = await wd.plan('resource "terraform_data" "a" {\n  count = "2"\n}\n')
    assert len(changes(p)) == 2


async def test_for_each_over_a_list_is_a_diagnostic(wd):
    got = await wd.plan_error('resource "terraform_data" "a" {\n  for_each = ["x", "y"]\n}\n')
    assert [(s, w) for s, w, _d in got] == [("Invalid for_each argument", "main.tf:2")]
    assert got[0][2].endswith("you have provided a value of type tuple."), "terraform's words"


async def test_for_each_over_a_set_of_numbers_is_a_diagnostic(wd):
    got = await wd.plan_error('resource "terraform_data" "a" {\n  for_each = toset([1, 2])\n}\n')
    assert [s for s, _w, _d in got] == ["Invalid for_each set argument"]


async def test_for_each_over_unknown_set_is_a_diagnostic(wd):
    got = await wd.plan_error("""\
        resource "terraform_data" "a" {}
        resource "terraform_data" "b" {
          for_each = toset([terraform_data.a.id])
        }
        """)
    assert [(s, w) for s, w, _d in got] == [("Invalid for_each argument", "main.tf:3")]


async def test_for_each_map_with_unknown_values_is_planned(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {}
        resource "terraform_data" "b" {
          for_each = {x = terraform_data.a.id}
          input    = each.value
        }
        """)
    b = changes(p)['terraform_data.b["x"]']
    assert b.action == Action.CREATE and b.after["input"] is UNKNOWN


async def test_evaluation_error_names_file_line_and_address(wd):
    got = await wd.plan_error('resource "terraform_data" "a" {\n  input = tonumber("x")\n}\n')
    assert [(s, w) for s, w, _d in got] == [("Invalid function argument", "main.tf:2")]


# --------------------------------------------------------------------------- variables


async def test_variable_default_is_used(wd):
    p = await wd.plan('variable "env" {\n  default = "dev"\n}\noutput "o" {\n  value = "net-${var.env}"\n}\n')
    assert p.plan.outputs["o"] == ("net-dev", False)


async def test_var_option_overrides_default(wd):
    p = await wd.plan('variable "env" {\n  default = "dev"\n}\noutput "o" {\n  value = var.env\n}\n',
                      variables={"env": "prod"})
    assert p.plan.outputs["o"][0] == "prod"


async def test_var_option_parses_a_list(wd):
    p = await wd.plan('variable "l" {\n  type = list(string)\n}\noutput "o" {\n  value = var.l\n}\n',
                      variables={"l": '["a", "b"]'})
    assert to_json(p.plan.outputs["o"][0]) == ["a", "b"]


async def test_var_option_parses_a_map(wd):
    p = await wd.plan('variable "m" {\n  type = map(string)\n}\noutput "o" {\n  value = var.m["k"]\n}\n',
                      variables={"m": '{k = "v"}'})
    assert p.plan.outputs["o"][0] == "v"


async def test_typed_list_variable_is_a_list(wd):
    p = await wd.plan('variable "l" {\n  type = list(string)\n}\noutput "o" {\n  value = var.l\n}\n',
                      variables={"l": '["a", "b"]'})
    got = p.plan.outputs["o"][0]
    assert equal(got, ListVal(["a", "b"])), f'-var l=["a","b"] for list(string) is tolist(["a","b"]) in terraform, got {got!r}'


async def test_typed_number_variable_is_a_number(wd):
    p = await wd.plan('variable "n" {\n  type = number\n}\noutput "o" {\n  value = var.n\n}\n',
                      variables={"n": "5"})
    got = p.plan.outputs["o"][0]
    assert equal(got, 5), f"-var n=5 for a number variable is the number 5 in terraform, got {got!r}"


async def test_untyped_variable_takes_the_value_literally(wd):
    p = await wd.plan('variable "x" {}\noutput "o" {\n  value = var.x\n}\n', variables={"x": '["a"]'})
    got = p.plan.outputs["o"][0]
    assert got == '["a"]', f"-var 'x=[\"a\"]' for a variable without a type is the string '[\"a\"]' in terraform, got {got!r}"


async def test_undeclared_var_option_is_a_diagnostic(wd):
    got = await wd.plan_error('variable "x" {\n  default = 1\n}\n', variables={"nope": "1"})
    assert [s for s, _w, _d in got] == ["Value for undeclared variable"]


async def test_missing_required_variable_is_a_diagnostic(wd):
    got = await wd.plan_error('variable "req" {}\n')
    assert [(s, w) for s, w, _d in got] == [("No value for required variable", "main.tf:1")]


# --------------------------------------------------------------------------- outputs


async def test_outputs_are_planned_with_sensitivity(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          input = "x"
        }
        output "known" {
          value = terraform_data.a.input
        }
        output "secret" {
          value     = "s"
          sensitive = true
        }
        """)
    assert p.plan.outputs["known"] == ("x", False)
    assert p.plan.outputs["secret"] == ("s", True)


async def test_output_of_computed_attribute_is_unknown(wd):
    p = await wd.plan('resource "terraform_data" "a" {}\noutput "id" {\n  value = terraform_data.a.id\n}\n')
    assert p.plan.outputs["id"][0] is UNKNOWN


async def test_output_of_splat_over_counted_resource(wd):
    p = await wd.plan("""\
        resource "terraform_data" "a" {
          count = 2
          input = "n${count.index}"
        }
        output "o" {
          value = terraform_data.a[*].input
        }
        """)
    assert p.plan.outputs["o"][0] == ("n0", "n1")


# --------------------------------------------------------------------------- prior state: updates, ignore_changes, replace


BASE = """\
resource "terraform_data" "a" {
  input = "%s"
  %s
}
"""


async def test_changed_input_is_an_update(wd):
    await wd.apply(BASE % ("one", ""))
    p = await wd.plan(BASE % ("two", ""))
    assert changes(p)["terraform_data.a"].action == Action.UPDATE


async def test_unchanged_configuration_is_a_noop_without_events(wd):
    await wd.apply(BASE % ("one", ""))
    p = await wd.plan(BASE % ("one", ""))
    assert changes(p)["terraform_data.a"].action == Action.NOOP
    assert not [e for e in wd.events if e.type == "planned_change"], "no-ops are not announced"


async def test_ignore_changes_turns_an_update_into_a_noop(wd):
    await wd.apply(BASE % ("one", "lifecycle {\n    ignore_changes = [input]\n  }"))
    p = await wd.plan(BASE % ("two", "lifecycle {\n    ignore_changes = [input]\n  }"))
    c = changes(p)["terraform_data.a"]
    assert c.action == Action.NOOP, f"input is ignored, so changing it is a no-op; got {c.action}"
    assert c.after["input"] == "one", "the ignored attribute keeps its prior value"


async def test_ignore_changes_all_turns_an_update_into_a_noop(wd):
    await wd.apply(BASE % ("one", "lifecycle {\n    ignore_changes = all\n  }"))
    p = await wd.plan(BASE % ("two", "lifecycle {\n    ignore_changes = all\n  }"))
    assert changes(p)["terraform_data.a"].action == Action.NOOP


async def test_ignore_changes_does_not_apply_on_create(wd):
    p = await wd.plan(BASE % ("one", "lifecycle {\n    ignore_changes = [input]\n  }"))
    assert changes(p)["terraform_data.a"].after["input"] == "one"


async def test_triggers_replace_change_is_a_replace(wd):
    await wd.apply('resource "terraform_data" "a" {\n  triggers_replace = "1"\n}\n')
    p = await wd.plan('resource "terraform_data" "a" {\n  triggers_replace = "2"\n}\n')
    c = changes(p)["terraform_data.a"]
    assert (c.action, c.reason) == (Action.DELETE_THEN_CREATE, Reason.CANNOT_UPDATE)
    assert c.after["id"] is UNKNOWN, "the replacement object is planned as a create: new id unknown"


async def test_replace_option_forces_a_replace(wd):
    await wd.apply(BASE % ("one", ""))
    p = await wd.plan(BASE % ("one", ""), replace=("terraform_data.a",))
    c = changes(p)["terraform_data.a"]
    assert (c.action, c.reason) == (Action.DELETE_THEN_CREATE, Reason.REPLACE_BY_REQUEST)


async def test_shrinking_count_deletes_the_extra_instance(wd):
    await wd.apply('resource "terraform_data" "a" {\n  count = 2\n}\n')
    p = await wd.plan('resource "terraform_data" "a" {\n  count = 1\n}\n')
    c = changes(p)
    assert c["terraform_data.a[0]"].action == Action.NOOP
    assert (c["terraform_data.a[1]"].action, c["terraform_data.a[1]"].reason) == (
        Action.DELETE, Reason.DELETE_COUNT_INDEX)


async def test_removed_resource_is_deleted_because_no_config(wd):
    await wd.apply('resource "terraform_data" "a" {}\nresource "terraform_data" "b" {}\n')
    p = await wd.plan('resource "terraform_data" "a" {}\n')
    c = changes(p)["terraform_data.b"]
    assert (c.action, c.reason) == (Action.DELETE, Reason.DELETE_NO_CONFIG)


# --------------------------------------------------------------------------- create_before_destroy


CBD_CHAIN = """\
resource "terraform_data" "a" {
  triggers_replace = "%s"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
  lifecycle {
    create_before_destroy = %s
  }
}
"""


async def test_create_before_destroy_replace_is_create_delete(wd):
    await wd.apply('resource "terraform_data" "a" {\n  triggers_replace = "1"\n'
                   '  lifecycle {\n    create_before_destroy = true\n  }\n}\n')
    p = await wd.plan('resource "terraform_data" "a" {\n  triggers_replace = "2"\n'
                      '  lifecycle {\n    create_before_destroy = true\n  }\n}\n')
    assert changes(p)["terraform_data.a"].action == Action.CREATE_THEN_DELETE


async def test_dependency_of_create_before_destroy_resource_is_forced_create_before_destroy(wd):
    await wd.apply(CBD_CHAIN % ("1", "true"))
    p = await wd.plan(CBD_CHAIN % ("2", "true"))
    a = changes(p)["terraform_data.a"]
    assert a.action == Action.CREATE_THEN_DELETE, (
        f"a has no create_before_destroy, but b (which depends on a) does, so a's replace must be forced "
        f"create-delete; got {a.action}")
    assert a.create_before_destroy is True


async def test_dependency_of_ordinary_resource_is_not_forced(wd):
    await wd.apply(CBD_CHAIN % ("1", "false"))
    p = await wd.plan(CBD_CHAIN % ("2", "false"))
    assert changes(p)["terraform_data.a"].action == Action.DELETE_THEN_CREATE


async def test_forced_create_before_destroy_follows_instance_dependencies(wd):
    config = """\
        resource "terraform_data" "a" {
          count            = 2
          triggers_replace = "%s"
        }
        resource "terraform_data" "b" {
          count = 2
          input = terraform_data.a[count.index].id
          lifecycle {
            create_before_destroy = %s
          }
        }
        """
    await wd.apply(config % ("1", "true"))
    p = await wd.plan(config % ("2", "true"))
    c = changes(p)
    assert c["terraform_data.a[0]"].action == Action.CREATE_THEN_DELETE
    assert c["terraform_data.a[1]"].action == Action.CREATE_THEN_DELETE


# ---------------------------------------------------------------- the pure pieces, without planning


def _resource(tmp_path: Path, config: str, name: str = "a") -> ResourceConfig:
    (tmp_path / "main.tf").write_text(textwrap.dedent(config))
    return load_module(str(tmp_path)).resources[ResourceAddr("terraform_data", name)]


def _scope_of(count_index: int | None, each: tuple[Any, Any] | None) -> Scope:
    return Scope({}, lambda name, line: None, _NoResources(), count_index, each)


async def test_expansion_of_a_count_is_its_keys_in_order_each_with_its_index(tmp_path):
    found = expand(_resource(tmp_path, 'resource "terraform_data" "a" { count = 3 }'), _scope_of)
    assert isinstance(found, Instances) and found.kind == "count"
    assert [(k, sc.count_index) for k, sc in found.instances] == [(0, 0), (1, 1), (2, 2)]


async def test_expansion_of_a_for_each_set_is_its_sorted_keys_each_with_its_value(tmp_path):
    found = expand(_resource(tmp_path, 'resource "terraform_data" "a" { for_each = toset(["b", "a"]) }'),
                   _scope_of)
    assert isinstance(found, Instances) and found.kind == "for_each"
    assert [(k, sc.each) for k, sc in found.instances] == [("a", ("a", "a")), ("b", ("b", "b"))]


async def test_expansion_of_a_negative_count_is_the_diagnostic_not_instances(tmp_path):
    found = expand(_resource(tmp_path, 'resource "terraform_data" "a" { count = -1 }'), _scope_of)
    assert isinstance(found, Diagnostic)
    assert found.summary == "Invalid count argument" and "greater than or equal to zero" in found.detail


async def test_an_instance_depends_on_the_instance_its_key_names_and_records_the_resource(tmp_path):
    config = """\
        resource "terraform_data" "a" { count = 2 }
        resource "terraform_data" "b" {
          count = 2
          input = terraform_data.a[count.index].id
        }
        """
    rc = _resource(tmp_path, config, "b")
    module = load_module(str(tmp_path))
    instances = ModuleInstances(module, {}, lambda name, line: None, _NoResources(), lambda m: None,
                                lambda d, needs: None, keep_all=True)
    specs, whole = ref_specs(rc, instances.by_path[ROOT], ModuleDeps(instances))
    deps = instance_deps(specs, whole, _scope_of(1, None), lambda r: "count")
    assert deps.instances == frozenset({inst("a", 1)}) and deps.resources == frozenset()
    assert deps.recorded == (resource_addr("terraform_data", "a"),)


async def test_the_configuration_order_of_a_cycle_is_empty_with_one_error_naming_it(tmp_path):
    (tmp_path / "main.tf").write_text(textwrap.dedent("""\
        resource "terraform_data" "a" { input = terraform_data.b.id }
        resource "terraform_data" "b" { input = terraform_data.a.id }
        """))
    diags: list[Diagnostic] = []
    assert config_order(config_graph(load_module(str(tmp_path))), diags) == []
    assert [d.summary.startswith("Cycle: ") for d in diags] == [True]
