"""Package hashes (terraform's h1: and zh:), the lock file's format, and filesystem mirrors in both
layouts."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from engine.addrs import parse_provider_source
from engine.diagnostics import DiagnosticsError
from engine.install.hashes import hash_dir, hash_zip, matches_any, zip_sha256
from engine.install.lockfile import Locked, format_lock, parse_lock
from engine.install.mirror import current_platform, executable_in, packages_in
from engine.install.versions import parse_version
from tests.engine.install.conftest import packed, real_null_mirror, unpacked
from tests.plugins.fetch import null_path

NULL = parse_provider_source("hashicorp/null")
# what terraform 1.11 recorded for terraform-provider-null 2.1.2 (linux_amd64)
NULL_H1 = "h1:CFnENdqQu4g3LJNevA32aDxcUz2qGkRGQpFfkI8TCdE="


def test_h1_is_gos_dirhash_of_the_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "b").write_bytes(b"two")
    (tmp_path / "sub" / "a").write_bytes(b"one")
    lines = "".join(f"{hashlib.sha256(c).hexdigest()}  {n}\n" for n, c in [("b", b"two"), ("sub/a", b"one")])
    import base64

    assert hash_dir(tmp_path) == "h1:" + base64.b64encode(hashlib.sha256(lines.encode()).digest()).decode()


def test_h1_of_a_zip_equals_h1_of_what_it_unpacks_to(tmp_path: Path) -> None:
    z = packed(tmp_path / "m", "acme", "widget", "1.0.0")
    out = tmp_path / "out"
    zipfile.ZipFile(z).extractall(out)
    assert hash_zip(z) == hash_dir(out)
    assert zip_sha256(z) == "zh:" + hashlib.sha256(z.read_bytes()).hexdigest()


def test_h1_of_the_real_null_plugin_is_terraforms() -> None:
    exe = null_path(real_null_mirror())
    assert hash_dir(exe.parent) == NULL_H1


def test_a_zip_hash_matches_only_a_zip(tmp_path: Path) -> None:
    z = packed(tmp_path / "m", "acme", "widget", "1.0.0")
    out = tmp_path / "out"
    zipfile.ZipFile(z).extractall(out)
    zh = zip_sha256(z)
    assert matches_any(z, [zh]) and not matches_any(out, [zh])
    assert matches_any(out, ["zh:00", hash_zip(z)]) and not matches_any(out, ["h1:nope", "x:y"])


def test_the_lock_file_is_written_as_terraform_writes_it() -> None:
    lock = {NULL: Locked(NULL, parse_version("2.1.2"), "~> 2.1", (NULL_H1,)),
            parse_provider_source("hashicorp/aws"): Locked(parse_provider_source("hashicorp/aws"),
                                                           parse_version("3.39.0"), "", ("h1:a", "zh:b"))}
    assert format_lock(lock) == (
        '# This file is maintained automatically by "terraform init".\n'
        "# Manual edits may be lost in future updates.\n\n"
        'provider "registry.terraform.io/hashicorp/aws" {\n  version = "3.39.0"\n  hashes = [\n'
        '    "h1:a",\n    "zh:b",\n  ]\n}\n\n'
        'provider "registry.terraform.io/hashicorp/null" {\n  version     = "2.1.2"\n  constraints = "~> 2.1"\n'
        f'  hashes = [\n    "{NULL_H1}",\n  ]\n}}\n')
    assert parse_lock(format_lock(lock)) == lock


def test_a_lock_file_with_an_address_not_in_normal_form_is_refused() -> None:
    with pytest.raises(DiagnosticsError) as exc:
        parse_lock('provider "hashicorp/null" {\n  version = "2.1.2"\n}\n')
    assert exc.value.diagnostics[0].summary == "Non-normalized provider source address"


def test_mirrors_in_both_layouts_are_read_for_this_platform_only(tmp_path: Path) -> None:
    widget = parse_provider_source("acme/widget")
    unpacked(tmp_path, "acme", "widget", "1.0.0")
    packed(tmp_path, "acme", "widget", "1.1.0")
    other = tmp_path / "registry.terraform.io" / "acme" / "widget" / "terraform-provider-widget_2.0.0_plan9_mips.zip"
    other.write_bytes(b"")
    found = packages_in(tmp_path, widget)
    assert sorted(str(v) for v in found) == ["1.0.0", "1.1.0"]
    assert not found[parse_version("1.0.0")].packed and found[parse_version("1.1.0")].packed
    assert executable_in(found[parse_version("1.0.0")].location, widget) is not None
    assert current_platform() in found[parse_version("1.0.0")].location.parts
