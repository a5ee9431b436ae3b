"""Shared test helpers: run the real `strata` command on files in a temporary directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from tests import forkserver

REPO = forkserver.REPO


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def events(self) -> list[dict]:
        """The -json event stream, one dict per line."""
        return [orjson.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]

    def of_type(self, t: str) -> list[dict]:
        return [e for e in self.events if e["type"] == t]


class Workdir:
    """A temporary configuration directory with a `strata` runner."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._terraform_ready = False

    def write(self, text: str, name: str = "main.tf") -> None:
        (self.path / name).write_text(textwrap.dedent(text))

    def strata(self, *args: str, input: str | None = None, check: bool = False, cold: bool = False) -> Result:
        """``python -m engine ARGS`` here: forked from a warm process (tests/forkserver.py), or with
        ``cold`` started afresh, for a test of its start-up or of the CPU it takes (the same process
        otherwise). No input: not the terminal pytest may have been started from (strata would
        prompt there)."""
        env = forkserver.environment()
        proc = (forkserver.cold if cold else forkserver.run)(list(args), self.path, env, input, 300)
        res = Result(proc.returncode, proc.stdout, proc.stderr)
        if check and proc.returncode != 0:
            raise AssertionError(f"strata {' '.join(args)} exited {proc.returncode}\n"
                                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return res

    def terraform(self, *args: str) -> Result:
        """The real ``terraform`` here (``init`` first, once), without a user's CLI configuration."""
        env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
        if not self._terraform_ready and args[:1] != ("init",):
            subprocess.run(["terraform", "init", "-input=false", "-no-color"], cwd=self.path, env=env,
                           capture_output=True, timeout=300, check=True)
        self._terraform_ready = True
        proc = subprocess.run(["terraform", *args], cwd=self.path, env=env, capture_output=True, text=True,
                              timeout=300)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def state(self) -> dict:
        return orjson.loads((self.path / "terraform.tfstate").read_bytes())


@pytest.fixture
def workdir(tmp_path: Path) -> Workdir:
    return Workdir(tmp_path)


def terraform_available() -> bool:
    return shutil.which("terraform") is not None


requires_terraform = pytest.mark.skipif(not terraform_available(),
                                        reason="terraform binary not on PATH")


@pytest.fixture(params=["asyncio", "trio"])
def each_event_loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once on each event loop strata runs on (asyncio is the command's default):
    ``pytestmark = pytest.mark.usefixtures("each_event_loop")`` in a module that must hold on both."""
    monkeypatch.setenv("STRATA_ASYNC_BACKEND", request.param)
    return str(request.param)
