"""The second Ctrl-C of an apply sends StopProvider to the plugins in use, as terraform does:
through the ``strata`` command under real signals, with the protocol-6 example provider, whose
``example_wait`` waits in its create until the provider is stopped (then it fails, "Interrupted",
and leaves ``stop-requested`` in its root: the plugin received the call); no plugin is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Workdir
from tests.engine.plugin.conftest import running, wait_gone

CONFIG = '''terraform {
  required_providers {
    example = { source = "hashicorp/example", version = "0.1.0" }
  }
}

provider "example" {
  root = "${path.module}/objects"
}

resource "example_wait" "w" {
  name    = "w"
  seconds = 3600
}
'''


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_the_second_interrupt_sends_stop_provider_to_the_plugin(workdir: Workdir, example_mirror: Path,
                                                                backend: str) -> None:
    workdir.write(CONFIG)
    workdir.strata("init", f"-plugin-dir={example_mirror}", "-no-color", check=True)
    env = dict(os.environ, PYTHONPATH=str(REPO), STRATA_ASYNC_BACKEND=backend)
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"],
                            cwd=workdir.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        for line in proc.stdout:  # until the slow create is in flight
            event = orjson.loads(line)
            if event["type"] == "apply_start" and event["hook"]["resource"]["addr"] == "example_wait.w":
                break
        proc.send_signal(signal.SIGINT)  # the first: what is in flight may finish (it would not)
        for text in proc.stderr:
            if b"interrupt again to stop at once" in text:
                break
        stop = workdir.path / "objects" / "stop-requested"
        assert not stop.exists(), "the first interrupt must not stop the provider"
        proc.send_signal(signal.SIGINT)  # the second: StopProvider
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read().decode()
    assert code == 130, f"exit {code}\n{stderr}"
    assert "Traceback" not in stderr, stderr
    assert stop.exists(), "the plugin did not receive StopProvider"
    plugin = int((workdir.path / "objects" / "provider.pid").read_text())
    assert wait_gone(plugin) and not running(plugin), "the plugin outlived strata"
    listed = workdir.strata("state", "list", check=True).stdout.split()
    assert "example_wait.w" not in listed
