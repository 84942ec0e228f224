"""Cross-validation of TextClassifier by count subtraction equals a refitted Pipeline."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB
from sklearn.pipeline import make_pipeline

from nbayes import TextClassifier
from nbayes.model_selection import NBSearchCV, cross_validate

from .conftest import load_slice

DOCS, Y = load_slice("rt_slice.csv")
SK = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB, "complement": ComplementNB}


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"model": "bernoulli"},
        {"model": "complement", "norm": True},
        {"binary": True, "ngram_range": (1, 2)},
        {"min_df": 2, "max_df": 0.6},
        {"max_features": 200, "stop_words": "english"},
    ],
)
def test_scores_equal_a_refitted_pipeline(kw: dict) -> None:
    model = kw.get("model", "multinomial")
    vec = {k: v for k, v in kw.items() if k not in ("model", "norm")}
    nb = {"norm": kw["norm"]} if "norm" in kw else {}
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    alphas = [0.1, 0.5, 1.0]
    ours = cross_validate(TextClassifier(**kw), DOCS, Y, cv=cv, param_grid={"alpha": alphas})
    pipe = make_pipeline(CountVectorizer(**vec), SK[model](**nb))
    name = pipe.steps[-1][0]
    grid = GridSearchCV(pipe, {f"{name}__alpha": alphas}, cv=cv).fit(DOCS, Y)
    theirs = [[grid.cv_results_[f"split{k}_test_score"][i] for k in range(5)] for i in range(3)]
    np.testing.assert_array_equal(np.asarray(ours["test_score"]), theirs)


def test_min_df_is_swept_without_recounting() -> None:
    cv = KFold(4, shuffle=True, random_state=1)
    grid = {"min_df": [1, 2, 3], "alpha": [0.5, 1.0]}
    search = NBSearchCV(TextClassifier(), grid, cv=cv).fit(DOCS, Y)
    pipe = make_pipeline(CountVectorizer(), MultinomialNB())
    ref = GridSearchCV(
        pipe,
        {"countvectorizer__min_df": [1, 2, 3], "multinomialnb__alpha": [0.5, 1.0]},
        cv=cv,
    ).fit(DOCS, Y)
    np.testing.assert_array_equal(
        np.sort(search.cv_results_["mean_test_score"]), np.sort(ref.cv_results_["mean_test_score"])
    )
    assert search.best_score_ == ref.best_score_
    assert search.best_estimator_.predict(DOCS[:3]).shape == (3,)
