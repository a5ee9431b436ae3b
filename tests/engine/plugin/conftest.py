"""The real plugins the plugin tests drive (tests/plugins/fetch.py), and helpers about processes."""

from __future__ import annotations

import os
import select
from pathlib import Path

import pytest

from tests.plugins.fetch import fetch


@pytest.fixture(scope="session")
def null_plugin() -> Path:
    """terraform-provider-null 2.1.2 (protocol 5), fetched once; the test skips when it cannot be."""
    got = fetch(aws=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(got.problems))
    return got.null


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether process ``pid`` has ended within ``timeout`` (waits on a pidfd, not by polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        return bool(ready)
    finally:
        os.close(fd)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie), read from /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
