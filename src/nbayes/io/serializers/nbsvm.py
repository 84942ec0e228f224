"""Model-file (de)serialiser of :class:`~nbayes.NBSVM`.

``"model"`` is::

    {"hyperparameters": {...},                                  # the NBSVM's own
     "fitted": {"preprocess": "sentiment", "vectorizer": {...}}, # the fit's tokenization
     "vocabulary": ["a", "a film", ...],                        # the terms, column order
     "nb": {"model_type": "MultinomialNB", "model": {...}},     # NB of the binary features
     "held_out": {"documents": 10662} or null}                  # the calibration's data

with the arrays of the Naive Bayes model under ``nb/`` (see
:mod:`nbayes.io.serializers.discrete`) and the solver's solution in the scaled feature space,
before the interpolation: ``solver_coef`` (n_problems, n_terms) and ``solver_intercept``
(n_problems,), one problem for two classes, one per class otherwise. The log-count ratios
and ``coef_`` are derived from these on load, as ``fit`` derives them, so a loaded model
predicts exactly as the saved one and ``beta`` can still be changed. ``"fitted"`` holds the
settings the fit tokenized with (``preprocess_`` and the vectorizer's), which prediction
uses even when the hyperparameters were changed after the fit.

A calibrated model (``calibration="binned"``, ``"temperature_shift"`` or ``"temperature"``)
stores its ``held_out_`` decision values under ``held_out/``: ``nb`` and ``svm``
(n_documents, n_problems), ``codes`` (int64, the class of each document) and ``weight``
(n_documents,); the probability scale (and shift) is derived from them on load, for any
``beta``, as ``fit`` derives it, by the map the hyperparameter ``calibration`` names
(validated at load, as every hyperparameter): a file written before the shift existed says
"temperature", one before the binning "temperature_shift", and each loads with the
probabilities it gave (the bins of "binned" are derived from the same held-out values).
A file of nbayes 0.1 has neither
``"held_out"`` nor the hyperparameter ``calibration``: it loads uncalibrated
(``calibration=None``), with the probabilities it gave.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import decode_param, encode_param, encode_params
from nbayes.io._invariants import MAX_MOMENT, check_ngram_range
from nbayes.io._json import expect_dict, expect_int, expect_str_list
from nbayes.io._registry import Serializer, decode, encode
from nbayes.io.serializers._estimator import (
    WHERE,
    check_derivation,
    check_fitted,
    check_params,
    decode_hyperparameters,
)
from nbayes.naive_bayes import MultinomialNB
from nbayes.nbsvm import NBSVM
from nbayes.nbsvm._calibration import HeldOutScores
from nbayes.nbsvm._estimator import VECTORIZER_PARAMS
from nbayes.text.recipes import resolve as resolve_recipe
from nbayes.text.vectorizers import CountVectorizer


def dump(model: NBSVM, writer: ArrayWriter) -> dict[str, Any]:
    check_fitted(model)
    check_ngram_range(model.vectorizer_.ngram_range, ValueError)
    writer.put("solver_coef", model.solver_coef_)
    writer.put("solver_intercept", model.solver_intercept_)
    held_out = model.__dict__.get("held_out_")
    if held_out is not None:
        sub = writer.sub("held_out")
        sub.put("nb", held_out.nb)
        sub.put("svm", held_out.svm)
        sub.put("codes", held_out.codes, dtype=np.int64)
        sub.put("weight", held_out.weight)
    return {
        "hyperparameters": encode_params(model.get_params(deep=False)),
        "fitted": {
            "preprocess": encode_param("preprocess", model.preprocess_),
            "vectorizer": encode_params(
                {k: getattr(model.vectorizer_, k) for k in VECTORIZER_PARAMS}
            ),
        },
        "vocabulary": model.get_feature_names_out().tolist(),
        "nb": encode(model.nb_, writer.sub("nb")),
        "held_out": None if held_out is None else {"documents": len(held_out.codes)},
    }


def _check_nb(nb: Any, model: NBSVM, n_terms: int) -> MultinomialNB:
    """The nested model must be the Naive Bayes model of this NBSVM's binary features."""
    where = f"{WHERE}['nb']"
    if type(nb) is not MultinomialNB:
        raise ModelFileError(f"{where} holds a {type(nb).__name__}; an NBSVM's is a MultinomialNB")
    if not nb.alpha > 0:
        raise ModelFileError(f"{where} has alpha={nb.alpha!r}; an NBSVM's is > 0")
    if nb.n_features_in_ != n_terms:
        raise ModelFileError(
            f"{where} has {nb.n_features_in_} features for a vocabulary of {n_terms} terms"
        )
    if len(nb.classes_) < 2:
        raise ModelFileError(f"{where} has one class; an NBSVM separates at least 2")
    return nb


def _load_held_out(
    value: Any, reader: ArrayReader, n_classes: int, n_problems: int
) -> HeldOutScores | None:
    """The calibration's held-out decision values of a file (None: uncalibrated)."""
    if value is None:
        return None
    where = f"{WHERE}['held_out']"
    n = expect_int(
        expect_dict(value, where, ("documents",))["documents"], f"{where}['documents']", 1
    )
    sub = reader.sub("held_out")
    parts = [sub.get(name, shape=(n, n_problems)) for name in ("nb", "svm")]
    for name, arr in zip(("nb", "svm"), parts, strict=True):
        if not float(np.max(np.abs(arr))) <= MAX_MOMENT:
            raise ModelFileError(
                f"{where}: {name!r} reaches {float(np.max(np.abs(arr)))!r}, beyond the "
                f"{MAX_MOMENT:g} a fit ever reaches (a hostile or corrupted file)"
            )
    codes = sub.get("codes", dtype=np.int64, shape=(n,), non_negative=True)
    if codes.max() >= n_classes:
        raise ModelFileError(f"{where}: 'codes' names class {int(codes.max())} of {n_classes}")
    weight = sub.get("weight", shape=(n,), non_negative=True)
    return HeldOutScores(np.array(parts[0]), np.array(parts[1]), codes.astype(np.intp),
                         np.array(weight))  # fmt: skip


def _check_vectorizer_types(settings: dict[str, Any]) -> None:
    """The vectorizer settings a fit writes: ``lowercase`` a bool, ``ngram_range`` two
    ints ``1 <= min_n <= max_n`` (scikit-learn's own validation takes any truthy
    ``lowercase`` and a tuple of anything; the model would fail at its first document)."""
    if not isinstance(settings["lowercase"], bool):
        raise ValueError(f"lowercase={settings['lowercase']!r} is not a bool")
    ngram = settings["ngram_range"]
    if not (
        isinstance(ngram, tuple)
        and len(ngram) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in ngram)
        and 1 <= ngram[0] <= ngram[1]
    ):
        raise ValueError(f"ngram_range={ngram!r} is not a pair of ints 1 <= min_n <= max_n")


def load(d: dict[str, Any], reader: ArrayReader) -> NBSVM:
    if isinstance(d, dict) and "held_out" not in d and isinstance(d.get("hyperparameters"), dict):
        # a file of nbayes 0.1: no calibration, the probabilities it gave
        d = {**d, "held_out": None,
             "hyperparameters": {"calibration": None, **d["hyperparameters"]}}  # fmt: skip
    expect_dict(d, WHERE, ("hyperparameters", "fitted", "vocabulary", "nb", "held_out"))
    fitted = expect_dict(d["fitted"], f"{WHERE}['fitted']", ("preprocess", "vectorizer"))
    preprocess = decode_param(fitted["preprocess"], f"{WHERE}['fitted']['preprocess']")
    where = f"{WHERE}['fitted']['vectorizer']"
    settings = expect_dict(fitted["vectorizer"], where, VECTORIZER_PARAMS)
    settings = {k: decode_param(v, f"{where}[{k!r}]") for k, v in settings.items()}
    model = NBSVM(**decode_hyperparameters(NBSVM, d["hyperparameters"]))
    check_params(model)
    terms = expect_str_list(d["vocabulary"], f"{WHERE}['vocabulary']")
    if not terms or len(set(terms)) != len(terms):
        raise ModelFileError(f"{WHERE}['vocabulary'] must hold distinct terms, at least one")
    n_terms = len(terms)
    nb = _check_nb(decode(d["nb"], reader.sub("nb"), f"{WHERE}['nb']"), model, n_terms)
    n_problems = 1 if len(nb.classes_) == 2 else len(nb.classes_)
    coef = reader.get("solver_coef", shape=(n_problems, n_terms))
    intercept = reader.get("solver_intercept", shape=(n_problems,))
    for name, arr in (("solver_coef", coef), ("solver_intercept", intercept)):
        if arr.size and not float(np.max(np.abs(arr))) <= MAX_MOMENT:
            raise ModelFileError(
                f"{WHERE}: {name!r} reaches {float(np.max(np.abs(arr)))!r}, beyond the "
                f"{MAX_MOMENT:g} a fit ever reaches (a hostile or corrupted file)"
            )
    vectorizer = CountVectorizer(binary=True, dtype=np.float64, **settings)
    try:
        _check_vectorizer_types(settings)
        vectorizer._validate_params()  # scikit-learn's checks of the types and ranges
        vectorizer.build_analyzer()  # and of the settings together
        resolve_recipe(preprocess)
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"{WHERE}['fitted'] holds invalid settings: {exc}") from None
    check_ngram_range(vectorizer.ngram_range)
    vectorizer.vocabulary_ = dict(zip(terms, range(n_terms), strict=True))
    model.vectorizer_, model.nb_, model.preprocess_ = vectorizer, nb, preprocess
    model._set_solution(np.array(coef), np.array(intercept))
    model.held_out_ = _load_held_out(d["held_out"], reader, len(nb.classes_), n_problems)
    check_derivation(model._weights)
    return model


SERIALIZERS = (Serializer("NBSVM", NBSVM, dump, load),)
