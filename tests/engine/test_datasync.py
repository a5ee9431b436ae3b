"""engine/datasync.py: fdatasync awaited through Linux AIO and an eventfd, on trio and asyncio; a thread
where AIO cannot do it; errors as OSError; a cancelled caller still waits for the disk."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from engine.state import fsync as datasync
from engine.state.fsync import DataSync

native_here = pytest.mark.skipif(datasync._libc() is None, reason="no Linux AIO on this platform")
BACKENDS = pytest.mark.parametrize("backend", ["trio", "asyncio"])


@pytest.fixture
def fd(tmp_path: Path) -> Iterator[int]:
    """A journal opened as the state writer opens it, closed after the test."""
    fd = os.open(tmp_path / "journal", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    yield fd
    os.close(fd)


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@native_here
@BACKENDS
def test_syncs_through_aio_again_and_again_on_both_loops(fd: int, tmp_path: Path, backend: str) -> None:
    before = _fds()

    async def main() -> bool:
        sync = DataSync(fd)
        try:
            for i in range(20):
                os.write(fd, b"record %d\n" % i)
                with anyio.fail_after(10):
                    await sync()
            return sync.native
        finally:
            sync.close()

    assert anyio.run(main, backend=backend) is True, "AIO was given up on an ordinary file"
    assert _fds() == before, "the eventfd was not closed"
    assert (tmp_path / "journal").read_bytes().count(b"\n") == 20


@BACKENDS
def test_the_thread_does_it_where_aio_is_not_used(fd: int, backend: str) -> None:

    async def main() -> None:
        sync = DataSync(fd, native=False)
        assert not sync.native
        os.write(fd, b"x\n")
        await sync()
        sync.close()

    anyio.run(main, backend=backend)


@BACKENDS
def test_a_descriptor_that_cannot_be_synced_raises_oserror(backend: str) -> None:
    r, w = os.pipe()  # AIO refuses to sync a pipe (EINVAL): the thread tries, and fdatasync refuses too

    async def main() -> DataSync:
        sync = DataSync(w)
        with pytest.raises(OSError) as exc:
            await sync()
        assert exc.value.errno == errno.EINVAL, exc.value
        return sync

    try:
        sync = anyio.run(main, backend=backend)
        assert not sync.native, "after AIO refused, the thread is used from then on"
        sync.close()
    finally:
        os.close(r)
        os.close(w)


@native_here
def test_a_failed_sync_reported_by_the_kernel_raises_its_errno(fd: int) -> None:

    async def main() -> None:
        sync = DataSync(fd)
        real = sync._syscall

        def syscall(nr: int, *args: object) -> int:
            n = int(real(nr, *args))
            if nr == sync._getevents and n == 1:  # the disk said EIO
                datasync._EVENT.pack_into(sync._events, 0, 1, 0, -errno.EIO, 0)
            return n

        sync._syscall = syscall  # type: ignore[assignment]
        os.write(fd, b"x\n")
        with pytest.raises(OSError) as exc:
            await sync()
        assert exc.value.errno == errno.EIO
        sync.close()

    anyio.run(main, backend="trio")


@native_here
@BACKENDS
def test_a_cancelled_caller_still_waits_for_the_disk_and_leaves_nothing_pending(fd: int, backend: str) -> None:

    async def main() -> None:
        sync = DataSync(fd)
        os.write(fd, b"x\n")
        with anyio.CancelScope() as scope:
            scope.cancel()
            await sync()
        # had the wait been abandoned, the completion would still arrive and make the eventfd readable
        time.sleep(0.05)
        with pytest.raises(BlockingIOError):
            os.read(sync._efd, 8)
        assert sync._syscall(sync._getevents, sync._ctx, 0, 1, sync._events, None) == 0
        os.write(fd, b"y\n")
        with anyio.fail_after(10):
            await sync()
        sync.close()

    anyio.run(main, backend=backend)


def test_no_aio_where_the_system_call_numbers_are_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasync.platform, "machine", lambda: "sparc64")
    assert datasync._libc() is None
    assert not DataSync(0).native


def test_iocb_layout_is_the_kernels() -> None:
    assert datasync._IOCB.size == 64 and datasync._EVENT.size == 32  # linux/aio_abi.h
