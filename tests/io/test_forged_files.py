"""Forged and oversized model files are refused early and clearly (issue 24, item 11).

* an NBSVM file whose vectorizer settings ``lowercase``/``ngram_range`` have the wrong type
  is a ModelFileError at load, not a failure deep in scikit-learn at the first document;
* a file whose size disagrees with the sizes its header describes (a 1.5 GB sparse file
  behind a small model's header) is refused from the header: the file is not read, nor
  hashed, beyond it;
* ``load_scorer`` of a model type this nbayes does not know says so, as ``load`` does
  (a known type other than TextClassifier still gives None: load it with ``load``);
* ``nbayes filter`` hashes a model file once and remembers it by its identity on disk
  (:mod:`nbayes.io._modelfile.verified`): a file changed in place since (its modification
  time put back or not), replaced, or damaged before it was ever checked is hashed and
  refused; a record that is garbage is ignored; with the record off every reading hashes.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from nbayes import NBSVM, ModelFileError, MultinomialNB, TextClassifier, load, load_scorer, save
from nbayes.io._modelfile import read_model_file, verified, write_model_file
from nbayes.io._modelfile import reading as _reading
from nbayes.io.serializers.spam_scorer import open_spam_scorer
from nbayes.spam import SpamFilter

DOCS = ["free prize now", "lunch at noon", "free cash", "see you at lunch"] * 5
LABELS = ["spam", "ham", "spam", "ham"] * 5


@pytest.fixture(scope="module")
def nbsvm_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("nbsvm") / "m.nbayes"
    save(NBSVM().fit(DOCS, LABELS), path)
    return path


def _tuple(values: list[Any], dtype: str) -> dict[str, Any]:
    return {"type": "tuple", "dtype": dtype, "values": values}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("lowercase", "yes"),
        ("lowercase", 1),
        ("ngram_range", _tuple([1.5, 2.0], "float64")),
        ("ngram_range", _tuple([2, 1], "int64")),
        ("ngram_range", _tuple([0, 1], "int64")),
        ("min_df", "x"),
        ("max_features", -3),
    ],
)
def test_nbsvm_vectorizer_settings_of_the_wrong_type_are_refused_at_load(
    nbsvm_file: Path, tmp_path: Path, field: str, value: Any
) -> None:
    metadata, arrays = read_model_file(nbsvm_file)
    forged = json.loads(json.dumps(metadata))
    forged["model"]["fitted"]["vectorizer"][field] = value
    path = tmp_path / "forged.nbayes"
    write_model_file(path, forged, arrays)
    with pytest.raises(ModelFileError, match=f"invalid settings.*{field}"):
        load(path)
    load(nbsvm_file).predict(["free prize"])  # the real file loads and predicts


@pytest.fixture()
def no_checksum_of_the_whole_file(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Any) -> bool:
        raise AssertionError("the whole file was hashed to refuse it")

    monkeypatch.setattr(_reading._Reader, "digest_matches", refuse)


@pytest.mark.usefixtures("no_checksum_of_the_whole_file")
def test_a_huge_sparse_file_is_refused_from_its_header(tmp_path: Path) -> None:
    small = tmp_path / "small.nbayes"
    save(TextClassifier().fit(DOCS, LABELS), small)
    data = small.read_bytes()
    huge = tmp_path / "huge.nbayes"
    with open(huge, "wb") as f:
        f.write(data[: len(data) - 40])  # the header and most of the data, as a copy
        f.truncate(1_500_000_000)  # sparse: no disk used
    with pytest.raises(ModelFileError, match="unexpected bytes after the end"):
        load(huge)
    with pytest.raises(ModelFileError, match="unexpected bytes after the end"):
        load_scorer(huge)


@pytest.mark.usefixtures("no_checksum_of_the_whole_file")
def test_a_header_claiming_more_than_the_file_holds_is_refused_from_its_sizes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.nbayes"
    save(MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # the header claims the rest
    with pytest.raises(ModelFileError, match="truncated"):
        load(path)


def test_load_scorer_of_an_unknown_model_type_says_so(tmp_path: Path) -> None:
    path = tmp_path / "m.nbayes"
    save(MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]), path)
    assert load_scorer(path) is None  # a known type: left to load
    metadata, arrays = read_model_file(path)
    metadata["model_type"] = "PickledThing"
    write_model_file(path, metadata, arrays)
    with pytest.raises(ModelFileError, match="'PickledThing' is unknown to this nbayes"):
        load_scorer(path)
    with pytest.raises(ModelFileError, match="unknown to this nbayes"):
        load(path)


# ------------------------------------------------ the record of checked files (nbayes filter)


@pytest.fixture()
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(verified.ENV, str(folder))
    # the files of these tests are seconds old at most: recorded all the same, and every
    # change made a few kernel ticks after the check (see _flip_in_place)
    monkeypatch.setattr(verified, "RACY_SECONDS", 0.0)
    return folder / "verified-models"


@pytest.fixture()
def spam_file(tmp_path: Path) -> Path:
    ham = [b"Subject: lunch\n\nmeeting at noon", b"Subject: report\n\nthe report is here"]
    spam = [b"Subject: cheap pills\n\nbuy cheap pills", b"Subject: win\n\nwin a cheap prize"]
    path = tmp_path / "spam.nbayes"
    save(SpamFilter(min_learned=1).fit(ham + spam, ["ham", "ham", "spam", "spam"]), path)
    return path


def _cached_read(path: Path) -> Any:
    _, arrays = read_model_file(path, raw=True, verify_later=True, cached_check=True)
    arrays.verify()
    return arrays


def _hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the digests computed from now on."""
    made: list[int] = []
    real = _reading._sha256

    def counting() -> Any:
        made.append(1)
        return real()

    monkeypatch.setattr(_reading, "_sha256", counting)
    return made


def _flip_in_place(path: Path, keep_mtime: bool) -> None:
    """Damage a byte of the data section in place (same inode), as a forger or a broken
    disk could; with ``keep_mtime``, the modification time put back as it was. A few
    kernel clock ticks after the file was checked, so that its status-change time moves."""
    time.sleep(0.05)
    st = os.stat(path)
    with open(path, "r+b") as f:
        f.seek(st.st_size - 40)
        byte = f.read(1)
        f.seek(st.st_size - 40)
        f.write(bytes([byte[0] ^ 0xFF]))
    if keep_mtime:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_ino == st.st_ino


def test_a_checked_file_is_not_hashed_again_until_it_changes(
    record: Path, spam_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _hashes(monkeypatch)
    _cached_read(spam_file)
    assert len(made) == 1 and record.exists()
    _cached_read(spam_file)
    scorer = open_spam_scorer(spam_file, cached_check=True)()
    assert scorer is not None and len(made) == 1  # the record knew it: no digest
    read_model_file(spam_file, raw=True)  # without cached_check: hashed as always
    load(spam_file)
    assert len(made) == 3


@pytest.mark.parametrize("keep_mtime", [False, True])
def test_a_checked_file_changed_in_place_is_hashed_and_refused(
    record: Path, spam_file: Path, keep_mtime: bool
) -> None:
    assert open_spam_scorer(spam_file, cached_check=True)() is not None
    _flip_in_place(spam_file, keep_mtime)  # the status-change time moves all the same
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        open_spam_scorer(spam_file, cached_check=True)()
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        _cached_read(spam_file)  # and the failure recorded nothing


def test_a_file_damaged_before_its_first_check_is_never_recorded(
    record: Path, spam_file: Path
) -> None:
    _flip_in_place(spam_file, keep_mtime=False)
    for _ in range(2):
        with pytest.raises(ModelFileError, match="checksum mismatch"):
            _cached_read(spam_file)
    assert not record.exists()


def test_a_file_replaced_by_another_is_hashed(
    record: Path, spam_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cached_read(spam_file)
    data = bytearray(spam_file.read_bytes())
    data[-40] ^= 0xFF
    forged = tmp_path / "forged"
    forged.write_bytes(bytes(data))
    st = os.stat(spam_file)
    os.utime(forged, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(forged, spam_file)  # same name, size and mtime; another inode
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        _cached_read(spam_file)


def test_a_garbage_record_is_ignored_and_the_record_can_be_off(
    record: Path, spam_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record.parent.mkdir()
    record.write_bytes(b"\xff\x00 not a record\n" * 100)
    made = _hashes(monkeypatch)
    _cached_read(spam_file)
    _cached_read(spam_file)
    assert len(made) == 1  # the garbage was replaced by a record of the file
    monkeypatch.setenv(verified.ENV, "off")
    _cached_read(spam_file)
    _cached_read(spam_file)
    assert len(made) == 3


def test_a_record_in_a_folder_that_cannot_be_written_is_no_error(
    tmp_path: Path, spam_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(verified.ENV, str(blocker / "cache"))
    made = _hashes(monkeypatch)
    _cached_read(spam_file)
    _cached_read(spam_file)
    assert len(made) == 2  # no record: hashed each time


def test_a_file_changed_moments_before_its_check_is_not_recorded(
    tmp_path: Path, spam_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(verified.ENV, str(tmp_path / "cache"))
    made = _hashes(monkeypatch)
    _cached_read(spam_file)  # written a moment ago: its times may not move at a change
    _cached_read(spam_file)
    assert len(made) == 2 and not (tmp_path / "cache").exists()
