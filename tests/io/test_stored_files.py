"""Model files written by an earlier nbayes (tests/data/models, one or more per kind of
model) keep loading, to the same model: the container format and every serializer's
layout stay as they are."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from nbayes import load_scorer
from nbayes.io._modelfile import read_model_file
from nbayes.io.persist import load, save
from nbayes.text._vocabulary import PackedTerms

MODELS = Path(__file__).parents[1] / "data" / "models"
FILES = sorted(MODELS.glob("*.nbayes"))
# the documents the text models were trained on (their predictions are stored beside them)
DOCS = ["free money now", "free prize", "lunch at noon", "see you at lunch", "money at noon"] * 3
# the nbayes that wrote each fixture, where not 0.1.0 (model kinds added later)
WRITTEN_BY = {"spam": "0.2.0"}
# the spam fixture's messages (trained on, then scored: its log-odds are stored beside it)
MAIL = [
    b"Subject: lunch\n\nlunch at noon, see you there",
    b"Subject: report\n\nthe report is attached, caf\xc3\xa9 at noon",
    b"Subject: free money\n\nfree money now!! click here",
    b"Subject: prize\n\nyou won a free prize, click here now",
]


def test_every_kind_of_model_is_stored() -> None:
    from nbayes.io._registry import BUILTIN

    kinds = {read_model_file(path)[0]["model_type"] for path in FILES}
    # a wrapper saved as the model it holds (SemiSupervisedNB) has no file of its own
    wrappers = {t for t, ser in BUILTIN.items() if any(s.saved_as for s in ser())}
    assert wrappers == {"SemiSupervisedNB"}
    assert kinds == set(BUILTIN) - wrappers


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_stored_file_loads_and_saves_back_the_same(tmp_path: Path, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. alpha=0 of a stored model
        model = load(path)
    again = tmp_path / "again.nbayes"
    save(model, again)
    old_metadata, old_arrays = read_model_file(path)
    new_metadata, new_arrays = read_model_file(again)
    old_metadata, old_arrays = _as_saved_now(old_metadata, old_arrays)
    assert old_metadata.pop("nbayes_version") == WRITTEN_BY.get(path.stem, "0.1.0")
    new_metadata.pop("nbayes_version")
    assert new_metadata == old_metadata
    assert list(new_arrays) == list(old_arrays)
    for name, old in old_arrays.items():
        new = new_arrays[name]
        assert (new.dtype, new.shape) == (old.dtype, old.shape), name
        assert new.tobytes() == old.tobytes(), name


def _as_saved_now(
    metadata: dict, arrays: dict[str, np.ndarray]
) -> tuple[dict, dict[str, np.ndarray]]:
    """A stored file's content as this nbayes saves it: a text model of schema 1 (its
    vocabulary a JSON list) is written with the packed vocabulary of schema 2 (the same
    terms as UTF-8 bytes and offsets), its columns in term order; every other file as it
    was. An NBSVM of nbayes 0.1 (no calibration then) is written with ``calibration=None``
    and no held-out decision values. A SpamFilter of nbayes 0.2.0 (its recipe without the
    header clues) is written with ``message_id`` and ``header_counts`` False: the tokens it
    counted with, spelt out (``max_text=None``, the body text read whole, is left out, as
    files before it were written), and ``seen_words`` and ``cjk_bigrams`` False; and with
    ``tail_weight=0.0``, ``same_counts_min=0``, ``ham_bias=0.0`` and
    ``tile_bigrams=False``, the scoring it had."""
    if metadata["model_type"] == "SpamFilter":
        model = dict(metadata["model"])
        if "message_id" not in model["tokenizer"]:
            model["tokenizer"] = {
                **model["tokenizer"],
                "message_id": False,
                "header_counts": False,
            }
        model["tokenizer"] = {"seen_words": False, "cjk_bigrams": False, **model["tokenizer"]}
        model["hyperparameters"] = {
            "tail_weight": 0.0,
            "same_counts_min": 0,
            "ham_bias": 0.0,
            "tile_bigrams": False,
            **model["hyperparameters"],
        }
        return {**metadata, "model": model}, arrays
    if metadata["model_type"] == "NBSVM" and "held_out" not in metadata["model"]:
        model = dict(metadata["model"])
        model["hyperparameters"] = {**model["hyperparameters"], "calibration": None}
        return {**metadata, "model": {**model, "held_out": None}}, arrays
    vocabulary = metadata["model"].get("vocabulary")
    if metadata["model_type"] != "TextClassifier" or not isinstance(vocabulary, list):
        return metadata, arrays
    assert metadata["schema_version"] == 1
    order = sorted(range(len(vocabulary)), key=vocabulary.__getitem__)
    vocabulary = [vocabulary[j] for j in order]
    arrays = {
        **arrays,
        "feature_count": np.ascontiguousarray(arrays["feature_count"][:, order]),
        "doc_freq": arrays["doc_freq"][order],
        "term_freq": arrays["term_freq"][order],
    }
    packed = PackedTerms.from_strings(vocabulary)
    model = {**metadata["model"], "vocabulary": {"n_terms": len(vocabulary)}}
    arrays = {
        **arrays,
        "vocabulary/bytes": np.asarray(packed.data),
        "vocabulary/offsets": packed.offsets,
    }
    return {**metadata, "schema_version": 2, "model": model}, arrays


def test_the_old_text_files_are_of_schema_1() -> None:
    # the fixtures that keep files of the JSON vocabulary loading (schema 1)
    for name in ("text-vocab", "text-bigram", "text-vocab-unsorted"):
        metadata, arrays = read_model_file(MODELS / f"{name}.nbayes")
        assert metadata["schema_version"] == 1
        assert isinstance(metadata["model"]["vocabulary"], list)
        assert not any(a.startswith("vocabulary/") for a in arrays)


def test_an_old_unsorted_non_ascii_vocabulary_loads_to_the_same_model() -> None:
    # partial_fit twice (two sorted runs: not sorted), accents, CJK, Greek, an emoji
    docs = [
        "free money now", "free prize", "lunch at noon", "see you at lunch", "money at noon",
        "naïve café déjà vu", "日本語 テキスト 分類", "emoji 😀😀 text", "zebra apple mango",
        "Ωmega ΣΙΓΜΑ straße", "café zebra money", "分類 lunch",
    ]  # fmt: skip
    path = MODELS / "text-vocab-unsorted.nbayes"
    want = np.load(MODELS / "text-vocab-unsorted.expected.npy")
    model = load(path)
    np.testing.assert_allclose(model.predict_joint_log_proba(docs), want, rtol=1e-12)
    terms = read_model_file(path)[0]["model"]["vocabulary"]
    assert list(model.get_feature_names_out()) == sorted(terms)
    assert model.vocabulary_ == {t: i for i, t in enumerate(sorted(terms))}
    scorer = load_scorer(path)
    assert scorer is not None
    np.testing.assert_allclose(scorer.predict_joint_log_proba(docs), want, rtol=1e-12)


@pytest.mark.parametrize("name", ["text-vocab", "text-hash", "text-bigram"])
def test_the_stored_text_models_predict_as_they_did(name: str) -> None:
    want = np.load(MODELS / f"{name}.expected.npy")
    model = load(MODELS / f"{name}.nbayes")
    np.testing.assert_allclose(model.predict_joint_log_proba(DOCS), want, rtol=1e-12)
    scorer = load_scorer(MODELS / f"{name}.nbayes")
    assert scorer is not None
    np.testing.assert_allclose(scorer.predict_proba(DOCS), model.predict_proba(DOCS), rtol=1e-12)


def test_the_stored_nbsvm_predicts_as_it_did() -> None:
    # three classes ("spam", "ham", "other" for every fifth document), NBSVM(random_state=0)
    want = np.load(MODELS / "nbsvm.expected.npy")
    model = load(MODELS / "nbsvm.nbayes")
    np.testing.assert_allclose(model.decision_function(DOCS), want, rtol=1e-12)
    # uncalibrated, as it was: the one-vs-rest logistic of the decision values
    assert model.calibration is None and model.held_out_ is None and model.proba_scale_ is None
    p = 1 / (1 + np.exp(-want))
    np.testing.assert_allclose(model.predict_proba(DOCS), p / p.sum(axis=1, keepdims=True))
    assert load_scorer(MODELS / "nbsvm.nbayes") is None


def test_the_stored_spam_filter_scores_as_it_did() -> None:
    from nbayes.io.serializers.spam import load_spam_scorer

    want = np.load(MODELS / "spam.expected.npy")
    model = load(MODELS / "spam.nbayes")
    np.testing.assert_array_equal(model.decision_function(MAIL), want)
    scorer = load_spam_scorer(MODELS / "spam.nbayes")
    assert scorer is not None
    np.testing.assert_array_equal([v.log_odds for v in scorer.classify(MAIL)], want)
