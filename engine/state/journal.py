"""The state journal's records: their format, and their replay after a crash.

A journal is a sequence of lines, each one record, each ended by a newline::

    1c291ca3 {"journal":2,"lineage":"6f0c…"}
    5e0ba9f1 {"r":["managed","sim_object","o"],"k":3,"d":null,"p":"provider[\\"…\\"]","o":{…}}

Eight lowercase hex digits, the CRC-32 of the JSON that follows the space, then the JSON. The
first record is the header (the state's lineage); every other one sets (``"o"``: the object, as
in a v4 snapshot's ``instances``) or removes (``"o": null``) one object: ``"r"`` its resource
(mode, type, name, and the module path when it is not the root), ``"k"`` its instance key, ``"d"`` its deposed key, ``"p"`` its provider.

Replay tells two kinds of damage apart:

* a **torn last record**: the journal ends in a line without its newline that does not check out.
  A crash (or a power loss) in the middle of a write leaves one; that record's fsync never
  returned, so it was never reported complete. It is dropped, with a warning naming the file.
* **damage before the end**: a record with a wrong checksum, not UTF-8, not JSON, or without its
  fields, that is not a torn last record. Replay refuses it, naming the record and the file,
  and changes nothing: dropping it, or everything after it, would forget objects that exist.

Journals written before records had checksums (a header without ``"journal"``, every line bare
JSON) are still replayed, by the same rules without the checksum: a line that is not a valid
record is damage unless it is the torn last one.
"""

from __future__ import annotations

from typing import Any
from zlib import crc32

import orjson

from engine.addrs import (
    ROOT,
    InstanceAddr,
    ProviderConfigAddr,
    parse_module_path,
    parse_provider_config_addr,
    resource_addr,
    schema_key,
)
from engine.diagnostics import Diagnostic, DiagnosticsError, StrataError, error
from engine.frozen import frozen
from engine.state.codec import DynamicAttrs, InvalidField, decode_instance_key, decode_object, dumps
from engine.state.model import ObjectState, State

FORMAT = 2
"""The journal format written here (1: the same records as bare JSON, without checksums)."""


def frame(body: bytes) -> bytes:
    """One record's line: its checksum, a space, its JSON, a newline.

    Hot path: once per object an apply completes (zlib's CRC-32 runs at gigabytes a second)."""
    return b"%08x %b\n" % (crc32(body), body)


def header(lineage: str) -> bytes:
    return frame(orjson.dumps({"journal": FORMAT, "lineage": lineage}))


def record(addr: InstanceAddr, provider: ProviderConfigAddr, obj: Any, deposed: str | None) -> bytes:
    """The line recording ``obj`` (an object's v4 JSON form; None: removed) at ``addr``."""
    r = addr.resource
    where = (r.mode, r.type, r.name) if r.module is ROOT else (r.mode, r.type, r.name, str(r.module))
    return frame(dumps({"r": where, "k": addr.key, "d": deposed, "p": str(provider), "o": obj}))


class JournalDamagedError(DiagnosticsError):
    """A record of the journal at ``path``, before its end, is damaged: replay refused it and
    changed nothing. ``record`` counts from 1 after the header (0 is the header); ``line`` is its
    line in the file; ``records`` how many the journal holds."""

    def __init__(self, path: str, record: int, line: int, records: int, reason: str) -> None:
        self.path = path
        self.record = record
        self.line = line
        self.records = records
        self.reason = reason
        which = "The header (line 1)" if record == 0 else f"Record {record} of {records} (line {line})"
        super().__init__([error(
            "Damaged state journal",
            f"{which} of the state journal {path} is damaged: {reason}. Records after it describe objects "
            "that exist, so strata will not drop it or them, and has changed nothing. Restore the "
            "journal from a copy, or repair that line by hand (a record is one line: a CRC-32 checksum "
            "in hex, a space, and the record's JSON), then run the command again.")])


@frozen
class Entry:
    """One object record: ``obj`` (None: removed) at ``addr`` / ``deposed``."""

    addr: InstanceAddr
    provider: ProviderConfigAddr
    deposed: str | None
    obj: ObjectState | None


@frozen
class Replay:
    """A journal read whole and checked. Nothing is applied to a state before every record is."""

    lineages: tuple[str, ...]
    entries: tuple[Entry, ...]
    warnings: tuple[Diagnostic, ...]
    format: int


class _Bad(StrataError):
    """A line that is not a valid record; ``torn``: it may be a record cut short by a crash."""

    def __init__(self, reason: str, torn: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.torn = torn


def read(data: bytes, path: str, dynamic_attrs: DynamicAttrs) -> Replay:
    """The journal ``data`` (read from ``path``), checked. Raises :class:`JournalDamagedError`."""
    fmt = 1 if data[:1] == b"{" else FORMAT
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: empty when the journal ends with a whole record
    records = len(lines) - 1 + (1 if tail else 0)
    lineages: list[str] = []
    entries: list[Entry] = []
    warnings: list[Diagnostic] = []
    for i, line in enumerate(lines):
        if fmt == 1 and not line.strip():
            continue  # the old writer's journals could hold blank lines
        try:
            _parse(line, i, fmt, dynamic_attrs, lineages, entries)
        except _Bad as bad:
            if not (bad.torn and i + 1 < len(lines) and _is_header(lines[i + 1], fmt)):
                raise JournalDamagedError(path, i, i + 1, records, bad.reason) from None
            # the torn last record of an earlier writer, which a later one (that reopened the
            # journal without replaying it) put a new header after
            warnings.append(_torn(path, i, line))
    if tail:
        n = len(lines)
        try:
            _parse(tail, n, fmt, dynamic_attrs, lineages, entries)
        except _Bad as bad:
            if not bad.torn:
                raise JournalDamagedError(path, n, n + 1, records, bad.reason) from None
            try:  # its newline itself damaged: the record is whole
                _parse(tail[:-1], n, fmt, dynamic_attrs, lineages, entries)
            except _Bad:
                warnings.append(_torn(path, n, tail))
    return Replay(tuple(lineages), tuple(entries), tuple(warnings), fmt)


def _torn(path: str, index: int, line: bytes) -> Diagnostic:
    return Diagnostic("warning", "Incomplete last record in the state journal",
                      f"The last record of the state journal {path} (line {index + 1}, {len(line)} bytes) was "
                      "only partly written when strata stopped, and was dropped. Its write had not finished, "
                      "so it was never reported complete; every record before it was replayed.")


def _is_header(line: bytes, fmt: int) -> bool:
    try:
        _parse(line, 0, fmt, lambda t: {}, [], [])
    except _Bad:
        return False
    return True


_KEYS = ("r", "k", "d", "p", "o")


def _parse(line: bytes, index: int, fmt: int, dynamic_attrs: DynamicAttrs, lineages: list[str],
           entries: list[Entry]) -> None:
    """Check line ``index`` (0: the header) and add what it records; raises :class:`_Bad`."""
    if fmt == FORMAT:
        if len(line) < 10 or line[8:9] != b" ":
            raise _Bad("it has no checksum", torn=True)
        body = line[9:]
        try:
            want = int(line[:8], 16)
        except ValueError:
            raise _Bad("its checksum is not hexadecimal", torn=True) from None
        if crc32(body) != want:
            raise _Bad(f"its checksum does not match (the record says {want:08x}, its content "
                       f"{crc32(body):08x})", torn=True)
    else:
        body = line
    try:
        rec = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        what = "not UTF-8" if "UTF-8" in str(exc) else "not valid JSON"
        raise _Bad(f"it is {what} ({exc})", torn=True) from None
    if type(rec) is not dict:
        raise _Bad("it is not a JSON object", torn=False)
    if "lineage" in rec:  # the header (written again by a writer that reopened the journal)
        if type(rec["lineage"]) is not str:
            raise _Bad('its "lineage" is not a string', torn=False)
        if fmt == FORMAT and rec.get("journal") != FORMAT:
            raise _Bad(f"it is a journal of format {rec.get('journal')!r}; this strata reads format "
                       f"{FORMAT}", torn=False)
        lineages.append(rec["lineage"])
        return
    if index == 0:
        raise _Bad("the journal does not start with its header", torn=False)
    missing = [k for k in _KEYS if k not in rec]
    if missing:
        raise _Bad(f"it has no {', '.join(repr(k) for k in missing)}", torn=False)
    r, provider, deposed, obj = rec["r"], rec["p"], rec["d"], rec["o"]
    if type(r) is not list or len(r) not in (3, 4) or not all(type(x) is str for x in r) \
            or r[0] not in ("managed", "data"):
        raise _Bad(f'its resource "r" is not [mode, type, name] or [mode, type, name, module]: '
                   f'{orjson.dumps(r).decode()}', torn=False)
    try:
        if type(provider) is not str:
            raise ValueError(provider)
        provider_addr = parse_provider_config_addr(provider)
    except ValueError:
        raise _Bad(f'its provider "p" is not a provider address: {orjson.dumps(provider).decode()}',
                   torn=False) from None
    if deposed is not None and (type(deposed) is not str or not deposed):
        raise _Bad(f'its deposed key "d" is not a string: {orjson.dumps(deposed).decode()}', torn=False)
    try:
        module = parse_module_path(r[3]) if len(r) == 4 else ROOT
    except ValueError as exc:
        raise _Bad(f'its resource "r" has an invalid module path: {exc}', torn=False) from None
    resource = resource_addr(r[1], r[2], r[0], module)
    try:
        addr = resource.instance(decode_instance_key(rec["k"], resource))
        decoded = None if obj is None else decode_object(obj, dynamic_attrs(schema_key(resource)), addr)
    except InvalidField as exc:
        raise _Bad(f"{exc.summary}: {exc.detail}", torn=False) from None
    entries.append(Entry(addr, provider_addr, deposed, decoded))


def apply(replay: Replay, state: State) -> bool:
    """Set every recorded object in ``state``, in order; True if there was any."""
    for e in replay.entries:
        state.set_object(e.addr, e.provider, e.obj, e.deposed)
    return bool(replay.entries)
