"""Provider source addresses and version constraints, read and normalised as terraform 1.11 does
(the expected strings are what ``terraform providers`` and ``terraform init`` printed)."""

from __future__ import annotations

import pytest

from engine.addrs import (
    ProviderSource,
    implied_provider_source,
    parse_provider_source,
)
from engine.install.versions import admits, newest, normal_form, parse_constraints, parse_version


@pytest.mark.parametrize(("text", "expected"), [
    ("null", "registry.terraform.io/hashicorp/null"),
    ("hashicorp/null", "registry.terraform.io/hashicorp/null"),
    ("Example.COM/HashiCorp/Null", "example.com/hashicorp/null"),
    ("terraform.io/builtin/terraform", "terraform.io/builtin/terraform"),
    ("example.com:8443/acme/widget", "example.com:8443/acme/widget"),
])
def test_source_addresses_are_normalised_as_terraform_does(text: str, expected: str) -> None:
    assert str(parse_provider_source(text)) == expected


def test_display_form_leaves_out_only_the_default_registry_host() -> None:
    assert parse_provider_source("hashicorp/null").for_display() == "hashicorp/null"
    assert parse_provider_source("example.com/acme/widget").for_display() == "example.com/acme/widget"


def test_provider_sources_are_values() -> None:
    a, b = parse_provider_source("hashicorp/null"), parse_provider_source("registry.terraform.io/HashiCorp/null")
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    with pytest.raises(AttributeError):
        a.type = "x"  # type: ignore[misc]


@pytest.mark.parametrize(("text", "summary", "detail"), [
    ("a/b/c/d", "Invalid provider source string",
     'The "source" attribute must be in the format "[hostname/][namespace/]name"'),
    ("", "Invalid provider source string",
     'The "source" attribute must be in the format "[hostname/][namespace/]name"'),
    ("hashicorp/nul_l", "Invalid provider type",
     'Invalid provider type "nul_l" in source "hashicorp/nul_l": must contain only letters, digits, and dashes, '
     'and may not use leading or trailing dashes"'),
    ("bad_ns!/null", "Invalid provider namespace",
     'Invalid provider namespace "" in source "bad_ns!/null": must contain only letters, digits, and dashes, and '
     'may not use leading or trailing dashes"'),
    ("example.com/-/null", "Invalid provider namespace",
     'The legacy provider namespace "-" can be used only with hostname registry.terraform.io.'),
    ("exa mple.com/a/b", "Invalid provider source hostname",
     'Invalid provider source hostname namespace "" in source "exa mple.com/a/b": idna: disallowed rune U+0020"'),
    ("hashicorp/terraform-provider-null", "Invalid provider type",
     'Provider source "hashicorp/terraform-provider-null" has a type with the prefix "terraform-provider-", which '
     "isn't valid. Although that prefix is often used in the names of version control repositories for Terraform "
     'providers, provider source strings should not include it.\n\nDid you mean "hashicorp/null"?'),
    ("hashicorp/terraform-null", "Invalid provider type",
     'Provider source "registry.terraform.io/hashicorp/terraform-null" has a type with the prefix "terraform-", '
     "which isn't allowed because it would be redundant to name a Terraform provider with that prefix. If you are "
     "the author of this provider, rename it to not include the prefix."),
])
def test_source_addresses_terraform_refuses_are_refused_in_its_words(text: str, summary: str, detail: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_provider_source(text)
    assert exc.value.args == (summary, detail)


def test_implied_sources() -> None:
    assert implied_provider_source("aws") == ProviderSource("registry.terraform.io", "hashicorp", "aws")
    assert str(implied_provider_source("terraform")) == "terraform.io/builtin/terraform"
    assert implied_provider_source("terraform").is_builtin


@pytest.mark.parametrize(("given", "normal"), [
    ("2.1.2", "2.1.2"), ("= 2.1", "2.1.0"), ("!= 1.0", "!= 1.0.0"), (">2", "> 2.0.0"), ("~> 2", "~> 2.0"),
    ("~> 2.1", "~> 2.1"), ("~> 2.1.0", "~> 2.1.0"), ("<3.0.0,>=2", ">= 2.0.0, < 3.0.0"),
    (">= 2.0, >= 2.0", ">= 2.0.0"), ("~>2.1.0-beta", "~> 2.1.0-beta"), ("2", "2.0.0"),
    (">= 1.0.0+abc", ">= 1.0.0+abc"), ("!= 2.0, > 1.0", "> 1.0.0, != 2.0.0"), (">= 3.0, != 3.1.0", ">= 3.0.0, != 3.1.0"),
])
def test_constraints_have_terraforms_normal_form(given: str, normal: str) -> None:
    assert normal_form(parse_constraints(given)) == normal


@pytest.mark.parametrize(("given", "detail"), [
    ("v2.1", 'Incorrect version constraint syntax: a "v" prefix should not be used.'),
    ("=> 2", "This string does not use correct version constraint syntax."),
    ("1.2.3.4", 'Incorrect version constraint syntax: invalid specification "1.2.3.4": too many numbered '
                "portions; only three are allowed (major, minor, patch)."),
])
def test_constraints_terraform_refuses_are_refused_in_its_words(given: str, detail: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_constraints(given)
    assert str(exc.value) == detail


@pytest.mark.parametrize(("constraints", "version", "ok"), [
    ("~> 2.1", "2.1.2", True), ("~> 2.1", "2.9.0", True), ("~> 2.1", "3.0.0", False), ("~> 2.1", "2.0.9", False),
    ("~> 2.1.0", "2.1.9", True), ("~> 2.1.0", "2.2.0", False), ("~> 2", "2.9.9", True), ("~> 2", "3.0.0", False),
    ("!= 2.1.2", "2.1.2", False), ("> 2.1.2", "2.1.2", False), (">= 2.1.2, < 3", "2.5.0", True),
    ("<= 2.1.2", "2.1.2", True), ("< 2.1.2", "2.1.2", False), ("= 2.1.2", "2.1.2", True),
    (">= 2.0", "3.0.0-beta1", False), ("3.0.0-beta1", "3.0.0-beta1", True),
])
def test_constraints_admit_versions_as_terraform_does(constraints: str, version: str, ok: bool) -> None:
    assert admits(parse_constraints(constraints), parse_version(version)) is ok


def test_the_newest_admitted_version_is_selected() -> None:
    available = {parse_version(v) for v in ("1.0.0", "1.9.0", "2.0.0", "2.1.2", "3.0.0", "2.2.0-rc1")}
    assert str(newest(available, parse_constraints("~> 2.0"))) == "2.1.2"
    assert str(newest(available, ())) == "3.0.0"
    assert newest(available, parse_constraints("> 3.0")) is None
