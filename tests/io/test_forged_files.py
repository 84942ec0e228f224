"""Forged and oversized model files are refused early and clearly (issue 24, item 11).

* an NBSVM file whose vectorizer settings ``lowercase``/``ngram_range`` have the wrong type
  is a ModelFileError at load, not a failure deep in scikit-learn at the first document;
* a file whose size disagrees with the sizes its header describes (a 1.5 GB sparse file
  behind a small model's header) is refused from the header: the file is not read, nor
  hashed, beyond it;
* ``load_scorer`` of a model type this nbayes does not know says so, as ``load`` does
  (a known type other than TextClassifier still gives None: load it with ``load``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nbayes import NBSVM, ModelFileError, MultinomialNB, TextClassifier, load, load_scorer, save
from nbayes.io._modelfile import read_model_file, write_model_file
from nbayes.io._modelfile import reading as _reading

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
