"""The one estimator template: :class:`~nbayes._template.base.BaseNB` and what it is built of.

* :mod:`.base`: ``BaseNB``, the only implementation of fit, partial_fit, update, unlearn,
  merge, predict* and explain (a model supplies hooks);
* :mod:`.posterior`: predict, predict_proba, predict_log_proba, predict_top from joint
  log-likelihoods; :mod:`.reading`: sample, n_parameters, informative features,
  ``likelihood()`` (mixins of the template);
* :mod:`.array_api`: array-API inputs and outputs (GaussianNB);
* the foundations every estimator uses: :mod:`.params` (hyperparameters: constructors,
  rules, equality), :mod:`.validation` (input checks), :mod:`.guards` (all-or-nothing
  learning calls, overflow), :mod:`.sklearn_bases` (scikit-learn's bases, typed).
"""
