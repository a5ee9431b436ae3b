"""engine/state/lock.py: a lock says where it is in its lifecycle, and misuse is an exact error."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest

from engine.state.lock import (
    LockInfo,
    LockMisuseError,
    LockState,
    StateLock,
    StateLockError,
    force_unlock,
    lock_file_for,
)


def test_lifecycle_is_unlocked_held_released(tmp_path: Path) -> None:
    lock = StateLock(str(tmp_path / "terraform.tfstate"), "OperationTypePlan")
    assert lock.state is LockState.UNLOCKED and not lock.may_write
    with lock:
        assert lock.state is LockState.HELD and lock.may_write
        info = orjson.loads(Path(lock.lock_path).read_bytes())
        assert info["Operation"] == "OperationTypePlan" and info["ID"] == lock.info.id  # type: ignore[union-attr]
    assert lock.state is LockState.RELEASED and not lock.may_write
    assert not Path(lock.lock_path).exists()


def test_a_lock_file_left_with_content_holds_only_the_new_info(tmp_path: Path) -> None:
    """A holder killed before it removed its file leaves it behind, unlocked: the next one takes it
    over and writes its own info over the whole of it (a fresh file is not emptied first)."""
    state = tmp_path / "terraform.tfstate"
    Path(lock_file_for(str(state))).write_bytes(b'{"ID": "left behind"}' + b"x" * 4096)
    with StateLock(str(state), "OperationTypeApply") as lock:
        info = orjson.loads(Path(lock.lock_path).read_bytes())
        assert info["ID"] == lock.info.id and info["Operation"] == "OperationTypeApply"  # type: ignore[union-attr]


def test_lock_false_is_unguarded_and_touches_nothing(tmp_path: Path) -> None:
    lock = StateLock(str(tmp_path / "terraform.tfstate"), "OperationTypeApply", enabled=False)
    with lock:
        assert lock.state is LockState.UNGUARDED and lock.may_write
        assert not list(tmp_path.iterdir())
    assert lock.state is LockState.RELEASED


@pytest.mark.parametrize("misuse", ["acquire twice", "release unacquired", "release twice", "reuse"])
def test_misuse_is_an_exact_error(tmp_path: Path, misuse: str) -> None:
    lock = StateLock(str(tmp_path / "s.tfstate"), "OperationTypeApply")
    with pytest.raises(LockMisuseError) as info:
        if misuse == "acquire twice":
            lock.try_acquire()
            lock.try_acquire()
        elif misuse == "release unacquired":
            lock.release()
        elif misuse == "release twice":
            lock.try_acquire()
            lock.release()
            lock.release()
        else:
            with lock:
                pass
            lock.try_acquire()
    expected = {"acquire twice": ("acquire", "held"), "release unacquired": ("release", "unlocked"),
                "release twice": ("release", "released"), "reuse": ("acquire", "released")}[misuse]
    assert str(info.value).startswith(f"StateLock.{expected[0]}() called while the lock is {expected[1]}")
    if lock.state is LockState.HELD:
        lock.release()


def test_a_second_holder_is_told_who_holds_it(tmp_path: Path) -> None:
    path = str(tmp_path / "terraform.tfstate")
    with StateLock(path, "OperationTypeApply") as first:
        with pytest.raises(StateLockError) as info:
            StateLock(path, "OperationTypePlan").try_acquire()
    assert info.value.holder == first.info
    assert info.value.reason == "resource temporarily unavailable"


def test_timeout_waits_with_backoff_then_gives_up(tmp_path: Path) -> None:
    path = str(tmp_path / "terraform.tfstate")
    said: list[str] = []

    async def second() -> None:
        async with StateLock(path, "OperationTypePlan", timeout=0.5, on_wait=lambda: said.append("waiting")):
            pass

    with StateLock(path, "OperationTypeApply"), pytest.raises(StateLockError):
        anyio.run(second)
    assert said == ["waiting"]


def test_info_round_trips_with_nanoseconds() -> None:
    info = LockInfo("id", "terraform.tfstate", "OperationTypeApply", "me@host", "0.1.0", 1_764_145_926_249_133_795)
    doc = orjson.loads(info.to_json())
    assert doc["Created"] == "2025-11-26T08:32:06.249133795Z"
    assert LockInfo.from_json(info.to_json()) == info
    assert "  Created:   2025-11-26 08:32:06.249133795 +0000 UTC\n" in info.text()


def test_links_to_one_file_have_one_lock(tmp_path: Path) -> None:
    (tmp_path / "real.tfstate").write_bytes(b"")
    (tmp_path / "alias.tfstate").symlink_to("real.tfstate")
    assert lock_file_for(str(tmp_path / "alias.tfstate")) == str(tmp_path / ".real.tfstate.lock.info")


def test_force_unlock_then_the_old_holder_leaves_the_new_lock_alone(tmp_path: Path) -> None:
    path = str(tmp_path / "terraform.tfstate")
    old = StateLock(path, "OperationTypeApply")
    old.try_acquire()
    assert old.info is not None
    force_unlock(path, old.info.id)
    with StateLock(path, "OperationTypeApply") as new:
        old.release()  # the stuck holder finishes after all
        assert Path(new.lock_path).exists(), "the old holder removed the new holder's lock file"
        with pytest.raises(StateLockError):
            StateLock(path, "OperationTypePlan").try_acquire()
