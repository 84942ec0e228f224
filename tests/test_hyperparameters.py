"""The estimators' constructors, written by ``nbayes._template.params.hyperparameters``:
scikit-learn's convention (store every argument under its name, nothing else) for every
nbayes estimator, and the drop-ins' parameters and defaults those of scikit-learn."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import numpy as np
import pytest
import sklearn.naive_bayes as sknb
from sklearn.base import BaseEstimator, clone
from sklearn.utils.estimator_checks import (
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
)

import nbayes
from nbayes._template.params import hyperparameters
from nbayes.model_selection import NBSearchCV

DROP_INS = ["BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB"]

ESTIMATORS = [
    *(getattr(nbayes, name)() for name in [*DROP_INS, "PoissonNB"]),
    nbayes.KernelNB(),
    nbayes.MixedNB(),
    nbayes.TextClassifier(),
    nbayes.NBSVM(),
    nbayes.SemiSupervisedNB(),
]


def _defaults(cls: type) -> dict[str, object]:
    return {
        name: p.default
        for name, p in inspect.signature(cls).parameters.items()
        if p.kind is not inspect.Parameter.VAR_KEYWORD
    }


@pytest.mark.parametrize("name", DROP_INS)
def test_drop_ins_take_scikit_learns_parameters_with_its_defaults(name: str) -> None:
    ours, theirs = _defaults(getattr(nbayes, name)), _defaults(getattr(sknb, name))
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == value or (ours[key] is None and value is None), key
    kinds = {p.kind for p in inspect.signature(getattr(nbayes, name)).parameters.values()}
    assert kinds == {inspect.Parameter.KEYWORD_ONLY}  # as in scikit-learn: by keyword only


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_constructors_follow_scikit_learns_convention(est: BaseEstimator) -> None:
    name = type(est).__name__
    check_no_attributes_set_in_init(name, est)
    check_parameters_default_constructible(name, est)
    params = est.get_params(deep=False)
    assert vars(type(est)(**params)) == params  # every argument stored, nothing else
    twin = clone(est)
    assert twin is not est and twin.get_params(deep=False).keys() == params.keys()
    assert twin != est  # no dataclass __eq__: estimators compare by identity, as before
    assert repr(type(est)()) == f"{name}()"  # scikit-learn's repr, not the dataclass one
    assert pickle.loads(pickle.dumps(est)).get_params(deep=False).keys() == params.keys()


def test_positional_parameters_stay_positional() -> None:
    assert nbayes.MixedNB({"a": "gaussian"}).columns == {"a": "gaussian"}
    semi = nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), max_iter=3)
    assert isinstance(semi.estimator, nbayes.MultinomialNB) and semi.max_iter == 3
    search = NBSearchCV(nbayes.MultinomialNB(), {"alpha": [1.0]}, cv=3)
    assert search.param_grid == {"alpha": [1.0]} and search.cv == 3
    with pytest.raises(TypeError, match="param_grid"):
        NBSearchCV(nbayes.MultinomialNB())  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        nbayes.MultinomialNB(0.5)  # type: ignore[misc]


def test_a_misspelt_hyperparameter_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match=r"^MultinomialNB.__init__\(\) .* 'alpah'"):
        nbayes.MultinomialNB(alpah=0.5)  # type: ignore[call-arg]


def test_subclasses_keep_and_extend_their_parents_hyperparameters() -> None:
    @hyperparameters
    class Smoothed(nbayes.MultinomialNB):
        floor: float = 0.0

    clf = Smoothed(alpha=0.5, floor=0.1)
    assert clf.get_params() == {**nbayes.MultinomialNB(alpha=0.5).get_params(), "floor": 0.1}
    X, y = np.array([[1, 0], [0, 2]]), [0, 1]
    assert np.array_equal(
        clf.fit(X, y).predict_proba(X), nbayes.MultinomialNB(alpha=0.5).fit(X, y).predict_proba(X)
    )

    class Plain(nbayes.MultinomialNB):  # scikit-learn's way still works without the decorator
        def __init__(self, *, alpha: float = 1.0, extra: int = 3) -> None:
            super().__init__(alpha=alpha)
            self.extra = extra

    assert Plain(extra=4).get_params()["extra"] == 4 and clone(Plain(extra=4)).extra == 4


def test_a_subclass_keeps_the_hyperparameters_of_every_decorated_base() -> None:
    # a decorated mixin's and the estimator's both, as a dataclass keeps every base's
    # fields (the nearest decorated ancestor's alone dropped MultinomialNB's alpha here)
    @hyperparameters
    class Smoothing(BaseEstimator):
        extra: float = 0.1

    @hyperparameters
    class Mine(Smoothing, nbayes.MultinomialNB):
        mine: int = 0

    assert list(inspect.signature(Mine).parameters) == [
        *inspect.signature(nbayes.MultinomialNB).parameters,
        "extra",
        "mine",
    ]
    est = Mine(alpha=0.5, extra=0.2, mine=1)
    assert clone(est).get_params() == {
        **nbayes.MultinomialNB(alpha=0.5).get_params(),
        "extra": 0.2,
        "mine": 1,
    }
    assert not dataclasses.is_dataclass(Mine)


def test_the_decorator_refuses_what_would_break_the_convention() -> None:
    with pytest.raises(TypeError, match="defines __init__"):

        @hyperparameters
        class Written(BaseEstimator):
            def __init__(self, alpha: float = 1.0) -> None:
                self.alpha = alpha

    with pytest.raises(TypeError, match=r"\['_cache'\].*ClassVar"):

        @hyperparameters
        class Private(BaseEstimator):
            alpha: float = 1.0
            _cache: dict[str, int] = dataclasses.field(default_factory=dict)

    with pytest.raises(TypeError, match="defines __post_init__.*at fit"):

        @hyperparameters
        class Checked(BaseEstimator):
            alpha: float = 1.0

            def __post_init__(self) -> None:  # would silently never run
                self.alpha = float(self.alpha)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_estimators_are_not_dataclasses(est: BaseEstimator) -> None:
    # Libraries treat a dataclass instance as the value of its fields: Dask tokenizes it by
    # them (two fitted models with the same hyperparameters would share graph keys and
    # one's results would be the other's), pandas makes a row of a list of them. The
    # decorator writes the constructor only.
    assert not dataclasses.is_dataclass(est)
    assert not dataclasses.is_dataclass(type(est))


def test_dask_tells_two_fits_with_the_same_hyperparameters_apart() -> None:
    dask = pytest.importorskip("dask")
    import dask.array as dask_array
    from dask.base import tokenize

    X = np.array([[1, 0], [0, 2], [3, 1]])
    a = nbayes.MultinomialNB().fit(X, [0, 1, 1])
    b = nbayes.MultinomialNB().fit(X, [1, 0, 0])
    assert tokenize(a) != tokenize(b)
    Xd = dask_array.from_array(X, chunks=2)
    got_a, got_b = (Xd.map_blocks(m.predict, drop_axis=1, dtype=int) for m in (a, b))
    pred_a, pred_b = dask.compute(got_a, got_b)  # one graph
    assert np.array_equal(pred_a, a.predict(X)) and np.array_equal(pred_b, b.predict(X))
