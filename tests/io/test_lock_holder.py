"""Who holds a model's lock (``nbayes.io.lock.holder_pid``): ``/proc/locks`` names a file
by device and inode, and an inode number is reused once a file is deleted. A process still
holding the lock of a deleted model must not be named as the holder of a new file that got
its number (an ``nbayes update`` was told a model was "served by nbayes serve" when a
server of a deleted folder still ran)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nbayes.io import lock as L

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="Linux /proc")


def test_the_holder_is_the_process_that_locked_the_file(tmp_path: Path) -> None:
    model = tmp_path / "m.nbayes"
    model.write_bytes(b"model")
    assert L.holder_pid(str(model)) is None
    with L.ModelLock(str(model), "a test"):
        assert L.holder_pid(str(model)) == os.getpid()
    assert L.holder_pid(str(model)) is None


def test_a_process_that_has_not_this_file_open_is_not_its_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two lines of /proc/locks with the file's key: the first is another process (as a
    server holding a deleted file of the same inode number is); it is passed over."""
    model = tmp_path / "m.nbayes"
    model.write_bytes(b"model")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        st = os.stat(model)
        key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
        table = (
            f"1: FLOCK  ADVISORY  WRITE {other.pid} {key} 0 EOF\n"
            f"2: FLOCK  ADVISORY  WRITE {os.getpid()} {key} 0 EOF\n"
        )
        real_open = open

        def fake_open(name: Any, *args: Any, **kwargs: Any) -> Any:
            return io.StringIO(table) if name == "/proc/locks" else real_open(name, *args, **kwargs)

        monkeypatch.setattr(L, "open", fake_open, raising=False)
        with real_open(model, "rb"):  # this process has the file open
            assert L.holder_pid(str(model)) == os.getpid()
        # nobody has it open: no holder is named
        assert L.holder_pid(str(model)) is None
    finally:
        other.kill()
        other.wait()


def test_a_deleted_file_held_open_is_not_the_file(tmp_path: Path) -> None:
    gone = tmp_path / "gone.nbayes"
    gone.write_bytes(b"old")
    with open(gone, "rb") as f:
        st = os.fstat(f.fileno())
        assert L._has_open(os.getpid(), st.st_dev, st.st_ino) is True
        gone.unlink()
        assert L._has_open(os.getpid(), st.st_dev, st.st_ino) is False


def test_a_waiter_waits_through_a_queue_and_gives_up_on_a_holder_that_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eighty deliveries at once, each holding the lock ~0.5 s: 69 gave up after 60 s and
    were deferred, though the lock changed hands all along. The timeout is for one
    holder: while the holder changes, the waiter waits on."""
    import fcntl
    import threading
    import time

    model = tmp_path / "m.nbayes"
    model.write_bytes(b"model")
    fd = os.open(model, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # (another open file: it conflicts in this process too)
    start = time.monotonic()
    # a new holder every 0.2 s, as a queue of deliveries gives: never one for 0.5 s
    monkeypatch.setattr(
        L, "holder_pid", lambda path: 10_000 + int((time.monotonic() - start) / 0.2)
    )
    timer = threading.Timer(1.5, os.close, (fd,))
    timer.start()
    try:
        lock = L.ModelLock(str(model)).acquire(timeout=0.5)
        assert time.monotonic() - start >= 1.4
        lock.release()
        fd = os.open(model, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        monkeypatch.setattr(L, "holder_pid", lambda path: 4242)  # one holder, for good
        start = time.monotonic()
        with pytest.raises(L.LockedError, match=r"\(process 4242\), which has held it for 0.5 s"):
            L.ModelLock(str(model)).acquire(timeout=0.5)
        assert 0.5 <= time.monotonic() - start < 1.5
    finally:
        timer.cancel()
        with contextlib.suppress(OSError):
            os.close(fd)


def test_a_waiter_looks_for_the_holder_once_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A waiter tries the lock every 10-100 ms, but reads ``/proc/locks`` (and the holder's
    open files) once a second: before, it did at each try, and 80 deliveries at once spent
    40 % of their CPU time waiting (benchmarks/bench_deliveries.py)."""
    import fcntl
    import threading
    import time

    model = tmp_path / "m.nbayes"
    model.write_bytes(b"model")
    fd = os.open(model, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    looks: list[float] = []
    monkeypatch.setattr(L, "holder_pid", lambda path: looks.append(time.monotonic()) or 4242)
    asked: list[int | None] = []
    timer = threading.Timer(1.5, os.close, (fd,))
    timer.start()
    try:
        start = time.monotonic()
        lock = L.ModelLock(str(model)).acquire(timeout=60, refuse=lambda pid: asked.append(pid))
        assert time.monotonic() - start >= 1.4
        lock.release()
    finally:
        timer.cancel()
        with contextlib.suppress(OSError):
            os.close(fd)
    assert 2 <= len(looks) <= 3, looks  # at once, after 1 s (and after 2 s on a slow machine)
    assert looks[0] - start < 0.1 and asked == [4242] * len(looks)


def test_a_waiter_looks_again_before_it_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-over between two looks: the waiter gave up at its timeout, naming the old
    holder, which had let go (a review's); it looks once more first. On a clock of its
    own: the tries every 10-100 ms, the looks every quarter of the timeout."""
    import fcntl

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            return self.now

        def sleep(self, seconds: float) -> None:
            self.now += seconds

    clock = Clock()
    monkeypatch.setattr(L, "time", clock)
    monkeypatch.setattr(L.random, "random", lambda: 0.5)
    # the old holder until 0.75 s (the looks: 0, 0.21, 0.41, 0.71 s), then a new one
    looks: list[float] = []

    def holder(path: str) -> int:
        looks.append(clock.now)
        return 100 if clock.now < 0.75 else 200

    monkeypatch.setattr(L, "holder_pid", holder)
    model = tmp_path / "m.nbayes"
    model.write_bytes(b"model")
    fd = os.open(model, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(L.LockedError, match=r"\(process 200\), which has held it for 0.8 s"):
            L.ModelLock(str(model)).acquire(timeout=0.8)
    finally:
        os.close(fd)
    assert clock.now >= 0.75 + 0.8, looks  # the new holder's 0.8 s


def test_a_lock_left_on_a_replaced_file_takes_the_file_at_the_path(tmp_path: Path) -> None:
    # a server's worker that died between its fold's rename and the handover of the new
    # file's lock left the supervisor the old file's: the supervisor locks the path's file
    import fcntl

    model = tmp_path / "m.nbayes"
    model.write_bytes(b"old")
    lock = L.ModelLock(str(model), "nbayes serve").acquire()
    try:
        assert lock.hold_the_file_at_the_path()  # (the path's file: nothing to do)
        new = tmp_path / "m.nbayes.folding"
        new.write_bytes(b"new")
        os.replace(new, model)
        assert lock.hold_the_file_at_the_path()
        other = os.open(model, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):  # held: by the lock, on the new file
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
        # a file whose lock something else holds (a live worker's fold): left to it
        newer = tmp_path / "m.nbayes.folding"
        newer.write_bytes(b"newer")
        held = os.open(newer, os.O_RDONLY)
        fcntl.flock(held, fcntl.LOCK_EX)
        os.replace(newer, model)
        assert not lock.hold_the_file_at_the_path()
        os.close(held)
    finally:
        lock.release()
