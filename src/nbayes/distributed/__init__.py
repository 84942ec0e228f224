"""Scale-out on Dask: fit on a cluster, with the result of a fit on one machine.

A model is its sufficient statistics, so a distributed fit is a map and a reduce:

* **map**: every partition is learned by a clone of the estimator (``fit``, or
  ``partial_fit`` where the partition is only part of a model), on a worker, with the
  estimator's own validation and counting code;
* **reduce**: the estimator's own ``merge``, in partition order, as a tree of
  ``split_every``-way merges (depth ``ceil(log_split_every(n_partitions))``).

Between tasks only models travel (pickled, compressed when large). Any estimator with
``fit``, ``partial_fit`` and ``merge`` works: the six drop-ins, KernelNB, MixedNB,
TextClassifier. A TextClassifier's merge unites the vocabularies in partition order: the
model holds the counts of a single fit, term by term.

Dask is imported on first use (``pip install 'nbayes[dask]'``)::

    import dask.dataframe as dd
    from nbayes import MultinomialNB
    from nbayes import distributed

    ddf = distributed.read("data/*.parquet")
    clf = distributed.fit(MultinomialNB(), ddf, label_col="label")
    labels = distributed.predict(clf, ddf.drop(columns="label")).compute()
"""

from __future__ import annotations

from ._fit import fit, fit_source
from ._inputs import PartitionError
from ._predict import predict, predict_log_proba, predict_proba
from ._read import read

__all__ = [
    "PartitionError",
    "fit",
    "fit_source",
    "predict",
    "predict_log_proba",
    "predict_proba",
    "read",
]
