"""Does this checkout's ``strata`` command run an installed provider plugin, or its built-in?

Both give the same result for ``hashicorp/null``, so the answer is observed, not assumed: a
scratch mirror holds a wrapper in place of the null binary that marks a file and then runs the
real binary; ``.terraform/`` is filled from that mirror and ``strata apply`` runs one
``null_resource``. The mark exists only if strata started the plugin.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.plugins.fetch import ARCH, HOST

_CONFIG = '''terraform {
  required_providers {
    null = { source = "hashicorp/null", version = "2.1.2" }
  }
}

resource "null_resource" "probe" {}
'''


def strata_runs_plugins(null_binary: Path, repo: Path | None = None) -> str | None:
    """Why strata does not run the null plugin installed in ``.terraform/``; None when it does."""
    repo = repo or Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "TF_CLI_CONFIG_FILE": "/dev/null", "CHECKPOINT_DISABLE": "1"}
    with tempfile.TemporaryDirectory(prefix="strata-plugin-probe-") as tmp:
        root = Path(tmp)
        mark = root / "started"
        wrapper = root / "mirror" / HOST / "hashicorp" / "null" / "2.1.2" / ARCH / null_binary.name
        wrapper.parent.mkdir(parents=True)
        wrapper.write_text(f"#!/bin/sh\n: > {shlex.quote(str(mark))}\n"
                           f'exec {shlex.quote(str(null_binary))} "$@"\n')
        wrapper.chmod(0o755)
        work = root / "work"
        work.mkdir()
        (work / "main.tf").write_text(_CONFIG)
        strata = [sys.executable, "-m", "engine"]
        init = subprocess.run([*strata, "init", f"-plugin-dir={root / 'mirror'}", "-no-color"], cwd=work, env=env,
                              capture_output=True, text=True)
        if init.returncode != 0 or not (work / ".terraform" / "providers").is_dir():
            try:
                tf = subprocess.run(["terraform", "init", f"-plugin-dir={root / 'mirror'}", "-input=false",
                                     "-no-color"], cwd=work, env=env, capture_output=True, text=True)
            except OSError:
                return "neither strata init -plugin-dir nor terraform (not on PATH) can install a plugin here"
            if tf.returncode != 0:
                return f"terraform init -plugin-dir failed: {tf.stderr.strip()[-300:]}"
        mark.unlink(missing_ok=True)  # only the apply counts (an init may ask the plugin its schema)
        applied = subprocess.run([*strata, "apply", "-auto-approve", "-no-color"], cwd=work, env=env,
                                 capture_output=True, text=True)
        if applied.returncode != 0:
            return f"strata apply with the null plugin installed failed: {applied.stderr.strip()[-300:]}"
        if not mark.exists():
            return "strata used its built-in null provider although the null plugin is installed in .terraform/"
    return None
