"""``fit_stream(..., n_jobs=2)``: forked processes tokenize and count, each into a table of
its own, added up at the end: the counts (and the model file) of one process learning
them all, all or nothing, and no process left behind."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nbayes
from nbayes.mail import MailError, iter_classes
from nbayes.spam import SpamFilter

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this system"
)


def _mail(i: int, spam: bool) -> bytes:
    words = ["cheap", "pills", "winner", "cash"] if spam else ["meeting", "notes", "build"]
    body = " ".join(words[(i + k) % len(words)] + str(i % 7 + k) for k in range(30))
    subject = "win big" if spam else "project"
    return f"From: a{i}@example.com\nSubject: {subject} {i}\n\n{body}\n".encode()


@pytest.fixture(scope="module")
def mail_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mail")
    for label in ("ham", "spam"):
        (root / label).mkdir()
        for i in range(90):
            (root / label / f"{i:03}.eml").write_bytes(_mail(i, label == "spam"))
    return root


@pytest.mark.parametrize("chunk_size", [1, 7, 512])
def test_the_processes_count_what_one_process_counts(
    mail_folder: Path, tmp_path: Path, chunk_size: int
) -> None:
    one = SpamFilter().fit_stream(iter_classes(mail_folder), chunk_size=chunk_size)
    two = SpamFilter().fit_stream(iter_classes(mail_folder), chunk_size=chunk_size, n_jobs=2)
    three = SpamFilter().fit_stream(iter_classes(mail_folder), chunk_size=chunk_size, n_jobs=3)
    assert two.table_ == one.table_ == three.table_
    assert (two.table_.n_live, two.table_.sum_ham, two.table_.sum_spam) == (
        one.table_.n_live,
        one.table_.sum_ham,
        one.table_.sum_spam,
    )
    nbayes.save(one, tmp_path / "one.nbayes")
    nbayes.save(two, tmp_path / "two.nbayes")
    assert (tmp_path / "one.nbayes").read_bytes() == (tmp_path / "two.nbayes").read_bytes()
    probe = [_mail(500, True), _mail(501, False)]
    assert [v.log_odds for v in two.classify(probe)] == [v.log_odds for v in one.classify(probe)]
    assert multiprocessing.active_children() == []


def test_learning_more_in_processes_adds_to_what_was_learnt(mail_folder: Path) -> None:
    f = SpamFilter().fit([_mail(900, True), _mail(901, False)], ["spam", "ham"])
    f.partial_fit_stream(iter_classes(mail_folder), n_jobs=2)
    g = SpamFilter().fit([_mail(900, True), _mail(901, False)], ["spam", "ham"])
    g.partial_fit_stream(iter_classes(mail_folder))
    assert f.table_ == g.table_


class _Exits(os.PathLike):  # type: ignore[type-arg]
    """A message whose reading ends the process that reads it (a worker killed)."""

    def __fspath__(self) -> str:
        os._exit(3)


def _broken(pairs: list[tuple[Any, str]], at: int, bad: Any) -> Iterator[tuple[Any, str]]:
    for i, pair in enumerate(pairs):
        if i == at:
            if isinstance(bad, BaseException):
                raise bad
            yield bad, "ham"
        yield pair


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (42, TypeError, "got int"),  # tokenizing fails in a worker
        (MailError("cannot read 'box.mbox'"), MailError, "box.mbox"),  # reading fails here
        (_Exits(), ChildProcessError, "ended with exit code 3"),  # a worker dies
    ],
    ids=["worker-error", "reading-error", "worker-dies"],
)
def test_an_error_part_way_learns_nothing_and_leaves_no_process(
    mail_folder: Path, bad: Any, error: type[BaseException], match: str
) -> None:
    pairs = [(m.data, y) for m, y in iter_classes(mail_folder)]
    f = SpamFilter().fit([_mail(900, True), _mail(901, False)], ["spam", "ham"])
    before = f.table_.copy()
    with pytest.raises(error, match=match):
        f.partial_fit_stream(_broken(pairs, 120, bad), chunk_size=8, n_jobs=2)
    assert f.table_ == before
    with pytest.raises(error, match=match):
        f.fit_stream(_broken(pairs, 120, bad), chunk_size=8, n_jobs=2)
    assert f.table_ == before
    assert multiprocessing.active_children() == []


_BIG_CHUNKS = """
import sys
from nbayes.spam import SpamFilter
def mail(i):
    return (f"Subject: m {i}\\n\\n" + " ".join(f"w{i}x{k}" for k in range(1500))).encode()
def pairs():
    for i in range(400):
        if i == 300:
            raise OSError("cannot read message 300")
        yield mail(i), "spam" if i % 2 else "ham"
try:
    SpamFilter().fit_stream(pairs(), chunk_size=64, n_jobs=2)
except OSError as exc:
    print("raised:", exc, flush=True)
"""


def test_an_error_while_chunks_wait_in_the_pipe_lets_python_exit(tmp_path: Path) -> None:
    """Chunks of half a megabyte: when reading fails, the queue's feeder thread may be
    writing one into a full pipe whose readers were just terminated. Python used to wait
    for it at exit, for ever (a hang after the error line, that Ctrl-C did not end)."""
    import subprocess
    import sys

    for _ in range(3):  # a race: the hang came in 4 of 4 runs of the user's report
        proc = subprocess.run(
            [sys.executable, "-c", _BIG_CHUNKS], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "raised: cannot read message 300\n"


_ORPHAN = """
import os, signal, sys, time, multiprocessing
from nbayes.spam import SpamFilter
BIG = int(sys.argv[1])
def pairs():
    for i in range(10_000):
        if i == 512:
            pids = [p.pid for p in multiprocessing.active_children()]
            print(" ".join(map(str, pids)), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)  # the parent dies (a SIGTERM, kill -9)
        words = " ".join(f"w{i}x{k}" for k in range(1500 if BIG else 2))
        yield f"Subject: m {i}\\n\\n{words}".encode(), "spam" if i % 2 else "ham"
SpamFilter().fit_stream(pairs(), chunk_size=64 if BIG else 16, n_jobs=2)
"""


@pytest.mark.parametrize("big", ["0", "1"], ids=["small-chunks", "chunks-beyond-a-pipe"])
def test_the_workers_end_when_their_parent_is_killed(big: str) -> None:
    """Also when the parent dies part way through writing a chunk larger than a pipe holds
    (a worker reading it waited for the rest for ever: it holds no write end now)."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", _ORPHAN, big], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -9, proc.stderr
    pids = [int(p) for p in proc.stdout.split()]
    assert len(pids) == 2

    def alive(pid: int) -> bool:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        return stat[stat.rindex(")") + 2] != "Z"

    deadline = time.monotonic() + 30
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in pids), "a worker outlived its parent"


def test_one_worker_s_error_lets_python_exit(tmp_path: Path) -> None:
    """count_many with one worker whose first chunk fails: its error was taken as the
    worker being done, and Python waited at exit for the chunks left in the pipe."""
    import subprocess
    import sys

    script = (
        "from nbayes.mail import MailTokenizer\n"
        "from nbayes.spam._bulk import count_many\n"
        "big = [(' '.join(f'w{i}x{k}' for k in range(1500))).encode() for i in range(64)]\n"
        "chunks = [([42], [True])] + [(big, [True] * 64)] * 20\n"
        "try:\n"
        "    count_many(MailTokenizer(), chunks, 1)\n"
        "except TypeError as exc:\n"
        "    print('raised', flush=True)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stdout == "raised\n", proc.stderr


def test_no_more_workers_than_chunks() -> None:
    seen: list[int] = []

    def pairs() -> Iterator[tuple[bytes, str]]:
        for i in range(3 * 8):
            seen.append(len(multiprocessing.active_children()))
            yield _mail(i, i % 2 == 1), "spam" if i % 2 else "ham"

    f = SpamFilter().fit_stream(pairs(), chunk_size=8, n_jobs=50)
    assert (
        f.table_
        == SpamFilter()
        .fit_stream(
            ((_mail(i, i % 2 == 1), "spam" if i % 2 else "ham") for i in range(24)), chunk_size=8
        )
        .table_
    )
    assert max(seen) <= 3
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, True, "2"])
def test_n_jobs_must_be_a_positive_int_or_minus_one(n_jobs: Any) -> None:
    with pytest.raises(ValueError, match="n_jobs must be an int >= 1, or -1"):
        SpamFilter().fit_stream([(b"Subject: x\n\nhi", "ham")], n_jobs=n_jobs)
    f = SpamFilter().fit_stream([(b"Subject: x\n\nhi", "ham")] * 3, chunk_size=1, n_jobs=-1)
    assert f.table_.n_ham == 3


def test_classify_each_scores_in_order_with_notes_and_errors_in_place(
    mail_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbayes.spam import classify_each

    f = SpamFilter().fit_stream(iter_classes(mail_folder))
    mails = [_mail(i, i % 3 == 0) for i in range(300)]
    items: list[Any] = [("mail", m) for m in mails]
    items[10:10] = [("note", "a file that could not be read")]
    expected = f.classify(mails)

    def mail_of(item: Any) -> Any:
        return item[1] if item[0] == "mail" else None

    for n_jobs in (1, 2):
        got = list(classify_each(f, iter(items), mail_of, n_jobs=n_jobs, chunk_size=16))
        assert [item for item, _ in got] == items
        assert got[10][1] is None
        assert [v for item, v in got if item[0] == "mail"] == expected
    assert multiprocessing.active_children() == []
    classify = SpamFilter.classify

    def failing(self: SpamFilter, messages: Any) -> Any:
        if mails[7] in messages:
            raise ValueError("cannot score this one")
        return classify(self, messages)

    monkeypatch.setattr(SpamFilter, "classify", failing)
    for n_jobs in (1, 2):
        got = list(classify_each(f, items, mail_of, n_jobs=n_jobs, chunk_size=16))
        errors = [(i, v) for i, (_, v) in enumerate(got) if isinstance(v, Exception)]
        assert [(i, str(v)) for i, v in errors] == [(7, "cannot score this one")]
    with pytest.raises(ValueError, match="n_jobs must be an int >= 1, or -1"):
        next(classify_each(f, items, mail_of, n_jobs=0))


_UNPICKLABLE = """
import sys
from nbayes.spam import SpamFilter, classify_each, classify_many
f = SpamFilter().fit([b"lunch team notes", b"win free cash"], ["ham", "spam"])
with open(sys.argv[1], "rb") as fh:
    mails = [b"win free cash", b"team lunch", fh, b"lunch notes"] * 3
    try:
        list(classify_many(f, iter(mails), n_jobs=2, chunk_size=2))
    except TypeError as exc:
        print("many:", exc, flush=True)
    got = [v for _, v in classify_each(f, iter(mails), n_jobs=2, chunk_size=2)]
    print("each:", [type(v).__name__ for v in got], flush=True)
"""


def test_a_message_that_cannot_be_pickled_is_scored_here_not_waited_for(tmp_path: Path) -> None:
    """An open file among the messages of a stream cannot travel to the workers: it was
    dropped by the queue's thread (a traceback on stderr) and its verdict waited for ever
    (a review). Its chunk is scored in this process: the error of the message itself, as
    one process raises it, in its place."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", _UNPICKLABLE, __file__],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    many, each = proc.stdout.splitlines()
    assert many.startswith("many: a message is bytes, str,") and "BufferedReader" in many
    assert each == "each: " + str(["Verdict", "Verdict", "TypeError", "Verdict"] * 3)
    assert "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("entry", ["classify_many", "classify_each"])
def test_a_scoring_worker_that_dies_is_an_error_not_a_wait(tmp_path: Path, entry: str) -> None:
    """A worker of the bulk scoring killed (out of memory, by hand) is a ChildProcessError
    naming the signal; multiprocessing.Pool, which scored before, started another worker
    and waited for the lost chunk's result for ever."""
    import subprocess
    import sys

    script = (
        "import os, signal\n"
        "from nbayes.spam import SpamFilter, _bulk\n"
        "f = SpamFilter().fit([b'lunch team notes', b'win free cash'], ['ham', 'spam'])\n"
        "def dies(chunk):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "_bulk._score = _bulk._score_each = dies\n"
        "mails = iter([b'Subject: hi\\n\\nlunch'] * 50)\n"
        f"run = _bulk.{entry}(f, mails, n_jobs=2, chunk_size=5)\n"
        "try:\n"
        "    list(run)\n"
        "except ChildProcessError as exc:\n"
        "    print(exc, flush=True)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "was killed by signal 9 (SIGKILL" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("entry", ["classify_many", "classify_each"])
def test_bulk_scoring_closed_early_leaves_no_process_nor_thread(
    mail_folder: Path, entry: str
) -> None:
    """A stream of verdicts closed after its first (`nbayes filter MODEL big.mbox | head`)
    ends its workers at once, with chunks of big messages still in the pipe to them, and
    leaves no thread writing to that pipe."""
    import threading

    from nbayes.spam import classify_each, classify_many

    f = SpamFilter().fit_stream(iter_classes(mail_folder))
    big = b"Subject: x\n\n" + b" ".join(b"w%d" % i for i in range(20_000))
    threads = threading.active_count()
    for chunk_size in (1, 8):
        run: Iterator[Any] = (
            classify_many(f, iter([big] * 400), n_jobs=2, chunk_size=chunk_size)
            if entry == "classify_many"
            else classify_each(f, [big] * 400, n_jobs=2, chunk_size=chunk_size)
        )
        next(run)
        started = time.monotonic()
        run.close()  # type: ignore[attr-defined]
        assert time.monotonic() - started < 5
        assert multiprocessing.active_children() == []
        assert threading.active_count() == threads


def test_a_chunk_that_cannot_be_pickled_is_counted_here_not_lost(tmp_path: Path) -> None:
    """A chunk of count_many that cannot be pickled was dropped by the queue's thread (a
    traceback on stderr) and the filter learnt without it (a review): it is counted in
    this process, its error the one a single process raises."""
    import email

    from nbayes.mail import MailTokenizer
    from nbayes.spam._bulk import count_many

    with open(__file__, "rb") as fh:
        chunks = [([b"lunch today"], [False]), ([b"cash", fh], [True, True])]
        with pytest.raises(TypeError, match="a message is bytes, str, .* got BufferedReader"):
            count_many(MailTokenizer(), chunks, 2)
        carrying = email.message_from_bytes(b"Subject: x\n\ncash now")
        carrying.file = fh  # type: ignore[attr-defined]  # (a message that cannot travel)
        table = count_many(
            MailTokenizer(), [([b"lunch"], [False]), ([carrying, b"win"], [True, True])], 2
        )
    assert (table.n_ham, table.n_spam, table.counts("cash")) == (1, 2, (0, 1))


def _frozen(_: Any) -> int:
    import gc

    return gc.get_freeze_count()


def test_the_workers_leave_what_they_inherit_out_of_their_garbage_collections() -> None:
    """A worker's collection of the oldest generation visited every object the parent
    holds (the filter's tokens among them), copying their pages into the worker."""
    import gc

    from nbayes.spam import _bulk

    inherited = [[i] for i in range(1000)]  # (containers the collector tracks)
    before = gc.get_freeze_count()  # (0, but 375 at any start of Python 3.12.1)
    frozen = list(_bulk._in_order(2, lambda: None, (), _frozen, [0, 1, 2]))
    assert min(frozen) >= before + len(inherited)
    assert gc.get_freeze_count() == before  # (the parent's own collections are untouched)
