"""engine/cliargs.py: terraform's flag spellings, and the GNU ones, parse to the same thing;
a mistake is a UsageError (printed as a diagnostic by the CLI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.cli.args import UsageError, enter_chdir, parse_args, workspace_from


@pytest.mark.parametrize("argv", [
    ["apply", "-auto-approve", "-parallelism=5", "-var", "a=1", "-var=b=2", "-replace=x.y"],
    ["apply", "--auto-approve", "--parallelism", "5", "--var", "a=1", "--var=b=2", "--replace", "x.y"],
])
def test_both_spellings_give_the_same_arguments(argv: list[str]) -> None:
    a = parse_args(argv)
    assert a.command == ["apply"]
    assert a.flags["auto-approve"] is True and a.flags["parallelism"] == "5"
    assert a.var_args == [("var", "a=1"), ("var", "b=2")] and a.replace == ["x.y"]
    assert workspace_from(a).parallelism == 5


@pytest.mark.parametrize("argv", [["apply", "-no-such-flag"], ["apply", "-parallelism=0"],
                                  ["apply", "-parallelism=many"], ["plan", "-var"]])
def test_mistakes_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        workspace_from(parse_args(argv))


def test_chdir_before_the_command_switches_directory_first(tmp_path: Path) -> None:
    here = os.getcwd()
    try:
        assert enter_chdir([f"-chdir={tmp_path}", "plan", "-chdir=ignored"]) == ["plan", "-chdir=ignored"]
        assert os.getcwd() == str(tmp_path)
    finally:
        os.chdir(here)
    with pytest.raises(UsageError):
        enter_chdir([f"-chdir={tmp_path / 'missing'}", "plan"])


@pytest.mark.parametrize("argv", [["plan", "-auto-approve"], ["validate", "-fail-fast"], ["show", "-no-fsync"],
                                  ["apply", "-detailed-exitcode"], ["plan", "-type-parallelism=x=1"],
                                  ["state", "list", "-replace=a.b"]])
def test_an_option_the_command_does_not_use_is_an_error(argv):
    from engine.cli.args import check_options_for

    with pytest.raises(UsageError, match=f'not valid for "strata {argv[0]}"'):
        check_options_for(parse_args(argv))


@pytest.mark.parametrize("argv", [["apply", "-auto-approve", "-fail-fast", "-retries=2", "-no-fsync"],
                                  ["destroy", "-auto-approve", "-provider-parallelism=sim=2"],
                                  ["plan", "-destroy", "-detailed-exitcode", "-replace=a.b"],
                                  ["graph", "-type=apply"], ["import", "-no-fsync", "a.b", "id"]])
def test_options_the_command_uses_are_accepted(argv):
    from engine.cli.args import check_options_for

    check_options_for(parse_args(argv))
