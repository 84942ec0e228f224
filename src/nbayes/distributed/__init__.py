"""Scale-out on Dask: fit on a cluster, with the result of a fit on one machine.

A model is its sufficient statistics, so a distributed fit is a map and a reduce:

* **map**: every partition's statistics, computed on a worker by the estimator's own
  validation and counting code (``_batch`` on a clone, as ``fit`` does);
* **reduce**: ``merge``, as a tree of ``split_every``-way merges (depth
  ``ceil(log_split_every(n_partitions))``).

Only statistics cross the network: per class, counts (or moments) over the partition's
features; for a TextClassifier, the partition's own vocabulary (its terms) and per-class
counts over it, packed (sparse when smaller, int32 for whole counts). Vocabularies are
united in partition order, so the model equals a single pass over the data.

Dask is imported on first use (``pip install 'nbayes[dask]'``)::

    import dask.dataframe as dd
    from nbayes import MultinomialNB
    from nbayes import distributed

    ddf = distributed.read("data/*.parquet")
    clf = distributed.fit(MultinomialNB(), ddf, label_col="label")
    labels = distributed.predict(clf, ddf.drop(columns="label")).compute()

Estimators other than the built-in ones plug in with :func:`register` (an object
following the :class:`Adapter` protocol).
"""

from __future__ import annotations

from ._adapters import (
    Adapter,
    PackedArray,
    Part,
    Partial,
    PartitionError,
    TableAdapter,
    TextAdapter,
    get_adapter,
    register,
)
from ._dask import (
    fit,
    fit_source,
    predict,
    predict_log_proba,
    predict_proba,
    read,
    reduce_depth,
)

__all__ = [
    "Adapter",
    "PackedArray",
    "Part",
    "Partial",
    "PartitionError",
    "TableAdapter",
    "TextAdapter",
    "fit",
    "fit_source",
    "get_adapter",
    "predict",
    "predict_log_proba",
    "predict_proba",
    "read",
    "reduce_depth",
    "register",
]
