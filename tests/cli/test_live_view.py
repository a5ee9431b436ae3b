"""The live view: on a terminal (a pseudo-terminal here, its screen read back), an apply shows one
panel (done, in flight, waiting, failed, the slowest in flight, throughput, an ETA) instead of a
line per operation, and ends with terraform's summary; through a pipe the text is as before."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

from tests.conftest import REPO, Workdir

CONFIG = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 150
}

resource "sim_object" "o" {
  count = 24
  name  = "obj-${count.index}"
}
"""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def _on_a_terminal(workdir: Workdir, *args: str) -> str:
    """What ``strata ARGS`` writes to a terminal (80x24), escape sequences removed."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(REPO), TERM="xterm-256color", COLUMNS="100", LINES="30")
    env.pop("STRATA_LIVE", None)
    proc = subprocess.Popen([sys.executable, "-m", "engine", *args], cwd=workdir.path, env=env,
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError("no output for 120 s")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other end closed (the process exited)
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0, b"".join(chunks).decode(errors="replace")
    return _ANSI.sub("", b"".join(chunks).decode(errors="replace"))


def test_live_view_replaces_the_scroll_on_a_terminal(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    screen = _on_a_terminal(workdir, "apply", "-auto-approve", "-parallelism=4")
    assert "in flight" in screen and "waiting" in screen and "throughput" in screen and "ETA" in screen
    assert re.search(r"done \d+/24", screen), screen[-2000:]
    assert "slowest in flight:" in screen and re.search(r"\d+\.\ds\s+sim_object\.o\[\d+\] \(create\)", screen)
    assert "Creating..." not in screen and "Creation complete" not in screen
    assert "Apply complete! Resources: 24 added, 0 changed, 0 destroyed." in screen


def test_output_that_is_not_a_terminal_keeps_its_lines(workdir: Workdir) -> None:
    workdir.write(CONFIG.replace("150", "5"))
    res = workdir.strata("apply", "-auto-approve", check=True)
    assert res.stdout.count("Creation complete after") == 24
    assert "in flight" not in res.stdout


def test_provisioner_output_is_printed_above_the_panel(workdir: Workdir) -> None:
    workdir.write("""
    resource "terraform_data" "p" {
      count = 3
      provisioner "local-exec" {
        command = "echo provisioned ${count.index}"
      }
    }
    """)
    screen = _on_a_terminal(workdir, "apply", "-auto-approve")
    for i in range(3):  # the screen's cursor movements are gone here: where each line went is not seen
        assert f"terraform_data.p[{i}] (local-exec): provisioned {i}\n" in screen, screen
    assert "[bold]" not in screen  # the panel's markup is its own, never printed
    assert "Apply complete! Resources: 3 added, 0 changed, 0 destroyed." in screen
