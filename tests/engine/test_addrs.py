"""engine.addrs: module paths, resource and instance addresses, their strings and parsers."""

from __future__ import annotations

import pytest

from engine.addrs import (
    ROOT,
    ModulePath,
    ProviderConfigAddr,
    ProviderSource,
    config_resource,
    parse_dependency,
    parse_instance_addr,
    parse_module_path,
    parse_provider_config_addr,
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


@pytest.mark.parametrize("text", [
    'provider["registry.terraform.io/hashicorp/null"]',
    'provider["registry.terraform.io/hashicorp/aws"].west',
    'module.m.provider["registry.terraform.io/hashicorp/null"]',
    'module.a.module.b.provider["example.com/me/cloud"].alias',
    'provider["terraform.io/builtin/terraform"]',
])
def test_provider_config_address_round_trips(text: str) -> None:
    a = parse_provider_config_addr(text)
    assert isinstance(a, ProviderConfigAddr) and isinstance(a.source, ProviderSource)
    assert str(a) == text


def test_provider_config_address_has_its_parts() -> None:
    a = parse_provider_config_addr('module.m.provider["registry.terraform.io/hashicorp/aws"].west')
    assert a.source == ProviderSource("registry.terraform.io", "hashicorp", "aws")
    assert a.alias == "west" and a.module == ModulePath((("m", None),))
    assert a.local_key == "aws.west"
    assert parse_provider_config_addr('provider["registry.terraform.io/hashicorp/aws"]').module is ROOT


def test_legacy_provider_address_reads_as_terraform_reads_it() -> None:
    # a state written before terraform 0.13: the legacy namespace "-", written back in the new syntax
    a = parse_provider_config_addr("provider.aws.west")
    assert a.source == ProviderSource("registry.terraform.io", "-", "aws") and a.alias == "west"
    assert str(a) == 'provider["registry.terraform.io/-/aws"].west'
    assert str(parse_provider_config_addr("module.m.provider.null")) == \
        'module.m.provider["registry.terraform.io/-/null"]'


def test_short_provider_source_in_an_address_is_completed() -> None:
    assert str(parse_provider_config_addr('provider["hashicorp/null"]')) == \
        'provider["registry.terraform.io/hashicorp/null"]'


@pytest.mark.parametrize("bad", ["", "null", 'provider[""]', 'provider["a"].', "provider",
                                 'module.m[0].provider["registry.terraform.io/hashicorp/null"]',
                                 'provider["registry.terraform.io/hashicorp/null"].a.b'])
def test_malformed_provider_config_addresses_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid provider configuration address"):
        parse_provider_config_addr(bad)


def test_dependency_is_a_configuration_resource() -> None:
    r = parse_dependency("module.m.data.null_data_source.d")
    assert r is resource_addr("null_data_source", "d", "data", ModulePath((("m", None),)))
    assert parse_dependency("module.m[0].terraform_data.a") is parse_dependency("module.m.terraform_data.a")
    assert config_resource(resource_addr("terraform_data", "a", module=ModulePath((("m", 1),)))) is \
        parse_dependency("module.m.terraform_data.a")


@pytest.mark.parametrize("bad", ["terraform_data", "terraform_data.a[0]", 'a.b["k"]', "data.x", "module.a."])
def test_malformed_dependencies_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_dependency(bad)
