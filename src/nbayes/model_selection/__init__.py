"""Model selection by count subtraction: cross-validation and parameter sweeps without refitting.

A Naive Bayes model is its statistics, so the model trained on every fold but ``k`` is
"total minus fold ``k``", and a new ``alpha`` only re-derives log-probabilities from the same
statistics. :func:`cross_validate` and :class:`NBSearchCV` exploit both:

* **one counting pass per fold**: the statistics of each held-out fold are counted once and
  merged into the total; the training statistics of split ``k`` are
  ``total.subtract(fold_k)``, brought to the exact form ``fit`` gives on the training rows
  (same classes, same categories);
* **derivation parameters** (the estimator's ``_derivation_params``: ``alpha``,
  ``fit_prior``, ``class_prior``, ``force_alpha``, ``norm``, ``beta``, ``priors``,
  ``var_smoothing``) are swept by ``set_params`` on the same statistics, without touching the
  data; any other parameter (``binarize``, ``min_categories``) costs one counting pass per
  value;
* **scoring** uses scikit-learn's own scorers (and its error handling) on a fitted
  estimator whose statistics are the split's training statistics, so the scores are those
  of ``sklearn.model_selection.cross_validate`` / ``GridSearchCV`` on the same splits.

Any scikit-learn splitter works as ``cv`` (an int means ``StratifiedKFold``, as in
scikit-learn). Splitters whose held-out sets partition the rows (``KFold``,
``StratifiedKFold``, ``GroupKFold``, ``LeaveOneOut``, ...) cost one counting pass in all
(``LeaveOneOut`` and other splitters with more than 32 folds: one pass for the total and one
over the single rows, never stored at once); other splitters (``ShuffleSplit``,
``RepeatedKFold``) count, per split, the smaller of the held-out and the training rows.

Counting protocol (how an estimator plugs in)
---------------------------------------------
An estimator that defines ``_cv_counter()`` returns an object with:

``derivation_params`` : tuple of str
    Parameters swept by re-deriving from the same statistics.
``prepare(X, y, sample_weight) -> ndarray``
    Validate the whole data set once (for text: tokenize) and return the validated labels.
``count(rows) -> statistics``
    The statistics of these rows (indices into the prepared data); statistics only need
    ``merge`` and ``subtract``. A text estimator's statistics carry the fold's own
    vocabulary and document frequencies: ``merge`` unites vocabularies, ``subtract``
    removes counts.
``finish(stats, classes) -> statistics``
    Bring subtracted statistics ``total - held_out`` to the form ``fit`` on the training
    rows gives, whose labels are exactly ``classes`` (sorted): drop the classes and (for
    text) the terms the training rows do not have, so that a split's vocabulary is the
    words its training rows have seen and ``min_df``/``max_df`` apply to the training
    rows' document frequencies.
``use(stats, params) -> estimator``
    A fitted estimator with these statistics and parameters, derived (raise here what
    ``fit`` would raise for these parameters). Scorers call its ``predict`` /
    ``predict_proba`` on the raw held-out ``X``.

Every :class:`nbayes._template.base.BaseNB` estimator gets the default counter (statistics from its
``_batch_stats`` on rows validated once by ``_check_X_y``).

Modules
-------
``_counting``
    The protocol, its implementation for BaseNB, and each split's training statistics.
``_cross_validate``
    The engine that scores every setting on every split, and :func:`cross_validate`.
``_search``
    :class:`NBSearchCV`.
``_sklearn_private``
    The private scikit-learn API the two need (there is no public equivalent), isolated.
"""

from __future__ import annotations

from ._counting import Counter as Counter
from ._counting import _counter_for as _counter_for
from ._counting import _NBCounter as _NBCounter
from ._counting import _TrainingStatistics as _TrainingStatistics
from ._cross_validate import cross_validate
from ._search import NBSearchCV

__all__ = ["NBSearchCV", "cross_validate"]
