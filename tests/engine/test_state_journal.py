"""The journal's records (engine/state/journal.py): checksummed, and replayed so that a torn last
record is dropped with a warning while damage before the end is refused, changing nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
from engine.state import journal
from engine.state.codec import encode_object
from engine.state.journal import JournalDamagedError
from engine.state.model import ObjectState, State
from engine.state.store import StateStore

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
DYNAMIC = {"id": "string", "input": "dynamic", "output": "dynamic", "triggers_replace": "dynamic"}
LINEAGE = "5a7c1c36-0000-4000-8000-000000000001"


def dynamic_attrs(type_name: str) -> dict[str, Any]:
    return DYNAMIC if type_name == "terraform_data" else {}


def addr(name: str) -> InstanceAddr:
    return InstanceAddr(ResourceAddr("terraform_data", name))


def obj(value: str) -> ObjectState:
    return ObjectState({"id": f"id-{value}", "input": value, "output": value, "triggers_replace": None})


def line_for(name: str) -> bytes:
    return journal.record(addr(name), PROVIDER, encode_object(None, obj(name), DYNAMIC), None)


def names(n: int) -> list[str]:
    return [f"r{i}" for i in range(1, n + 1)]


def write_journal(state_path: Path, lines: list[bytes], header: bytes | None = None) -> Path:
    path = Path(str(state_path) + ".journal")
    path.write_bytes((journal.header(LINEAGE) if header is None else header) + b"".join(lines))
    return path


def store_at(path: Path) -> StateStore:
    return StateStore(str(path), dynamic_attrs)


def loaded_names(state: State) -> list[str]:
    return sorted(a.resource.name for a, _d, _o, _p in state.objects())


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    return tmp_path / "terraform.tfstate"


def flip(data: bytes, offset: int, bit: int = 0x04) -> bytes:
    return data[:offset] + bytes([data[offset] ^ bit]) + data[offset + 1:]


def offset_in_record(data: bytes, record: int, at: int = 30) -> int:
    """A byte ``at`` characters into object record ``record`` (1-based; the header is line 1)."""
    start = 0
    for _ in range(record):
        start = data.index(b"\n", start) + 1
    return start + at


# ----------------------------------------------------------------------------- the format

def test_every_record_is_a_crc32_a_space_and_json() -> None:
    line = line_for("a")
    assert line.endswith(b"\n") and line[8:9] == b" ", line
    body = line[9:-1]
    import zlib

    assert int(line[:8], 16) == zlib.crc32(body), "the checksum is not the CRC-32 of the record's JSON"
    assert orjson.loads(body)["r"] == ["managed", "terraform_data", "a"]


def test_a_clean_journal_replays_every_record(state_path: Path) -> None:
    write_journal(state_path, [line_for(n) for n in names(15)])
    store = store_at(state_path)
    assert loaded_names(store.load()) == sorted(names(15))
    assert store.warnings == [], store.warnings


# ----------------------------------------------------------------------------- damage before the end

@pytest.mark.parametrize("record", [1, 2, 8, 14])
def test_a_bit_flip_before_the_end_is_refused_naming_the_record_and_the_file(state_path: Path,
                                                                             record: int) -> None:
    path = write_journal(state_path, [line_for(n) for n in names(15)])
    data = path.read_bytes()
    path.write_bytes(flip(data, offset_in_record(data, record)))
    with pytest.raises(JournalDamagedError) as info:
        store_at(state_path).load()
    message = str(info.value)
    assert f"Record {record} of 15 (line {record + 1})" in message and str(path) in message, message
    assert "checksum does not match" in message, message


def test_a_refused_journal_is_left_as_it_was_and_no_snapshot_is_written(state_path: Path) -> None:
    path = write_journal(state_path, [line_for(n) for n in names(15)])
    damaged = flip(path.read_bytes(), offset_in_record(path.read_bytes(), 8))
    path.write_bytes(damaged)
    store = store_at(state_path)
    store.lock()  # a locked load would compact and remove a journal it could read
    try:
        with pytest.raises(JournalDamagedError):
            store.load()
    finally:
        store.unlock()
    assert path.read_bytes() == damaged, "the damaged journal was changed or removed"
    assert not state_path.exists(), "a snapshot was written from a journal that was refused"


def test_a_non_utf8_byte_in_a_record_is_refused(state_path: Path) -> None:
    lines = [line_for(n) for n in names(15)]
    body = lines[6][9:-1].replace(b'"id-r7"', b'"id-\xffr7"')
    lines[6] = journal.frame(body)  # even with a checksum that matches
    write_journal(state_path, lines)
    with pytest.raises(JournalDamagedError, match=r"Record 7 of 15 \(line 8\).*not UTF-8"):
        store_at(state_path).load()


@pytest.mark.parametrize("field", ["r", "k", "d", "p", "o"])
def test_a_record_without_one_of_its_fields_is_refused(state_path: Path, field: str) -> None:
    lines = [line_for(n) for n in names(5)]
    rec = orjson.loads(lines[2][9:])
    del rec[field]
    lines[2] = journal.frame(orjson.dumps(rec))
    write_journal(state_path, lines)
    with pytest.raises(JournalDamagedError, match=rf"Record 3 of 5 \(line 4\).*it has no '{field}'"):
        store_at(state_path).load()


@pytest.mark.parametrize("change", [
    {"r": "terraform_data.a"}, {"r": ["managed", "terraform_data"]}, {"r": ["weird", "t", "n"]},
    {"k": [1]}, {"k": 1.5}, {"d": 5}, {"p": None}, {"o": "x"}, {"o": {"attributes": [1]}},
    {"o": {"attributes": {}, "schema_version": "x"}}, {"o": {"attributes": {}, "status": "weird"}},
], ids=repr)
def test_a_record_with_a_field_of_the_wrong_type_is_refused_not_a_traceback(state_path: Path,
                                                                           change: dict[str, Any]) -> None:
    lines = [line_for(n) for n in names(3)]
    lines[1] = journal.frame(orjson.dumps({**orjson.loads(lines[1][9:]), **change}))
    write_journal(state_path, lines)
    with pytest.raises(JournalDamagedError, match=r"Record 2 of 3 \(line 3\)"):
        store_at(state_path).load()


def test_a_damaged_last_record_that_was_written_whole_is_refused(state_path: Path) -> None:
    # its newline is there: the write finished, so this is damage, not a tear
    path = write_journal(state_path, [line_for(n) for n in names(3)])
    data = path.read_bytes()
    path.write_bytes(flip(data, offset_in_record(data, 3)))
    with pytest.raises(JournalDamagedError, match=r"Record 3 of 3"):
        store_at(state_path).load()


def test_a_damaged_header_is_refused(state_path: Path) -> None:
    path = write_journal(state_path, [line_for(n) for n in names(3)])
    path.write_bytes(flip(path.read_bytes(), 20))
    with pytest.raises(JournalDamagedError, match=r"The header \(line 1\)"):
        store_at(state_path).load()


# ----------------------------------------------------------------------------- the torn last record

@pytest.mark.parametrize("cut", [1, 9, 40, -2])
def test_a_torn_last_record_is_dropped_with_a_warning_naming_the_file(state_path: Path, cut: int) -> None:
    last = line_for("r15")
    path = write_journal(state_path, [line_for(n) for n in names(14)] + [last[:cut]])
    store = store_at(state_path)
    assert loaded_names(store.load()) == sorted(names(14)), "the records before the torn one were not all kept"
    assert [w.summary for w in store.warnings] == ["Incomplete last record in the state journal"], store.warnings
    assert str(path) in store.warnings[0].detail and "line 16" in store.warnings[0].detail


def test_a_whole_last_record_without_its_newline_is_kept(state_path: Path) -> None:
    write_journal(state_path, [line_for(n) for n in names(2)] + [line_for("r3")[:-1]])
    store = store_at(state_path)
    assert loaded_names(store.load()) == sorted(names(3))
    assert store.warnings == []


def test_a_last_record_whose_newline_was_damaged_is_kept(state_path: Path) -> None:
    path = write_journal(state_path, [line_for(n) for n in names(3)])
    data = path.read_bytes()
    path.write_bytes(flip(data, len(data) - 1, 0x01))
    assert loaded_names(store_at(state_path).load()) == sorted(names(3))


def test_a_journal_holding_only_a_torn_header_is_no_change(state_path: Path) -> None:
    write_journal(state_path, [], header=journal.header(LINEAGE)[:20])
    store = store_at(state_path)
    assert loaded_names(store.load()) == []
    assert len(store.warnings) == 1


def test_a_writer_reopening_a_torn_journal_leaves_one_that_replays(state_path: Path) -> None:
    # (a load under the lock compacts and removes the journal first; one without it does not)
    path = write_journal(state_path, [line_for("r1"), line_for("r2")[:30]])

    async def main() -> None:
        async with store_at(state_path).writer(State(lineage=LINEAGE)) as w:
            w.put(addr("r3"), PROVIDER, obj("r3"))
            await w.drain()
            replayed = journal.read(path.read_bytes(), str(path), dynamic_attrs)
            assert [e.addr.resource.name for e in replayed.entries] == ["r1", "r3"], replayed.entries
            assert len(replayed.warnings) == 1, "the earlier writer's torn record should be said"

    anyio.run(main, backend="trio")


# ----------------------------------------------------------------------------- old journals

def legacy_line(name: str) -> bytes:
    return orjson.dumps({"r": ["managed", "terraform_data", name], "k": None, "d": None, "p": str(PROVIDER),
                         "o": encode_object(None, obj(name), DYNAMIC)}) + b"\n"


def test_a_journal_without_checksums_from_the_previous_version_still_replays(state_path: Path) -> None:
    write_journal(state_path, [legacy_line(n) for n in names(4)],
                  header=orjson.dumps({"lineage": LINEAGE}) + b"\n")
    assert loaded_names(store_at(state_path).load()) == sorted(names(4))


def test_an_old_journal_damaged_before_its_end_is_refused(state_path: Path) -> None:
    lines = [legacy_line(n) for n in names(4)]
    lines[1] = lines[1][:25] + b"\n"
    write_journal(state_path, lines, header=orjson.dumps({"lineage": LINEAGE}) + b"\n")
    with pytest.raises(JournalDamagedError, match=r"Record 2 of 4.*not valid JSON"):
        store_at(state_path).load()


def test_an_old_journal_with_a_torn_last_line_drops_it_with_a_warning(state_path: Path) -> None:
    write_journal(state_path, [legacy_line(n) for n in names(3)] + [legacy_line("r4")[:25]],
                  header=orjson.dumps({"lineage": LINEAGE}) + b"\n")
    store = store_at(state_path)
    assert loaded_names(store.load()) == sorted(names(3))
    assert len(store.warnings) == 1
