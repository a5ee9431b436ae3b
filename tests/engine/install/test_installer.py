"""init's installation, inside: which version is selected, where packages come from, what is locked,
which provider is left to a built-in; and the CLI configuration that names the mirrors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.addrs import parse_provider_source
from engine.diagnostics import DiagnosticsError
from engine.install.cliconfig import Installation, Method, load_installation, parse_pattern
from engine.install.installed import check_installed, installed_plugins
from engine.install.installer import install
from engine.install.lockfile import Locked
from engine.install.mirror import current_platform
from engine.install.versions import parse_constraints, parse_version
from tests.engine.install.conftest import executable, packed, unpacked

WIDGET = parse_provider_source("acme/widget")
NULL = parse_provider_source("hashicorp/null")


def mirror_at(path: Path) -> Installation:
    return Installation((Method("filesystem_mirror", str(path)),))


def test_the_newest_version_the_constraints_admit_is_installed_and_locked(tmp_path: Path) -> None:
    m = tmp_path / "mirror"
    for v in ("1.0.0", "1.2.0", "2.0.0"):
        unpacked(m, "acme", "widget", v)
    lines: list[str] = []
    out = install({WIDGET: parse_constraints("~> 1.0")}, {}, mirror_at(m), tmp_path / "w", say=lines.append)
    assert out.diagnostics == []
    assert str(out.lock[WIDGET].version) == "1.2.0" and out.lock[WIDGET].constraints == "~> 1.0"
    assert lines == ['- Finding acme/widget versions matching "~> 1.0"...', "- Installing acme/widget v1.2.0...",
                     "- Installed acme/widget v1.2.0 (unauthenticated)"]
    target = tmp_path / "w/.terraform/providers/registry.terraform.io/acme/widget/1.2.0" / current_platform()
    assert target.is_symlink() and os.readlink(target) == str(m / "registry.terraform.io/acme/widget/1.2.0"
                                                               / current_platform())


def test_a_packed_package_is_unpacked_with_its_executable_bit(tmp_path: Path) -> None:
    packed(tmp_path / "mirror", "acme", "widget", "1.0.0")
    out = install({WIDGET: ()}, {}, mirror_at(tmp_path / "mirror"), tmp_path / "w")
    target = tmp_path / "w/.terraform/providers/registry.terraform.io/acme/widget/1.0.0" / current_platform()
    assert out.diagnostics == [] and not target.is_symlink()
    assert executable(target / "terraform-provider-widget_v1.0.0_x5")
    assert installed_plugins(tmp_path / "w", out.lock) == {WIDGET: target / "terraform-provider-widget_v1.0.0_x5"}


def test_the_locked_version_is_kept_until_upgrade(tmp_path: Path) -> None:
    m = tmp_path / "mirror"
    unpacked(m, "acme", "widget", "1.0.0")
    first = install({WIDGET: ()}, {}, mirror_at(m), tmp_path / "w")
    unpacked(m, "acme", "widget", "1.1.0")
    lines: list[str] = []
    again = install({WIDGET: ()}, first.lock, mirror_at(m), tmp_path / "w", say=lines.append)
    assert again.lock == first.lock
    assert lines == ["- Reusing previous version of acme/widget from the dependency lock file",
                     "- Using previously-installed acme/widget v1.0.0"]
    upgraded = install({WIDGET: ()}, first.lock, mirror_at(m), tmp_path / "w", upgrade=True)
    assert str(upgraded.lock[WIDGET].version) == "1.1.0"


def test_a_package_that_does_not_match_the_locked_hashes_is_refused(tmp_path: Path) -> None:
    unpacked(tmp_path / "mirror", "acme", "widget", "1.0.0")
    lock = {WIDGET: Locked(WIDGET, parse_version("1.0.0"), "", ("h1:somethingelse=",))}
    out = install({WIDGET: ()}, lock, mirror_at(tmp_path / "mirror"), tmp_path / "w")
    assert [d.summary for d in out.diagnostics] == ["Failed to install provider"]
    assert "doesn't match any of the checksums previously recorded" in out.diagnostics[0].detail


def test_a_built_in_serves_when_no_mirror_holds_a_plugin(tmp_path: Path) -> None:
    lines: list[str] = []
    out = install({NULL: ()}, {}, mirror_at(tmp_path), tmp_path / "w", builtin={NULL}, say=lines.append)
    assert out.diagnostics == [] and out.lock == {} and out.builtin == [NULL]
    assert lines[-1] == "- Using built-in hashicorp/null (no plugin installed)"


def test_a_plugin_in_a_mirror_is_installed_for_a_built_in_source(tmp_path: Path) -> None:
    unpacked(tmp_path / "mirror", "hashicorp", "null", "2.1.2")
    out = install({NULL: ()}, {}, mirror_at(tmp_path / "mirror"), tmp_path / "w", builtin={NULL})
    assert out.builtin == [] and str(out.lock[NULL].version) == "2.1.2"


def test_a_provider_only_a_registry_has_gets_a_diagnostic_naming_the_mirror_options(tmp_path: Path) -> None:
    out = install({WIDGET: ()}, {}, Installation((Method("direct"),)), tmp_path)
    [d] = out.diagnostics
    assert d.summary == "Failed to query available provider packages"
    assert "acme/widget" in d.detail and "-plugin-dir" in d.detail and "filesystem_mirror" in d.detail


def test_a_provider_no_mirror_has_names_the_mirrors_searched(tmp_path: Path) -> None:
    out = install({WIDGET: ()}, {}, mirror_at(tmp_path / "m"), tmp_path)
    assert out.diagnostics[0].detail == (
        "Could not retrieve the list of available versions for provider acme/widget: provider "
        f"registry.terraform.io/acme/widget was not found in any of the search locations\n\n  - {tmp_path / 'm'}")


def test_no_version_admitted_is_terraforms_error(tmp_path: Path) -> None:
    unpacked(tmp_path / "m", "acme", "widget", "1.0.0")
    out = install({WIDGET: parse_constraints("> 1.0.0")}, {}, mirror_at(tmp_path / "m"), tmp_path)
    assert "no available releases match the given constraints > 1.0.0" in out.diagnostics[0].detail


def test_through_the_plugin_cache_the_package_is_linked_from_the_cache(tmp_path: Path) -> None:
    packed(tmp_path / "m", "acme", "widget", "1.0.0")
    cache = tmp_path / "cache"
    out = install({WIDGET: ()}, {}, Installation((Method("filesystem_mirror", str(tmp_path / "m")),), cache),
                  tmp_path / "w")
    assert out.diagnostics == []
    target = tmp_path / "w/.terraform/providers/registry.terraform.io/acme/widget/1.0.0" / current_platform()
    cached = cache / "registry.terraform.io/acme/widget/1.0.0" / current_platform()
    assert target.is_symlink() and Path(os.readlink(target)) == cached
    assert executable(cached / "terraform-provider-widget_v1.0.0_x5")


def test_every_run_checks_the_lock_file_against_the_configuration_and_the_packages(tmp_path: Path) -> None:
    unpacked(tmp_path / "m", "acme", "widget", "1.0.0")
    out = install({WIDGET: ()}, {}, mirror_at(tmp_path / "m"), tmp_path)
    from engine.install.lockfile import write_lock

    write_lock(tmp_path, out.lock)
    assert check_installed({WIDGET: ()}, set(), tmp_path) == []
    [d] = check_installed({WIDGET: parse_constraints(">= 2.0")}, set(), tmp_path)
    assert d.summary == "Inconsistent dependency lock file" and "registry.terraform.io/acme/widget" in d.detail
    [d] = check_installed({WIDGET: (), NULL: ()}, set(), tmp_path)
    assert "provider registry.terraform.io/hashicorp/null: required by this configuration but no version is " \
           "selected" in d.detail
    assert check_installed({WIDGET: (), NULL: ()}, {NULL}, tmp_path) == [], "a built-in needs no lock entry"
    (tmp_path / "m/registry.terraform.io/acme/widget/1.0.0" / current_platform()
     / "terraform-provider-widget_v1.0.0_x5").write_bytes(b"changed")
    [d] = check_installed({WIDGET: ()}, set(), tmp_path)
    assert d.summary == "Required plugins are not installed" and "does not match any of the checksums" in d.detail


def test_patterns_match_as_terraforms() -> None:
    assert parse_pattern("hashicorp/*").matches(NULL)
    assert not parse_pattern("hashicorp/*").matches(WIDGET)
    assert parse_pattern("*/*").matches(WIDGET) and parse_pattern("registry.terraform.io/*/*").matches(WIDGET)
    assert not parse_pattern("example.com/*/*").matches(WIDGET)
    with pytest.raises(ValueError):
        parse_pattern("*/widget")


def test_the_cli_configuration_names_mirrors_with_include_and_exclude_and_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rc = tmp_path / "rc"
    rc.write_text('plugin_cache_dir = "/tmp/cache"\nprovider_installation {\n  filesystem_mirror {\n'
                  '    path = "/m1"\n    include = ["acme/*"]\n  }\n  filesystem_mirror {\n    path = "/m2"\n'
                  '    exclude = ["acme/*"]\n  }\n  direct {\n    exclude = ["acme/*"]\n  }\n}\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    inst = load_installation([], tmp_path)
    assert inst.plugin_cache_dir == Path("/tmp/cache")
    assert [m.location for m in inst.methods if m.serves(WIDGET)] == ["/m1"]
    assert [(m.kind, m.location) for m in inst.methods if m.serves(NULL)] == [("filesystem_mirror", "/m2"),
                                                                               ("direct", "")]
    assert [m.location for m in load_installation(["/pd"], tmp_path).methods] == ["/pd"], "-plugin-dir wins"


def test_a_broken_cli_configuration_is_a_diagnostic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rc = tmp_path / "rc"
    rc.write_text('provider_installation {\n  filesystem_mirror {\n    include = ["acme/*"]\n  }\n}\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    with pytest.raises(DiagnosticsError) as exc:
        load_installation([], tmp_path)
    assert "requires a path" in exc.value.diagnostics[0].detail


def test_without_provider_installation_the_implied_mirrors_come_first(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "none"))
    unpacked(tmp_path / "home/.terraform.d/plugins", "acme", "widget", "1.0.0")
    unpacked(tmp_path / "work/terraform.d/plugins", "acme", "gadget", "1.0.0")
    inst = load_installation([], tmp_path / "work")
    assert [m.location for m in inst.methods if m.local] == [str(tmp_path / "work/terraform.d/plugins"),
                                                              str(tmp_path / "home/.terraform.d/plugins")]
    direct = inst.methods[-1]
    assert direct.kind == "direct" and not direct.serves(WIDGET) and direct.serves(NULL)


def test_a_package_changed_behind_the_hash_cache_is_still_caught(tmp_path: Path) -> None:
    unpacked(tmp_path / "m", "acme", "widget", "1.0.0")
    out = install({WIDGET: ()}, {}, mirror_at(tmp_path / "m"), tmp_path)
    from engine.install.lockfile import write_lock

    write_lock(tmp_path, out.lock)
    assert check_installed({WIDGET: ()}, set(), tmp_path) == []
    assert (tmp_path / ".terraform/strata-package-hashes.json").exists()
    exe = (tmp_path / "m/registry.terraform.io/acme/widget/1.0.0" / current_platform()
           / "terraform-provider-widget_v1.0.0_x5")
    st = exe.stat()
    exe.write_bytes(exe.read_bytes().replace(b"echo", b"eval"))  # same size
    os.utime(exe, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same modification time
    [d] = check_installed({WIDGET: ()}, set(), tmp_path)
    assert d.summary == "Required plugins are not installed"
