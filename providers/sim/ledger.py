"""The ledger: the sim provider's "cloud", an append-only JSON-lines file that outlives the process.

Design
------

* **Records.** One JSON object per line, written with a single ``write(2)`` on an
  ``O_APPEND`` descriptor (flushed per record, not fsynced: it survives a crash
  of the process, not of the machine)::

      {"op":"create","id":ID,"type":T,"name":N,"token":TOK,"attributes":{...},"t":UNIX}
      {"op":"update","id":ID,"name":N,"token":TOK,"attributes":{...},"t":UNIX}   # full snapshot
      {"op":"delete","id":ID,"t":UNIX}
      {"op":"fail","key":"create:TOK"|"update:ID"|"delete:ID","t":UNIX}         # a simulated failure

* **Memory.** Opening replays the file into dicts (objects by id, id by token,
  ids by (type, name)) and remembers the byte offset it has consumed; every
  operation first *catches up* by reading only the bytes appended since then
  (one ``stat`` + ``fstat``, plus a ``pread`` when something was appended). The
  in-memory view is therefore always exactly a replay of the file, including
  what other processes wrote.

* **Writers** take an exclusive ``flock`` on ``LEDGER.lock`` (a separate file
  that is never replaced), catch up, check (e.g. "does this idempotency token
  exist?"), append, and catch up again (which applies their own record: one
  code path for memory). The critical section is synchronous, so within one
  process a plain flag is enough, and the async :meth:`Ledger.locked` polls
  the ``flock`` without blocking the event loop.

* **Crash safety.** A line without its newline (a writer killed mid-write) is
  never applied; the next writer, holding the lock, terminates it with a
  newline, and replay skips lines that are not valid JSON. Compaction writes a
  new file and renames it over the ledger; readers notice the new inode (or a
  shorter file, e.g. edited by hand) and replay from scratch.
"""

from __future__ import annotations

import errno
import fcntl
import math
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import orjson


@dataclass(slots=True)
class SimObject:
    """A live object: ``attributes`` is the full resource state (``id`` included)."""

    id: str
    type: str
    name: str
    token: str
    attributes: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "name": self.name, "token": self.token,
                "attributes": self.attributes}


class LedgerMissing(FileNotFoundError):
    """Opening a ledger that does not exist with ``create=False``."""


_SCALARS = frozenset({str, int, bool, type(None)})


def _json_exact(v: Any) -> bool:
    """Does JSON give ``v`` back as it is, type included? (orjson writes NaN and infinities as null)"""
    return type(v) in _SCALARS or (type(v) is float and math.isfinite(v))


def _round_trips(record: dict[str, Any]) -> bool:
    """Would ``orjson.loads(_encode(record))`` equal ``record``, types included? (flat scalars)"""
    for v in record.values():
        if type(v) is dict:
            if not all(_json_exact(x) for x in v.values()):
                return False
        elif not _json_exact(v):
            return False
    return True


def _encode(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"


class Ledger:
    """One process's view of a ledger file. Not thread-safe: use it from one thread (one event loop)."""

    def __init__(self, path: str, create: bool = True) -> None:
        self.path = os.path.abspath(path)
        self.lock_path = self.path + ".lock"
        self.objects: dict[str, SimObject] = {}
        self.tokens: dict[str, str] = {}
        self.names: dict[tuple[str, str], dict[str, None]] = {}  # ordered sets of ids
        self.attempts: dict[str, int] = {}  # "create:TOK" / "update:ID" / "delete:ID" -> attempts so far
        self.bad_lines = 0
        self.replays = 0
        self._create = create
        self._fd = -1
        self._ino = self._dev = -1
        self._lock_fd = -1
        self._offset = 0
        self._torn = False
        self._held = False
        if not create and not os.path.exists(self.path):
            raise LedgerMissing(errno.ENOENT, "no such ledger", self.path)
        self._reopen()

    # ------------------------------------------------------------------ files

    def _reopen(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        if self._create:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            flags |= os.O_CREAT
        self._fd = os.open(self.path, flags, 0o644)
        fst = os.fstat(self._fd)
        self._ino, self._dev = fst.st_ino, fst.st_dev
        self.objects.clear()
        self.tokens.clear()
        self.names.clear()
        self.attempts.clear()
        self.bad_lines = 0
        self._offset = 0
        self._torn = False
        self.replays += 1
        self._read_new()

    def close(self) -> None:
        for fd in (self._fd, self._lock_fd):
            if fd >= 0:
                os.close(fd)
        self._fd = self._lock_fd = -1

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading

    def catch_up(self) -> None:
        """Apply whatever was appended since the last call; replay from scratch if the file was replaced."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if not self._create:
                raise
            self._reopen()
            return
        # one stat of the path: the same file as our descriptor (inode and device remembered at
        # open) tells its size too, so no fstat is needed (once per simulated operation)
        if st.st_ino != self._ino or st.st_dev != self._dev or st.st_size < self._offset:
            self._reopen()
            return
        if st.st_size > self._offset:
            self._read_new(st.st_size)

    def _read_new(self, size: int | None = None) -> None:
        if size is None:
            size = os.fstat(self._fd).st_size
        if size <= self._offset:
            self._torn = False
            return
        chunks = []
        pos = self._offset
        while pos < size:
            chunk = os.pread(self._fd, min(size - pos, 1 << 22), pos)
            if not chunk:
                break
            chunks.append(chunk)
            pos += len(chunk)
        data = b"".join(chunks)
        end = data.rfind(b"\n")
        self._torn = end + 1 < len(data)
        if end < 0:
            return
        for line in data[:end].split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                self.bad_lines += 1
                continue
            if isinstance(rec, dict):
                self._apply(rec)
            else:
                self.bad_lines += 1
        self._offset += end + 1

    def _count(self, key: str) -> None:
        self.attempts[key] = self.attempts.get(key, 0) + 1

    def _index(self, obj: SimObject) -> None:
        self.objects[obj.id] = obj
        self.tokens[obj.token] = obj.id
        self.names.setdefault((obj.type, obj.name), {})[obj.id] = None

    def _unindex(self, obj: SimObject) -> None:
        if self.tokens.get(obj.token) == obj.id:
            del self.tokens[obj.token]
        ids = self.names.get((obj.type, obj.name))
        if ids is not None:
            ids.pop(obj.id, None)
            if not ids:
                del self.names[(obj.type, obj.name)]

    def _apply(self, rec: dict[str, Any]) -> None:
        op = rec.get("op")
        try:
            if op == "create":
                obj = SimObject(rec["id"], rec["type"], rec["name"], rec["token"], dict(rec["attributes"]))
                old = self.objects.get(obj.id)
                if old is not None:
                    self._unindex(old)
                self._index(obj)
                self._count(f"create:{obj.token}")
            elif op == "update":
                old = self.objects.get(rec["id"])
                self._count(f"update:{rec['id']}")
                if old is None:
                    return
                self._unindex(old)
                # keep the object's place in creation order
                self._index(SimObject(old.id, old.type, rec.get("name", old.name), rec.get("token", old.token),
                                      dict(rec["attributes"])))
            elif op == "delete":
                self._count(f"delete:{rec['id']}")
                old = self.objects.pop(rec["id"], None)
                if old is not None:
                    self._unindex(old)
            elif op == "fail":
                self._count(str(rec["key"]))
            else:
                self.bad_lines += 1
        except (KeyError, TypeError):
            self.bad_lines += 1

    # ------------------------------------------------------------------ queries (call catch_up first)

    def get(self, id: str) -> SimObject | None:
        return self.objects.get(id)

    def by_token(self, token: str) -> SimObject | None:
        id = self.tokens.get(token)
        return self.objects.get(id) if id is not None else None

    def by_name(self, type: str, name: str) -> list[SimObject]:
        return [self.objects[i] for i in self.names.get((type, name), ())]

    def live(self) -> Iterator[SimObject]:
        return iter(list(self.objects.values()))

    # ------------------------------------------------------------------ locking and writing

    def _lock_file(self) -> int:
        if self._lock_fd < 0:
            self._lock_fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        return self._lock_fd

    def _try_flock(self) -> bool:
        try:
            fcntl.flock(self._lock_file(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _release(self) -> None:
        self._held = False
        fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def locked(self) -> _Locked:
        """``async with``: exclusive access for a check-then-append; caught up on entry. Keep the
        body synchronous."""
        return _Locked(self)

    async def _acquire(self) -> None:
        delay = 0.0002
        while self._held or not self._try_flock():
            await anyio.sleep(delay)
            delay = min(delay * 2, 0.02)
        self._held = True
        try:
            self.catch_up()
        except BaseException:
            self._release()
            raise

    @contextmanager
    def locked_blocking(self) -> Iterator[None]:
        """:meth:`locked` for synchronous callers (the command line); blocks until the lock is free."""
        if self._held:
            raise RuntimeError("ledger lock already held by this process")
        fcntl.flock(self._lock_file(), fcntl.LOCK_EX)
        self._held = True
        try:
            self.catch_up()
            yield
        finally:
            self._release()

    def append(self, record: dict[str, Any]) -> None:
        """Append one record and apply it (through :meth:`catch_up`). Only while holding the lock."""
        if not self._held:
            raise RuntimeError("Ledger.append outside Ledger.locked()")
        # caught up on taking the lock, and no writer can append while we hold it
        record.setdefault("t", round(time.time(), 6))
        data = _encode(record)
        torn = self._torn
        if torn:
            data = b"\n" + data  # terminate a line torn by a writer that died mid-write
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        # an O_APPEND write leaves the descriptor's offset at the file's end: a cheaper fstat
        if not torn and os.lseek(self._fd, 0, os.SEEK_CUR) == self._offset + len(data):
            self._offset += len(data)  # the file is exactly what we had plus our record
            # what replay reads back, without parsing our own line again when the record holds
            # only values JSON gives back unchanged (else the parse: NaN, tuples, nested values)
            self._apply(record if _round_trips(record) else orjson.loads(data))
        else:
            self.catch_up()  # someone wrote without the lock, or a torn line: replay what is new

    # ------------------------------------------------------------------ maintenance

    def compact(self) -> tuple[int, int]:
        """Rewrite the ledger as one create record per live object. Returns (bytes before, bytes after).

        Attempt counters (which seed the simulated failures) restart from the live objects."""
        with self.locked_blocking():
            before = os.fstat(self._fd).st_size
            directory = os.path.dirname(self.path)
            fd, tmp = tempfile.mkstemp(prefix=".ledger-", dir=directory)
            try:
                with os.fdopen(fd, "wb") as f:
                    for obj in self.objects.values():
                        f.write(_encode({"op": "create", "id": obj.id, "type": obj.type, "name": obj.name,
                                         "token": obj.token, "attributes": obj.attributes}))
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(tmp, 0o644)
                os.replace(tmp, self.path)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
            self._reopen()
            return before, os.fstat(self._fd).st_size


class _Locked:
    """:meth:`Ledger.locked` as a plain async context manager: once per simulated create, update
    and delete, where an async generator's machinery cost more than the lock itself."""

    __slots__ = ("ledger",)

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    async def __aenter__(self) -> None:
        await self.ledger._acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.ledger._release()
