"""SemiSupervisedNB: Naive Bayes from labelled and unlabelled rows, by EM (Nigam et al. 2000).

The statistics of a Naive Bayes model are sums over its training rows, so a row whose class is
unknown can be counted *fractionally*: to every class ``c`` with the weight
``unlabeled_weight * P(c | x)`` the current model gives it (the E-step), and the model refitted
from the labelled counts plus these soft counts (the M-step) is the maximum a posteriori
estimate of the expected complete data. Each round can only raise the objective of Nigam,
McCallum, Thrun & Mitchell (2000, eq. 8 and 10 with EM-lambda)::

    l(theta) = log P(theta)                                       the smoothing prior
             + sum_labelled   w_i log P(y_i) P(x_i | y_i)          complete log-likelihood
             + sum_unlabelled lambda w_i log sum_c P(c) P(x_i | c)  marginal log-likelihood

and the iteration stops when it no longer rises by more than ``tol`` (relative). By default
the E-step is tempered and class-balanced (:mod:`._em`): an unlabelled row's weights are
``P(c | x)^(1/T)`` renormalised (a long document's posterior is nearly 0/1 at ``T = 1``) and
scaled class by class so that the unlabelled rows' weights follow the labelled rows' class
proportions (class mass normalisation); the objective is then the matching free energy,
which again never falls. The weight lambda, the temperature and the smoothing ``alpha`` are
chosen by cross-validation on the labelled rows (:mod:`._selection`), by the estimator's
kind whether it is passed or the default; EM that did worse than the labelled rows alone is
reported (:class:`EMWarning`). The result,
``estimator_``, is an ordinary fitted nbayes model of the estimator's type: it saves, loads,
explains, updates and merges like one fitted on labelled data.

How the soft counts are made, by the estimator's statistics (one place each, in
:mod:`._counts`: ``TextCounts``, ``MatrixCounts``, ``RowCounts``): a
:class:`~nbayes.TextClassifier` tokenizes every document once into a document x term matrix
over the vocabulary of all the documents (labelled and unlabelled), and each M-step forms the
per-class term counts as one product ``W^T D`` (``W``: rows x classes weights); the count
models of :mod:`nbayes.naive_bayes` (per-class feature sums) do the same with their validated
input; any other nbayes model (Gaussian, categorical, kernel, mixed) is refitted through its
own ``fit`` with every unlabelled row repeated once per class and the soft counts as
``sample_weight``, which its statistics take fractionally.

The modules: ``_estimator`` (the estimator: parameters, fit, prediction), ``_selection`` (the
settings chosen by cross-validation on the labelled rows), ``_em`` (the iteration and its
objective, the tempered and balanced E-step), ``_counts`` (the soft counts), ``_labels``
(which rows are unlabelled).

The models are read through their public API where it exists (``likelihood()`` for the family
and its parameters, ``set_params``, ``fit``, ``predict_joint_log_proba``); the private hooks of
the template still used (a test of tests/test_semi_supervised.py fails if one changes):
``_set_stats`` (install statistics: the M-step), for a TextClassifier ``_stats`` (the whole
TextStats of the corpus: ``counts``, ``vocabulary``, ``with_vocabulary``) and
``_scorer().selection.kept`` (the kept columns), for the count models ``_check_params``,
``_check_X_y``, ``_fitted_inputs``, ``_check_derivation`` and ``_joint_log_likelihood``
(validate the input once, score it without validating it again).
"""

from __future__ import annotations

from ._estimator import EMWarning, SemiSupervisedNB
from ._labels import unlabeled_mask

__all__ = ["EMWarning", "SemiSupervisedNB", "unlabeled_mask"]
