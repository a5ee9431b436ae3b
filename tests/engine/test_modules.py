"""Modules inside the engine: the tree loaded from local sources, module instances expanded and
scoped, module addresses for targets and state edits."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.addrs import (
    ROOT,
    ModulePath,
    config_text,
    module_contains,
    parse_module_path,
    parse_provider_config_addr,
    parse_target,
    resource_addr,
)
from engine.config.model import Module
from engine.config.module import load_module
from engine.config.module_instances import ModuleInstances
from engine.diagnostics import DiagnosticsError
from engine.planning.targeting import parse_targets
from engine.state import edit
from engine.state.model import InstanceState, ObjectState, ResourceState, State


def _write(root: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return str(root)


TREE = {
    "main.tf": """
        provider "terraform" {
          alias = "other"
        }
        module "outer" {
          source   = "./outer"
          for_each = toset(["a", "b"])
          name     = each.key
          providers = {
            terraform.x = terraform.other
          }
        }
        """,
    "outer/main.tf": """
        terraform {
          required_providers {
            terraform = {
              configuration_aliases = [terraform.x]
            }
          }
        }
        variable "name" {}
        module "inner" {
          source = "../inner"
          count  = 2
          v      = "${var.name}-${count.index}"
          providers = {
            terraform = terraform.x
          }
        }
        output "values" {
          value = module.inner[*].v
        }
        """,
    "inner/main.tf": """
        variable "v" {
          type = string
        }
        resource "terraform_data" "r" {
          input = var.v
        }
        output "v" {
          value = upper(var.v)
        }
        """,
}


class _NoValues:
    def is_expanded(self, addr: Any) -> bool:
        return False

    def expansion(self, addr: Any) -> str:
        return "single"

    def instance_value(self, addr: Any, key: Any) -> Any:
        raise KeyError(key)

    def resource_value(self, addr: Any) -> Any:
        return None

    def has_resource(self, addr: Any) -> bool:
        return False


def _instances(module: Module) -> ModuleInstances:
    errors: list[Any] = []
    return ModuleInstances(module, {}, lambda name, line: None, _NoValues(), lambda m: None,
                           lambda d, needs: errors.append(d), keep_all=True)


def test_the_module_tree_is_loaded_to_any_depth_with_each_modules_provider_resolved(tmp_path: Path) -> None:
    module = load_module(_write(tmp_path, TREE))
    inner = module.descendant(("outer", "inner"))
    assert inner is not None and inner.path == ("outer", "inner") and inner.directory == "inner"
    # the inner module's default provider is the outer's terraform.x, which is the root's terraform.other
    assert inner.root_provider_key("terraform") == "terraform.other"
    rc = module.resource_at(resource_addr("terraform_data", "r", module=parse_module_path(
        'module.outer["a"].module.inner[1]')))
    assert rc is not None and rc.provider_key == "terraform.other"
    assert str(rc.addr) == 'module.outer["a"].module.inner[1].terraform_data.r'


def test_module_instances_expand_each_call_in_each_calling_instance(tmp_path: Path) -> None:
    instances = _instances(load_module(_write(tmp_path, TREE)))
    paths = [str(mi.path) for mi in instances.of_config(("outer", "inner"))]
    assert paths == ['module.outer["a"].module.inner[0]', 'module.outer["a"].module.inner[1]',
                     'module.outer["b"].module.inner[0]', 'module.outer["b"].module.inner[1]']


def test_a_module_instance_sees_its_variables_and_its_calls_outputs(tmp_path: Path) -> None:
    instances = _instances(load_module(_write(tmp_path, TREE)))
    outer_b = instances.get(parse_module_path('module.outer["b"]'))
    assert outer_b is not None and outer_b.variable("name") == "b"
    assert outer_b.output("values") == ("B-0", "B-1")
    assert instances.by_path[ROOT].module_call("outer", 1)["a"] == {"values": ("A-0", "A-1")}


def test_an_unknown_module_instance_is_none(tmp_path: Path) -> None:
    instances = _instances(load_module(_write(tmp_path, TREE)))
    assert instances.get(parse_module_path('module.outer["c"]')) is None
    assert instances.get(parse_module_path("module.gone")) is None


def test_a_variable_given_that_the_module_does_not_declare_is_an_error(tmp_path: Path) -> None:
    files = {"main.tf": 'module "m" {\n  source = "./m"\n  nope = 1\n}\n', "m/main.tf": 'variable "v" {}\n'}
    with pytest.raises(DiagnosticsError) as got:
        load_module(_write(tmp_path, files))
    assert sorted(d.summary for d in got.value.diagnostics) == ["Missing required argument", "Unsupported argument"]


def test_state_dependencies_name_a_module_resource_without_instance_keys() -> None:
    addr = resource_addr("terraform_data", "a", module=parse_module_path('module.m[0].module.n["k"]'))
    assert config_text(addr) == "module.m.module.n.terraform_data.a"
    assert config_text(resource_addr("terraform_data", "a")) == "terraform_data.a"


def test_a_module_target_without_a_key_takes_every_instance_of_its_call() -> None:
    target = parse_target("module.m")
    assert isinstance(target, ModulePath)
    assert module_contains(target, parse_module_path('module.m[3].module.n'))
    assert not module_contains(parse_module_path("module.m[1]"), parse_module_path("module.m[3]"))
    targets = parse_targets(["module.m[1]"])
    assert targets is not None
    assert targets.covers(resource_addr("terraform_data", "a", module=parse_module_path("module.m[1]")).instance())
    assert not targets.covers(resource_addr("terraform_data", "a", module=parse_module_path("module.m[0]")).instance())


def _state(*modules: str) -> State:
    state = State()
    for m in modules:
        r = resource_addr("terraform_data", "a", module=parse_module_path(m))
        state.resources[r] = ResourceState(r, parse_provider_config_addr('provider["terraform.io/builtin/terraform"]'),
                                           {None: InstanceState(ObjectState({"id": m}))})
    return state


def test_state_mv_of_a_module_moves_the_modules_under_it() -> None:
    state = _state("module.a", "module.a.module.b", "module.c")
    edit.move(state, "module.a", "module.z[0]")
    assert sorted(str(r) for r in state.resources) == [
        "module.c.terraform_data.a", "module.z[0].module.b.terraform_data.a", "module.z[0].terraform_data.a"]


def test_state_rm_of_a_module_without_a_key_removes_every_instance() -> None:
    state = _state("module.a[0]", "module.a[1].module.b", "module.c")
    gone = edit.remove(state, ["module.a"])
    assert [str(a) for a in gone] == ["module.a[0].terraform_data.a", "module.a[1].module.b.terraform_data.a"]
    assert [str(r) for r in state.resources] == ["module.c.terraform_data.a"]


class _Changing(_NoValues):
    """One resource, ``terraform_data.r`` in ``module.m``, whose object the test replaces."""

    def __init__(self) -> None:
        self.id = "old"

    def has_resource(self, addr: Any) -> bool:
        return True

    def instance_value(self, addr: Any, key: Any) -> Any:
        return {"id": self.id}


CHANGING = {
    "main.tf": """
        module "m" {
          source = "./m"
        }
        """,
    "m/main.tf": """
        resource "terraform_data" "r" {
        }
        output "id" {
          value = terraform_data.r.id
        }
        locals {
          id = terraform_data.r.id
        }
        output "via_local" {
          value = local.id
        }
        """,
}


def test_while_the_apply_walks_a_module_output_is_not_kept_with_an_object_its_change_replaces(
        tmp_path: Path) -> None:
    # an output read (for another reference) before a dependency's replacement is applied must not
    # answer with the replaced object's id afterwards, when what waits for the replacement reads it
    objects = _Changing()
    instances = ModuleInstances(load_module(_write(tmp_path, CHANGING)), {}, lambda name, line: None, objects,
                                lambda m: None, lambda d, needs: None, keep_all=False)
    m = instances.get(parse_module_path("module.m"))
    assert m is not None
    instances.settled = False
    assert (m.output("id"), m.output("via_local")) == ("old", "old")
    objects.id = "new"
    assert (m.output("id"), m.output("via_local")) == ("new", "new")
    instances.settled = True  # the walk is over: values are kept again
    assert m.output("id") == "new"
    objects.id = "newer"
    assert m.output("id") == "new"
