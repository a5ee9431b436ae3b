"""engine.addrs: module paths, resource and instance addresses, their strings and parsers."""

from __future__ import annotations

import pytest

from engine.addrs import (
    ROOT,
    ModulePath,
    parse_instance_addr,
    parse_module_path,
    parse_resource_addr,
    resource_addr,
)


def test_root_address_has_no_module_prefix() -> None:
    a = parse_instance_addr('terraform_data.a["k"]')
    assert a.resource.module is ROOT
    assert str(a) == 'terraform_data.a["k"]'


def test_instance_address_in_nested_module_round_trips() -> None:
    text = 'module.net[0].module.sub["x"].data.null_data_source.d[2]'
    a = parse_instance_addr(text)
    assert str(a) == text
    assert a.resource.module == ModulePath((("net", 0), ("sub", "x")))
    assert a.resource.mode == "data" and a.key == 2


def test_same_resource_in_two_module_instances_is_two_addresses() -> None:
    one = resource_addr("terraform_data", "a", module=parse_module_path("module.m[0]"))
    two = resource_addr("terraform_data", "a", module=parse_module_path("module.m[1]"))
    root = resource_addr("terraform_data", "a")
    assert len({one, two, root}) == 3
    assert one is resource_addr("terraform_data", "a", module=ModulePath((("m", 0),)))


def test_root_path_parsed_is_the_root_singleton_in_interned_addresses() -> None:
    a = resource_addr("terraform_data", "z", module=parse_module_path(""))
    assert a.module is ROOT and a is resource_addr("terraform_data", "z")


def test_dependency_strings_with_module_paths_parse() -> None:
    r = parse_resource_addr("module.a.terraform_data.x")
    assert r is not None and str(r) == "module.a.terraform_data.x"
    assert parse_resource_addr("module.a.") is None


def test_instances_sort_root_first_then_by_module() -> None:
    addrs = [parse_instance_addr(t) for t in
             ("module.b.terraform_data.a", "terraform_data.z", "module.a[1].terraform_data.a",
              "module.a[0].terraform_data.a")]
    assert [str(a) for a in sorted(addrs, key=lambda a: a.sort_key())] == [
        "terraform_data.z", "module.a[0].terraform_data.a", "module.a[1].terraform_data.a",
        "module.b.terraform_data.a"]


@pytest.mark.parametrize("bad", ["module.", "module.a[x].t.n", "module..t.n", "module.a"])
def test_malformed_module_addresses_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid resource instance address"):
        parse_instance_addr(bad)
