"""``provider::NAME::FUNC(...)`` where the module declares no provider NAME in its
required_providers: terraform's "Unknown provider function", at validate, plan and in the
console, with terraform's words. (The calls a plugin serves: tests/plugins/test_provider_functions.py.)"""

from __future__ import annotations

import re

import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = 'output "a" {\n  value = provider::foo::bar(1)\n}\n'
DETAIL = ('There is no function named "provider::foo::bar". Ensure that provider name "foo" is declared in '
          "this module's required_providers block, and that this provider offers a function named \"bar\".")


def _said(stderr: str) -> tuple[list[tuple[str, str]], str]:
    return re.findall(r"Error: (.+)\n\n  on (\S+ line \d+)", stderr), " ".join(stderr.split())


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_unknown_provider_function_is_terraforms_diagnostic(workdir: Workdir, command: str) -> None:
    workdir.write(CONFIG)
    r = workdir.strata(command, "-no-color")
    errors, flat = _said(r.stderr)
    assert r.returncode == 1
    assert errors == [("Unknown provider function", "main.tf line 2")], r.stderr
    assert DETAIL in flat


def test_try_does_not_hide_an_unknown_provider_function(workdir: Workdir) -> None:
    workdir.write('output "a" {\n  value = try(provider::foo::bar(1), 2)\n}\n')
    r = workdir.strata("plan", "-no-color")
    assert r.returncode == 1
    assert "Error: Unknown provider function" in r.stderr


def test_console_reports_an_unknown_provider_function(workdir: Workdir) -> None:
    workdir.write("")
    r = workdir.strata("console", "-no-color", input="provider::foo::bar(1)\n")
    assert r.returncode == 1
    assert DETAIL in " ".join(r.stderr.split())


@requires_terraform
def test_unknown_provider_function_agrees_with_terraform(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    theirs = workdir.terraform("validate", "-no-color")
    ours = workdir.strata("validate", "-no-color")
    assert _said(ours.stderr) == _said(theirs.stderr)
