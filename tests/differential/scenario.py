"""Run a small hand-written scenario with either tool, for the parity reproducers.

The reproducers in ``tests/cli/test_parity_*.py`` are each parametrized over both tools
with one assertion: terraform's run shows the assertion holds (so it states terraform's
behaviour, and can fail), strata's run is ``xfail(strict=True)`` until the deviation is
fixed. Both run at ``-parallelism=1`` with ``-json``.
"""

from __future__ import annotations

import os
import subprocess
import textwrap

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform

TOOLS = ("terraform", "strata")


def tools(reason: str) -> pytest.MarkDecorator:
    """Parametrize a test over both tools: terraform (the oracle, skipped when absent) and
    strata, expected to fail for ``reason`` until the deviation is fixed."""
    return pytest.mark.parametrize("tool", [
        pytest.param("terraform", marks=requires_terraform),
        pytest.param("strata", marks=pytest.mark.xfail(strict=True, reason=reason)),
    ])


def both_tools(fixed: str) -> pytest.MarkDecorator:
    """Parametrize a test over both tools, each expected to pass: a deviation ``fixed`` (its
    former xfail reason, kept as the regression's record)."""
    return pytest.mark.parametrize("tool", [
        pytest.param("terraform", marks=requires_terraform),
        pytest.param("strata"),
    ])


class Scenario:
    """A configuration directory applied by one tool, step after step."""

    def __init__(self, workdir: Workdir, tool: str) -> None:
        self.workdir = workdir
        self.tool = tool
        self._init = False

    def _terraform(self, *args: str) -> Result:
        rc = self.workdir.path / ".cli.tfrc"  # no user CLI configuration (an empty file of our own)
        rc.write_text("")
        env = dict(os.environ, TF_CLI_CONFIG_FILE=str(rc), TF_IN_AUTOMATION="1",
                   CHECKPOINT_DISABLE="1")
        if not self._init:
            subprocess.run(["terraform", "init", "-input=false", "-no-color"], cwd=self.workdir.path,
                           env=env, capture_output=True, timeout=300, check=True)
            self._init = True
        proc = subprocess.run(["terraform", *args], cwd=self.workdir.path, env=env,
                              capture_output=True, text=True, timeout=300)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def run(self, *args: str) -> Result:
        """Run one command of the tool (``plan -out=...``, ``apply PLAN``) on the directory as it is;
        it must succeed."""
        res = self._terraform(*args) if self.tool == "terraform" else self.workdir.strata(*args)
        assert res.returncode == 0, f"{self.tool} {' '.join(args)} failed (exit {res.returncode})\n{res.stdout}\n{res.stderr}"
        return res

    def apply(self, config: str, *options: str, check: bool = True) -> Result:
        """Write ``config`` as main.tf and apply it; with ``check`` the apply must succeed."""
        self.workdir.write(textwrap.dedent(config))
        args = ("apply", "-auto-approve", "-input=false", "-json", "-parallelism=1", *options)
        res = self._terraform(*args) if self.tool == "terraform" else self.workdir.strata(*args)
        assert res.returncode == 0 or not check, (f"{self.tool} apply {' '.join(options)} failed "
                                     f"(exit {res.returncode})\n{res.stdout}\n{res.stderr}")
        return res

    def state(self) -> dict:
        return orjson.loads((self.workdir.path / "terraform.tfstate").read_bytes())

    def instance(self, resource: str) -> dict:
        """The current object of a single-instance ``terraform_data`` resource in the state."""
        for res in self.state()["resources"]:
            if f"{res['type']}.{res['name']}" == resource:
                for inst in res["instances"]:
                    if not inst.get("deposed"):
                        return inst
        raise AssertionError(f"{resource} is not in {self.tool}'s state")


def steps(res: Result) -> list[tuple[str, str, str]]:
    """(``start`` or ``complete``, action, address) of each operation event, in order."""
    return [(e["type"].removeprefix("apply_"), e["hook"]["action"], e["hook"]["resource"]["addr"])
            for e in res.events if e["type"] in ("apply_start", "apply_complete")]


def assert_before(res: Result, first: tuple[str, str], then: tuple[str, str]) -> None:
    """``first`` (action, address) completes before ``then`` starts."""
    seq = steps(res)
    done = seq.index(("complete", *first))
    began = seq.index(("start", *then))
    assert done < began, (f"{then[0]} {then[1]} started before {first[0]} {first[1]} completed: "
                          f"{seq}")

