"""``fdatasync`` awaited without a thread: Linux native AIO signalling an eventfd.

The state journal is fsync'd once per group commit, and nothing is reported
complete before its record is durable. Done in a worker thread, each commit
costs two hand-offs of the GIL: the thread must take it to start, and again
when ``fdatasync`` returns, and while the event loop is busy (a burst of
operations finishing together) each can wait up to the interpreter's switch
interval, 5 ms. On a deep chain of dependencies that wait is paid at every
link.

Linux (4.18 and later) runs an ``IOCB_CMD_FDSYNC`` submitted with
``io_submit`` on a kernel worker, and, with ``IOCB_FLAG_RESFD``, signals an
eventfd when it is done. The event loop waits for that descriptor like for a
socket: no thread, no GIL, one system call to submit and two to collect.

Where that is not there (another OS or architecture, a kernel or a seccomp
filter without it, a file system that refuses it) :class:`DataSync` falls back
to ``os.fdatasync`` in a worker thread, as before.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys

import anyio
import anyio.to_thread

# io_setup, io_destroy, io_getevents, io_submit: the architectures whose numbers are known here
_SYSCALLS = {"x86_64": (206, 207, 208, 209), "aarch64": (0, 1, 4, 2)}
_IOCB_CMD_FDSYNC = 3
_IOCB_FLAG_RESFD = 1
# struct iocb: aio_data, aio_key, aio_rw_flags, aio_lio_opcode, aio_reqprio, aio_fildes, aio_buf,
# aio_nbytes, aio_offset, aio_reserved2, aio_flags, aio_resfd (64 bytes, little-endian)
_IOCB = struct.Struct("<QIIHhIQQqQII")
_EVENT = struct.Struct("<QQqq")  # struct io_event: data, obj, res, res2
# what says "not here" rather than "the disk failed": use the thread instead
_UNSUPPORTED = frozenset({errno.ENOSYS, errno.EINVAL, errno.EPERM, errno.EOPNOTSUPP, errno.EACCES})


def _libc() -> ctypes.CDLL | None:
    if sys.platform != "linux" or platform.machine() not in _SYSCALLS:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
    except (OSError, AttributeError):
        return None
    return libc


class DataSync:
    """Makes ``fd``'s written data durable, awaited: ``await sync()``. One at a time; :meth:`close` after.

    ``native`` says whether AIO is in use; it turns False for good at the first sign that AIO cannot
    sync this descriptor here."""

    def __init__(self, fd: int, native: bool = True) -> None:
        self.fd = fd
        self.native = False
        self._ctx = ctypes.c_ulong(0)
        self._efd = -1
        libc = _libc() if native else None
        if libc is None:
            return
        setup, self._destroy, self._getevents, self._submit = _SYSCALLS[platform.machine()]
        self._syscall = libc.syscall
        if self._syscall(setup, 1, ctypes.byref(self._ctx)) != 0:
            return
        try:
            self._efd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        except OSError:
            self._syscall(self._destroy, self._ctx)
            return
        # kept alive here while the kernel may read them
        self._iocb = ctypes.create_string_buffer(_IOCB.size)
        _IOCB.pack_into(self._iocb, 0, 1, 0, 0, _IOCB_CMD_FDSYNC, 0, fd, 0, 0, 0, 0,
                        _IOCB_FLAG_RESFD, self._efd)
        self._iocbs = (ctypes.c_void_p * 1)(ctypes.addressof(self._iocb))
        self._events = ctypes.create_string_buffer(_EVENT.size)
        self.native = True

    async def __call__(self) -> None:
        """Return once everything written to the descriptor so far is on disk; OSError if not."""
        if self.native and self._submitted():
            # shielded: the kernel finishes the sync whatever happens here, and the records it makes
            # durable are only reported complete once it has
            with anyio.CancelScope(shield=True):
                await self._collect()
            return
        await anyio.to_thread.run_sync(os.fdatasync, self.fd)

    def _submitted(self) -> bool:
        n = self._syscall(self._submit, self._ctx, 1, self._iocbs)
        if n == 1:
            return True
        err = ctypes.get_errno()
        if err in _UNSUPPORTED:
            self._close_native()  # for good: the thread from now on
            return False
        raise OSError(err, f"io_submit: {os.strerror(err)}")

    async def _collect(self) -> None:
        while True:
            await anyio.wait_readable(self._efd)
            try:
                os.read(self._efd, 8)
            except BlockingIOError:
                continue
            n = self._syscall(self._getevents, self._ctx, 0, 1, self._events, None)
            if n == 1:
                break
            if n < 0 and ctypes.get_errno() != errno.EINTR:
                err = ctypes.get_errno()
                raise OSError(err, f"io_getevents: {os.strerror(err)}")
        res = _EVENT.unpack_from(self._events, 0)[2]
        if res < 0:
            raise OSError(-res, os.strerror(-res))

    def _close_native(self) -> None:
        if self.native:
            self.native = False
            self._syscall(self._destroy, self._ctx)  # waits for a request still in flight
            os.close(self._efd)
            self._efd = -1

    def close(self) -> None:
        self._close_native()
