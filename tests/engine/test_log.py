"""The internal log: silent below ERROR unless STRATA_LOG / TF_LOG ask for more, to a file with
STRATA_LOG_PATH / TF_LOG_PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = ("from engine.log import get_logger\n"
          "log = get_logger('t')\n"
          "log.warning('a tolerated quirk', provider='null')\n"
          "log.error('a bug')\n")


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_LOG", "_LOG_PATH"))}
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True,
                          env={**clean, "PYTHONPATH": str(REPO), **env}, timeout=60)


def test_by_default_only_errors_reach_stderr(tmp_path: Path) -> None:
    err = _run(tmp_path).stderr
    assert "a bug" in err and "tolerated quirk" not in err


@pytest.mark.parametrize("var", ["STRATA_LOG", "TF_LOG"])
def test_a_level_in_the_environment_lets_warnings_through(tmp_path: Path, var: str) -> None:
    err = _run(tmp_path, **{var: "warn"}).stderr
    assert "a tolerated quirk" in err and "provider=null" in err


def test_off_silences_even_errors(tmp_path: Path) -> None:
    assert _run(tmp_path, STRATA_LOG="OFF").stderr == ""


def test_a_log_path_takes_the_log_instead_of_stderr(tmp_path: Path) -> None:
    log = tmp_path / "strata.log"
    res = _run(tmp_path, STRATA_LOG="TRACE", STRATA_LOG_PATH=str(log))
    assert res.stderr == ""
    text = log.read_text()
    assert "a tolerated quirk" in text and "a bug" in text
