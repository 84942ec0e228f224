"""Registrations appended to a model file's log of pending messages (``MODEL.pending``,
:mod:`nbayes.io.pending`): a registration appends, a full log is folded, and a crash, a
stale or a damaged log never loses or doubles a registration. (That every reader counts
them as the filter that learnt them would, bit for bit, and that a fold writes the file
that filter saves: tests/spam/test_change_counts.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nbayes
from nbayes.exceptions import ModelFileError
from nbayes.io import pending
from nbayes.io._records import parse
from nbayes.io.serializers.spam_register import register
from nbayes.io.serializers.spam_scorer import load_spam_scorer


@pytest.fixture
def path(tmp_path: Path, saved: Path) -> Path:
    """A copy of the saved model, to change."""
    out = tmp_path / "spam.nbayes"
    shutil.copy(saved, out)
    return out


def test_a_registration_appends_and_a_full_log_is_folded(path: Path) -> None:
    before = path.read_bytes()
    log = Path(pending.pending_path(path))
    done = register(path, [b"Subject: free\n\nfree money fast"], spam=True)
    assert done is not None
    assert path.read_bytes() == before and log.exists()  # the model file is not rewritten
    assert (done.n_ham, done.n_spam, done.folded) == (2, 3, False)
    assert pending.pending_counts(path) == (0, 1)
    done = register(path, [b"Subject: hi\n\nlunch at noon"], spam=False, fold_at=log.stat().st_size)
    assert done is not None and done.folded and not log.exists()
    assert path.read_bytes() != before and pending.pending_counts(path) == (0, 0)
    assert (nbayes.load(path).table_.n_ham, nbayes.load(path).table_.n_spam) == (3, 3)


def test_a_record_cut_short_by_a_crash_is_never_counted_and_cut_off(path: Path) -> None:
    register(path, [b"Subject: a\n\ncheap cheap"], spam=True)
    log = Path(pending.pending_path(path))
    whole = log.read_bytes()
    long = b"Subject: b\n\n" + b" ".join(b"word%d" % i for i in range(300))
    register(path, [long], spam=False)
    two = log.read_bytes()
    log.write_bytes(two[: len(two) - 7])  # (killed while appending the second: never acked)
    assert pending.pending_counts(path) == (0, 1)
    assert nbayes.load(path).table_.n_ham == 2
    register(path, [b"Subject: c\n\nnotes attached"], spam=False)
    assert pending.pending_counts(path) == (1, 1)  # the cut record is gone, the new one kept
    now = log.read_bytes()
    assert now.startswith(whole) and parse(now)[1][-1] == len(now)  # (nothing left behind)


def test_a_log_of_another_file_is_ignored_and_a_save_removes_it(
    tmp_path: Path, saved: Path, path: Path
) -> None:
    register(path, [b"Subject: a\n\ncheap cheap"], spam=True)
    log = Path(pending.pending_path(path))
    stale = log.read_bytes()
    f = nbayes.load(path)  # (the registration learnt)
    nbayes.save(f, path)  # a save writes the pending messages with the rest ...
    assert not log.exists()  # ... and removes the log
    log.write_bytes(stale)  # a fold killed between its rename and the log's removal
    assert pending.pending_counts(path) == (0, 0)
    assert nbayes.load(path).table_.n_spam == 3  # counted once, not twice
    scorer = load_spam_scorer(path)
    assert scorer is not None and scorer.n_spam == 3
    done = register(path, [b"Subject: b\n\nwin cash"], spam=True)  # a new log replaces it
    assert done is not None and (done.n_spam, pending.pending_counts(path)) == (4, (0, 1))
    # a file that is not a log beside the model: neither read nor removed
    other = tmp_path / "other.nbayes"
    shutil.copy(saved, other)
    Path(pending.pending_path(other)).write_bytes(b"my notes")
    nbayes.save(f, other)
    assert Path(pending.pending_path(other)).read_bytes() == b"my notes"


def test_a_damaged_log_is_refused_naming_it(path: Path) -> None:
    from nbayes.io._records import frame

    register(path, [b"Subject: a\n\ncheap cheap"], spam=True)
    log = Path(pending.pending_path(path))
    log.write_bytes(log.read_bytes() + frame({"op": "learn", "spam": "yes", "sets": [[1]]}))
    with pytest.raises(ModelFileError, match=r"spam\.nbayes\.pending.*not a registration.*move"):
        nbayes.load(path)
    with pytest.raises(ModelFileError, match="not a registration"):
        load_spam_scorer(path)


def test_the_cli_registers_without_rewriting_the_model_and_folds_on_demand(path: Path) -> None:
    """``nbayes filter --register`` appends (no numpy imported), ``--fold`` writes the log
    into the file, ``nbayes info`` says what is pending, ``--unregister`` of a message
    still in the log works."""
    before = path.read_bytes()
    spam = b"From: x@example.com\nSubject: cash now\n\nfree cash now"
    code = (
        "import sys; from nbayes.cli import main; rc = main(sys.argv[1:]); "
        "sys.stderr.write('numpy' in sys.modules and 'NUMPY' or ''); sys.exit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "filter", str(path), "--register", "spam"],
        input=spam, capture_output=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert b"now has 2 ham and 3 spam" in proc.stderr and b"NUMPY" not in proc.stderr
    assert path.read_bytes() == before
    info = subprocess.run(
        [sys.executable, "-m", "nbayes", "info", str(path)], capture_output=True, text=True
    )
    assert "messages learnt: 2 ham, 3 spam" in info.stdout
    assert "pending: 1 of them (0 ham, 1 spam)" in info.stdout and "--fold" in info.stdout
    run = [sys.executable, "-m", "nbayes", "filter", str(path)]
    proc = subprocess.run([*run, "--unregister", "spam"], input=spam, capture_output=True)
    assert proc.returncode == 0 and b"now has 2 ham and 2 spam" in proc.stderr
    assert path.read_bytes() == before  # (unlearnt: the file the filter saves, byte for byte)
    subprocess.run([*run, "--register", "ham"], input=spam, check=True, capture_output=True)
    proc = subprocess.run([*run, "--fold"], capture_output=True, text=True)
    assert proc.returncode == 0 and "Wrote 1 pending message(s) (1 ham, 0 spam)" in proc.stderr
    assert not os.path.exists(pending.pending_path(path))
    proc = subprocess.run([*run, "--fold"], capture_output=True, text=True)
    assert proc.returncode == 0 and "No message is pending" in proc.stderr
    proc = subprocess.run([*run, "--fold", "--register", "spam"], capture_output=True, text=True)
    assert proc.returncode == 3 and "--fold" in proc.stderr and "alone" in proc.stderr


def test_the_log_of_a_private_model_is_private(path: Path) -> None:
    for mode in (0o640, 0o600):
        path.chmod(mode)
        register(path, [b"Subject: a\n\nmy own mail"], spam=False, fold_at=1)  # (folded)
        register(path, [b"Subject: a\n\nmy own mail"], spam=False)  # (a new log)
        assert Path(pending.pending_path(path)).stat().st_mode & 0o777 == mode


def test_a_write_that_fails_learns_nothing_and_says_which_file(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register(path, [b"Subject: a\n\ncheap cheap"], spam=True)
    log = Path(pending.pending_path(path))
    before = log.read_bytes()

    pwrite = os.pwrite  # (the disk fills up in the middle of the record)
    monkeypatch.setattr(os, "pwrite", lambda fd, data, offset: pwrite(fd, data[:9], offset))
    with pytest.raises(OSError, match=r"spam\.nbayes\.pending.*nothing was learnt") as info:
        register(path, [b"Subject: b\n\nwin now"], spam=True)
    assert info.value.errno is not None
    monkeypatch.undo()
    assert log.read_bytes() == before  # (the half record cut off at once)
    assert pending.pending_counts(path) == (0, 1)


def test_a_fold_that_fails_keeps_the_registration_and_says_so(
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    from nbayes.cli import main
    from nbayes.io.serializers import spam as serializer

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(serializer, "change_counts", full)
    monkeypatch.setattr("nbayes.io.serializers.spam_register.FOLD_BYTES", 1)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Subject: x\n\nwin cash")))
    assert main(["filter", str(path), "--register", "spam"]) == 0
    err = capsys.readouterr().err
    assert "now has 2 ham and 3 spam" in err
    assert "kept in" in err and "No space left" in err and "tries again" in err
    assert pending.pending_counts(path) == (0, 1)
