"""A resource type of a provider that is neither built in nor installed is terraform's diagnostic,
not a traceback: the configuration requires it, and no version of it is selected in the lock file."""

from __future__ import annotations

from tests.conftest import Workdir


def test_a_provider_that_is_not_installed_is_terraforms_diagnostic(workdir: Workdir) -> None:
    workdir.write('resource "foo_x" "a" {}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr, res.stderr
    assert "Error: Inconsistent dependency lock file" in res.stderr
    assert ("provider registry.terraform.io/hashicorp/foo: required by this configuration but no version is "
            "selected") in res.stderr
    assert "strata init" in res.stderr
