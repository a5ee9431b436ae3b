"""The README's Python API example runs as it is written, on trio and on asyncio."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def _example() -> str:
    readme = (REPO / "README.md").read_text()
    block = readme.split("<!-- api-example:", 1)[1]
    m = re.search(r"```python\n(.*?)```", block, re.S)
    assert m, "the README's API example is gone"
    return m.group(1)


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_readme_api_example_runs(tmp_path: Path, backend: str) -> None:
    script = tmp_path / "example.py"
    script.write_text(_example())
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run([sys.executable, str(script), backend], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "2 to add: ['terraform_data.a', 'terraform_data.b']" in out
    assert re.search(r"#\d+ terraform_data\.b: Creation complete after 0s \[id=[-\w]+\]  \(waited [\d.]+ s\)", out)
    assert re.search(r"ok=True added=2 in [\d.]+ s; outputs: \{'b': 'hello world'\}", out)
    assert "('terraform_data.a', 'terraform_data.b')" in out
    n = int(re.search(r"(\d+) events", out).group(1))  # type: ignore[union-attr]
    assert n >= 7
