"""The one writer of state: a v4 snapshot plus an fsync'd append-only journal.

During apply every finished object is appended to ``<state>.journal`` and the
journal is fsync'd before anyone is told the object is done. Appends that
arrive while an fsync is in flight are written together by the next one
(group commit), so the cost per object stays constant however large the
state grows; terraform instead rewrites the whole file per object, which
makes its apply quadratic.

Each record is one line with its own CRC-32 (its format and its replay are in
:mod:`engine.state.journal`).

At the end of an apply the journal is compacted into the v4 snapshot
(written to a temporary file, fsync'd, renamed over the old one) and removed.
If strata dies mid-apply, the next run replays the journal over the snapshot
first, so nothing that finished is ever lost. A journal is removed only once
everything in it is in the snapshot; one damaged before its end is refused,
and left as it is.

Hot path: :meth:`StateWriter.put` runs once per object; it mutates the
in-memory state, encodes one journal line and wakes the committer.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import orjson

from engine.addrs import InstanceAddr
from engine.diagnostics import Diagnostic, StrataError
from engine.state import journal
from engine.state.codec import DynamicAttrs, decode_state, encode_object, encode_state
from engine.state.fsync import DataSync
from engine.state.model import ObjectState, State


class StateLockError(StrataError):
    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"Error acquiring the state lock: {path} is locked by another strata process")


class StateWriteError(StrataError):
    """The state journal could not be written: the apply stops, and says what is recorded."""

    def __init__(self, path: str, exc: OSError) -> None:
        self.path = path
        super().__init__(f"Failed to write the state journal {path}: {exc.strerror or exc}. The apply was "
                         "stopped; everything reported complete before this is recorded.")


class StateStore:
    """Where a state lives on disk: ``path`` (snapshot) and ``path + ".journal"``."""

    def __init__(self, path: str, dynamic_attrs: DynamicAttrs, fsync: bool = True) -> None:
        self.path = path
        self.journal_path = path + ".journal"
        self.dynamic_attrs = dynamic_attrs
        self.fsync = fsync
        self._lock_fd: int | None = None
        self.warnings: list[Diagnostic] = []
        """What :meth:`load` found worth saying that stopped nothing (a torn last journal record)."""

    # ------------------------------------------------------------------ locking

    def lock(self) -> None:
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)  # -state=envs/dev/x.tfstate creates envs/dev, as terraform does
        lock_path = os.path.join(directory, "." + os.path.basename(self.path) + ".lock.info")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StateLockError(self.path) from None
        os.ftruncate(fd, 0)
        os.write(fd, orjson.dumps({"Operation": "OperationTypeApply", "Who": f"pid {os.getpid()}"}))
        self._lock_fd = fd
        self._lock_path = lock_path

    def unlock(self) -> None:
        # the lock file stays: unlinking it would let one process lock the old inode while
        # another locks a new file at the same path, and both would think they hold the lock
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._lock_fd, 0)
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    # ------------------------------------------------------------------ reading

    def load(self) -> State:
        """The current state: the snapshot with any journal replayed over it.

        A journal left by a crashed apply is compacted into the snapshot when this
        store holds the lock; otherwise it is only read."""
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                data = f.read()
            # only an empty file is no state: one of whitespace is an error, as in terraform
            state = decode_state(data, self.path, self.dynamic_attrs) if data else State()
        else:
            state = State()
        if os.path.exists(self.journal_path):
            changed = self._replay(state)
            if self._lock_fd is not None:
                # only the lock holder may compact: an unlocked reader (plan, state list) must not
                # pull the journal from under a running apply that is still appending to it
                if changed:
                    state.serial += 1
                    self.write_snapshot(state)
                os.unlink(self.journal_path)
        return state

    def _replay(self, state: State) -> bool:
        """The journal over ``state``: every record checked before any is applied (a damaged one
        raises :class:`~engine.state.journal.JournalDamagedError`, and ``state`` is unchanged)."""
        with open(self.journal_path, "rb") as f:
            replay = journal.read(f.read(), self.journal_path, self.dynamic_attrs)
        for lineage in replay.lineages:
            if state.lineage and lineage != state.lineage and state.resources:
                raise StrataError(f"{self.journal_path} belongs to state lineage {lineage}, "
                                  f"but {self.path} has lineage {state.lineage}; refusing to mix them")
        if replay.lineages:
            state.lineage = replay.lineages[-1]
        self.warnings.extend(replay.warnings)
        return journal.apply(replay, state)

    # ------------------------------------------------------------------ writing

    def write_snapshot(self, state: State) -> None:
        data = encode_state(state, self.dynamic_attrs)
        tmp = self.path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            if self.fsync:
                os.fsync(f.fileno())
        if os.path.exists(self.path):
            # terraform's convention of a backup of the previous snapshot, made by a hard link so the
            # live snapshot is never moved away: a crash at any moment leaves a complete one in place
            backup = self.path + ".backup"
            with contextlib.suppress(OSError):
                os.unlink(backup)
            try:
                os.link(self.path, backup)
            except OSError:
                with contextlib.suppress(OSError):
                    shutil.copyfile(self.path, backup)
        os.replace(tmp, self.path)
        if self.fsync:
            _fsync_dir(os.path.dirname(os.path.abspath(self.path)))

    @contextlib.asynccontextmanager
    async def writer(self, state: State) -> AsyncIterator[StateWriter]:
        """A journal writer for one apply; compacts into the snapshot when the block exits."""
        w = StateWriter(self, state)
        try:
            async with anyio.create_task_group() as tg:
                await w.open()
                tg.start_soon(w.committer)
                try:
                    yield w
                finally:
                    await w.drain()
                    tg.cancel_scope.cancel()
        finally:
            w.close()
        if w.changed:
            state.serial += 1
            self.write_snapshot(state)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.journal_path)


def _ends_unterminated(path: str) -> bool:
    """The file at ``path`` ends in a line without its newline (a torn record)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        return size > 0 and os.pread(f.fileno(), 1, size - 1) != b"\n"


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class StateWriter:
    """Records objects as they finish; calls back once each record is durable."""

    def __init__(self, store: StateStore, state: State) -> None:
        self.store = store
        self.state = state
        self.changed = False
        self._pending: list[bytes] = []
        self._callbacks: list[Callable[[], None]] = []
        self._wake = anyio.Event()
        self._idle = anyio.Event()
        self._idle.set()
        self._fd = -1
        self._sync: DataSync | None = None
        self.error: StateWriteError | None = None
        self._broken = False
        self._stopped = False  # the committer task has ended (cancelled with the apply)

    async def open(self) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(self.store.journal_path)), exist_ok=True)
        self._fd = os.open(self.store.journal_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        header = journal.header(self.state.lineage)
        if _ends_unterminated(self.store.journal_path):
            # a journal nobody replayed (never so after a load under the lock): its torn tail must
            # not run into the header and turn into damage before the end
            header = b"\n" + header
        os.write(self._fd, header)
        if self.store.fsync:
            # the journal's name must survive a power loss too, or its first fsync'd records could
            # be lost with it
            os.fdatasync(self._fd)
            _fsync_dir(os.path.dirname(os.path.abspath(self.store.journal_path)))
            self._sync = DataSync(self._fd)

    def put(self, addr: InstanceAddr, provider: str, obj: ObjectState | None,
            deposed: str | None = None, on_durable: Callable[[], None] | None = None) -> None:
        """Record ``obj`` at ``addr`` (None removes it). ``on_durable`` runs after the fsync."""
        r = addr.resource
        enc: Any = None
        if obj is not None:
            enc = encode_object(None, obj, self.store.dynamic_attrs(r.type))
        # encode first: a value that cannot be written must not reach the in-memory state either
        line = journal.record(addr, provider, enc, deposed)
        self.state.set_object(addr, provider, obj, deposed)
        self.changed = True
        self._pending.append(line)
        if on_durable is not None:
            self._callbacks.append(on_durable)
        self._idle = anyio.Event() if self._idle.is_set() else self._idle
        self._wake.set()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]

    async def committer(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake = anyio.Event()
                while self._pending:
                    batch, self._pending = self._pending, []
                    callbacks, self._callbacks = self._callbacks, []
                    # written from the loop (into the page cache: tens of microseconds for a batch),
                    # then made durable without blocking it
                    self._write(b"".join(batch))
                    if self._sync is not None:
                        await self._sync()
                    for cb in callbacks:
                        cb()
                self._idle.set()
        except OSError as exc:
            # the disk refused: nothing more can be made durable, so nothing more may be reported
            # complete; stop the apply (the task group cancels the walk) with an error that says so
            self.error = StateWriteError(self.store.journal_path, exc)
            self._idle.set()
            raise self.error from exc
        except Exception:
            # an on_durable callback failed (a bug): the apply stops with it; drain() must not wait
            # for a committer that is gone
            self._broken = True
            self._idle.set()
            raise
        finally:
            # cancelled too (a second Ctrl-C): drain() then commits what is left itself
            self._stopped = True
            self._idle.set()

    def _commit_now(self) -> None:
        """What is pending, made durable here and now (blocking): the committer is gone."""
        batch, self._pending = self._pending, []
        callbacks, self._callbacks = self._callbacks, []
        try:
            if batch:
                self._write(b"".join(batch))
                if self.store.fsync:
                    os.fdatasync(self._fd)
        except OSError as exc:
            self.error = StateWriteError(self.store.journal_path, exc)
            return
        for cb in callbacks:
            cb()

    async def drain(self) -> None:
        """Wait until everything put so far is durable (or the writer failed)."""
        with anyio.CancelScope(shield=True):
            while (self._pending or not self._idle.is_set()) and self.error is None and not self._broken:
                if self._stopped:
                    self._commit_now()
                    break
                await self._idle.wait()

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()
            self._sync = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
