"""``-events=nats://HOST:PORT/SUBJECT``: the event stream published to NATS JetStream, against a
real ``nats-server`` started on a loopback port; a broker that is down, or goes away mid-apply,
never fails or stalls the apply, and the sink says in one line what it dropped."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from engine.events.log import read_log
from tests.conftest import REPO, Workdir

pytestmark = pytest.mark.skipif(shutil.which("nats-server") is None,
                                reason="nats-server is not installed (make test installs Debian's nats-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    def __init__(self, store: Path) -> None:
        self.port, self.monitor = _free_port(), _free_port()
        self.proc = subprocess.Popen(["nats-server", "-js", "-a", "127.0.0.1", "-p", str(self.port), "-sd", str(store),
                                      "-m", str(self.monitor)], stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        for line in self.proc.stderr:  # its log, until it says it listens
            if "Server is ready" in line:
                break
        else:
            raise AssertionError("nats-server did not start")

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def messages(self) -> int:
        """How many messages the broker's JetStream holds, from its monitoring endpoint."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.monitor}/jsz", timeout=5) as reply:
            return int(orjson.loads(reply.read()).get("messages", 0))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "jetstream")
    try:
        yield b
    finally:
        b.stop()


def _replay(url: str, subject: str) -> list[dict]:
    """Every event the stream holds for ``subject``, from the start, as a consumer elsewhere reads it."""
    import nats

    async def main() -> list[dict]:
        nc = await nats.connect(url)
        js = nc.jetstream()
        info = await js.stream_info(await js.find_stream_name_by_subject(subject))
        sub = await js.pull_subscribe(subject, durable=None)
        out: list[dict] = []
        remaining = info.state.messages
        while remaining:
            for msg in await sub.fetch(min(remaining, 100), timeout=5):
                first, last = map(int, msg.headers["Strata-Seq"].split("-"))
                lines = [orjson.loads(x) for x in msg.data.splitlines()]
                assert [e["seq"] for e in lines] == list(range(first, last + 1))
                out += lines
                await msg.ack()
                remaining -= 1
        await nc.close()
        return out

    return asyncio.run(main())


CONFIG = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 30
}

resource "sim_object" "o" {
  count = 40
  name  = "obj-${count.index}"
}
"""


def test_events_are_published_to_jetstream_and_replay_as_the_event_log(workdir: Workdir, broker: Broker) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("apply", "-auto-approve", "-parallelism=8", "-events=events.jsonl",
                         f"-events={broker.url}/strata.runs.one", check=True)
    assert "NATS" not in res.stderr, res.stderr
    log = [orjson.loads(x) for x in (workdir.path / "events.jsonl").read_bytes().splitlines()]
    assert _replay(broker.url, "strata.runs.one") == log
    assert sum(e["type"] == "apply_complete" for e in log) == 40


def test_a_broker_that_is_down_never_fails_the_apply(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("apply", "-auto-approve", "-events=events.jsonl",
                         f"-events=nats://127.0.0.1:{_free_port()}/strata.events")
    assert res.returncode == 0, res.stderr
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    events = list(read_log(str(workdir.path / "events.jsonl")))
    assert len(lines) == 1 and lines[0].startswith("strata: NATS nats://127.0.0.1:"), res.stderr
    assert f"dropped {len(events)} of {len(events)} events, from seq 1: no broker at" in lines[0]
    assert "Apply complete! Resources: 40 added" in res.stdout
    assert len(workdir.strata("state", "list", check=True).stdout.split()) == 40


def test_a_broker_that_goes_away_mid_apply_neither_fails_nor_stalls_it(workdir: Workdir, broker: Broker) -> None:
    workdir.write(CONFIG.replace("count = 40", "count = 200"))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json", "-parallelism=2",
                             "-events=events.jsonl", f"-events={broker.url}/strata.gone"], cwd=workdir.path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    completions = 0
    for line in proc.stdout:
        if orjson.loads(line)["type"] == "apply_complete":
            completions += 1
            # the broker dies mid-apply, once the sink has published to it: on a loaded machine the
            # sink can connect after the tenth completion, and would then find no broker at all
            if completions >= 10 and broker.proc.poll() is None and broker.messages() > 0:
                broker.stop()
    out_err = proc.communicate(timeout=120)[1].decode()
    wall = time.monotonic() - t0
    assert proc.returncode == 0, out_err
    assert completions == 200
    assert broker.proc.poll() is not None, "the sink published nothing during the apply"
    # 200 creates of 30 ms at parallelism 2 take ~3 s (on a busy machine the sink's first message
    # can come 1.5 s into the apply, and the broker must still be there then); a sink that waited
    # on the dead broker's 2 s flush timeout for each of its batches (one per 20 ms) would take minutes
    assert wall < 45, f"the apply took {wall:.1f} s"
    lines = [x for x in out_err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"strata: NATS {broker.url}/strata.gone: dropped "), out_err
    assert "went away" in lines[0] or "did not confirm" in lines[0]
    events = list(read_log(str(workdir.path / "events.jsonl")))
    assert sum(e.type == "apply_complete" for e in events) == 200
