"""A registration on a model file's columns (``change_counts``, what ``nbayes filter
--unregister`` and a fold of ``MODEL.pending`` do) writes the file that loading the
filter, learning (or unlearning) and saving it writes, byte for byte; where the filter
would refuse an unlearning, it leaves the file alone and answers None. Registrations
appended to ``MODEL.pending`` (``register``) are counted by every reader as by that
filter, bit for bit."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.io import pending
from nbayes.io.serializers.spam import change_counts
from nbayes.io.serializers.spam_register import register
from nbayes.io.serializers.spam_scorer import load_spam_scorer
from nbayes.spam import SpamFilter

_WORDS = ["cheap", "pills", "meeting", "notes", "caf\u00e9", "\U0001f389", "na\udcffve", "x" * 40]
_MESSAGE = st.builds(
    lambda subject, words: f"Subject: {subject}\n\n{' '.join(words)}".encode(
        "utf-8", "surrogateescape"
    ),
    st.sampled_from(["hello", "win big", "minutes", "r\u00e9sum\u00e9"]),
    st.lists(st.sampled_from(_WORDS) | st.text("abcdefgh", min_size=3, max_size=6), max_size=12),
)


def _copies(saved: Path, factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two copies of the saved model: one changed in place, one by the filter loaded."""
    tmp = factory.mktemp("run")
    fast, slow = tmp / "fast.nbayes", tmp / "slow.nbayes"
    shutil.copy(saved, fast)
    shutil.copy(saved, slow)
    return fast, slow


def _slow(path: Path, messages: list[bytes], spam: bool, unlearn: bool) -> None:
    f = nbayes.load(path)
    labels = ["spam" if spam else "ham"] * len(messages)
    (f.unlearn if unlearn else f.partial_fit)(messages, labels)
    nbayes.save(f, path)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_MESSAGE, min_size=1, max_size=4), st.booleans())
def test_a_registration_writes_the_file_the_filter_would(
    saved: Path, tmp_path_factory: pytest.TempPathFactory, messages: list[bytes], spam: bool
) -> None:
    fast, slow = _copies(saved, tmp_path_factory)
    assert change_counts(fast, messages, spam=spam) is not None
    _slow(slow, messages, spam, unlearn=False)
    assert fast.read_bytes() == slow.read_bytes()
    # and unregistering them gives the first file back
    assert change_counts(fast, messages, spam=spam, unlearn=True) is not None
    _slow(slow, messages, spam, unlearn=True)
    assert fast.read_bytes() == slow.read_bytes() == saved.read_bytes()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_MESSAGE, min_size=1, max_size=4), st.booleans())
def test_a_correction_writes_the_file_the_filter_would(
    saved: Path, tmp_path_factory: pytest.TempPathFactory, messages: list[bytes], spam: bool
) -> None:
    # nbayes filter --unregister ham --register spam (bogofilter's -Ns): one write
    fast, slow = _copies(saved, tmp_path_factory)
    assert change_counts(fast, messages, spam=not spam) is not None  # learnt wrongly
    shutil.copy(fast, slow)
    assert change_counts(fast, messages, spam=spam, correct=True) is not None
    f = nbayes.load(slow)
    f.correct(messages, ["spam" if spam else "ham"] * len(messages))
    nbayes.save(f, slow)
    assert fast.read_bytes() == slow.read_bytes()
    direct = fast.parent / "direct.nbayes"  # as if learnt rightly from the start
    shutil.copy(saved, direct)
    assert change_counts(direct, messages, spam=spam) is not None
    assert fast.read_bytes() == direct.read_bytes()
    # a message not learnt as the other class: refused, the file untouched
    never = [b"Subject: unseen\n\nwords qqzzx never learnt"]
    assert change_counts(fast, never, spam=spam, correct=True) is None
    assert fast.read_bytes() == direct.read_bytes()


def test_an_unlearning_the_filter_would_refuse_changes_nothing(saved: Path, tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    shutil.copy(saved, path)
    never = [b"Subject: unseen\n\nwords never learnt"]
    learnt_as_ham = [b"Subject: minutes\n\nproject meeting notes"]
    too_many = [b"Subject: win\n\ncheap pills now"] * 3  # 3 spam from a filter of 2
    for messages, spam in ((never, True), (learnt_as_ham, True), (too_many, True)):
        assert change_counts(path, messages, spam=spam, unlearn=True) is None
        assert path.read_bytes() == saved.read_bytes()
        with pytest.raises(ValueError, match="cannot unlearn"):
            nbayes.load(path).unlearn(messages, ["spam" if spam else "ham"] * len(messages))


def test_a_model_of_another_type_is_left_to_the_full_load(tmp_path: Path) -> None:
    path = tmp_path / "nb.nbayes"
    nbayes.save(nbayes.MultinomialNB().fit([[1, 0], [0, 1]], [0, 1]), path)
    data = path.read_bytes()
    assert change_counts(path, [b"Subject: x\n\nhi"], spam=True) is None
    assert path.read_bytes() == data


_PROBES = [
    b"Subject: win big\n\ncheap pills cheap cash",
    b"Subject: minutes\n\nmeeting notes caf\xc3\xa9",
    b"Subject: hello\n\nabc abcd fgh",
]


def _same_answers(path: Path, f: SpamFilter) -> None:
    """The file's readers (the lean scorer and the full load) answer as the filter ``f``."""
    scorer = load_spam_scorer(path)
    assert scorer is not None
    loaded = nbayes.load(path)
    assert (scorer.n_ham, scorer.n_spam) == (f.table_.n_ham, f.table_.n_spam)
    for probe in _PROBES:
        want = f.classify([probe])[0]
        assert scorer.classify([probe])[0] == want
        assert loaded.classify([probe])[0] == want
        assert scorer.clues(probe).used() == f.clues(probe).used()
    assert len(scorer) == sum(1 for _, g, s in f.table_.rows() if g + s)


_STEP = st.tuples(
    st.sampled_from(["register", "unregister", "correct", "fold"]),
    st.lists(_MESSAGE, min_size=1, max_size=3),
    st.booleans(),  # spam
    st.sampled_from([100, 1 << 20]),  # the size past which a registration folds
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_STEP, min_size=1, max_size=6))
def test_registrations_in_the_log_count_as_the_filter_learnt_them(
    saved: Path, tmp_path_factory: pytest.TempPathFactory, steps: list
) -> None:
    path = tmp_path_factory.mktemp("run") / "spam.nbayes"
    shutil.copy(saved, path)
    f = nbayes.load(saved)
    for op, messages, spam, fold_at in steps:
        label = ["spam" if spam else "ham"] * len(messages)
        if op == "register":
            done = register(path, messages, spam=spam, fold_at=fold_at)
            f.partial_fit(messages, label)
            assert done is not None and (done.n_ham, done.n_spam) == (
                f.table_.n_ham,
                f.table_.n_spam,
            )
            assert done.folded == (not os.path.exists(pending.pending_path(path)))
        elif op == "fold":
            assert change_counts(path, [], spam=spam) == (f.table_.n_ham, f.table_.n_spam)
            assert not os.path.exists(pending.pending_path(path))
        else:
            flags = {"unlearn": op == "unregister", "correct": op == "correct"}
            try:
                (f.unlearn if op == "unregister" else f.correct)(messages, label)
            except ValueError:  # the filter refuses: the file's columns are left alone
                before = path.read_bytes()
                assert change_counts(path, messages, spam=spam, **flags) is None
                assert path.read_bytes() == before
                continue
            got = change_counts(path, messages, spam=spam, **flags)
            assert got == (f.table_.n_ham, f.table_.n_spam)
            assert not os.path.exists(pending.pending_path(path))  # (written into the file)
        _same_answers(path, f)
    # folded, the file is the one the filter saves, byte for byte
    change_counts(path, [], spam=True)
    expected = path.with_name("expected.nbayes")
    nbayes.save(f, expected)
    assert path.read_bytes() == expected.read_bytes()
