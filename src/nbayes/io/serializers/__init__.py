"""The model-file (de)serialisers of nbayes's estimators, one module per kind of model.

========================  ==================================================================
module                    model types
========================  ==================================================================
:mod:`.discrete`          BernoulliNB, ComplementNB, MultinomialNB, PoissonNB (counts)
:mod:`.gaussian`          GaussianNB (moments)
:mod:`.categorical`       CategoricalNB (category counts)
:mod:`.kernel`            KernelNB (stored points)
:mod:`.mixed`             MixedNB (one family of statistics per column)
:mod:`.text`              TextClassifier (term counts and vocabulary)
:mod:`.nbsvm`             NBSVM (its TextClassifier, nested, and the linear solution)
:mod:`.semi_supervised`   SemiSupervisedNB (saved as its fitted ``estimator_``)
========================  ==================================================================

Each module defines ``dump`` and ``load`` and the tuple ``SERIALIZERS`` of the
:class:`~nbayes.io._registry.Serializer` of its types; :data:`nbayes.io._registry.BUILTIN`
lists them all and imports a module only when a model of its kind is first saved or read
(each imports its estimator, and so scikit-learn). The parts the estimators' JSON shares
are in :mod:`._estimator`.
"""
