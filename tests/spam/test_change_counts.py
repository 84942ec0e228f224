"""A registration on a model file's columns (``change_counts``, what ``nbayes filter
--register`` / ``--unregister`` do) writes the file that loading the filter, learning (or
unlearning) and saving it writes, byte for byte; where the filter would refuse an
unlearning, it leaves the file alone and answers None."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.io.serializers.spam import change_counts
from nbayes.spam import SpamFilter

_WORDS = ["cheap", "pills", "meeting", "notes", "caf\u00e9", "\U0001f389", "na\udcffve", "x" * 40]
_MESSAGE = st.builds(
    lambda subject, words: f"Subject: {subject}\n\n{' '.join(words)}".encode(
        "utf-8", "surrogateescape"
    ),
    st.sampled_from(["hello", "win big", "minutes", "r\u00e9sum\u00e9"]),
    st.lists(st.sampled_from(_WORDS) | st.text("abcdefgh", min_size=3, max_size=6), max_size=12),
)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ham = [b"Subject: minutes\n\nproject meeting notes", b"Subject: build\n\nbuild failed"]
    spam = [b"Subject: win\n\ncheap pills now", b"Subject: offer\n\ncheap cash offer"]
    f = SpamFilter().fit(ham + spam, ["ham", "ham", "spam", "spam"])
    path = tmp_path_factory.mktemp("model") / "spam.nbayes"
    nbayes.save(f, path)
    return path


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
