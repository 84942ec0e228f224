"""Reading a model file without numpy (``read_model_file(raw=True)``, ``nbayes filter``'s
path): the same arrays, the same checks, the digest verified; a spam scorer that checks
the rows it reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nbayes
from nbayes.exceptions import ModelFileError
from nbayes.io._modelfile import read_model_file, write_model_file
from nbayes.io.serializers.spam_scorer import load_spam_scorer
from nbayes.spam import SpamFilter

ARRAYS = {
    "b": np.array([True, False, True]),
    "i8": np.array([-1, 2, -3], dtype=np.int8),
    "u16": np.arange(5, dtype=np.uint16),
    "i32": np.array([[1, -2], [3, -4]], dtype=np.int32),
    "i64": np.array([2**40, -(2**40)], dtype=np.int64),
    "u64": np.array([2**64 - 1, 0], dtype=np.uint64),
    "f32": np.array([0.5, -1.25], dtype=np.float32),
    "f64": np.array([np.pi, -np.inf, np.nan]),
    "empty": np.zeros(0, dtype=np.int64),
}


def test_raw_arrays_are_the_numpy_arrays(tmp_path: Path) -> None:
    path = tmp_path / "m.bin"
    write_model_file(path, {"k": 1}, ARRAYS)
    meta, arrays = read_model_file(path)
    raw_meta, raw = read_model_file(path, raw=True)
    assert raw_meta == meta
    for name, want in arrays.items():
        dtype, shape, items = raw[name]
        assert (dtype, shape) == (str(want.dtype), want.shape)
        got = np.array(list(items), dtype=want.dtype).reshape(shape)
        np.testing.assert_array_equal(got, want)


def test_raw_reading_checks_the_digest(tmp_path: Path) -> None:
    path = tmp_path / "m.bin"
    write_model_file(path, {"k": 1}, ARRAYS)
    data = bytearray(path.read_bytes())
    data[-40] ^= 0xFF  # in the data section
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        read_model_file(path, raw=True)


def _filter() -> SpamFilter:
    ham = [b"Subject: lunch\n\nmeeting at noon", b"Subject: report\n\nthe report is here"]
    spam = [b"Subject: cheap pills\n\nbuy cheap pills", b"Subject: win\n\nwin a cheap prize"]
    return SpamFilter(min_learned=1).fit(ham + spam, ["ham", "ham", "spam", "spam"])


def test_the_scorer_checks_the_counts_it_reads(tmp_path: Path) -> None:
    f = _filter()
    path = tmp_path / "f.nbayes"
    nbayes.save(f, path)
    scorer = load_spam_scorer(path)
    assert scorer is not None
    message = b"Subject: cheap\n\ncheap pills"
    assert scorer.classify([message]) == f.classify([message])
    # a count above the messages learnt (as a writer with a bug could leave it)
    scorer._spam = [99] * len(scorer)
    with pytest.raises(ModelFileError, match="counted in"):
        scorer.classify([message])


def test_the_scorer_refuses_another_model_type(tmp_path: Path) -> None:
    path = tmp_path / "nb.nbayes"
    nbayes.save(nbayes.MultinomialNB().fit([[1, 0], [0, 1]], [0, 1]), path)
    assert load_spam_scorer(path) is None


def test_clues_without_the_unused_tokens_are_the_combined_ones() -> None:
    f = _filter()
    message = b"Subject: cheap lunch\n\nwin cheap pills at noon, the zebra"
    every = f.clues(message)
    used = f.clues(message, unused=False)
    assert used.verdict == every.verdict and used.n_used == every.n_used
    assert used.clues == every.used()
    assert any(c.side == "unused" for c in every.clues)


def test_a_damaged_model_gives_no_verdict(tmp_path: Path) -> None:
    from nbayes.io.serializers.spam_scorer import open_spam_scorer

    path = tmp_path / "f.nbayes"
    nbayes.save(_filter(), path)
    good = path.read_bytes()
    for pos in range(len(good) - 33, 0, -1):  # the last byte of the arrays that is no padding
        if good[pos]:
            break
    data = bytearray(good)
    data[pos] ^= 0x01  # a count or a token byte: the structure still holds
    path.write_bytes(bytes(data))
    finish = open_spam_scorer(path)  # the digest is checked in a thread meanwhile
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        finish()
    _, arrays = read_model_file(path, raw=True, verify_later=True)
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        arrays.verify()  # type: ignore[attr-defined]
