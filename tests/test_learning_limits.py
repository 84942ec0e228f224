"""What a learning call accepts, a model holds, ``save`` writes and ``load`` reads (issue 24).

Each refusal happens at the learning call, with advice, and leaves the model as it was:

* statistics beyond the bounds a model file stores (:mod:`nbayes._statistics.bounds`):
  sample weights of 1e300, values of 1e153 (GaussianNB), 1e300 (PoissonNB), 1e200
  (KernelNB, MixedNB) -- items 3 and 5;
* an unlearning of rows never learned that a fit could not have left: a Bernoulli or
  binary text model's document frequencies above its class count, a class emptied of
  documents but not of words, a MixedNB row whose cell was missing where the learned row
  had a value -- items 3, 4 and 5;
* labels, texts and categories UTF-8 cannot encode (lone surrogates) -- item 2 (the
  spam filter's messages excepted: it reads surrogate-escaped mail by design);
* integer labels beyond 64 bits -- item 10.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    KernelNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
    SpamFilter,
    TextClassifier,
)

RNG = np.random.default_rng(0)
X = RNG.poisson(2.0, (40, 5)).astype(float)
Y = np.array([0, 1] * 20)
TABLE_MODELS = [
    BernoulliNB, MultinomialNB, ComplementNB, PoissonNB, GaussianNB, KernelNB, CategoricalNB,
    MixedNB,
]  # fmt: skip


def _state(model: Any) -> bytes:
    """What the model learned (its derivation caches left out)."""
    return pickle.dumps({k: v for k, v in model.__dict__.items() if not k.endswith("_cache")})


def _round_trip(model: Any, tmp_path: Path) -> Any:
    path = tmp_path / "m.nbayes"
    nbayes.save(model, path)
    return nbayes.load(path)


# ------------------------------------------------------------- bounds (items 3 and 5)
@pytest.mark.parametrize("Est", TABLE_MODELS)
def test_sample_weights_of_1e300_are_refused_at_the_learning_call(Est: type) -> None:
    model = Est().fit(X, Y)
    before = _state(model)
    with pytest.raises(ValueError, match="too large.*Rescale.*Nothing was changed"):
        model.update(X, Y, sample_weight=np.full(40, 1e300))
    assert _state(model) == before
    with pytest.raises(ValueError, match="too large"):
        Est().fit(X, Y, sample_weight=np.full(40, 1e300))


@pytest.mark.parametrize(
    ("Est", "value"),
    [(GaussianNB, 1e153), (GaussianNB, 1e300), (PoissonNB, 1e300), (KernelNB, 1e200)],
)
def test_values_beyond_what_a_model_holds_are_refused_with_advice(Est: type, value: float) -> None:
    model = Est().fit(X, Y)
    before = _state(model)
    row = np.array([[value, 1.0, 1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match="too large.*Rescale.*Nothing was changed"):
        model.update(row, [0])
    assert _state(model) == before
    with pytest.raises(ValueError, match="too large"):
        Est().fit(np.vstack([X, row]), np.append(Y, 0))


@pytest.mark.parametrize("family", ["gaussian", "kde"])
def test_mixednb_refuses_values_of_1e200(family: str) -> None:
    rows = np.column_stack([RNG.normal(size=40), RNG.normal(size=40)])
    model = MixedNB(columns=[family, "gaussian"]).fit(rows, Y)
    before = _state(model)
    with pytest.raises(ValueError, match="too large|overflowed"):
        model.update(np.array([[1e200, 0.0]]), [0])
    assert _state(model) == before
    model.predict(rows)  # and the model still predicts


@pytest.mark.parametrize("Est", [GaussianNB, PoissonNB, KernelNB, MultinomialNB])
def test_the_largest_accepted_values_save_and_load(Est: type, tmp_path: Path) -> None:
    row = np.array([[1e148, 1.0, 1.0, 1.0, 1.0]])
    model = Est().fit(np.vstack([X, row]), np.append(Y, 0))
    loaded = _round_trip(model, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny probabilities may underflow
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_a_kernel_point_far_from_the_others_does_not_break_predictions() -> None:
    # one stored value 1e150 (within the bound), the others 1e-9 apart: the far point's
    # kernel is 0 (its squared distance overflows), not an error for every prediction
    X1 = np.array([[1e150], [1.0], [1 + 1e-9], [1 + 2e-9], [1 + 3e-9], [5.0], [6.0], [7.0]])
    model = KernelNB(bandwidth="robust", point_mass=None).fit(X1, [0, 0, 0, 0, 0, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.predict([[1.0], [6.0]]).tolist() == [0, 1]
    with pytest.raises(ValueError, match="overflowed"):  # far from every point: refused
        model.predict([[1e300]])
    with pytest.raises(ValueError, match="overflowed"):
        model.explain([1e300])


def test_train_on_the_command_line_refuses_what_predict_could_not_load(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    data = tmp_path / "big.csv"
    data.write_text("a,b,label\n1e300,1,x\n2,1,y\n3,2,x\n4,1,y\n")
    for kind in ("gaussian", "poisson"):
        out = tmp_path / f"{kind}.nbayes"
        done = subprocess.run(
            [sys.executable, "-m", "nbayes", "train", str(data), "--label", "label",
             "--model", kind, "-o", str(out)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode != 0, done.stdout
        assert "Saved to" not in done.stdout + done.stderr
        assert "too large" in done.stderr and not out.exists()


# ------------------------------------------------ unlearning what was never learned (4)
def _spam_ham(**kw: Any) -> TextClassifier:
    return TextClassifier(**kw).fit(["free prize now", "lunch at noon"], ["spam", "ham"])


@pytest.mark.parametrize("kw", [{"model": "bernoulli"}, {"binary": True}, {}])
@pytest.mark.parametrize("doc", ["free prize", "free"])
def test_a_text_model_refuses_to_unlearn_a_document_it_never_learned(
    kw: dict[str, Any], doc: str
) -> None:
    model = _spam_ham(**kw)
    before = _state(model)
    proba = model.predict_proba(["lunch", "free"])
    with pytest.raises(ValueError, match="never learned.*Nothing was changed"):
        model.unlearn([doc], ["spam"])
    assert _state(model) == before
    np.testing.assert_array_equal(model.predict_proba(["lunch", "free"]), proba)


def test_bernoulli_document_frequencies_never_exceed_the_class_count() -> None:
    model = TextClassifier(model="bernoulli").fit(
        ["free prize now", "free cash", "lunch at noon"], ["spam", "spam", "ham"]
    )
    with pytest.raises(ValueError, match="present feature would exceed"):
        model.unlearn(["prize"], ["spam"])  # "free" would stay in 2 of 1 spam documents
    model.unlearn(["free prize now"], ["spam"])  # what was learned: fine
    assert model.class_count_.tolist() == [1.0, 1.0]


def test_bernoullinb_refuses_an_unlearning_that_leaves_more_presences_than_rows(
    tmp_path: Path,
) -> None:
    Xb = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [0, 0, 1]])
    model = BernoulliNB().fit(Xb, [0, 0, 1, 1])
    before = _state(model)
    with pytest.raises(ValueError, match="present feature would exceed"):
        model.unlearn([[0, 0, 0]], [1])  # class 1 has 2 rows, both with feature 2
    assert _state(model) == before
    _round_trip(model.unlearn([[1, 0, 1]], [1]), tmp_path)


def test_mixednb_refuses_to_unlearn_a_row_whose_missing_cell_was_learned_with_a_value(
    tmp_path: Path,
) -> None:
    rows = np.array([[1.0, "x"], [2.0, "y"], [3.0, "x"], [4.0, "y"]], dtype=object)
    model = MixedNB().fit(rows, [0, 0, 1, 1])
    before = _state(model)
    with pytest.raises(ValueError, match="Column 'x0'.*observed count would exceed"):
        model.unlearn(np.array([[None, "x"]], dtype=object), [0])
    assert _state(model) == before
    # a row learned with a missing value is unlearned exactly, and the file loads
    model.update(np.array([[None, "y"]], dtype=object), [0])
    model.unlearn(np.array([[None, "y"]], dtype=object), [0])
    loaded = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(loaded.predict_proba(rows), model.predict_proba(rows))


# ----------------------------------------------------------- lone surrogates (item 2)
@pytest.mark.parametrize("bad", ["\udfff", "\ud800", "a\udc80b"])
def test_text_learning_calls_refuse_what_utf8_cannot_encode(bad: str) -> None:
    model = _spam_ham()
    before = _state(model)
    for call in (
        lambda: model.update(["hello"], [bad]),
        lambda: model.update([f"hello {bad}"], ["ham"]),
        lambda: model.partial_fit([f"x {bad}"], ["ham"]),
        lambda: model.fit(["a b", f"c {bad}"], ["ham", "spam"]),
        lambda: model.fit_chunks([(["a b", f"c {bad}"], ["ham", "spam"])]),
    ):
        with pytest.raises(ValueError, match="lone surrogate.*Nothing was changed"):
            call()
        assert _state(model) == before
    model.predict([f"prediction takes it {bad}"])  # not a learning call


@pytest.mark.parametrize("Est", TABLE_MODELS)
def test_table_models_refuse_labels_utf8_cannot_encode(Est: type) -> None:
    labels = np.array(["a", "b"] * 20, dtype=object)
    model = Est().fit(X, labels)
    before = _state(model)
    with pytest.raises(ValueError, match="class label.*lone surrogate"):
        model.update(X[:2], ["a", "\udfff"])
    assert _state(model) == before
    with pytest.raises(ValueError, match="lone surrogate"):
        Est().partial_fit(X[:2], ["a", "b"], classes=["a", "b", "\udfff"])
    with pytest.raises(ValueError, match="lone surrogate"):
        Est().fit(X, np.where(labels == "a", "\udfff", "b"))


def test_categories_and_mixed_columns_utf8_cannot_encode_are_refused() -> None:
    cats = np.array([["a"], ["b"], ["a\udfff"]], dtype=object)
    with pytest.raises(ValueError, match="category of column 0.*lone surrogate"):
        CategoricalNB().fit(cats, [0, 1, 0])
    rows = np.array([[1.0, "x"], [2.0, "y"], [3.0, "x"]], dtype=object)
    model = MixedNB().fit(rows, [0, 1, 1])
    before = _state(model)
    with pytest.raises(ValueError, match="column 'x1'.*lone surrogate"):
        model.update(np.array([[1.0, "\udfff"]], dtype=object), [0])
    assert _state(model) == before
    texts = np.array([[1.0, "free prize now \udfff"], [2.0, "lunch at noon"]], dtype=object)
    with pytest.raises(ValueError, match="lone surrogate"):
        MixedNB(columns=["gaussian", "text"]).fit(texts, [0, 1])


def test_a_spam_filter_keeps_learning_surrogate_escaped_mail() -> None:
    # mail decoded with errors="surrogateescape" is the spam filter's daily input (its
    # tokens are stored as "surrogatepass" writes them); its labels are its own settings
    spam = SpamFilter().fit(["free prize now", "lunch at noon"], ["spam", "ham"])
    spam.partial_fit(["free na\udcffve prize"], ["spam"])
    with pytest.raises(ValueError, match="unknown label"):
        spam.partial_fit(["free prize"], ["\udfff"])


# ------------------------------------------------------ labels beyond 64 bits (item 10)
@pytest.mark.parametrize("Est", [*TABLE_MODELS, TextClassifier])
@pytest.mark.parametrize("label", [2**70, -(2**63) - 1])
def test_integer_labels_beyond_64_bits_are_a_clear_error(Est: type, label: int) -> None:
    if Est is TextClassifier:
        data: Any = ["free prize", "lunch at noon"] * 20
    else:
        data = X
    y = np.array([label, 1] * 20, dtype=object)
    with pytest.raises(ValueError, match="beyond the 64-bit range a model stores"):
        Est().fit(data, y)
    with pytest.raises(ValueError, match="beyond the 64-bit range"):
        Est().partial_fit(data, [1] * 40, classes=[1, label])
