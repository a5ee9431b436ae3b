"""Module source addresses read as terraform reads them: the kind of each, its normal form (what
``modules.json`` records and what a configuration is compared with), and the errors. With
terraform present, each normal form is checked against it: a manifest recording our form for a
call written the other way must be one terraform's ``validate`` accepts as installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson
import pytest

from engine.install.module_manifest import ModuleRecord, encode_manifest, read_manifest
from engine.install.module_source import (
    LocalSource,
    MaybeRelativePath,
    RegistrySource,
    RemoteSource,
    parse_module_source,
    parse_registry_source,
    split_subdir,
)
from tests.conftest import requires_terraform

NORMAL_FORMS = {
    "./a/../b": "./b",
    "../x//y": "../x/y",
    "hashicorp/consul/aws": "registry.terraform.io/hashicorp/consul/aws",
    "hashicorp/consul/aws//modules/x": "registry.terraform.io/hashicorp/consul/aws//modules/x",
    "App.Terraform.io/org/name/aws": "app.terraform.io/org/name/aws",
    "example.com:443/org/name/aws": "example.com/org/name/aws",
    "github.com/hashicorp/example": "git::https://github.com/hashicorp/example.git",
    "github.com/hashicorp/example//sub?ref=v1": "git::https://github.com/hashicorp/example.git//sub?ref=v1",
    "github.com/hashicorp/example/sub": "git::https://github.com/hashicorp/example.git//sub",
    "git@github.com:hashicorp/example.git?ref=v2": "git::ssh://git@github.com/hashicorp/example.git?ref=v2",
    "git::https://example.com/x.git?ref=v1&depth=1": "git::https://example.com/x.git?ref=v1&depth=1",
    "git::/srv/repo//sub?ref=main": "git::file:///srv/repo//sub?ref=main",
    "/srv/modules/x": "file:///srv/modules/x",
    "https://example.com/x.zip//a/b": "https://example.com/x.zip//a/b",
    "https://example.com/x?archive=zip": "https://example.com/x?archive=zip",
}


@pytest.mark.parametrize(("raw", "normal"), sorted(NORMAL_FORMS.items()))
def test_a_source_has_terraforms_normal_form(raw: str, normal: str) -> None:
    assert str(parse_module_source(raw)) == normal


def test_each_kind_of_source_is_told_apart() -> None:
    assert parse_module_source("./x") == LocalSource("./x")
    assert parse_module_source("ns/name/aws") == RegistrySource("registry.terraform.io", "ns", "name", "aws")
    assert parse_module_source("git::file:///r//s?ref=v1") == RemoteSource("git::file:///r?ref=v1", "s")


def test_split_subdir_keeps_the_scheme_and_moves_the_query() -> None:
    assert split_subdir("git::file:///repo//sub/dir?ref=v1") == ("git::file:///repo?ref=v1", "sub/dir")
    assert split_subdir("file:///repo") == ("file:///repo", "")


@pytest.mark.parametrize(("raw", "why"), [
    ("./x", 'can\'t use local directory "./x" as a module registry address'),
    ("a/b", "a module registry source address must have either three or four slash-separated components"),
    ("github.com/a/b/c", 'can\'t use "github.com" as a module registry host, because it\'s reserved for '
                         "installing directly from version control repositories"),
    ("ns/-bad/aws", 'invalid module name "-bad": must be between one and 64 characters, including ASCII letters, '
                    "digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix"),
    ("ns/name/AWS", 'invalid target system "AWS": must be between one and 64 ASCII letters or digits'),
    ("localhost/ns/name/aws", "invalid module registry hostname: must contain at least one dot"),
])
def test_registry_addresses_terraform_refuses(raw: str, why: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_registry_source(raw)
    assert str(exc.value) == why


def test_a_source_nothing_recognises_may_be_a_relative_path() -> None:
    with pytest.raises(MaybeRelativePath):
        parse_module_source("modules/x")


def test_the_manifest_is_written_as_terraform_writes_it(tmp_path: Path) -> None:
    records = {"b": ModuleRecord("b", "git::file:///r?ref=v1&depth=1", None, ".terraform/modules/b"),
               "": ModuleRecord("", "", None, "."),
               "a": ModuleRecord("a", "example.com/ns/n/p", "1.2.0", ".terraform/modules/a")}
    text = encode_manifest(records)
    assert text == (b'{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"a","Source":"example.com/ns/n/p",'
                    b'"Version":"1.2.0","Dir":".terraform/modules/a"},{"Key":"b","Source":'
                    b'"git::file:///r?ref=v1\\u0026depth=1","Dir":".terraform/modules/b"}]}')
    (tmp_path / ".terraform" / "modules").mkdir(parents=True)
    (tmp_path / ".terraform" / "modules" / "modules.json").write_bytes(text)
    assert read_manifest(tmp_path) == records


@requires_terraform
def test_terraform_takes_each_normal_form_for_the_source_it_installed(tmp_path: Path) -> None:
    remote = {raw: normal for raw, normal in NORMAL_FORMS.items() if not raw.startswith(".")}
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "main.tf").write_text("")
    calls, records = [], {"": ModuleRecord("", "", None, ".")}
    for i, (raw, normal) in enumerate(sorted(remote.items())):
        calls.append(f'module "m{i}" {{\n  source = "{raw}"\n}}\n')
        records[f"m{i}"] = ModuleRecord(f"m{i}", normal, None, "mod")
    (tmp_path / "main.tf").write_text("".join(calls))
    for i, raw in enumerate(sorted(remote)):
        if isinstance(parse_module_source(raw), RegistrySource):  # a registry call needs its version too
            records[f"m{i}"] = ModuleRecord(f"m{i}", remote[raw], "1.0.0", "mod")
    (tmp_path / ".terraform" / "modules").mkdir(parents=True)
    (tmp_path / ".terraform" / "modules" / "modules.json").write_bytes(encode_manifest(records))
    env = dict(os.environ, TF_CLI_CONFIG_FILE=os.devnull, CHECKPOINT_DISABLE="1")
    proc = subprocess.run(["terraform", "validate", "-json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    found = orjson.loads(proc.stdout)
    assert found["valid"], [(d["summary"], d.get("range", {}).get("start", {}).get("line"))
                            for d in found["diagnostics"]]
