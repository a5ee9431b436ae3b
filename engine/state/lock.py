"""The state lock: one operation at a time on one state file, as terraform's local backend.

A lock is an object with a lifecycle, like httpcore's connections, and says where it is::

    UNLOCKED --acquire--> HELD ------release--> RELEASED
             \\--(-lock=false)--> UNGUARDED --/

It is taken once and released once (``async with``); any other order is a bug in strata and
raises :class:`LockMisuseError` naming the state the lock was in. HELD and UNGUARDED both mean
"this operation may write the state": UNGUARDED is ``-lock=false``, the user's say-so.

On disk the lock is ``flock`` on ``.NAME.lock.info`` beside the *real* state file (symlinks
resolved), so two paths to one file exclude each other. The file holds terraform's lock info
(ID, Operation, Who, Version, Created, Path) for the error a second process prints, and is
removed by its holder on release, so no empty lock file is left behind. Because a file can be
removed while another process waits on it, a lock is only held once the locked descriptor is
still the file at the path; otherwise it is taken again. A holder that dies loses its ``flock``
with it; the info file it leaves is taken over by the next one.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import fcntl
import getpass
import os
import socket
import time
import uuid
from collections.abc import Callable
from types import TracebackType

import anyio
import orjson

from engine.diagnostics import DiagnosticsError, StrataError, error
from engine.events.stream import STRATA_VERSION
from engine.frozen import frozen

WAIT_MESSAGE = "Acquiring state lock. This may take a few moments...\n"
_SAY_WAITING_AFTER = 0.4  # seconds: terraform's LockThreshold, after which it says it is waiting

CLOSING = ("strata acquires a state lock to protect the state from being written\n"
           "by multiple users at the same time. Please resolve the issue above and try\n"
           'again. For most commands, you can disable locking with the "-lock=false"\n'
           "flag, but this is not recommended.")


class LockState(enum.Enum):
    UNLOCKED = "unlocked"
    HELD = "held"
    UNGUARDED = "unguarded"  # -lock=false: not taken, writing allowed at the user's request
    RELEASED = "released"


class LockMisuseError(StrataError):
    """A lock used out of order (taken twice, released before it was taken): a bug in strata."""

    def __init__(self, action: str, state: LockState) -> None:
        self.action = action
        self.state = state
        super().__init__(f"StateLock.{action}() called while the lock is {state.value}: a lock is taken "
                         "once and released once")


@frozen
class LockInfo:
    """What a lock's file records about its holder: terraform's ``statemgr.LockInfo``."""

    id: str
    path: str
    operation: str
    who: str
    version: str
    created_ns: int
    info: str = ""

    @staticmethod
    def new(path: str, operation: str) -> LockInfo:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = str(os.getuid())
        return LockInfo(str(uuid.uuid4()), path, operation, f"{user}@{socket.gethostname()}", STRATA_VERSION,
                        time.time_ns())

    def to_json(self) -> bytes:
        return orjson.dumps({"ID": self.id, "Operation": self.operation, "Info": self.info, "Who": self.who,
                             "Version": self.version, "Created": _created(self.created_ns, "%Y-%m-%dT%H:%M:%S", "Z"),
                             "Path": self.path})

    @staticmethod
    def from_json(data: bytes) -> LockInfo | None:
        """The info a holder wrote; None when there is none yet (or it is not terraform's shape)."""
        try:
            doc = orjson.loads(data)
            return LockInfo(str(doc["ID"]), str(doc.get("Path", "")), str(doc.get("Operation", "")),
                            str(doc.get("Who", "")), str(doc.get("Version", "")), _parse_created(doc.get("Created")),
                            str(doc.get("Info", "")))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None

    def text(self) -> str:
        """As terraform prints it under a lock error."""
        return (f"Lock Info:\n  ID:        {self.id}\n  Path:      {self.path}\n  Operation: {self.operation}\n"
                f"  Who:       {self.who}\n  Version:   {self.version}\n"
                f"  Created:   {_created(self.created_ns, '%Y-%m-%d %H:%M:%S', ' +0000 UTC')}\n"
                f"  Info:      {self.info}\n")


def _created(ns: int, fmt: str, zone: str) -> str:
    """Go's time format: nanoseconds without trailing zeros, in UTC."""
    seconds, frac = divmod(ns, 1_000_000_000)
    digits = f"{frac:09d}".rstrip("0")
    return time.strftime(fmt, time.gmtime(seconds)) + (f".{digits}" if digits else "") + zone


def _parse_created(text: object) -> int:
    if not isinstance(text, str) or len(text) < 20:
        return 0
    import calendar

    base = calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S"))
    frac = text[19:].rstrip("Z")
    ns = int((frac[1:] + "000000000")[:9]) if frac.startswith(".") else 0
    return base * 1_000_000_000 + ns


def go_error(op: str, path: str, exc: OSError) -> str:
    """An OS error as Go's ``*PathError`` prints it (``open PATH: read-only file system``)."""
    return f"{op} {path}: {(exc.strerror or str(exc)).lower()}"


class StateLockError(DiagnosticsError):
    """The lock is held by another operation (``holder``, when it said who), or could not be
    taken at all (``reason``). terraform's diagnostic, closing paragraph included."""

    def __init__(self, path: str, reason: str, holder: LockInfo | None = None) -> None:
        self.path = path
        self.reason = reason
        self.holder = holder
        detail = f"Error message: {reason}\n"
        if holder is not None:
            detail += holder.text()
        super().__init__([error("Error acquiring the state lock", detail + "\n\n" + CLOSING)])

    def __str__(self) -> str:
        return f"Error acquiring the state lock: {self.path}: {self.reason}"


def lock_file_for(state_path: str) -> str:
    """The lock's file for a state: beside the real file, after symlinks are resolved."""
    real = os.path.realpath(state_path)
    return os.path.join(os.path.dirname(real), "." + os.path.basename(real) + ".lock.info")


def read_info(lock_path: str) -> LockInfo | None:
    try:
        with open(lock_path, "rb") as f:
            return LockInfo.from_json(f.read())
    except OSError:
        return None


class StateLock:
    """The lock on one state file for one operation; ``async with`` takes and releases it.

    ``timeout``: how long to wait for another holder (``-lock-timeout``), retrying with backoff;
    ``on_wait`` is called once when the wait has lasted long enough to say so."""

    def __init__(self, state_path: str, operation: str, *, enabled: bool = True, timeout: float = 0.0,
                 on_wait: Callable[[], None] | None = None) -> None:
        self.state_path = state_path
        self.lock_path = lock_file_for(state_path)
        self.operation = operation
        self.enabled = enabled
        self.timeout = timeout
        self.on_wait = on_wait
        self.state = LockState.UNLOCKED
        self.info: LockInfo | None = None
        self._fd = -1

    @property
    def may_write(self) -> bool:
        """Whether the operation holding this may change the state (held, or -lock=false)."""
        return self.state in (LockState.HELD, LockState.UNGUARDED)

    # ------------------------------------------------------------------ lifecycle

    def try_acquire(self) -> None:
        """Take the lock now or raise :class:`StateLockError` (no waiting)."""
        if self.state is not LockState.UNLOCKED:
            raise LockMisuseError("acquire", self.state)
        if not self.enabled:
            self.state = LockState.UNGUARDED
            return
        self._take()

    async def acquire(self) -> None:
        """Take the lock, waiting up to ``timeout`` seconds for another holder to let go."""
        if self.state is not LockState.UNLOCKED or not self.enabled or self.timeout <= 0:
            self.try_acquire()
            return
        start = time.monotonic()
        delay = 0.05
        said = False
        while True:
            try:
                self._take()
                return
            except StateLockError as exc:
                if exc.holder is None and exc.reason != _HELD:
                    raise  # not another holder (a read-only directory): waiting will not help
                left = self.timeout - (time.monotonic() - start)
                if left <= 0:
                    raise
            if not said and time.monotonic() - start + delay >= _SAY_WAITING_AFTER and self.on_wait is not None:
                self.on_wait()
                said = True
            await anyio.sleep(min(delay, left))
            delay = min(delay * 2, 1.0)

    def release(self) -> None:
        if self.state not in (LockState.HELD, LockState.UNGUARDED):
            raise LockMisuseError("release", self.state)
        if self.state is LockState.HELD:
            try:
                # removed while still held: a process waiting on this file finds it gone and starts over
                if _same_file(self._fd, self.lock_path):
                    os.unlink(self.lock_path)
            except OSError:
                pass  # a read-only directory since: the next holder takes the file over
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1
            _held.discard(self)
        self.state = LockState.RELEASED

    async def __aenter__(self) -> StateLock:
        await self.acquire()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.release()

    def __enter__(self) -> StateLock:
        self.try_acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()

    # ------------------------------------------------------------------ on disk

    def _take(self) -> None:
        shown = self.state_path
        directory = os.path.dirname(self.lock_path)
        try:
            os.makedirs(directory, exist_ok=True)  # -state=envs/dev/x.tfstate creates envs/dev, as terraform does
        except OSError as exc:
            raise StateLockError(shown, go_error("mkdir", directory, exc)) from None
        while True:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                if exc.errno == errno.EISDIR:
                    raise StateLockError(shown, f"{self.lock_path} is a directory, not a lock file: remove "
                                         "it or move it away") from None
                raise StateLockError(shown, go_error("open", self.lock_path, exc)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_fd(fd)
                os.close(fd)
                raise StateLockError(shown, _HELD, holder) from None
            except OSError as exc:
                os.close(fd)
                raise StateLockError(shown, go_error("flock", self.lock_path, exc)) from None
            if _same_file(fd, self.lock_path):
                break
            os.close(fd)  # its holder removed it as we waited: lock the file that is there now
        info = LockInfo.new(os.path.normpath(shown), self.operation)
        try:
            # a file left with content (a holder killed) is emptied first; a fresh one is not
            # truncated: on ext4, closing a file truncated to zero and written flushes it to disk
            # (auto_da_alloc), 3-15 ms of every run at release
            if os.fstat(fd).st_size:
                os.ftruncate(fd, 0)
            os.pwrite(fd, info.to_json(), 0)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
            os.close(fd)
            raise StateLockError(shown, go_error("write", self.lock_path, exc)) from None
        self._fd = fd
        self.info = info
        self.state = LockState.HELD
        _held.add(self)


_held: set[StateLock] = set()
"""The locks this process holds: released by :func:`release_held` when it must end at once."""


def release_held() -> None:
    """Release every lock this process holds, for a process that ends without unwinding (out of
    memory): its files are removed as they would have been, not left to be taken over."""
    for lock in list(_held):
        with contextlib.suppress(OSError, LockMisuseError):
            lock.release()


_HELD = "resource temporarily unavailable"  # Go's text for EWOULDBLOCK, as terraform prints it


def _same_file(fd: int, path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _read_fd(fd: int) -> LockInfo | None:
    try:
        return LockInfo.from_json(os.pread(fd, 65536, 0))
    except OSError:
        return None


class UnlockError(StrataError):
    """``force-unlock`` could not remove the lock: terraform's "Failed to unlock state: ..."."""

    def __init__(self, reason: str, holder: LockInfo | None = None) -> None:
        self.reason = reason
        self.holder = holder
        super().__init__(f"Failed to unlock state: {reason}" + (f"\n{holder.text()}" if holder else ""))


def force_unlock(state_path: str, lock_id: str, *, dry_run: bool = False) -> None:
    """Remove the lock another operation holds on ``state_path``, if its ID is ``lock_id``
    (``dry_run``: only check that it would).

    The holder keeps running and may still write (as with terraform's remote backends): the next
    operation can take a new lock. Raises :class:`UnlockError` when nothing holds the lock or the
    ID is not the holder's."""
    lock_path = lock_file_for(state_path)
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UnlockError("LocalState not locked") from None
    except OSError as exc:
        raise UnlockError(go_error("open", lock_path, exc)) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_fd(fd)
            if holder is None or holder.id != lock_id:
                raise UnlockError(f'lock id "{lock_id}" does not match existing lock', holder) from None
            if not dry_run and _same_file(fd, lock_path):
                os.unlink(lock_path)
            return
        # nobody holds it: at most a file a killed holder left behind, which the next one takes over
        raise UnlockError("LocalState not locked")
    finally:
        os.close(fd)
