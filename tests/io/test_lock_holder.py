"""Who holds a model's lock (``nbayes.io.lock.holder_pid``): ``/proc/locks`` names a file
by device and inode, and an inode number is reused once a file is deleted. A process still
holding the lock of a deleted model must not be named as the holder of a new file that got
its number (an ``nbayes update`` was told a model was "served by nbayes serve" when a
server of a deleted folder still ran)."""

from __future__ import annotations

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
