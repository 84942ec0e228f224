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
import time
from pathlib import Path

import pytest

import nbayes
from nbayes.exceptions import ModelFileError
from nbayes.io import pending
from nbayes.io._records import parse
from nbayes.io.serializers.spam_register import register
from nbayes.io.serializers.spam_scorer import load_spam_scorer
from nbayes.spam import SpamFilter


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

    pwrite, calls = os.pwrite, []

    def full(fd: int, data: bytes, offset: int) -> int:  # (the disk fills up mid-record)
        calls.append(offset)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return pwrite(fd, bytes(data[:9]), offset)

    monkeypatch.setattr(os, "pwrite", full)
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
    # (the message fits in the log, which then outgrows this and is folded)
    monkeypatch.setattr("nbayes.io.serializers.spam_register.FOLD_BYTES", 150)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Subject: x\n\nwin cash")))
    assert main(["filter", str(path), "--register", "spam"]) == 0
    err = capsys.readouterr().err
    assert "now has 2 ham and 3 spam" in err
    assert "kept in" in err and "No space left" in err and "tries again" in err
    assert pending.pending_counts(path) == (0, 1)


_SLOW_FOLD = """
import sys, time
from pathlib import Path
import nbayes.io.pending as pending
removing = pending.discard
def discard(path):  # (a fold between its rename and the log's removal, for a moment)
    Path(sys.argv[2]).write_text("renamed")
    time.sleep(1.5)
    removing(path)
pending.discard = discard
from nbayes.cli import main
sys.exit(main(["filter", sys.argv[1], "--fold"]))
"""


def test_a_registration_waits_for_a_fold_to_remove_its_log(path: Path, tmp_path: Path) -> None:
    """The review's race: a fold renamed the new file over the model, and another
    registration locked that new file and started a log, which the fold then removed:
    an acknowledged registration lost. The writer's lock now follows the new file
    across the rename (nbayes.io.lock.follow_held)."""
    register(path, [b"Subject: a\n\ncheap cheap"], spam=True)  # (something to fold)
    marker = tmp_path / "renamed"
    folder = subprocess.Popen([sys.executable, "-c", _SLOW_FOLD, str(path), str(marker)])
    for _ in range(600):
        if marker.exists() or folder.poll() is not None:
            break
        time.sleep(0.05)
    assert marker.exists()
    proc = subprocess.run(
        [sys.executable, "-m", "nbayes", "filter", str(path), "--register", "spam"],
        input=b"Subject: late\n\nzzlatecomer offer", capture_output=True,
    )  # fmt: skip
    assert folder.wait(timeout=120) == 0 and proc.returncode == 0, proc.stderr
    f = nbayes.load(path)
    assert f.table_.n_spam == 4 and f.table_.counts("zzlatecomer") == (0, 1)


def test_a_model_copied_over_starts_without_the_log(path: Path, saved: Path) -> None:
    """``cp clean.nbayes MODEL`` (the same bytes as the log's base, a new modification
    time): the log is not counted (it came back before: a trial's counts were off by 40),
    and the next registration says it replaced it."""
    import io

    from nbayes.cli import main

    register(path, [b"Subject: a\n\ncheap cheap"], spam=True)
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10**9))
    assert pending.pending_counts(path) == (0, 0) and nbayes.load(path).table_.n_spam == 2
    sys.stdin = io.TextIOWrapper(io.BytesIO(b"Subject: b\n\nwin cash"))
    try:
        err = io.StringIO()
        stderr, sys.stderr = sys.stderr, err
        try:
            assert main(["filter", str(path), "--register", "spam"]) == 0
        finally:
            sys.stderr = stderr
    finally:
        sys.stdin = sys.__stdin__
    assert "held 1 registration(s) of another version" in err.getvalue()
    assert pending.pending_counts(path) == (0, 1) and nbayes.load(path).table_.n_spam == 3


@pytest.mark.parametrize("where", ["payload", "length"])
def test_damage_before_the_last_record_is_refused_not_cut(path: Path, where: str) -> None:
    from nbayes.io._records import parse

    for i in range(3):
        register(path, [b"Subject: %d\n\ncheap pills" % i], spam=True)
    log = Path(pending.pending_path(path))
    data = bytearray(log.read_bytes())
    if where == "payload":
        data[len(data) // 2] ^= 0xFF  # (a flipped bit in the middle record)
    else:  # the middle record's length, read as longer than what is left
        data[parse(bytes(data))[1][-3] + 2] ^= 0x40
    log.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"damaged at byte .* move it away"):
        nbayes.load(path)
    with pytest.raises(ModelFileError, match="damaged"):
        register(path, [b"Subject: x\n\nmore"], spam=True)
    assert log.read_bytes() == bytes(data)  # (nothing cut off)


def test_a_read_only_model_and_a_log_not_ours_take_registrations(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 0444 model's log was 0444: the second registration failed. A log this user may
    not write is written anew beside it (the folder's permission suffices, as for a save)."""
    path.chmod(0o444)
    for i in range(2):
        register(path, [b"Subject: %d\n\ncheap" % i], spam=True)
    assert Path(pending.pending_path(path)).stat().st_mode & 0o777 == 0o644
    opening = os.open

    def refused(name: str, flags: int, *args: object) -> int:  # (another user's log)
        if name.endswith(".pending") and flags & os.O_RDWR:
            raise PermissionError(13, "Permission denied", name)
        return opening(name, flags, *args)

    monkeypatch.setattr(os, "open", refused)
    register(path, [b"Subject: 3\n\nmore"], spam=False)
    monkeypatch.undo()
    assert pending.pending_counts(path) == (1, 2)


@pytest.mark.skipif(os.geteuid() != 0, reason="root gives files away")
def test_root_leaves_the_users_files_the_users(path: Path) -> None:
    """A registration run as root on a user's private model: the log (and a fold's new
    model) keep the model's owner and group, not root's (the user's deliveries then
    failed: 'Permission denied')."""
    os.chown(path, 65534, 65534)
    path.chmod(0o600)
    register(path, [b"Subject: a\n\ncheap"], spam=True)
    log = Path(pending.pending_path(path)).stat()
    assert (log.st_uid, log.st_gid, log.st_mode & 0o777) == (65534, 65534, 0o600)
    register(path, [b"Subject: b\n\ncheap"], spam=True, fold_at=1)  # (written into the file)
    model = path.stat()
    assert (model.st_uid, model.st_gid, model.st_mode & 0o777) == (65534, 65534, 0o600)


def test_messages_that_fill_a_log_are_written_into_the_file_at_once(path: Path) -> None:
    mbox = [
        b"Subject: %d\n\n" % i + b" ".join(b"w%d_%d" % (i, j) for j in range(50)) for i in range(9)
    ]
    done = register(path, mbox, spam=True, fold_at=2000)
    assert done is not None and done.folded and not Path(pending.pending_path(path)).exists()
    assert nbayes.load(path).table_.n_spam == 2 + 9


def test_ctrl_c_after_the_append_says_the_registration_holds(tmp_path: Path) -> None:
    import io

    from nbayes.cli._interrupt import Interrupts

    model, log = tmp_path / "m.nbayes", tmp_path / "m.nbayes.pending"
    model.write_bytes(b"model")
    interrupts = Interrupts(io.StringIO())
    with interrupts.writing(str(log)), interrupts.writing(str(model)):
        log.write_bytes(b"record")  # (appended; the fold then interrupted)
    line, status = interrupts.outcome()
    assert status == 0 and "registration was written" in line and "do not register" in line


def _a_model_of_150k_tokens(folder: Path, seed: int) -> tuple[Path, list[bytes]]:
    """A saved filter of 1,500 messages of 300 words each (a fold of it takes long enough
    to be caught), and its messages."""
    import random

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(150_000)]
    mails = [b"Subject: m\n\n" + " ".join(rng.sample(words, 300)).encode() for _ in range(1500)]
    model = folder / "m.nbayes"
    nbayes.save(SpamFilter().fit(mails, ["ham", "spam"] * 750), model)
    return model, mails


def _stopped_in_its_fold(
    command: list[str], folder: Path, stdin: bytes = b""
) -> tuple[int, bytes, bytes]:
    """``nbayes filter`` with ``command`` (on ``folder/m.nbayes``) stopped by SIGTERM once
    the temporary file of its fold exists: its exit status, standard output and error. A
    fold is short: while it is over before it is seen, the model and its log are put back
    as they were and it is tried again (the test is skipped after 5 tries)."""
    import glob
    import signal

    model = folder / "m.nbayes"
    files = (model, Path(pending.pending_path(model)))
    kept = folder / "kept"
    kept.mkdir()
    for f in files:  # (modification times kept: the log names the model's)
        shutil.copy2(f, kept / f.name)
    (folder / "stdin").write_bytes(stdin)
    for _ in range(5):
        with open(folder / "stdin", "rb") as given:
            proc = subprocess.Popen(
                [sys.executable, "-m", "nbayes", "filter", str(model), *command],
                stdin=given, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
        while proc.poll() is None and not glob.glob(str(folder / ".m.nbayes.*.tmp")):
            time.sleep(0.0005)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        if b"Stopped by SIGTERM" in err:
            return proc.returncode, out, err
        assert proc.returncode == 0, err  # folded before it was seen: put back, try again
        for f in files:
            shutil.copy2(kept / f.name, f)
    pytest.skip("every fold was over before its temporary file could be seen")


def test_sigterm_in_a_fold_leaves_the_model_and_the_log(tmp_path: Path) -> None:
    """procmail's timeout (SIGTERM) during ``nbayes filter MODEL --fold``: before, the
    process died at once and left its temporary file, as large as the model, beside it.
    Now it stops as after Ctrl-C: the model as it was, the registrations in the log."""
    model, _ = _a_model_of_150k_tokens(tmp_path, 0)
    register(model, [b"Subject: later\n\ncheap pills"], spam=True)
    before = model.read_bytes()
    status, _, err = _stopped_in_its_fold(["--fold"], tmp_path)
    assert (status, err) == (-15, b"Stopped by SIGTERM: no model file was changed.\n")
    assert model.read_bytes() == before and not list(tmp_path.glob("*.tmp"))
    assert nbayes.load(model).table_.n_spam == 751  # the registration counts


def test_sigterm_in_a_delivery_s_fold_keeps_its_verdict_and_message(tmp_path: Path) -> None:
    """``nbayes filter MODEL --update --passthrough`` (procmail's :0fw) whose registration
    fills the log, stopped by SIGTERM in the fold: it exited 0 ("spam") with nothing on
    standard output (a review's). The verdict and the message are written first now; the
    exit status is the verdict's, and the registration holds."""
    model, mails = _a_model_of_150k_tokens(tmp_path, 1)
    filler = [b"Subject: f%d\n\n" % i + b" ".join(m.split()[-200:]) for i, m in enumerate(mails)]
    register(model, filler[:300], spam=True, fold_at=1 << 30)  # a full log, not folded
    assert Path(pending.pending_path(model)).stat().st_size > pending.FOLD_BYTES
    message = mails[1]  # a spam the filter learnt: a sure verdict, learnt again
    status, out, err = _stopped_in_its_fold(["--update", "--passthrough"], tmp_path, message)
    assert status == 0  # the verdict's: spam
    assert out.startswith(b"X-Nbayes-Status: spam") or b"\nX-Nbayes-Status: spam" in out
    assert out.endswith(message.split(b"\n\n", 1)[1])
    assert b"after the verdict and the registration were written (exit status 0" in err
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
    assert nbayes.load(model).table_.n_spam == 750 + 300 + 1  # nothing lost, nothing twice


def test_a_delivery_stopped_before_its_verdict_or_its_learning_exits_3() -> None:
    import io

    from nbayes.cli._interrupt import Interrupts
    from nbayes.cli.filter import _Delivery

    interrupts, delivery = Interrupts(io.StringIO()), _Delivery()
    interrupts.override = delivery.outcome
    line, status = interrupts.outcome()
    assert status == 3 and "before the verdict was written" in line and "nothing was learnt" in line
    delivery.status = 1  # the verdict written (ham), the message not learnt yet
    line, status = interrupts.outcome()
    assert status == 3 and "before the message was learnt" in line
    delivery.learnt = True
    assert interrupts.outcome() == (
        "Interrupted after the verdict and the registration were written (exit status 1, the "
        "verdict's).",
        1,
    )
