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
import os
import stat
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio

from engine.addrs import InstanceAddr, ProviderConfigAddr, schema_key
from engine.diagnostics import Diagnostic, DiagnosticsError, StrataError, error
from engine.state import journal
from engine.state.codec import DynamicAttrs, decode_state, encode_object, encode_state
from engine.state.lock import LockMisuseError, LockState, StateLock, go_error
from engine.state.lock import StateLockError as StateLockError  # where callers found it before
from engine.state.model import ObjectState, State

if TYPE_CHECKING:
    from engine.state.fsync import DataSync


class StateWriteError(StrataError):
    """The state journal could not be written: the apply stops, and says what is recorded."""

    def __init__(self, path: str, exc: OSError) -> None:
        self.path = path
        super().__init__(f"Failed to write the state journal {path}: {exc.strerror or exc}. The apply was "
                         "stopped; everything reported complete before this is recorded.")


class StateSnapshotError(DiagnosticsError):
    """The snapshot could not be written (a full disk, a read-only directory). Nothing is lost
    when ``journal`` is set: the journal still holds every change, and is compacted by the next
    operation that holds the lock."""

    def __init__(self, path: str, exc: OSError, journal: str | None) -> None:
        self.path = path
        self.journal = journal
        self.reason = exc.strerror or str(exc)
        detail = f"strata could not write the state snapshot {path}: {self.reason}."
        if journal is not None:
            detail += (f" Nothing is lost: the state journal {journal} still holds every change, and the next "
                       "command that changes the state (apply, destroy, refresh, state rm, taint) first writes "
                       "the snapshot from it; plan and state list read it as it is. Free some space and run "
                       "strata apply.")
        super().__init__([error("Failed to write the state snapshot", detail)])


class StatePathError(DiagnosticsError):
    """A state or journal path that cannot be one: a directory, or another thing that is not a
    regular file (a device such as /dev/null, a pipe, a socket), which writing the state by
    replacing it would destroy."""

    def __init__(self, what: str, path: str, kind: str = "a directory") -> None:
        self.path = path
        self.kind = kind
        super().__init__([error(f"Invalid {what} path",
                                f"{path} is {kind}, not a {what} file. Remove it, or give another path "
                                "with -state=PATH.")])


class StateStore:
    """Where a state lives on disk: the snapshot ``path`` and its journal ``path + ".journal"``.

    ``path`` is the path as given (for messages and the lock's info); the files read and written
    are those it names once symlinks are resolved (``real_path``), so a linked state file is written
    through the link, and two links to one file share one journal and one lock. The one writer:
    :meth:`commit` and :meth:`writer` are the only ways a state reaches the disk, and the serial
    moves on only in :meth:`commit`. An operation writes only while it holds the lock (:meth:`locked`,
    or ``-lock=false``): the operations in ``engine.backend`` take it, once each.
    """

    def __init__(self, path: str, dynamic_attrs: DynamicAttrs, fsync: bool = True) -> None:
        self.path = path
        self.real_path = os.path.realpath(path)
        self.journal_path = self.real_path + ".journal"
        # in messages: beside the path as given, unless that is a link to a file elsewhere
        linked = self.real_path != os.path.abspath(path)
        self.shown_journal_path = self.journal_path if linked else os.path.normpath(path) + ".journal"
        self.dynamic_attrs = dynamic_attrs
        self.fsync = fsync
        self._lock: StateLock | None = None
        self._writes = True
        self.warnings: list[Diagnostic] = []
        self._replayed: bool | None = None
        """What the last load found: None, no journal; else whether replaying it changed anything."""
        """What :meth:`load` found worth saying that stopped nothing (a torn last journal record)."""

    # ------------------------------------------------------------------ locking

    def locked(self, operation: str, *, enabled: bool = True, timeout: float = 0.0, writes: bool = True,
               on_wait: Callable[[], None] | None = None) -> StateLock:
        """The lock for one operation, to hold with ``async with`` (``enabled=False``: ``-lock=false``).
        ``writes=False`` (plan): the operation reads under the lock and writes nothing, not even a
        journal a crashed apply left (the next apply compacts it). The store may write only while
        this lock is held."""
        if self._lock is not None and self._lock.may_write:
            raise LockMisuseError("acquire", self._lock.state)
        self._lock = StateLock(self.path, operation, enabled=enabled, timeout=timeout, on_wait=on_wait)
        self._writes = writes
        return self._lock

    def lock(self, operation: str = "OperationTypeApply") -> None:
        """Take the lock now, without waiting (for callers outside an operation, and tests)."""
        lock = StateLock(self.path, operation)
        lock.try_acquire()
        self._lock, self._writes = lock, True

    def unlock(self) -> None:
        """Release what :meth:`lock` took; nothing when it holds nothing."""
        if self._lock is not None and self._lock.state is LockState.HELD:
            self._lock.release()

    @property
    def may_write(self) -> bool:
        return self._lock is not None and self._lock.may_write and self._writes

    def check_paths(self) -> None:
        """A state or journal path that is a directory is said as such, not met as a traceback."""
        for what, real, shown in (("state", self.real_path, self.path),
                                  ("state journal", self.journal_path, self.shown_journal_path)):
            try:
                mode = os.stat(real).st_mode
            except OSError:
                continue  # missing (no state yet), or unreadable: reading it says so
            if stat.S_ISDIR(mode):
                raise StatePathError(what, shown)
            if not stat.S_ISREG(mode):
                raise StatePathError(what, shown, "not a regular file (a device, a pipe or a socket)")

    # ------------------------------------------------------------------ reading

    def load(self, *, compact: bool = True) -> State:
        """The current state: the snapshot with any journal replayed over it.

        A journal left by a crashed apply is compacted into the snapshot when this
        store holds the lock (and ``compact``: a saved plan's apply first checks that the state is
        the one the plan was made from, then calls :meth:`compact`); otherwise it is only read."""
        self.check_paths()
        try:
            with open(self.real_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            data = None
        except OSError as exc:
            raise DiagnosticsError([error("Failed to load state", go_error("open", self.path, exc))]) from None
        if data is not None:
            # only an empty file is no state: one of whitespace is an error, as in terraform
            state = decode_state(data, self.path, self.dynamic_attrs) if data else State()
        else:
            state = State()
        self._replayed = None
        if os.path.exists(self.journal_path):
            changed = self._replay(state)
            self._replayed = changed
            if self.may_write and compact:
                # only the lock holder may compact: an unlocked reader (plan, state list) must not
                # pull the journal from under a running apply that is still appending to it
                self.compact(state)
        return state

    def compact(self, state: State) -> None:
        """Fold the journal :meth:`load` replayed into ``state``'s snapshot, and remove it
        (nothing when there was none). Only the holder of a writing lock may."""
        if self._replayed is None:
            return
        if self._replayed:
            self.commit(state)
        os.unlink(self.journal_path)
        self._replayed = None

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

    def commit(self, state: State, backup: str | None = None) -> None:
        """Write ``state`` as the new snapshot, one serial on: every change of a state that reaches
        the disk outside an apply's journal (state rm/mv, taint, import's compaction, a replayed
        journal) comes through here. ``backup``: where the snapshot as it was is copied first."""
        if backup is not None and os.path.exists(self.real_path):
            try:
                import shutil

                shutil.copy(self.real_path, backup)  # the mode too
            except OSError as exc:
                raise StateSnapshotError(backup, exc, None) from None
        state.serial += 1
        try:
            self.write_snapshot(state)
        except StateSnapshotError:
            state.serial -= 1  # not written: the state in memory is still the one on disk
            raise

    def write_snapshot(self, state: State) -> None:
        """``state`` as the snapshot, atomically: a temporary file beside it, fsync'd, renamed over
        it (through a symlink: the target is replaced, the link kept). A new file is 0600 (a state
        holds secrets in the clear); an existing one keeps its mode. On failure the temporary file
        is removed and :class:`StateSnapshotError` says what could not be written."""
        data = encode_state(state, self.dynamic_attrs)
        real = self.real_path
        tmp = real + ".tmp"
        try:
            mode = stat.S_IMODE(os.stat(real).st_mode)
        except OSError:
            mode = 0o600
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            try:
                os.fchmod(fd, mode)
                _write_all(fd, data)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            if os.path.exists(real):
                # terraform's convention of a backup of the previous snapshot, made by a hard link so the
                # live snapshot is never moved away: a crash at any moment leaves a complete one in place
                backup = real + ".backup"
                with contextlib.suppress(OSError):
                    os.unlink(backup)
                try:
                    os.link(real, backup)
                except OSError:
                    with contextlib.suppress(OSError):
                        import shutil

                        shutil.copy(real, backup)  # the mode too: a backup is as private as its state
            os.replace(tmp, real)
            if self.fsync:
                _fsync_dir(os.path.dirname(real))
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            journal = self.shown_journal_path if os.path.exists(self.journal_path) else None
            raise StateSnapshotError(os.path.normpath(self.path), exc, journal) from None

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
            self.commit(state)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.journal_path)


def _ends_unterminated(path: str) -> bool:
    """The file at ``path`` ends in a line without its newline (a torn record)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        return size > 0 and os.pread(f.fileno(), 1, size - 1) != b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


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
        path = self.store.journal_path
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            # 0600: the journal holds what the state holds, secrets in the clear (umask may only narrow it)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
            header = journal.header(self.state.lineage)
            if _ends_unterminated(path):
                # a journal nobody replayed (never so after a load under the lock): its torn tail must
                # not run into the header and turn into damage before the end
                header = b"\n" + header
            os.write(self._fd, header)
            if self.store.fsync:
                # the journal's name must survive a power loss too, or its first fsync'd records could
                # be lost with it
                os.fdatasync(self._fd)
                _fsync_dir(os.path.dirname(path))
        except IsADirectoryError:
            raise StatePathError("state journal", self.store.shown_journal_path) from None
        except OSError as exc:
            # before any operation: nothing was changed, and nothing can be recorded
            raise DiagnosticsError([error("Failed to write the state journal",
                                          f"{go_error('open', self.store.shown_journal_path, exc)}: nothing was changed. strata records "
                                          "every change in the journal before it reports it, and cannot write "
                                          "it here.")]) from None
        if self.store.fsync:
            from engine.state.fsync import DataSync  # ctypes: for the runs that write state

            self._sync = DataSync(self._fd)

    def put(self, addr: InstanceAddr, provider: ProviderConfigAddr, obj: ObjectState | None,
            deposed: str | None = None, on_durable: Callable[[], None] | None = None) -> None:
        """Record ``obj`` at ``addr`` (None removes it). ``on_durable`` runs after the fsync."""
        r = addr.resource
        enc: Any = None
        if obj is not None:
            enc = encode_object(None, obj, self.store.dynamic_attrs(schema_key(r)))
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
