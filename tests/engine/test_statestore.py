"""The state journal (engine/state/store.py): durable before reported, replayed after a crash, locked."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from engine.addrs import InstanceAddr, ResourceAddr, parse_dependency, parse_provider_config_addr
from engine.diagnostics import StrataError
from engine.state.journal import frame, header
from engine.state.model import ObjectState, State
from engine.state.store import StateLockError, StateStore
from tests.conftest import REPO, Workdir

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
DYNAMIC = {"id": "string", "input": "dynamic", "output": "dynamic", "triggers_replace": "dynamic"}


def dynamic_attrs(type_name: str) -> dict[str, Any]:
    """The state codec's view of terraform_data: attribute name to cty type."""
    return DYNAMIC if type_name == "terraform_data" else {}


def addr(name: str, key: Any = None) -> InstanceAddr:
    return InstanceAddr(ResourceAddr("terraform_data", name), key)


def obj(value: str, **kw: Any) -> ObjectState:
    return ObjectState({"id": f"id-{value}", "input": value, "output": value, "triggers_replace": None}, **kw)


def run(fn: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(fn, backend="trio")


def journal_records(path: Path) -> list[dict[str, Any]]:
    """The object records of a journal (header line excluded)."""
    out = []
    for line in path.read_bytes().split(b"\n"):
        if line.strip():
            rec = orjson.loads(line[9:])  # after the record's checksum and a space
            if "lineage" not in rec:
                out.append(rec)
    return out


def ids_in(state: State) -> dict[str, str]:
    """{address: id} of every current object."""
    return {str(a): o.attributes["id"] for a, d, o, _p in state.objects() if d is None}


def snapshot(path: Path) -> dict[str, Any]:
    return orjson.loads(path.read_bytes())


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    return tmp_path / "terraform.tfstate"


def store_at(path: Path) -> StateStore:
    return StateStore(str(path), dynamic_attrs, fsync=True)


def stale_snapshot(path: Path, **objects: ObjectState) -> State:
    """Write a snapshot holding ``objects`` (by resource name) and return that state."""
    state = State()
    for name, o in objects.items():
        state.set_object(addr(name), PROVIDER, o)
    store_at(path).write_snapshot(state)
    return state


# A child process that records objects through the real writer, then dies without compacting.
# argv: state path, then a list of steps: NAME (put terraform_data.NAME), -NAME (remove it),
# or "--pause" (print "paused" and wait for a line on stdin). It prints "durable NAME" once each
# step's on_durable callback has fired, and finally kills itself with os._exit.
CRASHER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import anyio
    from engine.addrs import InstanceAddr, ResourceAddr, parse_provider_config_addr
    from engine.state.model import ObjectState
    from engine.state.store import StateStore

    DYN = {"id": "string", "input": "dynamic", "output": "dynamic", "triggers_replace": "dynamic"}
    PROV = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')

    async def main():
        store = StateStore(sys.argv[2], lambda t: DYN)
        store.lock()
        state = store.load()
        async with store.writer(state) as w:
            for step in sys.argv[3:]:
                if step == "--pause":
                    print("paused", flush=True)
                    sys.stdin.readline()
                    continue
                name = step.lstrip("-")
                o = None if step.startswith("-") else ObjectState(
                    {"id": "id-" + name, "input": name, "output": name, "triggers_replace": None})
                done = anyio.Event()
                w.put(InstanceAddr(ResourceAddr("terraform_data", name)), PROV, o, on_durable=done.set)
                await done.wait()
                print("durable", step, flush=True)
            os._exit(9)  # crash: no compaction, no unlock, no cleanup

    anyio.run(main, backend="trio")
""")


def crash_after(state_path: Path, *steps: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-c", CRASHER, str(REPO), str(state_path), *steps],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 9, f"crasher did not crash as planned (exit {proc.returncode}):\n{proc.stderr}"
    return proc


# ----------------------------------------------------------------------------- durability

def test_object_is_in_journal_when_on_durable_fires(state_path: Path) -> None:
    store = store_at(state_path)
    journal = Path(store.journal_path)
    seen: dict[str, bool] = {}

    async def main() -> None:
        state = store.load()
        async with store.writer(state) as w:
            for name in ("a", "b", "c"):
                done = anyio.Event()

                def durable(name: str = name, done: anyio.Event = done) -> None:
                    recs = journal_records(journal)
                    seen[name] = any(r["r"] == ["managed", "terraform_data", name] and r["o"] is not None
                                     for r in recs)
                    done.set()

                w.put(addr(name), PROVIDER, obj(name), on_durable=durable)
                await done.wait()

    run(main)
    assert seen == {"a": True, "b": True, "c": True}, \
        f"on_durable fired before the record was in the journal on disk: {seen}"


def test_the_new_journal_is_made_durable_in_its_directory_before_any_record(
        state_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # after a power loss a journal whose directory entry was never fsync'd may be gone, and with
    # it records that were reported durable
    import engine.state.store as statestore

    calls: list[str] = []
    real = statestore._fsync_dir
    monkeypatch.setattr(statestore, "_fsync_dir", lambda path: (calls.append(path), real(path))[1])
    store = store_at(state_path)

    async def main() -> None:
        state = store.load()
        async with store.writer(state) as w:
            assert Path(store.journal_path).exists()
            assert calls == [str(state_path.parent)], calls
            done = anyio.Event()
            w.put(addr("a"), PROVIDER, obj("a"), on_durable=done.set)
            await done.wait()

    run(main)


def test_on_durable_fires_for_every_put_in_a_burst(state_path: Path) -> None:
    store = store_at(state_path)
    fired: list[str] = []
    names = [f"r{i}" for i in range(50)]

    async def main() -> None:
        state = store.load()
        async with store.writer(state) as w:
            for n in names:  # no awaits between puts: they are group-committed together
                w.put(addr(n), PROVIDER, obj(n), on_durable=lambda n=n: fired.append(n))
            await w.drain()
            on_disk = {r["r"][2] for r in journal_records(Path(store.journal_path))}
            assert on_disk == set(names), f"after drain, journal lacks {sorted(set(names) - on_disk)}"

    run(main)
    assert sorted(fired) == sorted(names), f"callbacks missing for {sorted(set(names) - set(fired))}"
    assert fired == names, "on_durable callbacks fired out of put order"


def test_journal_records_dynamic_attributes_with_type(state_path: Path) -> None:
    store = store_at(state_path)
    recs: list[dict[str, Any]] = []

    async def main() -> None:
        state = store.load()
        async with store.writer(state) as w:
            done = anyio.Event()
            w.put(addr("a"), PROVIDER, obj("hello"), on_durable=done.set)
            await done.wait()
            recs.extend(journal_records(Path(store.journal_path)))

    run(main)
    assert recs[0]["o"]["attributes"]["input"] == {"value": "hello", "type": "string"}, recs[0]


# ----------------------------------------------------------------------------- crash recovery

def test_crash_mid_apply_leaves_journal_and_stale_snapshot(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    crash_after(state_path, "a", "b")
    assert Path(str(state_path) + ".journal").exists(), "the crash should leave the journal behind"
    assert [r["name"] for r in snapshot(state_path)["resources"]] == ["old"], \
        "the snapshot should still be the stale one (no compaction happened)"


def test_load_replays_journal_after_crash(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    crash_after(state_path, "a", "b")
    state = store_at(state_path).load()
    assert ids_in(state) == {"terraform_data.old": "id-old", "terraform_data.a": "id-a",
                             "terraform_data.b": "id-b"}, "objects that were durable before the crash were lost"


def test_load_replays_journal_when_no_snapshot_existed(state_path: Path) -> None:
    crash_after(state_path, "a")
    state = store_at(state_path).load()
    assert ids_in(state) == {"terraform_data.a": "id-a"}


def test_replayed_removal_removes_object(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"), keep=obj("keep"))
    crash_after(state_path, "-old")
    state = store_at(state_path).load()
    assert ids_in(state) == {"terraform_data.keep": "id-keep"}, "a durable delete was undone by the crash"


def test_load_compacts_replayed_journal_into_snapshot(state_path: Path) -> None:
    before = stale_snapshot(state_path, old=obj("old"))
    crash_after(state_path, "a")
    store = store_at(state_path)
    store.lock()  # only the lock holder compacts (an unlocked reader must not race a running apply)
    try:
        store.load()
    finally:
        store.unlock()
    assert not Path(str(state_path) + ".journal").exists(), "a locked load should remove the replayed journal"
    doc = snapshot(state_path)
    assert doc["version"] == 4, doc
    assert sorted(r["name"] for r in doc["resources"]) == ["a", "old"], doc["resources"]
    assert doc["serial"] > before.serial, "the compacted snapshot must have a higher serial"
    assert doc["lineage"] == before.lineage, "replay must keep the state's lineage"


def test_second_load_after_replay_sees_same_state(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    crash_after(state_path, "a")
    first = ids_in(store_at(state_path).load())
    second = ids_in(store_at(state_path).load())
    assert first == second, f"state changed between two loads: {first} vs {second}"


def test_crash_does_not_keep_the_lock(state_path: Path) -> None:
    crash_after(state_path, "a")
    store = store_at(state_path)
    store.lock()  # must not raise: the dead process's flock died with it
    store.unlock()


# ----------------------------------------------------------------------------- torn writes

def _journal_with_torn_tail(state_path: Path, lineage: str) -> Path:
    journal = Path(str(state_path) + ".journal")
    good = {"r": ["managed", "terraform_data", "a"], "k": None, "d": None, "p": str(PROVIDER),
            "o": {"schema_version": 0,
                  "attributes": {"id": "id-a", "input": {"value": "a", "type": "string"},
                                 "output": {"value": "a", "type": "string"}, "triggers_replace": None},
                  "sensitive_attributes": []}}
    torn = frame(orjson.dumps({**good, "r": ["managed", "terraform_data", "b"]}))[:40]
    journal.write_bytes(header(lineage) + frame(orjson.dumps(good)) + torn)
    return journal


def test_torn_last_journal_line_is_ignored(state_path: Path) -> None:
    before = stale_snapshot(state_path, old=obj("old"))
    _journal_with_torn_tail(state_path, before.lineage)
    state = store_at(state_path).load()
    assert ids_in(state) == {"terraform_data.old": "id-old", "terraform_data.a": "id-a"}, \
        "a torn final line should be dropped and everything before it kept"


def test_torn_journal_is_removed_after_load(state_path: Path) -> None:
    before = stale_snapshot(state_path, old=obj("old"))
    journal = _journal_with_torn_tail(state_path, before.lineage)
    store = store_at(state_path)
    store.lock()
    try:
        store.load()
    finally:
        store.unlock()
    assert not journal.exists(), "the torn journal should be compacted away"
    assert sorted(r["name"] for r in snapshot(state_path)["resources"]) == ["a", "old"]


def test_unlocked_load_reads_the_journal_but_leaves_it(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    crash_after(state_path, "a")
    state = store_at(state_path).load()
    assert set(ids_in(state)) == {"terraform_data.a", "terraform_data.old"}
    assert Path(str(state_path) + ".journal").exists(), "an unlocked reader must not remove the journal"


def test_journal_of_other_lineage_is_refused(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    _journal_with_torn_tail(state_path, "00000000-0000-0000-0000-000000000000")
    with pytest.raises(StrataError, match="lineage"):
        store_at(state_path).load()


# ----------------------------------------------------------------------------- compaction

def test_compaction_writes_v4_snapshot_and_removes_journal(state_path: Path) -> None:
    before = stale_snapshot(state_path, old=obj("old"))
    store = store_at(state_path)

    async def main() -> None:
        state = store.load()
        async with store.writer(state) as w:
            w.put(addr("a"), PROVIDER, obj("a", dependencies=(parse_dependency("terraform_data.old"),)))
            w.put(addr("n", 0), PROVIDER, obj("n0", create_before_destroy=True))
            w.put(addr("old"), PROVIDER, None)

    run(main)
    assert not Path(store.journal_path).exists(), "the journal should be gone after compaction"
    doc = snapshot(state_path)
    assert doc["version"] == 4 and doc["lineage"] == before.lineage and doc["serial"] == before.serial + 1, doc
    by_name = {r["name"]: r for r in doc["resources"]}
    assert sorted(by_name) == ["a", "n"], f"snapshot resources: {sorted(by_name)}"
    a = by_name["a"]["instances"][0]
    assert a["attributes"]["input"] == {"value": "a", "type": "string"}, a
    assert a["dependencies"] == ["terraform_data.old"], a
    n0 = by_name["n"]["instances"][0]
    assert n0["index_key"] == 0 and n0["create_before_destroy"] is True, n0


def test_compaction_keeps_backup_of_previous_snapshot(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    store = store_at(state_path)

    async def main() -> None:
        state = store.load()
        async with store.writer(state) as w:
            w.put(addr("a"), PROVIDER, obj("a"))

    run(main)
    backup = Path(str(state_path) + ".backup")
    assert backup.exists(), "no terraform.tfstate.backup of the previous snapshot"
    assert [r["name"] for r in snapshot(backup)["resources"]] == ["old"]


def test_writer_without_changes_leaves_snapshot_alone(state_path: Path) -> None:
    stale_snapshot(state_path, old=obj("old"))
    data = state_path.read_bytes()
    store = store_at(state_path)

    async def main() -> None:
        state = store.load()
        async with store.writer(state):
            pass

    run(main)
    assert state_path.read_bytes() == data, "an apply that recorded nothing rewrote the snapshot"
    assert not Path(store.journal_path).exists()


# ----------------------------------------------------------------------------- concurrent readers

def test_reader_load_does_not_lose_a_running_writers_later_objects(state_path: Path) -> None:
    # A writer (an apply) records "a", then pauses; meanwhile a reader (e.g. `strata plan`, which
    # takes no lock) loads the state; then the writer records "b" and crashes. "b" was durable
    # (its on_durable fired, the user was told it exists), so the next load must have it.
    proc = subprocess.Popen([sys.executable, "-c", CRASHER, str(REPO), str(state_path), "a", "--pause", "b"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().strip() == "durable a"
        assert proc.stdout.readline().strip() == "paused"
        store_at(state_path).load()  # the concurrent reader
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "durable b"
        assert proc.wait(timeout=120) == 9, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    state = store_at(state_path).load()
    assert ids_in(state) == {"terraform_data.a": "id-a", "terraform_data.b": "id-b"}, (
        "an object the writer reported durable was lost after a concurrent reader's load() "
        f"and a crash: {ids_in(state)}")


# ----------------------------------------------------------------------------- locking

def test_lock_prevents_a_second_writer(state_path: Path) -> None:
    first = store_at(state_path)
    first.lock()
    try:
        with pytest.raises(StateLockError):
            store_at(state_path).lock()
    finally:
        first.unlock()


def test_unlock_lets_the_next_writer_in(state_path: Path) -> None:
    first = store_at(state_path)
    first.lock()
    first.unlock()
    second = store_at(state_path)
    second.lock()  # must not raise
    second.unlock()


def test_lock_error_names_the_state_file(state_path: Path) -> None:
    first = store_at(state_path)
    first.lock()
    try:
        with pytest.raises(StateLockError) as info:
            store_at(state_path).lock()
    finally:
        first.unlock()
    assert str(state_path) in str(info.value), str(info.value)


def test_lock_is_held_against_another_process(state_path: Path) -> None:
    first = store_at(state_path)
    first.lock()
    try:
        code = textwrap.dedent("""
            import sys
            sys.path.insert(0, sys.argv[1])
            from engine.state.store import StateLockError, StateStore
            try:
                StateStore(sys.argv[2], lambda t: {}).lock()
            except StateLockError:
                sys.exit(3)
            sys.exit(0)
        """)
        proc = subprocess.run([sys.executable, "-c", code, str(REPO), str(state_path)],
                              capture_output=True, text=True, timeout=60)
    finally:
        first.unlock()
    assert proc.returncode == 3, f"another process took the lock we hold (exit {proc.returncode}):\n{proc.stderr}"


def test_cli_apply_refuses_while_state_is_locked(workdir: Workdir) -> None:
    workdir.write('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    holder = store_at(workdir.path / "terraform.tfstate")
    holder.lock()
    try:
        res = workdir.strata("apply", "-auto-approve")
    finally:
        holder.unlock()
    assert res.returncode == 1, f"apply ran while the state was locked (exit {res.returncode}):\n{res.stdout}"
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    assert "lock" in res.stderr, f"the error should say the state is locked:\n{res.stderr}"
    assert not (workdir.path / "terraform.tfstate").exists(), "apply wrote state without holding the lock"



@pytest.mark.parametrize("failing", ["write", "sync"])
def test_a_journal_write_failure_stops_the_writer_instead_of_hanging(state_path: Path, failing: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import anyio

    from engine.state.fsync import DataSync
    from engine.state.store import StateWriteError, StateWriter

    def no_space(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    async def sync_fails(self: DataSync) -> None:
        no_space()

    if failing == "write":
        monkeypatch.setattr(StateWriter, "_write", no_space)
    else:
        monkeypatch.setattr(DataSync, "__call__", sync_fails)
    fired: list[str] = []

    async def main() -> None:
        store = store_at(state_path)
        async with store.writer(State()) as w:
            w.put(addr("a"), PROVIDER, obj("a"), on_durable=lambda: fired.append("a"))
            await anyio.sleep(5)  # the failure must cancel this, not wait it out

    found = _raised_by(main)
    assert isinstance(found, StateWriteError), repr(found)
    assert fired == [], "nothing may be reported durable when the journal could not be written"


@pytest.mark.parametrize("aio", [True, False], ids=["aio", "thread"])
@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_callbacks_come_back_to_the_event_loop_in_put_order_on_both_backends(
        state_path: Path, backend: str, aio: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    import anyio

    from engine.state import fsync as datasync

    if not aio:
        monkeypatch.setattr(datasync, "_libc", lambda: None)  # the fdatasync in a worker thread
    store = store_at(state_path)
    fired: list[tuple[str, bool]] = []

    async def main() -> None:
        loop_thread = threading.get_ident()
        async with store.writer(State()) as w:
            for i in range(200):
                w.put(addr(f"r{i}"), PROVIDER, obj(f"r{i}"),
                      on_durable=lambda i=i: fired.append((f"r{i}", threading.get_ident() == loop_thread)))
                if i % 7 == 0:
                    await anyio.sleep(0)  # several batches
            await w.drain()
            assert len(fired) == 200, "drain returned before every record was durable"

    anyio.run(main, backend=backend)
    assert [n for n, _ in fired] == [f"r{i}" for i in range(200)]
    assert all(on_loop for _, on_loop in fired), "an on_durable callback ran off the event loop's thread"


def test_a_failing_on_durable_callback_fails_the_apply_instead_of_the_event_loop(state_path: Path) -> None:
    import anyio

    def broken() -> None:
        raise RuntimeError("bug in a callback")

    async def main() -> None:
        async with store_at(state_path).writer(State()) as w:
            w.put(addr("a"), PROVIDER, obj("a"), on_durable=broken)
            await anyio.sleep(5)  # the failure must cancel this, not wait it out

    found = _raised_by(main)
    assert isinstance(found, RuntimeError) and "bug in a callback" in str(found), repr(found)


def _raised_by(main: Callable[[], Awaitable[Any]]) -> BaseException:
    """What ``main`` raised on trio, out of the exception groups its task groups wrapped it in."""
    with pytest.raises(BaseException) as exc:
        anyio.run(main, backend="trio")
    found = exc.value
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    return found


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_a_writer_cancelled_before_its_committer_ran_still_records_what_was_put(state_path: Path,
                                                                                  backend: str) -> None:
    import anyio

    store = store_at(state_path)
    fired: list[str] = []

    async def main() -> None:
        with anyio.move_on_after(0):
            async with store.writer(State()) as w:
                w.put(addr("a"), PROVIDER, obj("a"), on_durable=lambda: fired.append("a"))
                await anyio.sleep(1)

    # it used to wait, shielded, for the cancelled committer for ever: a thread the test can give up on
    import threading

    t = threading.Thread(target=anyio.run, args=(main,), kwargs={"backend": backend}, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "drain() waited for a committer that had been cancelled"
    assert fired == ["a"]
    assert store_at(state_path).load().object(addr("a")) is not None
