"""The numpy-only half of a text model: statistics, settings, vocabulary, model file.

:class:`~nbayes.text.TextClassifier` (scikit-learn's estimator API and training) and
:class:`nbayes.text.scoring.TextScorer` (prediction only, without scikit-learn or scipy) share
what is here, so a model read by the lean path is validated and derived exactly as the
estimator validates and derives it: the hyperparameter checks, the vocabulary selection
(``min_df``, ``max_df``, ``max_features``) (the model file's reader is
:mod:`nbayes.io._text_model`).
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from .._families import BernoulliFamily, ComplementFamily, Family, MultinomialFamily
from .._statistics import CountStats
from .._template import params as P
from ..exceptions import invalid_parameter
from . import _routes as routes
from ._stop_words import ENGLISH_STOP_WORDS
from ._textstats import TextStats, Vocabulary
from ._vocabulary import PackedTerms
from .recipes import resolve as resolve_recipe

__all__ = [
    "BucketNames",
    "CountedClasses",
    "Counting",
    "DERIVATION_PARAMS",
    "MODELS",
    "NO_TERM",
    "PARAM_NAMES",
    "PARAM_RULES",
    "Selection",
    "TextStats",
    "Vocabulary",
    "check_params",
    "derivation_values",
    "keeps_no_term",
    "ngram_of",
    "select_columns",
    "sklearn_like_selection",
    "stop_set",
]

#: the ``model`` choices of a TextClassifier
MODELS = ("multinomial", "bernoulli", "complement")

#: TextClassifier's hyperparameters (``get_params`` order; the tests check they agree)
PARAM_NAMES = (
    "alpha", "binary", "class_prior", "fit_prior", "force_alpha", "hashing", "lowercase",
    "max_df", "max_features", "min_df", "model", "n_features", "ngram_range", "norm",
    "preprocess", "stop_words",
)  # fmt: skip

#: the hyperparameters the likelihood family derives the log-probabilities with (each
#: family reads those it knows: ``norm`` is complement's only)
DERIVATION_PARAMS = ("alpha", "force_alpha", "fit_prior", "class_prior", "norm")

PARAM_RULES: dict[str, list[P.Rule]] = {
    "alpha": [P.non_negative_real],
    "binary": [P.boolean],
    "lowercase": [P.boolean],
    "hashing": [P.boolean],
    "n_features": [P.non_negative_int(1)],
    "fit_prior": [P.boolean],
    "class_prior": [P.array_like, P.none],
    "force_alpha": [P.boolean],
    "norm": [P.boolean],
    "max_features": [P.none, P.non_negative_int(1)],
}


#: the starts of :func:`sklearn_like_selection`'s refusals of a vocabulary that keeps no
#: term (scikit-learn's words): a model that has learnt too few documents for its min_df,
#: or whose documents its max_df and min_df leave nothing of
NO_TERM = ("max_df corresponds to < documents than min_df", "After pruning, no terms remain")


def keeps_no_term(exc: BaseException) -> bool:
    """Whether ``exc`` is :func:`sklearn_like_selection`'s refusal of a vocabulary that
    keeps no term (a model too young to predict, not a broken one)."""
    return isinstance(exc, ValueError) and str(exc).startswith(NO_TERM)


def sklearn_like_selection(
    terms: Sequence[str] | None,
    doc_freq: np.ndarray,
    term_freq: np.ndarray,
    n_docs: int,
    min_df: Any,
    max_df: Any,
    max_features: int | None,
) -> np.ndarray:
    """Columns a CountVectorizer with these settings would keep, in its (sorted) order."""
    seen = np.flatnonzero(doc_freq > 0)
    if isinstance(terms, PackedTerms):
        cols = terms.order(seen)  # compiled, on the bytes: no str per term
    elif terms is not None:
        order = sorted(seen.tolist(), key=terms.__getitem__)
        cols = np.asarray(order, dtype=np.int64)
    else:
        cols = seen
    max_doc = float(max_df if isinstance(max_df, Integral) else max_df * n_docs)
    min_doc = float(min_df if isinstance(min_df, Integral) else min_df * n_docs)
    if max_doc < min_doc:
        raise ValueError("max_df corresponds to < documents than min_df")  # (scikit-learn's)
    df = doc_freq[cols]
    mask = np.ones(len(cols), dtype=bool)
    if max_doc < n_docs:
        mask &= df <= max_doc
    if min_doc > 1:
        mask &= df >= min_doc
    if max_features is not None and mask.sum() > max_features:
        tfs = term_freq[cols]
        mask_inds = (-tfs[mask]).argsort()[:max_features]
        new_mask = np.zeros(len(cols), dtype=bool)
        new_mask[np.where(mask)[0][mask_inds]] = True
        mask = new_mask
    kept = cols[mask]
    if len(kept) == 0 and len(cols) > 0:
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    return kept


class BucketNames(Sequence[str]):
    """``"bucket j"`` for the kept hashed columns, made on access (a hashed model keeps
    up to 2**20 columns: a list of their names would be ~70 MB)."""

    def __init__(self, kept: np.ndarray) -> None:
        self._kept = kept

    def __len__(self) -> int:
        return len(self._kept)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [f"bucket {j}" for j in self._kept[i].tolist()]
        return f"bucket {int(self._kept[i])}"


# ------------------------------------------------------------------------------ settings


def ngram_of(ngram_range: Any) -> tuple[int, int]:
    """``ngram_range`` as a pair of ints (ValueError if it is not a pair of integers: 1.5
    was read as 1)."""
    try:
        lo, hi = ngram_range
        return operator.index(lo), operator.index(hi)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"ngram_range must be a tuple of two integers (min_n, max_n); got {ngram_range!r}."
        ) from exc


def stop_set(stop_words: Any) -> frozenset[str] | None:
    """The stop words as a set: None, scikit-learn's English list, or the words given."""
    if stop_words is None:
        return None
    if stop_words == "english":
        return frozenset(ENGLISH_STOP_WORDS)
    return frozenset(stop_words)


#: the likelihood family of each TextClassifier ``model`` (families are stateless)
FAMILIES: dict[str, Family] = {
    "multinomial": MultinomialFamily(),
    "bernoulli": BernoulliFamily(),
    "complement": ComplementFamily(),
}


@dataclass(frozen=True, eq=False)
class Counting:
    """How a text model counts documents, read once from its hyperparameters: what the
    counting (``_batch``, ``_streaming``, ``_cv``) and the scorer ask, instead of reading
    the estimator. :meth:`of` builds it from an object with TextClassifier's
    hyperparameters as attributes (the estimator, :class:`~nbayes.text.TextSettings`) or
    from a mapping of them (``get_params()``, a model file's); they are validated before
    (``check_params``).

    The batch's way is a composition of three steps (:mod:`nbayes.text._routes`): how the
    documents become terms (``tokens``, from ``ngram``), how the terms are indexed (a
    vocabulary, or ``hashing`` into ``n_features`` buckets) and how the counts are
    accumulated (chosen per call: class sums, weighted rows, running totals).
    """

    model: str
    family: Family
    lowercase: bool
    #: ``ngram_range`` as ints
    ngram: tuple[int, int]
    #: ``stop_words`` as given (None, "english", or words) and as a set
    stop_words: Any
    stop: frozenset[str] | None
    #: the ``binary`` hyperparameter, and whether counts are clipped to presence (``binary``
    #: or a Bernoulli model)
    binary: bool
    clip: bool
    hashing: bool
    n_features: int
    #: the ``preprocess`` step, resolved (None: none)
    preprocess: Callable[[str], str] | None
    #: whether the term frequencies (what ``max_features`` ranks by) are counted apart
    #: from the class sums: a Bernoulli model counts presence, but the Pipeline it equals
    #: (``CountVectorizer(binary=False)`` + ``BernoulliNB``) ranks terms by their raw
    #: counts; hashed buckets have no Pipeline to follow: they rank by what they sum
    raw_frequencies: bool

    @classmethod
    def of(cls, params: Any) -> Counting:
        get = params.__getitem__ if isinstance(params, Mapping) else params.__getattribute__
        model = get("model")
        family = FAMILIES[model]
        ngram = ngram_of(get("ngram_range"))
        stop_words = get("stop_words")
        binary = bool(get("binary"))
        hashing = bool(get("hashing"))
        return cls(
            model=model, family=family, lowercase=bool(get("lowercase")), ngram=ngram,
            stop_words=stop_words, stop=stop_set(stop_words), binary=binary,
            clip=binary or family.presence, hashing=hashing,
            n_features=int(get("n_features")), preprocess=resolve_recipe(get("preprocess")),
            raw_frequencies=family.presence and not binary and not hashing,
        )  # fmt: skip

    @property
    def tokens(self) -> str:
        """The tokenizing step (``routes.tokens(ngram)``)."""
        return routes.tokens(self.ngram)

    def plan(self, *, weighted: bool, stream: bool = False) -> routes.Plan:
        """The steps of a batch counted with these settings (:func:`routes.batch`: the
        tokenizing step is chosen there, from ``ngram``)."""
        return routes.batch(ngram=self.ngram, hashing=self.hashing, weighted=weighted,
                            stream=stream)  # fmt: skip


class CountedClasses:
    """The fitted attributes a text model reads straight from its statistics: shared by
    :class:`TextClassifier` and the lean :class:`~nbayes.text.TextSettings`."""

    _stats: Any

    @property
    def classes_(self) -> np.ndarray:
        return self._stats.counts.classes

    @property
    def class_count_(self) -> np.ndarray:
        return self._stats.counts.class_count


class CountingHooks:
    """What the learning calls ask of a text model's settings, read from its
    hyperparameters: shared by :class:`TextClassifier` and the lean
    :class:`~nbayes.text.TextSettings`, so the two count alike. The counting itself reads
    the :class:`Counting` value of :meth:`_counting`, built once per learning call."""

    model: str
    binary: bool
    ngram_range: Any
    stop_words: Any

    @property
    def _family(self) -> Family:
        """The likelihood family of ``model``."""
        return FAMILIES[self.model]

    def _check_params(self) -> None:
        check_params(self)

    def _counting(self, check: bool = False) -> Counting:
        """The counting settings of the current hyperparameters, validated first with
        ``check`` (else they were: ``_check_params``)."""
        if check:
            self._check_params()
        return Counting.of(self)

    def _ngram(self) -> tuple[int, int]:
        return ngram_of(self.ngram_range)

    def _stop_set(self) -> frozenset[str] | None:
        return stop_set(self.stop_words)

    @property
    def _clip(self) -> bool:
        """Whether counts are clipped to presence (``binary``, or a Bernoulli model)."""
        return bool(self.binary or self._family.presence)


def check_params(est: Any, who: str = "TextClassifier") -> None:
    """Validate the hyperparameters of ``est`` (any object with TextClassifier's
    hyperparameters as attributes): InvalidParameterError or ValueError otherwise."""
    P.validate(est, PARAM_RULES, who)
    resolve_recipe(est.preprocess)
    if est.model not in MODELS:
        raise ValueError(
            f"The 'model' parameter of TextClassifier must be one of "
            f"{sorted(MODELS)}. Got {est.model!r} instead."
        )
    lo, hi = ngram_of(est.ngram_range)
    if not 1 <= lo <= hi:
        raise ValueError(
            f"Invalid value for ngram_range={est.ngram_range!r}: lower boundary larger "
            "than the upper boundary, or below 1."
        )
    for name in ("min_df", "max_df"):
        v = getattr(est, name)
        ok = (isinstance(v, Integral) and not isinstance(v, bool) and int(v) >= 0) or (
            isinstance(v, Real) and not isinstance(v, Integral) and 0.0 <= float(v) <= 1.0
        )
        if not ok:
            raise invalid_parameter(
                f"The {name!r} parameter of TextClassifier must be an int >= 0 or a "
                f"float in [0.0, 1.0]. Got {v!r} instead.",
                param=name,
                value=v,
                accepted=["a document count >= 0 or a fraction from 0 to 1"],
            )
    if est.stop_words is not None and est.stop_words != "english":
        if isinstance(est.stop_words, str) or not isinstance(est.stop_words, Iterable):
            raise ValueError(
                f"stop_words must be 'english', a list of words or None; got {est.stop_words!r}."
            )


def derivation_values(params: Mapping[str, Any]) -> dict[str, Any]:
    """The hyperparameters a family's ``derive`` reads, from TextClassifier's."""
    return {name: params[name] for name in DERIVATION_PARAMS}


# ---------------------------------------------------------------------------- selection


def _is_terms(terms: Any) -> bool:
    """Whether ``terms`` are a fit's sorted :class:`~nbayes.text._tokenize.Terms` (only
    then is the kernel module loaded: a list of terms never needs it)."""
    tk = sys.modules.get("nbayes.text._tokenize")
    return tk is not None and isinstance(terms, tk.Terms)


@dataclass(frozen=True, slots=True, eq=False)
class Selection:
    """The columns a text model keeps (``min_df``, ``max_df``, ``max_features``) and how
    documents find them (:func:`select_columns`).

    Attributes
    ----------
    kept : ndarray of int
        The kept columns of the statistics, in the order of the model's columns.
    inner_stats : CountStats
        The statistics of the kept columns (what the family derives from).
    names : sequence of str
        The kept terms, or ``"bucket j"`` when hashing.
    vocabulary : mapping or None
        Term -> model column (None when hashing).
    lut : ndarray or None
        Bucket -> model column, -1 if not kept (hashing only).
    """

    kept: np.ndarray
    inner_stats: CountStats
    names: Sequence[str]
    vocabulary: Any = None
    lut: np.ndarray | None = None


def _in_column_order(index: Mapping[str, int] | None, n: int) -> bool:
    """Whether ``index`` maps its ``n`` terms, in their order, to 0, 1, ..., n - 1."""
    if not isinstance(index, dict) or len(index) != n:
        return False
    return bool((np.fromiter(index.values(), np.int64, n) == np.arange(n)).all())


def select_columns(
    stats: TextStats,
    terms: Sequence[str] | None,
    *,
    min_df: Any,
    max_df: Any,
    max_features: int | None,
    n_features: int,
    mapping: Any = dict,
    index: Mapping[str, int] | None = None,
) -> Selection:
    """The columns a model keeps (``min_df``, ``max_df``, ``max_features``) and how
    documents find them.

    ``terms`` are the terms of the statistics' columns in order (a fit's sorted
    ``Terms``, the ``PackedTerms`` of a model file, or a list), or None for a hashing
    model. Returns the :class:`Selection` (its ``vocabulary``: ``TermColumns`` over
    ``Terms``, else ``mapping`` of the pairs term -> model column). ``index``: the
    statistics' own term -> column dict, if made (copied when every term is kept).
    """
    fit_terms = _is_terms(terms)
    packed = terms if isinstance(terms, PackedTerms) else None
    # a fit's sorted Terms (or sorted packed terms): column order is term order, no str
    # needed to select
    in_order = fit_terms or (packed is not None and packed.sorted)
    kept = sklearn_like_selection(
        None if in_order else terms, stats.doc_freq, stats.term_freq, stats.n_docs,
        min_df, max_df, max_features,
    )  # fmt: skip
    c = stats.counts
    fc = c.feature_count
    every = len(kept) == fc.shape[1] and not (np.diff(kept) != 1).any()  # all, in order
    if not every:  # else no copy
        fc = fc[:, kept]
    inner = CountStats(c.classes, c.class_count, fc)
    if fit_terms or packed is not None:
        from ._tokenize import TermColumns

        assert terms is not None
        if every:
            return Selection(kept, inner, terms, TermColumns(terms))  # type: ignore[arg-type]
        if packed is not None:  # the kept terms, in term order: sorted, searchable
            taken = packed.take(kept, in_order=True)
            return Selection(kept, inner, taken, TermColumns(taken))
        vocabulary = TermColumns(terms, kept)  # type: ignore[arg-type]
        return Selection(kept, inner, [terms[j] for j in kept.tolist()], vocabulary)
    if terms is not None:
        if every and _in_column_order(index, len(terms)):
            # a copy of the counting's own dict (its stored hashes, no str touched): made
            # again from the strings, a bigram fit's 3 million terms took 1.7 s in one call
            return Selection(kept, inner, list(terms), mapping(index))
        names = [terms[j] for j in kept]
        return Selection(kept, inner, names, mapping(zip(names, range(len(names)), strict=True)))
    lut = np.full(n_features, -1, dtype=np.int64)
    lut[kept] = np.arange(len(kept))
    return Selection(kept, inner, BucketNames(kept), lut=lut)
