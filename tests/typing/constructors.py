"""Checked by mypy in .ci/run (``mypy src/nbayes tests/typing``), never run: with
``warn_unused_ignores``, each ``type: ignore`` below fails the check if mypy stops seeing the
error it silences, so type checkers keep catching a misspelt or mistyped hyperparameter (see
``nbayes._template.sklearn_bases``)."""

from __future__ import annotations

from nbayes import NBSVM, KernelNB, MixedNB, MultinomialNB, SemiSupervisedNB, TextClassifier
from nbayes.model_selection import NBSearchCV


def constructors() -> None:
    MultinomialNB(alpah=0.5)  # type: ignore[call-arg]
    MultinomialNB(fit_prior="yes")  # type: ignore[arg-type]
    KernelNB(max_points="many")  # type: ignore[arg-type]
    MixedNB({"a": "gaussian"}, var_smothing=1e-9)  # type: ignore[call-arg]
    TextClassifier(ngram_range=2)  # type: ignore[arg-type]
    NBSVM(c=1.0)  # type: ignore[call-arg]
    SemiSupervisedNB(TextClassifier(), max_iters=3)  # type: ignore[call-arg]
    NBSearchCV(MultinomialNB())  # type: ignore[call-arg]
    # and what is right passes
    MultinomialNB(alpha=0.5, fit_prior=False).fit([[1]], [0]).predict([[1]])
    SemiSupervisedNB(TextClassifier(model="bernoulli"), max_iter=3).get_params()
    clf = MultinomialNB()
    clf.note = "users may keep their own attributes on an estimator, as before"
    print(clf.classes_)  # fitted attributes read as Any
