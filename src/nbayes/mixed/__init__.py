"""MixedNB: one Naive Bayes model over a table of numeric, categorical, boolean, count and
text columns.

Every column gets a likelihood family and its own statistics object, built only from the
rows where that column is present (so each column has its own class counts); one
:class:`~nbayes._statistics.CountStats` with no features holds the class counts of the prior
(:class:`MixedStats`). Each column is scored, sampled and ranked by its family
(:mod:`._columns`); fit, partial_fit, update, unlearn, explain and sample are
the template's (:class:`nbayes._template.base.BaseNB`); ``merge`` keeps checks of its own.

The parts: :mod:`._table` reads tables, infers families and builds sampled ones,
:mod:`._stats` holds the statistics (a text column's are those of a text model,
:class:`nbayes.text._textstats.TextStats`), :mod:`._columns` the per-column
families, :mod:`._estimator` the estimator.

Family inference (``columns=None`` or a column left out of ``columns``), on the first fit.
A later batch (``partial_fit``, ``update``) is learnt only if one fit of all the rows learnt
would give every inferred column the family it has (codes 0-5 first, then a 60: counts,
not codes), else refused with a :class:`~nbayes.exceptions.ColumnFamiliesError` and
nothing learnt; when a first batch cannot show a column's family, give it in ``columns``.
A batch without a value of a column says nothing of it. Saved models keep what the
families were inferred from (model file schema 3), so a loaded model checks alike.

==============================================  ==============================================
column                                           family
==============================================  ==============================================
bool (numpy, pandas ``boolean``, polars)         ``"bernoulli"``
float                                            ``"gaussian"`` (whole numbers too: pandas makes
                                                 int columns with gaps float; use ``Int64`` or
                                                 ``columns=``)
int, some value negative                         ``"gaussian"``
int >= 0, at most ``MAX_CODES`` = 10 values,     ``"categorical"`` (codes, ratings, levels)
   none above ``MAX_CODES``
int >= 0, other, largest <= ``MAX_COUNT`` = 100  ``"poisson"`` (counts; also a few values
                                                 spread wider, e.g. the ages of a small
                                                 table: as codes, an unseen age would get
                                                 the prior alone)
int >= 0, larger values                          ``"gaussian"``
category / enum                                  ``"categorical"``
strings whose median value has >= 3 words       ``"text"`` (a bag of words)
other strings                                    ``"categorical"``
==============================================  ==============================================

A text column is counted by nbayes.text's compiled counting as scikit-learn's
``CountVectorizer()`` counts (lowercased words of two or more characters); its statistics
are a text model's. For word n-grams, stop words or a ``preprocess`` recipe, register a text
kind of another name and give it in ``columns``::

    from nbayes.kinds import register_kind
    from nbayes.mixed._columns import TextKind
    register_kind(TextKind("review_text", ngram_range=(1, 2), stop_words="english"))
    MixedNB(columns={"review": "review_text"})

Any kind of the registry (:mod:`nbayes.kinds`) is a family ``columns`` may name.

Missing values (NaN, None, pandas NA, polars null) are skipped for their column when
fitting and marginalised out when predicting: the column contributes nothing to that row.
A class that never saw a value of a column uses the column's statistics pooled over all
classes (so the column hardly counts for or against it); an unseen category gets the
smoothed zero count ``alpha / (n + alpha·K)``.
"""

from __future__ import annotations

from ._estimator import (
    FAMILIES,
    MAX_CODES,
    MAX_COUNT,
    TEXT_MIN_WORDS,
    MixedFamily,
    MixedNB,
    MixedStats,
    TextStats,
    infer_family,
)

__all__ = [
    "FAMILIES",
    "MAX_CODES",
    "MAX_COUNT",
    "TEXT_MIN_WORDS",
    "MixedFamily",
    "MixedNB",
    "MixedStats",
    "TextStats",
    "infer_family",
]
