"""The drop-ins' counterparts in scikit-learn: a model's statistics as scikit-learn's fitted
attributes (``to_sklearn``) and back (``from_sklearn``).

scikit-learn's five Naive Bayes models keep their sufficient statistics among their fitted
attributes, so a conversion is a copy of the statistics and the hyperparameters, plus the
derived attributes (``feature_log_prob_``, ``class_log_prior_``, ...), which nbayes derives
bit for bit as scikit-learn does:

* ``MultinomialNB``, ``BernoulliNB``, ``ComplementNB``: ``class_count_`` and
  ``feature_count_`` are the statistics, exactly, both ways.
* ``CategoricalNB``: ``class_count_`` and ``category_count_``, exactly, both ways, for
  integer-coded categories (scikit-learn's only kind; labelled ones do not convert).
* ``GaussianNB``: the means are ``theta_``; the sums of squared deviations ``M2`` are
  recovered from ``var_ = M2 / n + epsilon_`` as the value whose derivation gives ``var_``
  back bit for bit (so the converted model predicts as the original), which is ``M2`` to the
  precision of ``var_``: where ``epsilon_`` dwarfs a variance, the digits of that variance
  below ``epsilon_``'s rounding are not in ``var_`` and are lost. Lost too: the second
  word of the mean nbayes keeps (exact unlearning after many updates), and the moments of
  all rows behind ``epsilon_``, which scikit-learn does not keep; they are rebuilt from the
  classes' pooled moments, exactly so for a model fitted by one unweighted ``fit``, and
  otherwise scaled to reproduce ``epsilon_`` (docs/interop.md).

A converted model is checked: every derived attribute of the scikit-learn model must be
what its statistics and hyperparameters give (to 1e-9), so a model whose attributes were
changed after fitting (``set_params(alpha=...)`` without a refit, an attribute set by hand)
or that an older scikit-learn fitted is refused with the reason, not converted into a model
that predicts differently.

This module is the drop-ins' base :class:`SklearnCounterpart`; it reaches the models'
private state as the model-file serialisers do: ``_stats``, ``_set_stats``,
``_check_params``, ``_check_derivation`` and ``_derived``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Self

import numpy as np

from .._families.gaussian import largest_variance
from .._statistics import CategoryStats, CountStats, MomentStats
from .._template.array_api import Outputs

__all__ = ["SklearnCounterpart", "from_sklearn", "to_sklearn"]

#: the module of the drop-ins (a class defined elsewhere is a subclass of one)
_DROP_INS = "nbayes.naive_bayes"

#: relative tolerance of the check that scikit-learn's derived attributes are what the
#: statistics give (nbayes derives them bit for bit as scikit-learn 1.6 to 1.9 does)
_RTOL = 1e-9
_RTOL_FLOAT32 = 4e-7  # (a few ulps of float32)


class SklearnCounterpart:
    """Conversion to and from scikit-learn's model of the same name: the base of the five
    drop-ins that scikit-learn also has (all but :class:`~nbayes.PoissonNB`)."""

    def to_sklearn(self) -> Any:
        """This model as scikit-learn's model of the same name, predicting the same.

        An unfitted model gives an unfitted one with the same hyperparameters. A fitted
        one gives a fitted one whose counts (``class_count_``, ``feature_count_``,
        ``category_count_``; ``GaussianNB``'s ``theta_``, ``var_``, ``epsilon_``) are this
        model's statistics and whose derived attributes are what scikit-learn's ``fit``
        derives from them, so it predicts the same probabilities (to rounding, 1e-15) and
        its ``partial_fit`` continues from this model's data. The result shares no array
        with this model.

        Returns
        -------
        estimator : the ``sklearn.naive_bayes`` class of the same name

        Raises
        ------
        TypeError
            For a subclass of an nbayes drop-in (scikit-learn's model would not keep what
            the subclass changes).
        ValueError
            For what scikit-learn's model cannot hold: a ``CategoricalNB`` fitted on
            labelled (e.g. string) categories.

        See Also
        --------
        from_sklearn : the inverse; docs/interop.md says what converts exactly.

        Examples
        --------
        >>> import nbayes
        >>> X, y = [[2, 0, 1], [0, 3, 1], [1, 1, 0]], ["ham", "spam", "ham"]
        >>> model = nbayes.MultinomialNB().fit(X, y)
        >>> sk = model.to_sklearn()
        >>> type(sk)
        <class 'sklearn.naive_bayes.MultinomialNB'>
        >>> bool(abs(sk.predict_proba(X) - model.predict_proba(X)).max() < 1e-12)
        True
        """
        return to_sklearn(self)

    @classmethod
    def from_sklearn(cls, model: Any) -> Self:
        """The nbayes model of a scikit-learn model of the same name, with its statistics.

        The result predicts the same probabilities as ``model`` (to rounding) and, holding
        its statistics, can ``update``, ``unlearn``, ``merge`` and ``explain``: updating it
        equals an nbayes model fitted on all the data. An unfitted ``model`` gives an
        unfitted one with the same hyperparameters. ``model`` is not changed, and the result
        shares no array with it.

        Parameters
        ----------
        model : the ``sklearn.naive_bayes`` class of the same name
            Fitted or not; not a subclass (its changes would be lost).

        Raises
        ------
        TypeError
            ``model`` is not exactly scikit-learn's class of this name.
        ValueError
            Its fitted attributes are not a model's that nbayes can hold: missing (fitted by
            another scikit-learn version), malformed, or changed after fitting (derived
            attributes that its counts and hyperparameters do not give, e.g. after
            ``set_params(alpha=...)`` without a refit).

        See Also
        --------
        to_sklearn : the inverse; docs/interop.md says what converts exactly.

        Examples
        --------
        >>> import sklearn.naive_bayes
        >>> import nbayes
        >>> sk = sklearn.naive_bayes.MultinomialNB().fit([[2, 0], [0, 3]], ["ham", "spam"])
        >>> model = nbayes.MultinomialNB.from_sklearn(sk)
        >>> model.update([[1, 1]], ["eggs"]).classes_  # a new class: beyond partial_fit
        array(['eggs', 'ham', 'spam'], dtype='<U4')
        >>> model.unlearn([[1, 1]], ["eggs"]).feature_count_
        array([[2., 0.],
               [0., 3.]])
        """
        return from_sklearn(cls, model)


# --------------------------------------------------------------------------------------
# the classes on both sides
# --------------------------------------------------------------------------------------


def _sklearn_class(name: str) -> type:
    # imported on use: the drop-ins import this module, and a text model's fast path
    # loads no more of scikit-learn than it needs
    from sklearn import naive_bayes

    return getattr(naive_bayes, name)


def _drop_in_name(cls: type) -> str:
    """The name of the drop-in ``cls`` is (TypeError for a subclass of one)."""
    if cls.__module__ == _DROP_INS and cls.__name__ in _KINDS:
        return cls.__name__
    base = next(
        (c.__name__ for c in cls.__mro__ if c.__module__ == _DROP_INS and c.__name__ in _KINDS),
        "?",
    )
    raise TypeError(
        f"{cls.__qualname__} is a subclass of nbayes.{base}: scikit-learn's {base} would not "
        f"keep what it changes, so it does not convert. Convert an nbayes.{base} (e.g. "
        f"nbayes.{base}(**model.get_params()) refitted), or convert in the subclass itself."
    )


def _hyperparameters(params: dict[str, Any], to: type, frm: type) -> dict[str, Any]:
    """``params`` (of a ``frm``) for the constructor of ``to``: deep copies, and a
    parameter ``to`` does not have is dropped if it has its default, refused otherwise."""
    known = set(to().get_params(deep=False))
    defaults = frm().get_params(deep=False)
    extra = [k for k, v in params.items() if k not in known and not _same(v, defaults.get(k, v))]
    if extra:
        shown = ", ".join(f"{k}={params[k]!r}" for k in extra)
        raise ValueError(
            f"{_qualname(to)} has no parameter {shown} (a parameter of {_qualname(frm)}); "
            "with its default value the model would convert. Set it to its default, or fit "
            f"the {_qualname(to)} with the parameters it has."
        )
    return {k: copy.deepcopy(v) for k, v in params.items() if k in known}


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
    except (TypeError, ValueError):  # pragma: no cover - values numpy cannot hold
        return a is b


def _qualname(cls: type) -> str:
    module = cls.__module__.split(".")[0]
    return f"{module}.{cls.__name__}" if module in ("nbayes", "sklearn") else cls.__qualname__


# --------------------------------------------------------------------------------------
# nbayes -> scikit-learn
# --------------------------------------------------------------------------------------


def to_sklearn(model: Any) -> Any:
    """scikit-learn's model of the same name as ``model``, predicting the same (see
    :meth:`SklearnCounterpart.to_sklearn`)."""
    name = _drop_in_name(type(model))
    sk_cls = _sklearn_class(name)
    params = _hyperparameters(model.get_params(deep=False), sk_cls, type(model))
    out = sk_cls(**params)
    if not model.__sklearn_is_fitted__():
        return out
    model._check_params()  # a setting changed since the fit (set_params) is refused
    for attr, value in _KINDS[name].attributes(model).items():
        setattr(out, attr, value)
    out.n_features_in_ = int(model.n_features_in_)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        out.feature_names_in_ = np.array(names, dtype=object)
    return out


def _copy(arr: Any, dtype: Any = np.float64) -> np.ndarray:
    """A writable copy (scikit-learn's ``partial_fit`` adds to its counts in place)."""
    return np.array(arr, dtype=dtype, copy=True)


def _count_attributes(model: Any) -> dict[str, Any]:
    out = {
        "classes_": np.array(model._stats.classes, copy=True),
        "class_count_": _copy(model._stats.class_count),
        "feature_count_": _copy(model._stats.feature_count),
        "feature_log_prob_": _copy(model.feature_log_prob_),
        "class_log_prior_": _copy(model.class_log_prior_),
    }
    if type(model).__name__ == "ComplementNB":
        out["feature_all_"] = _copy(model.feature_all_)
    return out


def _category_attributes(model: Any) -> dict[str, Any]:
    stats = model._stats
    if not stats.integer_coded:
        raise ValueError(
            "This CategoricalNB was fitted on labelled categories (e.g. strings): "
            "scikit-learn's CategoricalNB reads integer codes 0, 1, ... only. Encode the "
            "columns (sklearn.preprocessing.OrdinalEncoder(categories=model.categories_) "
            "gives each category its column in the counts) and fit on the codes."
        )
    return {
        "classes_": np.array(stats.classes, copy=True),
        "class_count_": _copy(stats.class_count),
        "category_count_": [_copy(c) for c in stats.category_count],
        "feature_log_prob_": [_copy(f) for f in model.feature_log_prob_],
        "class_log_prior_": _copy(model.class_log_prior_),
        "n_categories_": np.array([c.shape[1] for c in stats.category_count], dtype=np.int64),
    }


def _moment_attributes(model: Any) -> dict[str, Any]:
    # numpy arrays in the float type of the training data, as scikit-learn's fit on it
    # (a model fitted on another array-API namespace gives numpy arrays)
    dtype = np.dtype(model._outputs().dtype)
    derived = model._derived()
    return {
        "classes_": np.array(model._stats.classes, copy=True),
        "class_count_": _copy(model._stats.class_count, dtype),
        "theta_": _copy(model._stats.mean, dtype),
        "var_": _copy(derived["var"], dtype),
        "epsilon_": model.epsilon_,  # (the scalar type scikit-learn's fit gives)
        "class_prior_": _copy(derived["class_prior"], dtype),
    }


# --------------------------------------------------------------------------------------
# scikit-learn -> nbayes
# --------------------------------------------------------------------------------------


def from_sklearn(cls: type, model: Any) -> Any:
    """The ``cls`` (an nbayes drop-in) of scikit-learn's ``model`` of the same name (see
    :meth:`SklearnCounterpart.from_sklearn`)."""
    name = _drop_in_name(cls)
    sk_cls = _sklearn_class(name)
    _check_type(model, sk_cls, name)
    out = cls(**_hyperparameters(model.get_params(deep=False), cls, sk_cls))
    if not hasattr(model, "classes_"):  # scikit-learn's models set classes_ first
        return out
    out._check_params()
    kind = _KINDS[name]
    missing = [a for a in (*_HEADER, *kind.reads) if not hasattr(model, a)]
    if missing:
        raise ValueError(
            f"Cannot convert this {name}: it lacks the fitted attribute(s) {missing} that "
            f"scikit-learn >= 1.6 sets (was it fitted by another scikit-learn version? "
            f"{_older_names(model)}). Refit it with this scikit-learn, or fit "
            f"nbayes.{name} on the data."
        )
    sheet = _Sheet(model, name)
    stats = kind.statistics(sheet, out)
    out.n_features_in_ = sheet.n_features
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        out.feature_names_in_ = np.array(names, dtype=object)
    out._set_stats(stats)
    out._check_derivation()
    # (a model fitted on float32 rows derives in float32: numpy 1.x then gave epsilon_ as a
    # float64 of a float32 variance, an ulp of float32 from nbayes's)
    single = any(
        getattr(getattr(model, a, None), "dtype", None) == np.float32
        for a in ("var_", "theta_", "feature_log_prob_")
    )
    for attr in kind.derived:
        expected = sheet.expect.get(attr, getattr(model, attr))
        _check_derived(name, attr, expected, getattr(out, attr), _RTOL_FLOAT32 if single else _RTOL)
    return out


#: what every fitted model has
_HEADER = ("classes_", "class_count_", "n_features_in_")


def _check_type(model: Any, sk_cls: type, name: str) -> None:
    if type(model) is sk_cls:
        return
    if isinstance(model, sk_cls):
        raise TypeError(
            f"{type(model).__qualname__} is a subclass of sklearn.naive_bayes.{name}: nbayes "
            f"would not keep what it changes, so it does not convert. Convert a "
            f"sklearn.naive_bayes.{name} (or the subclass's statistics by hand)."
        )
    counterpart = type(model).__name__
    if type(model).__module__.startswith("nbayes."):
        hint = " It is already an nbayes model (sklearn.base.clone copies it)."
    elif type(model).__module__ == "sklearn.naive_bayes" and counterpart in _KINDS:
        hint = f" Use nbayes.{counterpart}.from_sklearn for it."
    else:
        hint = ""
    raise TypeError(
        f"nbayes.{name}.from_sklearn converts a sklearn.naive_bayes.{name}; got a "
        f"{type(model).__module__}.{type(model).__qualname__}.{hint}"
    )


def _older_names(model: Any) -> str:
    """What an older scikit-learn called the attributes this one lacks."""
    old = {"sigma_": "var_", "n_features_": "n_features_in_"}
    had = [f"{o} (now {n})" for o, n in old.items() if hasattr(model, o)]
    return f"it has {', '.join(had)}" if had else "its attributes differ"


class _Sheet:
    """scikit-learn's fitted attributes, read and checked: shapes, finite, non-negative."""

    def __init__(self, model: Any, name: str) -> None:
        self.model, self.name = model, name
        self.classes = _classes(model.classes_, name)
        self.n_classes = len(self.classes)
        self.n_features = int(model.n_features_in_)
        self.class_count = self.floats("class_count_", (self.n_classes,))
        #: what a derived attribute must be where it is not scikit-learn's (see GaussianNB)
        self.expect: dict[str, Any] = {}

    def floats(self, attr: str, shape: tuple[int, ...], value: Any = None) -> np.ndarray:
        """The float64 values of an attribute of ``shape``: finite and non-negative."""
        raw = getattr(self.model, attr) if value is None else value
        try:
            arr = np.array(raw, dtype=np.float64, copy=True)
        except (TypeError, ValueError):
            arr = np.zeros(0)
            shape = (-1,)  # a mismatch: reported below
        if arr.shape != shape:
            raise ValueError(
                f"Cannot convert this {self.name}: {attr} has shape {np.shape(raw)}; a model "
                f"of {self.n_classes} classes and {self.n_features} features has {shape}."
            )
        if not np.isfinite(arr).all() or (arr < 0).any():
            raise ValueError(
                f"Cannot convert this {self.name}: {attr} holds negative or non-finite values "
                f"(from {float(np.min(arr))!r} to {float(np.max(arr))!r}); a fitted model's "
                "counts are finite and non-negative."
            )
        return arr


def _classes(value: Any, name: str) -> np.ndarray:
    classes = np.array(value, copy=True)
    try:
        ordered = classes.ndim == 1 and bool(np.all(classes[1:] > classes[:-1]))
    except TypeError:
        ordered = False
    if not ordered or len(classes) == 0:
        raise ValueError(
            f"Cannot convert this {name}: classes_ must be the sorted distinct labels (as "
            f"fit sets them); got {classes!r}."
        )
    return classes


def _check_derived(name: str, attr: str, theirs: Any, ours: Any, rtol: float = _RTOL) -> None:
    """scikit-learn's derived attribute must be what the statistics give (to ``rtol``)."""
    pairs = list(zip(theirs, ours, strict=True)) if isinstance(theirs, list) else [(theirs, ours)]
    worst = 0.0
    for a, b in pairs:
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        same = a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=0.0, equal_nan=True)
        if not same:
            worst = float(np.max(np.abs(a - b))) if a.shape == b.shape else np.inf
            break
    if worst:
        raise ValueError(
            f"Cannot convert this {name}: its {attr} is not what its counts and "
            f"hyperparameters give (they differ by up to {worst:.3g}). It was changed after "
            "fitting: set_params (e.g. alpha) without a refit, or an attribute set by hand. "
            "nbayes's model is its counts: refit the scikit-learn model, or set its "
            "hyperparameters back, and convert again."
        )


def _count_statistics(sheet: _Sheet, model: Any) -> CountStats:
    shape = (sheet.n_classes, sheet.n_features)
    return CountStats(sheet.classes, sheet.class_count, sheet.floats("feature_count_", shape))


def _category_statistics(sheet: _Sheet, model: Any) -> CategoryStats:
    counts = list(sheet.model.category_count_)
    if len(counts) != sheet.n_features:
        raise ValueError(
            f"Cannot convert this CategoricalNB: category_count_ holds {len(counts)} arrays "
            f"for {sheet.n_features} features; it has one per feature."
        )
    blocks = []
    for j, c in enumerate(counts):
        k = int(np.shape(c)[-1]) if np.ndim(c) == 2 else -1
        blocks.append(sheet.floats(f"category_count_[{j}]", (sheet.n_classes, k), c))
    model._integer_coded = True
    categories = tuple(np.arange(b.shape[1], dtype=np.int64) for b in blocks)
    return CategoryStats(sheet.classes, sheet.class_count, tuple(blocks), categories, True)


def _moment_statistics(sheet: _Sheet, model: Any) -> MomentStats:
    shape = (sheet.n_classes, sheet.n_features)
    n = sheet.class_count
    theta = np.array(sheet.model.theta_, dtype=np.float64, copy=True)
    if theta.shape != shape or not np.isfinite(theta).all():
        raise ValueError(
            f"Cannot convert this GaussianNB: theta_ must be finite of shape {shape}; got "
            f"shape {theta.shape}."
        )
    var = sheet.floats("var_", shape)
    (epsilon,) = sheet.floats("epsilon_", (1,), np.reshape(sheet.model.epsilon_, (1,)))
    dtype = np.asarray(sheet.model.theta_).dtype
    if dtype == np.float32:  # answers in float32, as the model fitted on float32 data
        model._output_space = Outputs(None, None, "float32")
    seen = (n > 0)[:, None]
    # scikit-learn's partial_fit takes epsilon_ from the latest batch and subtracts it from
    # variances that hold an earlier one: a variance it kept may be below epsilon_, where no
    # M2 >= 0 gives it. The epsilon of the converted model is then that smallest variance
    # (the variances, so the predictions, are still scikit-learn's). A class never seen
    # (count 0) keeps the variance of no data, epsilon: its var_ is not read.
    held = var[np.broadcast_to(seen, var.shape)]
    epsilon = min(epsilon, float(held.min())) if held.size else epsilon
    sheet.expect["epsilon_"] = epsilon
    sheet.expect["var_"] = np.where(seen, var, epsilon)
    # the variance before epsilon was added, then M2: each the value whose derivation
    # (var = M2 / n + epsilon) gives scikit-learn's var_ back, as far as floats allow
    with np.errstate(divide="ignore", invalid="ignore"):
        m2 = _dividend(_addend(var, epsilon), n[:, None])
        # the two steps at once, where dividing cannot give the first step's value
        m2 = np.where(seen, _nudge(m2, lambda v: v / n[:, None] + epsilon, var), 0.0)
    theta = np.where(seen, theta, 0.0)
    rows, row_mean, row_m2 = _pooled(n, theta, m2)
    stats = MomentStats(sheet.classes, n, theta, m2, rows, row_mean, row_m2)
    return _with_epsilon(stats, epsilon, float(model.var_smoothing))


def _addend(total: np.ndarray, added: float) -> np.ndarray:
    """``x >= 0`` with ``x + added == total`` in floats, where one exists (else the
    nearest): the value ``added`` was added to."""
    x = np.maximum(total - added, 0.0)
    return _nudge(x, lambda v: v + added, total)


def _dividend(quotient: np.ndarray, divisor: np.ndarray) -> np.ndarray:
    """``x`` with ``x / divisor == quotient`` in floats, where one exists (divisor > 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _nudge(quotient * divisor, lambda v: v / divisor, quotient)


def _nudge(x: np.ndarray, f: Callable[[np.ndarray], np.ndarray], target: np.ndarray) -> np.ndarray:
    """Step ``x`` by units in the last place towards ``f(x) == target`` (a few steps: ``x``
    starts within rounding of the answer); where no double gives it exactly, the ``x``
    whose ``f(x)`` came nearest."""
    x = np.array(x, dtype=np.float64)
    best, gap = x, np.abs(f(x) - target)
    for _ in range(8):
        got = f(x)
        off = (got != target) & np.isfinite(got)
        if not off.any():
            break
        step = np.nextafter(x, np.where(got < target, np.inf, -np.inf))
        x = np.where(off, np.maximum(step, 0.0), x)
        now = np.abs(f(x) - target)
        nearer = now < gap
        best, gap = np.where(nearer, x, best), np.where(nearer, now, gap)
    return best


def _pooled(n: np.ndarray, theta: np.ndarray, m2: np.ndarray) -> tuple[float, Any, Any]:
    """The moments of all rows from the classes': the number of rows, mean and M2."""
    total = float(n.sum())
    d = theta.shape[1]
    if total <= 0:
        return 0.0, np.zeros(d), np.zeros(d)
    w = n[:, None]
    mean = (w * theta).sum(axis=0) / total
    pooled = m2.sum(axis=0) + (w * (theta - mean) ** 2).sum(axis=0)
    # the rows are a whole number, at least one per class seen (weights may be fractions)
    rows = float(max(round(total), int(np.count_nonzero(n > 0))))
    return rows, mean, pooled * (rows / total)


def _with_epsilon(stats: MomentStats, epsilon: float, var_smoothing: float) -> MomentStats:
    """The statistics with the rows' M2 made to give ``epsilon`` (``var_smoothing`` times
    their largest variance) bit for bit: the pooled moments of the classes, which are the
    rows' after one unweighted fit (to rounding: the largest is set to give ``epsilon``),
    else scaled to give it (weights, or partial_fit's ``epsilon_`` of the latest batch)."""
    if var_smoothing <= 0 or stats.n_rows <= 0:
        return stats  # epsilon is 0 (checked against epsilon_ with the other attributes)
    target = epsilon / var_smoothing
    largest = largest_variance(stats)
    row_m2 = stats.row_m2.copy()
    if not np.isclose(largest, target, rtol=_RTOL, atol=0.0):
        row_m2 = row_m2 * (target / largest) if largest > 0 else np.zeros_like(row_m2)
    j = int(np.argmax(row_m2))
    row_m2[j] = _nudge(
        np.array([target * stats.n_rows]),
        lambda v: var_smoothing * (v / stats.n_rows),
        np.array([epsilon]),
    )[0]
    row_m2 = np.minimum(row_m2, row_m2[j])  # ties within rounding: j stays the largest
    return MomentStats(
        stats.classes, stats.class_count, stats.mean, stats.m2, stats.n_rows,
        stats.row_mean, row_m2,
    )  # fmt: skip


class _Kind:
    """How one drop-in's statistics are scikit-learn's fitted attributes."""

    def __init__(
        self,
        reads: tuple[str, ...],
        derived: tuple[str, ...],
        attributes: Callable[[Any], dict[str, Any]],
        statistics: Callable[[_Sheet, Any], Any],
    ) -> None:
        self.reads = reads  # what from_sklearn reads, besides _HEADER
        self.derived = derived  # what it checks against the statistics
        self.attributes = attributes
        self.statistics = statistics


_DISCRETE = ("feature_log_prob_", "class_log_prior_")
_COUNTS = _Kind(("feature_count_", *_DISCRETE), _DISCRETE, _count_attributes, _count_statistics)

_KINDS = {
    "MultinomialNB": _COUNTS,
    "BernoulliNB": _COUNTS,
    "ComplementNB": _Kind(
        ("feature_count_", "feature_all_", *_DISCRETE),
        ("feature_all_", *_DISCRETE),
        _count_attributes,
        _count_statistics,
    ),
    "CategoricalNB": _Kind(
        ("category_count_", *_DISCRETE), _DISCRETE, _category_attributes, _category_statistics
    ),
    "GaussianNB": _Kind(
        ("theta_", "var_", "epsilon_", "class_prior_"),
        ("epsilon_", "var_", "class_prior_"),
        _moment_attributes,
        _moment_statistics,
    ),
}
