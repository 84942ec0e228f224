"""A model file replaced while served (``mv`` of a retrained model over it): the server
neither writes its old model back over the new file nor loses an acknowledged update.
With no update journaled since the last fold it serves the new file; with some, it
refuses writes and folds, says why, and keeps them in the journal."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import nbayes
from nbayes.serve import journal as J
from nbayes.serve.inputs import ApiError
from nbayes.serve.state import ModelState

from .conftest import wait_until


def _retrained(text_model: str, tmp_path: Any) -> str:
    """Another model of the same kind, with other counts, saved beside (then ``mv``-ed)."""
    model = nbayes.load(text_model)
    model.partial_fit(["a brand new word zyzzyva"] * 7, ["ham"] * 7)
    other = str(tmp_path / "retrained.nbayes")
    nbayes.save(model, other)
    return other


def _counts(state: ModelState) -> list[float]:
    return [c["count"] for c in state.class_counts()]


def test_with_nothing_journaled_the_new_file_is_served(text_model: str, tmp_path: Any) -> None:
    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    before = _counts(state)
    other = _retrained(text_model, tmp_path)
    new = nbayes.load(other).class_count_.tolist()
    os.replace(other, text_model)
    state.check_file()  # (the server's housekeeping, every second)
    assert _counts(state) == new != before and state.fold_error is None
    n, _ = state.write("update", {"texts": ["one more"], "labels": ["spam"]})
    assert n == 1
    assert state.fold()
    assert nbayes.load(text_model).class_count_.tolist() == [new[0], new[1] + 1]
    state.close()
    assert J.recover(text_model)[1] == 0


def test_with_updates_journaled_writes_and_folds_are_refused(
    text_model: str, tmp_path: Any
) -> None:
    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    state.write("update", {"texts": ["acknowledged"], "labels": ["ham"]})
    other = _retrained(text_model, tmp_path)
    replacement = Path(other).read_bytes()
    os.replace(other, text_model)
    with pytest.raises(ApiError, match=r"replaced by another file .* not applied") as info:
        state.write("update", {"texts": ["refused"], "labels": ["ham"]})
    assert info.value.status == 503
    assert not state.fold()  # (it wrote the old model and its update over the new file)
    assert "replaced by another file" in (state.fold_error or "")
    state.check_file()
    assert "Put the served file back" in (state.fold_error or "")
    state.close()  # (a fold at shutdown: refused too)
    assert Path(text_model).read_bytes() == replacement
    records, applies = J.journaled_updates(text_model)  # the acknowledged update is kept
    assert [r["texts"] for r in records] == [["acknowledged"]] and not applies
    with pytest.raises(J.JournalError):  # and the next start refuses, as documented
        J.recover(text_model)


def test_the_served_file_put_back_lets_the_updates_fold(text_model: str, tmp_path: Any) -> None:
    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    state.write("update", {"texts": ["kept"], "labels": ["ham"]})
    aside = str(tmp_path / "served.nbayes")
    os.link(text_model, aside)  # (the operator's copy of the served file: the same inode)
    os.replace(_retrained(text_model, tmp_path), text_model)
    assert not state.fold()
    os.replace(aside, text_model)
    assert state.fold() and state.fold_error is None
    state.close()
    assert J.recover(text_model)[1] == 0


def test_a_removed_model_file_is_not_written_again(text_model: str) -> None:
    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    state.write("update", {"texts": ["kept"], "labels": ["ham"]})
    os.remove(text_model)
    assert not state.fold() and "was removed" in (state.fold_error or "")
    state.close()
    assert not os.path.exists(text_model)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_server_does_not_revert_a_model_moved_over_it(
    text_model: str, tmp_path: Any, start: Any, workers: str
) -> None:
    """The trial's reproducer: mv of a retrained model, an update, a timed fold."""
    server = start(text_model, "--fold-seconds", "1", "--workers", workers)

    def served() -> list[float]:
        server.disconnect()  # (a new connection: either worker may answer)
        return [c["count"] for c in server.get("/info")[1]["classes"]]

    assert server.post("/update", {"texts": ["before"], "labels": ["ham"]})[0] == 200
    wait_until(lambda: server.get("/health")[1]["journal_pending"] == 0)
    other = _retrained(text_model, tmp_path)
    want = nbayes.load(other).class_count_.tolist()
    os.replace(other, text_model)
    wait_until(lambda: all(served() == want for _ in range(6)))
    assert server.post("/update", {"texts": ["after"], "labels": ["spam"]})[0] == 200
    wait_until(lambda: server.get("/health")[1]["journal_pending"] == 0)
    assert nbayes.load(text_model).class_count_.tolist() == [want[0], want[1] + 1]
    assert all(served() == [want[0], want[1] + 1] for _ in range(6))
    # a second server on the same path is refused: the lock followed the new file
    second = start(text_model, wait=False)
    assert second.wait_exit() != 0 and "is served by nbayes serve" in second.stderr
    # with an update journaled, a replacement is refused, said in /health, kept on disk
    assert server.post("/update", {"texts": ["pending"], "labels": ["ham"]})[0] == 200
    third = str(tmp_path / "third.nbayes")
    shutil.copy(text_model, third)
    os.replace(third, text_model)
    replacement = Path(text_model).read_bytes()
    wait_until(lambda: "replaced" in server.get("/health")[1].get("fold_error", ""))
    status, body = server.post("/update", {"texts": ["refused"], "labels": ["ham"]})
    assert status == 503 and "Put the served file back" in body["error"]
    time.sleep(1.5)  # (timed folds: refused)
    assert Path(text_model).read_bytes() == replacement
    server.terminate()
    assert "replaced by another file" in server.stderr


def _copied_over(other: str, text_model: str) -> None:
    """``cp other MODEL``: the same inode, rewritten in place (a later time and size)."""
    ino = os.stat(text_model).st_ino
    time.sleep(0.01)  # (a later modification time, whatever the file system's resolution)
    shutil.copyfile(other, text_model)
    assert os.stat(text_model).st_ino == ino


def test_a_model_copied_over_the_served_file_is_seen_as_a_replacement(
    text_model: str, tmp_path: Any
) -> None:
    """`cp retrained.nbayes MODEL` rewrites the served file in place: it went unseen, and
    the next fold wrote the old model (and its updates) over the new one (a fuzz). Now it
    is what `mv` is: served when nothing is journaled, else writes and folds refused."""
    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    other = _retrained(text_model, tmp_path)
    new = nbayes.load(other).class_count_.tolist()
    _copied_over(other, text_model)
    state.check_file()
    assert _counts(state) == new and state.fold_error is None
    state.close()
    assert nbayes.load(text_model).class_count_.tolist() == new

    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    state.write("update", {"texts": ["acknowledged"], "labels": ["ham"]})
    replacement = Path(_retrained(text_model, tmp_path)).read_bytes()
    time.sleep(0.01)
    Path(text_model).write_bytes(replacement)  # (in place, as cp writes)
    assert not state.fold()
    assert "replaced by another file" in (state.fold_error or "")
    state.close()
    assert Path(text_model).read_bytes() == replacement  # never written over


def test_a_touched_model_file_is_not_a_replacement(text_model: str) -> None:
    """A new modification time with the same bytes (``touch``) changes nothing."""
    state = ModelState(text_model, J.recover(text_model)[0], fold_every=1000)
    state.write("update", {"texts": ["acknowledged"], "labels": ["ham"]})
    os.utime(text_model, ns=(time.time_ns(), time.time_ns() + 10**9))
    state.check_file()
    assert state.fold_error is None and state.fold()
    state.close()
