"""Scale-out on Dask: fit on a cluster, with the result of a fit on one machine.

A model is its sufficient statistics, so a distributed fit is a map and a reduce:

* **map**: every partition is learned by a clone of the estimator (``fit``, or
  ``partial_fit`` where the partition is only part of a model), on a worker, with the
  estimator's own validation and counting code;
* **reduce**: the estimator's own ``merge``, in partition order, as a tree of
  ``split_every``-way merges (depth ``ceil(log_split_every(n_partitions))``).

Between tasks only models travel, pickled (a text model pickles compactly: its non-zero
counts and its terms; zlib is applied only where it pays, e.g. dense tables of zeros;
on a slow network set dask's ``distributed.comm.compression``). Any estimator with
``fit``, ``partial_fit`` and ``merge`` works: the six drop-ins, KernelNB, MixedNB,
TextClassifier. A TextClassifier's merge unites the partitions' sorted vocabularies in one
pass: the model holds the counts of a single fit, column for column.

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
from ._inputs import BlocksDisagreeError, PartitionError
from ._predict import predict, predict_log_proba, predict_proba
from ._read import QuotedLineBreakWarning, read
from ._table_rows import TableRows

__all__ = [
    "BlocksDisagreeError",
    "PartitionError",
    "QuotedLineBreakWarning",
    "TableRows",
    "fit",
    "fit_source",
    "predict",
    "predict_log_proba",
    "predict_proba",
    "read",
]
