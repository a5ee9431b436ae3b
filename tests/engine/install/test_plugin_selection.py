"""Built in or plugin: the registry starts the installed plugin for a source it also has built in,
and the built-in only where no plugin is installed; the state names the same address either way.
The plugin client is replaced by a stand-in factory (the seam ``Providers(plugin_factory=...)``)."""

from __future__ import annotations

from pathlib import Path

from engine.addrs import parse_provider_source
from engine.install.cliconfig import Installation, Method
from engine.install.installer import install
from engine.install.lockfile import write_lock
from engine.provider.mock import MockProvider
from engine.provider.registry import Providers
from tests.engine.install.conftest import unpacked

NULL = parse_provider_source("hashicorp/null")


class StandIn:
    def __init__(self) -> None:
        self.started: list[tuple[Path, str]] = []

    def __call__(self, executable: Path, source: str, name: str = "") -> MockProvider:
        self.started.append((executable, source))
        p = MockProvider()
        p.source = source
        return p


def test_an_installed_plugin_serves_a_source_strata_has_built_in() -> None:
    factory = StandIn()
    providers = Providers(plugins={NULL: Path("/x/terraform-provider-null")}, plugin_factory=factory)
    p = providers.get("null")
    assert factory.started == [(Path("/x/terraform-provider-null"), "registry.terraform.io/hashicorp/null")]
    assert providers.get("null") is p, "one instance per provider configuration"
    assert str(providers.config_address("null")) == 'provider["registry.terraform.io/hashicorp/null"]'


def test_a_built_in_serves_where_no_plugin_is_installed() -> None:
    factory = StandIn()
    providers = Providers(plugins={}, plugin_factory=factory)
    assert type(providers.get("null")).__name__ == "NullProvider" and factory.started == []
    assert str(providers.config_address("null")) == 'provider["registry.terraform.io/hashicorp/null"]'


def test_each_alias_of_a_plugin_is_its_own_instance() -> None:
    factory = StandIn()
    providers = Providers(plugins={NULL: Path("/x/p")}, plugin_factory=factory)
    assert providers.get("null") is not providers.get("null.other") and len(factory.started) == 2
    assert str(providers.config_address("null.other")) == 'provider["registry.terraform.io/hashicorp/null"].other'


def test_a_plugin_makes_an_unknown_provider_known() -> None:
    widget = parse_provider_source("acme/widget")
    providers = Providers(plugins={widget: Path("/x/w")}, plugin_factory=StandIn(),
                          local_sources={"widget": widget})
    assert providers.known("widget") and not Providers(plugins={}).known("widget")


def test_the_registry_reads_what_init_installed_in_the_working_directory(tmp_path: Path, monkeypatch) -> None:
    unpacked(tmp_path / "mirror", "hashicorp", "null", "2.1.2")
    out = install({NULL: ()}, {}, Installation((Method("filesystem_mirror", str(tmp_path / "mirror")),)), tmp_path)
    write_lock(tmp_path, out.lock)
    monkeypatch.chdir(tmp_path)
    factory = StandIn()
    Providers(plugin_factory=factory).get("null")
    assert [s for _, s in factory.started] == ["registry.terraform.io/hashicorp/null"]
    assert factory.started[0][0].name == "terraform-provider-null_v2.1.2_x5"


def test_the_built_in_sources_are_those_of_the_built_in_providers() -> None:
    from engine.provider.registry import builtin_sources, factories

    for name, source in builtin_sources().items():
        assert factories()[name]().source == str(source), name
