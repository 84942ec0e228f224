"""Files with a valid checksum whose content no fit produces are refused at load (issue 14,
item 9): statistics that would overflow or contradict each other, settings that would make
the model misbehave, and JSON headers that would take far more memory than the file."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB, TextClassifier
from nbayes.exceptions import ModelFileError
from nbayes.io._modelfile import read_model_file, write_model_file
from nbayes.io._modelfile.reading import header_cost

X = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 1.0], [1.0, 1.0, 0.0], [0.0, 2.0, 2.0]])
Y = [0, 1, 0, 1]
DOCS = ["free money now", "meeting at noon", "free free offer", "lunch meeting"]


def _forged(
    tmp_path: Path, model: Any, change: Callable[[dict[str, Any], dict[str, np.ndarray]], None]
) -> Path:
    """The file of ``model`` changed by ``change(metadata, arrays)``, rewritten by the
    writer: a valid checksum, as a hostile writer would make it."""
    path = tmp_path / "forged.nbayes"
    nbayes.save(model, path)
    metadata, arrays = read_model_file(path)
    change(metadata, arrays)
    write_model_file(path, metadata, arrays)
    return path


def _hp(name: str, value: Any) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
    def change(metadata: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        metadata["model"]["hyperparameters"][name] = value

    return change


def _array(name: str, value: Any) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
    def change(metadata: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name] = np.asarray(value, dtype=arrays[name].dtype).reshape(arrays[name].shape)

    return change


def _model(name: str, value: Any) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
    def change(metadata: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        metadata["model"][name] = value

    return change


def _prior(values: list[float]) -> dict[str, Any]:
    return {"type": "list", "dtype": "float64", "values": values}


def _mnb() -> MultinomialNB:
    return MultinomialNB().fit(X, Y)


def _gnb() -> GaussianNB:
    return GaussianNB().fit(X, Y)


def _text() -> TextClassifier:
    return TextClassifier().fit(DOCS, Y)


def _mixed() -> MixedNB:
    return MixedNB().fit(X, Y)


def _bernoulli() -> BernoulliNB:
    return BernoulliNB().fit(X, Y)


def _categorical() -> CategoricalNB:
    return CategoricalNB().fit(X.astype(int), Y)


def _scaled(name: str, factor: float) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
    def change(metadata: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name] = arrays[name] * factor

    return change


HUGE = [[1e308, 1e308, 1.0], [1.0, 1.0, 1.0]]

FORGED = [
    ("counts of 1e308", _mnb, _array("feature_count", HUGE), "add up to"),
    ("class counts of 1e308", _mnb, _array("class_count", [1e308, 1e308]), "add up to"),
    ("negative class_prior", _mnb, _hp("class_prior", _prior([-1.0, 2.0])), "class_prior"),
    ("all-zero class_prior", _mnb, _hp("class_prior", _prior([0.0, 0.0])), "class_prior"),
    ("gaussian negative prior", _gnb, _hp("priors", _prior([-0.5, 1.5])), "(?i)priors"),
    ("gaussian n_rows 0", _gnb, _array("n_rows", 0.0), "n_rows"),
    ("gaussian n_rows 1.5", _gnb, _array("n_rows", 1.5), "n_rows"),
    ("gaussian n_rows 2^60", _gnb, _array("n_rows", 2.0**60), "n_rows"),
    ("gaussian mean 1e200", _gnb, _array("mean", np.full(6, 1e200)), "means"),
    ("gaussian m2 1e308", _gnb, _array("m2", np.full(6, 1e308)), "squared"),
    ("text n_docs 2^62", _text, _model("n_docs", 2**62), "n_docs"),
    ("text n_docs below the classes", _text, _model("n_docs", 1), "documents|n_docs"),
    (
        "text ngram_range (1, 10^6)",
        _text,
        _hp("ngram_range", {"type": "tuple", "dtype": "int64", "values": [1, 10**6]}),
        "ngram_range",
    ),
    ("text negative prior", _text, _hp("class_prior", _prior([2.0, -1.0])), "class_prior"),
    ("text counts of 1e308", _text, _array("term_freq", np.full(8, 1e308)), "add up"),
    ("mixed zero prior", _mixed, _hp("class_prior", _prior([0.0, 0.0])), "class_prior"),
    ("mixed gaussian n_rows", _mixed, _array("columns/0/n_rows", 0.0), "n_rows"),
    ("bernoulli present > rows", _bernoulli, _scaled("feature_count", 3.0), "exceeds"),
    ("categorical counts > rows", _categorical, _scaled("category_count", 2.0), "exceeds"),
]


@pytest.mark.parametrize(("name", "make", "change", "match"), FORGED, ids=[f[0] for f in FORGED])
def test_forged_statistics_are_refused(
    tmp_path: Path, name: str, make: Any, change: Any, match: str
) -> None:
    model = make()
    path = _forged(tmp_path, model, change)
    with pytest.raises(ModelFileError, match=match):
        nbayes.load(path)
    if isinstance(model, TextClassifier):
        with pytest.raises(ModelFileError, match=match):
            nbayes.load_scorer(path)


def test_the_untouched_files_load(tmp_path: Path) -> None:
    for make in (_mnb, _gnb, _text, _mixed, _bernoulli, _categorical):
        path = _forged(tmp_path, make(), lambda m, a: None)
        nbayes.load(path)


@pytest.mark.parametrize(
    ("model", "match"),
    [
        (MultinomialNB(class_prior=[-1.0, 2.0]), "class_prior"),
        (TextClassifier(class_prior=[0.0, 0.0]), "class_prior"),
    ],
    ids=["negative-prior", "zero-prior"],
)
def test_save_refuses_what_load_would_refuse(tmp_path: Path, model: Any, match: str) -> None:
    # (MultinomialNB refuses a negative prior already at fit; a text model at save)
    with pytest.raises(ValueError, match=match):
        model.fit(DOCS if isinstance(model, TextClassifier) else X, Y)
        nbayes.save(model, tmp_path / "m.nbayes")
    assert not (tmp_path / "m.nbayes").exists()


# ------------------------------------------------------------------------ dense headers

DENSE = {"dicts": "{}", "lists": "[]", "ints": "0", "strings": '""', "nested": "[[[]]]"}


def _dense_file(tmp_path: Path, item: str, n: int) -> Path:
    def change(metadata: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        metadata["padding"] = json.loads("[" + ",".join([item] * n) + "]")

    return _forged(tmp_path, _mnb(), change)


@pytest.mark.parametrize("kind", list(DENSE))
def test_a_dense_header_is_refused_before_it_is_parsed(tmp_path: Path, kind: str) -> None:
    path = _dense_file(tmp_path, DENSE[kind], 300_000)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match="would take about"):
            nbayes.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * size, (peak, size)


@pytest.mark.parametrize(
    "value",
    [
        {"padding": [{}] * 1000},
        {"vocabulary": [f"w{i}" for i in range(5000)]},
        {"nested": [[1, 2.5, "x,y:{[", None, True]] * 500, "k": {"a": {"b": []}}},
        {"escapes": ['a\\"b', "\\\\", '"', "\u00e9\u4e2d", "\ud800"] * 200},
    ],
    ids=["dicts", "vocabulary", "mixed", "escapes"],
)
def test_header_cost_bounds_the_memory_json_takes(value: Any) -> None:
    raw = json.dumps(value).encode()  # ASCII: what the writer makes of lone surrogates
    tracemalloc.start()
    try:
        parsed = json.loads(raw)
        used, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert parsed == value
    assert used <= header_cost(raw)


def test_a_large_vocabulary_header_is_within_the_bound(tmp_path: Path) -> None:
    """The densest header nbayes writes: many short terms of a two-class text model."""
    words = [f"w{i:x}" for i in range(60_000)]
    docs = [" ".join(words[0::2]), " ".join(words[1::2])]
    clf = TextClassifier().fit(docs, ["a", "b"])
    path = tmp_path / "m.nbayes"
    nbayes.save(clf, path)
    assert len(nbayes.load(path).vocabulary_) == 60_000


def test_duplicate_terms_are_refused_sorted_or_not() -> None:
    from nbayes.io._text_model import _distinct

    assert _distinct(["a", "b", "c"]) and _distinct(["b", "a", "c"]) and _distinct([])
    assert not _distinct(["a", "b", "b"])  # sorted with a repeat
    assert not _distinct(["b", "a", "b"])  # unsorted with a repeat
