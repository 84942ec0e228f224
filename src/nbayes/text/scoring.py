"""Prediction without scikit-learn: a text model reduced to what scoring needs.

A :class:`TextScorer` holds what predicting and explaining with a
:class:`~nbayes.text.TextClassifier` needs and nothing more: the classes, the class
log-prior and the feature log-probabilities derived from the statistics (with the
estimators' own family code), the linear weights laid out one row per term, the
vocabulary lookup and the analyzer settings (lowercase, stop words, n-grams, binary
counts, hashing, the ``preprocess`` recipe). It imports numpy, the standard library and
numpy-only nbayes modules, never scikit-learn, scipy or pandas, so a process that only
predicts starts in a fraction of the time:

* :func:`nbayes.load_scorer` (in :mod:`nbayes.io.persist`) builds one from a model file
  without constructing the estimator (``nbayes predict`` and ``nbayes explain`` use it);
* a fitted TextClassifier scores through one (built on first use from its statistics,
  cached with its derivation: changing the statistics, ``alpha`` or any other
  hyperparameter makes a new one), so the two cannot disagree.

A single document of a vocabulary model is counted in pure Python (``re`` and dict
look-ups); a batch, and hashed text, go through the compiled kernels of
:mod:`nbayes.text._tokenize` and :mod:`nbayes.text._drivers.hashing` (imported then), the product
with the weights through :func:`nbayes.text._drivers.sparse_dot.csr_dot`; hashed text the
compiled reader cannot take through the token streams, each term's bucket scikit-learn's
MurmurHash computed in numpy (:func:`nbayes.text._drivers.hash_counts.hash_rows`), so no
setting imports scikit-learn or scipy. Everything a model file can hold is served;
what only an in-memory TextClassifier can have (a ``preprocess`` function, a list of stop
words) is served by its own scorer, except :meth:`TextClassifier.analyze` with a list of stop
words, which keeps scikit-learn's analyzer for its consistency warning.

Examples
--------
>>> import os, tempfile
>>> from nbayes import TextClassifier, load_scorer, save
>>> clf = TextClassifier().fit(["free money now", "free prize", "lunch at noon",
...                             "see you at lunch"], ["spam", "spam", "ham", "ham"])
>>> path = os.path.join(tempfile.mkdtemp(), "spam.nbayes")
>>> save(clf, path)
>>> scorer = load_scorer(path)
>>> scorer.predict(["free lunch money"])
array(['spam'], dtype='<U4')
>>> bool((scorer.predict_proba(["free lunch"]) == clf.predict_proba(["free lunch"])).all())
True
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .._families import Family
from .._families._common import log_normalize
from .._families.fitted import FittedLikelihood, parameter_table
from .._statistics import CountStats
from .._template.posterior import PosteriorMixin
from ..display import ParameterTable
from ..explain import Explanation, explain_row
from . import _analyzer
from . import _model as M
from . import _routes as routes

__all__ = ["NO_TERM", "CountRows", "TextScorer", "keeps_no_term", "linear_form", "term_features"]

#: the refusals of a vocabulary that keeps no term, and the test of an error for them
#: (:mod:`nbayes.text._model`'s: a model too young to predict, not a broken one)
NO_TERM = M.NO_TERM
keeps_no_term = M.keeps_no_term

#: the likelihood family of each TextClassifier ``model`` (families are stateless)
FAMILIES: dict[str, Family] = M.FAMILIES


def _index_dtype(*sizes: int) -> Any:
    """The index dtype scipy gives a CSR matrix: int32 unless a size needs int64."""
    return np.int32 if max(sizes, default=0) <= np.iinfo(np.int32).max else np.int64


class CountRows:
    """Documents as counts over a model's columns: CSR pieces (numpy arrays, no scipy).

    ``indices`` are sorted within each row, as in the scipy matrix
    :meth:`TextClassifier.transform` returns (``scipy.sparse.csr_matrix((data, indices,
    indptr), shape)``). ``X @ W`` for a dense ``W`` of shape ``(n_columns, k)`` is the
    compiled :func:`~nbayes.text._drivers.sparse_dot.csr_dot`, equal to scipy's product bit for bit,
    so the likelihood families score these rows as they score scipy matrices.
    """

    __slots__ = ("indptr", "indices", "data", "shape")

    def __init__(
        self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, shape: tuple[int, int]
    ) -> None:
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.shape = (int(shape[0]), int(shape[1]))

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1]) if len(self.indptr) else 0

    def __matmul__(self, W: Any) -> np.ndarray:
        from ._drivers.sparse_dot import csr_dot

        return csr_dot(self, np.asarray(W))

    def toarray(self) -> np.ndarray:
        """The rows as a dense array."""
        out = np.zeros(self.shape, dtype=self.data.dtype)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.indices] = self.data
        return out


def _one_row(
    cols: np.ndarray, counts: np.ndarray, linear: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """The joint log-likelihood of one document with counts ``counts`` of the columns
    ``cols`` (ascending): the rows of W of its terms, added as a batch adds them (the
    same digits as the document scored among others)."""
    from ._drivers.sparse_dot import row_dot

    W, bias = linear
    return np.asarray(row_dot(cols, counts, W) + bias, dtype=np.float64)


def _sorted_rows(
    indptr: np.ndarray, indices: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``indices`` and ``values`` with every row's entries in column order (scipy's
    ``sort_indices``; the columns of a row are distinct)."""
    if len(indices) < 2:
        return indices, values
    starts = np.zeros(len(indices), dtype=bool)
    starts[indptr[1:-1][indptr[1:-1] < len(indices)]] = True
    if ((np.diff(indices) > 0) | starts[1:]).all():
        return indices, values
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    order = np.lexsort((indices, rows))
    return indices[order], values[order]


def linear_form(
    model: str, d: dict[str, Any], cols: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """(W, bias) with jll = counts @ W[cols] + bias, when the model is linear and finite;
    with ``cols``, W holds those columns only (documents using no other column): the
    family's :meth:`~nbayes._families.Family.linear_form`."""
    return FAMILIES[model].linear_form(d, cols)


class TextScorer(PosteriorMixin):
    """What predicting with a text model needs, derived from its statistics.

    Build one with :func:`nbayes.load_scorer` (from a model file) or :meth:`from_statistics`;
    a fitted :class:`~nbayes.text.TextClassifier` makes its own (and predicts through it).

    Parameters
    ----------
    params : mapping
        The TextClassifier hyperparameters (``get_params()``).
    selection : Selection
        The kept columns and their lookup (:func:`nbayes.text._model.select_columns`).
    d : dict
        The family's derivation from ``selection.inner_stats`` (log-probabilities).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : ndarray of shape (n_classes, n_columns)
        Log-probabilities (complement: weights) of the kept columns.
    feature_names : sequence of str
        The term (or ``"bucket j"``) of every kept column.
    model : str
        ``"multinomial"``, ``"bernoulli"`` or ``"complement"``.
    selection : Selection
        The kept columns and their lookup.
    fitted : FittedLikelihood
        The family, its derivation ``d``, the statistics of the kept columns, the
        derivation's hyperparameters and the kept terms: what explanations, parameter
        tables and plots read.
    """

    def __init__(
        self, params: Mapping[str, Any], selection: M.Selection, d: dict[str, Any]
    ) -> None:
        self.params: dict[str, Any] = dict(params)
        self.model: str = params["model"]
        self.family = FAMILIES[self.model]
        self.d = d
        self.selection = selection
        self.stats: CountStats = selection.inner_stats
        self.derivation = M.derivation_values(params)
        self.feature_names: Sequence[str] = selection.names
        # the analyzer: the counting settings, read once from the hyperparameters (the
        # attributes below are theirs, by the names the scorer always had)
        self.counting = counting = M.Counting.of(params)
        self.lowercase = counting.lowercase
        self.ngram_range = counting.ngram
        self.stop_words = counting.stop
        self.binary = counting.clip
        self.hashing = counting.hashing
        self.n_features = counting.n_features
        self.preprocess: Callable[[str], str] | None = counting.preprocess
        self._vocabulary: Any = selection.vocabulary
        self._lut: np.ndarray | None = selection.lut
        self._one_route = routes.one_document(self.ngram_range, self.stop_words)
        self._n_columns = len(selection.kept)
        lookup = None if self.hashing else selection.vocabulary
        self.fitted = FittedLikelihood(
            self.family, d, self.stats, self.derivation, self.feature_names, lookup
        )
        self._linear: tuple[np.ndarray, np.ndarray] | None = None
        self._linear_made = False
        self._pending: list[warnings.WarningMessage] = []

    @classmethod
    def from_statistics(
        cls, stats: M.TextStats, terms: Sequence[str] | None, params: Mapping[str, Any]
    ) -> TextScorer:
        """The scorer of a TextClassifier with hyperparameters ``params`` whose statistics
        are ``stats`` over the columns ``terms`` (None when hashing): the vocabulary
        selection and the family's derivation, as the estimator makes them."""
        M.check_params(_Params(params))
        selection = M.select_columns(
            stats, None if params["hashing"] else terms, min_df=params["min_df"],
            max_df=params["max_df"], max_features=params["max_features"],
            n_features=int(params["n_features"]),
        )  # fmt: skip
        family = FAMILIES[params["model"]]
        d = family.derive(selection.inner_stats, M.derivation_values(params))
        return cls(params, selection, d)

    # ---------------------------------------------------------------- attributes
    @property
    def classes_(self) -> np.ndarray:
        return self.stats.classes

    @property
    def class_count_(self) -> np.ndarray:
        """Documents (weights) learned per class."""
        return self.stats.class_count

    @property
    def class_log_prior_(self) -> np.ndarray:
        return self._class_log_prior()

    @property
    def feature_log_prob_(self) -> np.ndarray:
        return np.asarray(self.d["feature_log_prob"])

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """The TextClassifier hyperparameters it scores with (as the estimator's)."""
        return dict(self.params)

    def n_parameters(self, full_joint: bool = False, doc_length: int | None = None) -> float:
        """Free parameters of the model, or of the full joint model over the same terms
        (as :meth:`TextClassifier.n_parameters`)."""
        n = self.family.n_parameters(self.stats, full_joint, doc_length)
        return n if math.isinf(n) else int(n)

    def parameter_table(self, exact: bool = True) -> ParameterTable:
        """The estimated parameters, a row per kept term (as
        :meth:`TextClassifier.parameter_table`), without scikit-learn: what
        ``nbayes info --parameters`` prints."""
        return parameter_table(self.fitted, self._class_labels().tolist(), self.feature_names,
                               exact)  # fmt: skip

    def most_informative_features(self, n: int = 10) -> list[tuple[str, Any, float]]:
        """``(term, class, score)`` ranked by how strongly the term separates the classes
        (as :meth:`TextClassifier.most_informative_features`)."""
        scores, best = self.family.separation(self.d)
        order = np.argsort(-scores, kind="stable")[: max(int(n), 0)]
        names, labels = self.feature_names, self.classes_
        return [(names[j], labels[best[j]], float(scores[j])) for j in order]

    def most_informative_by_class(self, k: int = 10) -> dict[Any, list[tuple[str, float]]]:
        """Per class, its ``k`` terms of :meth:`most_informative_features`, as ``(term,
        score)``: a str made only for those (the packed terms are read by index)."""
        from .._families._common import ranked_by_class

        scores, best = self.family.separation(self.d)
        return ranked_by_class(scores, best, self.classes_.tolist(), self.feature_names, k)

    @property
    def n_columns(self) -> int:
        """Number of kept columns (terms or hash buckets)."""
        return self._n_columns

    @property
    def linear(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(W, bias)`` with ``jll = counts @ W + bias`` (W of shape (n_columns,
        n_classes), a row per term), made on first use; None for hashing models (whose
        weights are gathered for the buckets a batch uses) and Bernoulli models with
        infinite log-probabilities."""
        if not self._linear_made:
            self._linear = None if self.hashing else linear_form(self.model, self.d)
            self._linear_made = True
        return self._linear

    def _class_log_prior(self) -> np.ndarray:
        self._show_pending()
        return np.asarray(self.d["class_log_prior"], dtype=np.float64)

    def _show_pending(self) -> None:
        """The warnings of a derivation made while loading, shown on first use (as the
        estimator shows them when it derives)."""
        if self._pending:
            pending, self._pending = self._pending, []
            for w in pending:
                warnings.warn(w.message, stacklevel=3)

    # ------------------------------------------------------------------ counting
    def documents(self, X: Any) -> list[str]:
        """Validated documents, after the ``preprocess`` step."""
        return _analyzer.documents(X, self.preprocess)

    def analyze(self, text: str) -> list[str]:
        """The terms of one document in order (words, n-grams), as the model counts them."""
        doc = self.documents([text])[0]
        return _analyzer.terms(
            doc, lowercase=self.lowercase, ngram_range=self.ngram_range,
            stop_words=self.stop_words,
        )  # fmt: skip

    def _kernel_vocabulary(self) -> Any:
        """The vocabulary for the compiled lookup: a read-only mapping, so the table built
        for it is reused on identity (a plain dict is made read-only once)."""
        if type(self._vocabulary) is dict:
            from ._tokenize import FrozenVocabulary

            self._vocabulary = FrozenVocabulary(self._vocabulary)
        return self._vocabulary

    def count(self, docs: list[str]) -> CountRows:
        """The (already validated) documents as counts over the kept columns."""
        if self.hashing:
            return self._hashed(docs)
        from ._drivers.token_streams import count_rows

        vocabulary = self._kernel_vocabulary()
        indptr, indices, values = count_rows(
            docs, vocabulary, self.lowercase, self.ngram_range, self.stop_words,
            self.counting.tokens,
        )  # fmt: skip
        n_cols = len(vocabulary)
        idx = _index_dtype(int(indptr[-1]) if len(indptr) else 0, n_cols)
        indices, values = _sorted_rows(indptr, indices, values)
        # the dtypes of TextClassifier.transform: int64 counts, scipy's index dtype
        data = values.astype(np.intc, copy=False).astype(np.int64)
        if self.binary:
            data = np.ones_like(data)
        return CountRows(
            indptr.astype(idx, copy=False), indices.astype(idx, copy=False), data,
            (len(indptr) - 1, n_cols),
        )  # fmt: skip

    def _hashed(self, docs: list[str]) -> CountRows:
        from ._drivers.hash_counts import hash_rows

        indptr, indices, data = hash_rows(
            docs, n_features=self.n_features, lowercase=self.lowercase,
            ngram_range=self.ngram_range, stop_words=self.stop_words,
        )  # fmt: skip
        if self.binary:
            data = np.ones_like(data)
        assert self._lut is not None
        new_cols = self._lut[indices]
        keep = new_cols >= 0
        # the kept buckets are in increasing order: rows stay sorted
        indptr = np.concatenate([[0], np.cumsum(keep)])[indptr]
        idx = _index_dtype(int(indptr[-1]) if len(indptr) else 0, self._n_columns)
        return CountRows(
            indptr.astype(idx), new_cols[keep].astype(idx), data[keep],
            (len(indptr) - 1, self._n_columns),
        )  # fmt: skip

    # ------------------------------------------------------------------- scoring
    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log P(y) + log P(document | y) per document and class."""
        return self.score_documents(self.documents(X))

    joint_log_likelihood = predict_joint_log_proba

    def score_documents(
        self, docs: list[str], count: Callable[[list[str]], CountRows] | None = None
    ) -> np.ndarray:
        """Joint log-likelihoods of validated documents; ``count`` (default
        :meth:`count`) turns a batch into rows (the estimator's memo of held-out folds)."""
        self._show_pending()
        linear = self.linear
        if len(docs) == 1 and linear is not None:
            return self._one(docs[0], linear)[None, :]
        return self.score_rows((count or self.count)(docs))

    def score_rows(self, X: CountRows) -> np.ndarray:
        """Joint log-likelihoods of documents already counted (:meth:`count`)."""
        linear = self.linear
        if linear is not None:  # finite weights: one threaded product, no copy of W
            from ._drivers.sparse_dot import csr_dot

            W, bias = linear
            return csr_dot(X, W) + bias
        if self.hashing:  # the weights of the buckets these documents use, only
            present = np.zeros(X.shape[1], dtype=bool)
            present[X.indices] = True
            cols = np.flatnonzero(present)
            sub = linear_form(self.model, self.d, cols)
            if sub is not None:
                from ._drivers.sparse_dot import csr_dot

                pos = (np.cumsum(present) - 1)[X.indices]
                idx = _index_dtype(X.nnz, len(cols))
                Xs = CountRows(X.indptr, pos.astype(idx), X.data, (X.shape[0], len(cols)))
                return csr_dot(Xs, sub[0]) + sub[1]
        return self.family.joint_log_likelihood(self.d, X)

    def count_one(self, doc: str) -> tuple[np.ndarray, np.ndarray]:
        """One (validated) document of a vocabulary model: its known columns (sorted)
        and their counts, in pure Python, or through the compiled table of a fit's or a
        file's terms (unigrams)."""
        vocabulary = self._vocabulary
        got = None
        count_one = getattr(vocabulary, "count_one", None)  # a fit's TermColumns
        if count_one is not None:
            if self._one_route == routes.ONE_COMPILED:
                got = count_one(doc, self.lowercase, self.stop_words)  # no str, no dict
            if got is None:  # plain dict lookups (no extra call), or a few binary searches
                vocabulary = vocabulary.one_lookups()
            elif self.binary:
                got = (got[0], np.ones_like(got[1]))
        if got is None:
            got = _analyzer.transform_one(
                doc, vocabulary, lowercase=self.lowercase, binary=self.binary,
                ngram_range=self.ngram_range, stop_words=self.stop_words,
            )  # fmt: skip
        return got

    def _one(self, doc: str, linear: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The joint log-likelihood of one document: the rows of W of its terms."""
        return _one_row(*self.count_one(doc), linear)

    # ---------------------------------------------------------------- explaining
    def explain(self, text: str, exact: bool = False) -> Explanation:
        """Every word's evidence per class for one document (exact fractions optional).

        Only the words of the document that the model knows appear; for Bernoulli models
        the absent words count too.
        """
        _analyzer.check_one_text(text)
        self._show_pending()
        (doc,) = self.documents([text])
        if self.hashing:
            x = self.count([doc])
        else:
            cols, counts = self.count_one(doc)
            idx = _index_dtype(len(cols), self._n_columns)
            x = CountRows(
                np.array([0, len(cols)], dtype=idx), cols.astype(idx),
                counts.astype(np.int64), (1, self._n_columns),
            )  # fmt: skip
        names = self.feature_names
        # the document's score as predict([text]) gives it (with linear weights, the rows
        # of its terms: no pass over the whole table after the first call)
        linear = self.linear
        jll = self.score_rows(x)[0] if linear is None else _one_row(x.indices, x.data, linear)
        if self.family.presence or exact:
            values = np.zeros(x.shape[1], dtype=np.float64)
            values[x.indices] = x.data
            return explain_row(self.fitted, x, values, exact, jll=jll)
        # multinomial / complement: the columns the document uses only
        cols = np.asarray(x.indices, dtype=np.int64)
        values = np.asarray(x.data, dtype=np.float64)
        flp = self.d["feature_log_prob"][:, cols]
        with np.errstate(invalid="ignore"):
            terms = np.where(values > 0, values * flp, 0.0)
        log_post, _ = log_normalize(jll[None, :])
        return Explanation(
            classes=self.classes_,
            feature_names=[names[j] for j in cols],
            values=values,
            log_prior=np.asarray(self.d["class_log_prior"], dtype=np.float64),
            terms=terms,
            joint_log_likelihood=jll,
            log_posterior=log_post[0],
        )


class _Params:
    """TextClassifier's hyperparameters as attributes (for :func:`check_params`)."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.__dict__.update(params)


def term_features(model: Any, terms: list[str]) -> dict[str, str]:
    """Term -> the name of its feature in a text model's explanation (a TextScorer or a
    TextClassifier): itself, or for a hashing model, whose features are buckets, its
    bucket's (``bucket 746281``): a term counted alone gives its bucket; an n-gram's is the
    one its two (n-1)-grams do not give (``nbayes explain`` and a server's ``/explain``
    name the words' evidence so)."""
    if not getattr(model, "hashing", False):
        return {t: t for t in terms}
    if not terms:  # no words (an empty document): nothing to count (a vectorizer
        return {}  # refuses an empty batch)
    names = getattr(model, "feature_names", None)  # a TextScorer's; a TextClassifier's:
    if names is None:
        names = model.get_feature_names_out()
    words = [t.split(" ") for t in terms]
    docs = [" ".join(w) for w in words]
    for w in words:
        if len(w) > 1:
            docs += [" ".join(w[:-1]), " ".join(w[1:])]
    if hasattr(model, "count"):  # a TextScorer
        counted = model.count(model.documents(docs))
    else:  # a TextClassifier: the same columns
        counted = model.transform(docs)
    cols = {
        doc: set(counted.indices[counted.indptr[i] : counted.indptr[i + 1]].tolist())
        for i, doc in enumerate(docs)
    }
    out: dict[str, str] = {}
    for term, w in zip(terms, words, strict=True):
        own = cols[" ".join(w)]
        if len(w) > 1:
            own = own - cols[" ".join(w[:-1])] - cols[" ".join(w[1:])]
        if len(own) == 1:
            out[term] = str(names[next(iter(own))])
    return out
